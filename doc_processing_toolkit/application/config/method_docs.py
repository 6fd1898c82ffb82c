"""The reference sections of the Agent's and AgentSession's methods (Args, Returns, Raises),
written once here and appended to each method's own summary by `document_methods`, so the
facades stay small. ``tests/unit/application/config/test_reference.py`` checks that every
public method documents each parameter.
"""

__all__ = [
    "AGENT_METHOD_SECTIONS",
    "FROM_CONFIG_DOC_SECTIONS",
    "FROM_CONFIG_STRING_DOC_SECTIONS",
    "RESUME_DOC_SECTIONS",
    "RUN_DOC_SECTIONS",
    "SESSION_DOC_SECTIONS",
    "SESSION_METHOD_SECTIONS",
    "STREAM_DOC_SECTIONS",
    "TO_JSON_DOC_SECTIONS",
    "add_sections",
    "document_methods",
]

_RUN_ARGS = """Args:
    message (str): The user message or task.
    files (list | None): Files sent with the message: a path (``str`` or
        ``pathlib.Path``), a URL or YouTube URL, raw ``bytes`` (type detected), or a dict
        (``{"type": "base64", "media_type": ..., "data": ...}`` or
        ``{"type": "document", "media_type": ..., "data": bytes}``). What each provider
        takes: images everywhere; PDF and text on Anthropic, OpenAI and Google; video and
        audio on Google. Default: None.
    tool_files (list | None): Files for the provider's code-execution tool (Anthropic,
        OpenAI, Google), uploaded through its Files API; filtered with a log line on
        Fireworks. Same formats as ``files``. Default: None.
    output_schema (type[BaseModel] | None): A pydantic model the answer must validate
        against; ``AgentResult.output`` is then the parsed dict. Default: None.
    media_resolution_list (list[str | None] | None): Per-media-part resolution on Google
        (``"MEDIA_RESOLUTION_LOW"`` ... ``"MEDIA_RESOLUTION_ULTRA_HIGH"``, None for the
        default), in the order of the media parts in ``files``; ignored elsewhere.
        Default: None.
    anthropic_container_id (str | None): An Anthropic code-execution container to reuse
        (``AgentResult.container_id`` of an earlier run); ignored with a debug log
        elsewhere. Default: None.
    evidence (bool): With ``output_schema``: ask for each leaf field's supporting quote
        and page, check every quote against the documents' text (its page ±1, rapidfuzz,
        ``evidence_threshold``) and fill ``AgentResult.evidence`` (by field path) and
        ``unverified_fields``; ``output`` stays the plain validated dict. Default: False.
    output_retries (int | None): This run's ``output_retries`` (None: the Agent's).
        Default: None.
"""

_RUN_RAISES = """Raises:
    ProviderError: The provider failed after the retries (``RateLimitError``,
        ``ServerError``, ``StreamInterruptedError``, ...); ``exc.partial_result`` is
        what the run had spent.
    StructuredOutputError: The answer did not validate against ``output_schema`` (after
        ``output_retries`` re-asks; ``exc.attempts`` holds each attempt's errors).
    InvalidInputError: A bad argument or file (named), before any request.
"""

RUN_DOC_SECTIONS = (
    _RUN_ARGS
    + "\nReturns:\n    AgentResult: The output, the history, tokens and costs.\n\n"
    + _RUN_RAISES
)
"""Args / Returns / Raises of ``Agent.run``, ``run_sync``, ``AgentSession.run`` and
``run_sync`` (they take the same arguments)."""

STREAM_DOC_SECTIONS = (
    _RUN_ARGS
    + """
Yields:
    AgentStreamEvent: ``text_delta``, ``thinking_delta``, ``tool_call_start``,
        ``tool_call_result``, ``iteration_complete`` ..., then exactly one ``complete``
        (its metadata carries the result); a failure is an ``error`` event before it.
"""
)
"""Args / Yields of ``Agent.stream`` (it never raises; failures are events)."""

SESSION_DOC_SECTIONS = """Args:
    session_id (str | None): The session's id; generated when None. With ``store``, an
        id the store already holds resumes that session. Default: None.
    session_history_config (dict | None): What the session keeps and sends of earlier
        turns (see ``AgentSession``); the Agent's own setting when None. Default: None.
    reuse_anthropic_container (bool): Reuse the first run's Anthropic code-execution
        container on every later turn; ignored with a warning elsewhere. Default: False.
    late_injection_policy (str): A hook message that arrived too late for a turn:
        ``"surface"`` parks it for the host, ``"new_turn"`` sends it as the next turn.
        Default: "surface".
    max_follow_up_turns (int): Automatic follow-up turns per call under ``"new_turn"``.
        Default: 1.
    store (SessionStore | None): Where every completed turn is appended (e.g.
        ``SqliteSessionStore``). Default: None.

Returns:
    AgentSession: The new (or resumed) session.

Raises:
    ValueError: A bad ``late_injection_policy`` or ``max_follow_up_turns`` (named).
"""
"""Args / Returns / Raises of ``Agent.session``."""

FROM_CONFIG_DOC_SECTIONS = """Args:
    config_path (str): The YAML file (``${ENV}`` and ``${ENV:-default}`` are expanded).
    **overrides: Constructor arguments that replace the file's values.

Returns:
    Agent: The configured Agent.

Raises:
    ConfigParseError: The YAML does not parse (with the file and line).
    ConfigValidationError: A value is invalid (naming its key path, e.g.
        ``tools[2].allowed_tools``); no Agent is built.
"""
"""Args / Returns / Raises of ``Agent.from_config``."""

FROM_CONFIG_STRING_DOC_SECTIONS = FROM_CONFIG_DOC_SECTIONS.replace(
    "config_path (str): The YAML file", "yaml_content (str): The YAML text"
).replace(" (with the file and line)", " (with the line)")
"""Args / Returns / Raises of ``Agent.from_config_string``."""

TO_JSON_DOC_SECTIONS = """Args:
    path (str | os.PathLike | None): Also write the envelope there, atomically (a
        temporary file, fsync, then a rename). Default: None.
    indent (int | None): JSON indentation; compact when None. Default: None.
    media (str | None): The media policy for this save (``"auto"``, ``"inline"``,
        ``"externalize"``, ``"strip"``); the Agent's ``media_policy`` when None.
        Default: None.
    media_store (MediaStore | None): Where ``"externalize"`` puts the bytes; the Agent's
        ``media_store`` when not given.
    media_max_inline_bytes (int | None): The largest media part kept inline; the
        Agent's when not given.

Raises:
    ValueError: An unknown ``media`` policy, or ``"externalize"`` with no store.

Returns:
    str: The version-3 envelope as JSON text.
"""
"""Args / Returns of ``AgentSession.to_json``."""


RESUME_DOC_SECTIONS = """Args:
    session_or_envelope: The AgentSession (resumed in place), its envelope (a dict, JSON
        text or bytes, or a file path), or the AgentResult of a plain run that ended
        ``awaiting_approval``.
    approvals (dict[str, Approval]): One `Approval` per pending call id.

Returns:
    AgentResult: The rest of the turn.

Raises:
    ApprovalError: The answers do not fit the waiting turn (see `AgentSession.resume`);
        nothing ran."""

AGENT_METHOD_SECTIONS = {
    "resume": RESUME_DOC_SECTIONS,
    "run": RUN_DOC_SECTIONS,
    "run_sync": RUN_DOC_SECTIONS,
    "stream": STREAM_DOC_SECTIONS,
    "session": SESSION_DOC_SECTIONS,
    "from_config": FROM_CONFIG_DOC_SECTIONS,
    "from_config_string": FROM_CONFIG_STRING_DOC_SECTIONS,
}
"""The sections each ``Agent`` method's docstring gets (`document_methods`)."""

SESSION_METHOD_SECTIONS = {
    "run": RUN_DOC_SECTIONS,
    "run_sync": RUN_DOC_SECTIONS,
    "stream": STREAM_DOC_SECTIONS,
    "to_json": TO_JSON_DOC_SECTIONS,
}
"""The sections each ``AgentSession`` method's docstring gets."""


def document_methods(cls: type, sections: dict[str, str]) -> None:
    """Append each method's Google-style ``sections`` to its docstring on ``cls``."""
    for name, text in sections.items():
        add_sections(getattr(cls, name), text)


def add_sections(function: object, sections: str) -> None:
    """Append the Google-style ``sections`` to ``function``'s own docstring (its summary
    stays in the source; the argument reference is written once, here)."""
    import inspect

    target = getattr(function, "__func__", function)
    summary = inspect.cleandoc(target.__doc__ or "")
    target.__doc__ = f"{summary}\n\n{sections}" if summary else sections
