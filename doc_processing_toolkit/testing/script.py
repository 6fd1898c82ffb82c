"""Scripted model behaviour shared by `FakeModel` and `ProviderEmulator`.

A script is a list of steps, consumed one per model request (a fault step consumes one
request too). The same steps drive the in-process fake and every wire dialect of the
loopback emulator, so a test can move from one to the other unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from doc_processing_toolkit.domain.grounding import Citation

__all__ = [
    "PREFIX_BINDING_MESSAGE",
    "FallbackHop",
    "Fault",
    "GeneratedFile",
    "Reply",
    "ScriptStep",
    "ThinkingBlock",
    "ToolCall",
    "prefix_binding_fault",
    "reply",
    "tool_call",
]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the scripted model makes."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    """The call id; generated (``toolu_...`` / ``call_...``) when None."""
    raw_arguments: str | None = None
    """The arguments text streamed verbatim instead of ``arguments`` (e.g. text that is not
    valid JSON). The Gemini dialect, whose ``args`` is an object on the wire, ignores it."""


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """Visible reasoning, optionally signed (Anthropic) or redacted."""

    text: str = ""
    signature: str | None = None
    redacted_data: str | None = None
    """When set, the block is ``redacted_thinking`` carrying this opaque data."""


@dataclass(frozen=True, slots=True)
class GeneratedFile:
    """A file the scripted model's code execution writes (downloadable through the
    provider's Files / container-files API of the emulator)."""

    filename: str
    data: bytes
    mime_type: str = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class FallbackHop:
    """A model that ran first and declined, before a server-side fallback served the reply
    (Anthropic: a ``fallback`` content block and a billed ``usage.iterations`` entry)."""

    model: str
    input_tokens: int = 10
    output_tokens: int = 5


@dataclass(frozen=True, slots=True)
class Reply:
    """One successful model response."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: tuple[ThinkingBlock, ...] = ()
    input_tokens: int = 10
    """Uncached input tokens as the wire reports them."""
    output_tokens: int = 5
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    """The 1-hour-TTL share of ``cache_write_tokens`` (Anthropic ``cache_creation``)."""
    reasoning_tokens: int = 0
    stop_reason: str | None = None
    """Override the stop reason (default: tool_use with tool calls, else end_turn)."""
    chunk_size: int = 8
    """Characters per text delta when streamed."""
    delay_between_chunks: float = 0.0
    """Seconds between streamed chunks (a slow stream)."""
    served_tier: str | None = None
    model: str | None = None
    """The served model name (defaults to the requested one)."""
    code_execution_files: tuple[GeneratedFile, ...] = ()
    """Files the provider's code execution writes during this reply (Anthropic:
    ``bash_code_execution_tool_result`` blocks with ``file_id``s; OpenAI: a
    ``code_interpreter_call`` item and ``container_file_citation`` annotations)."""
    container_id: str | None = None
    """The code-execution container the reply reports (default: the one the request asked
    to reuse, else a fresh ``container_...`` when code execution ran)."""
    think_tags: bool = False
    """Chat-completions dialect: stream ``thinking`` as ``<think>...</think>`` inside the
    content instead of ``reasoning_content`` deltas (as some Fireworks models do)."""
    fallback_from: tuple[FallbackHop, ...] = ()
    """Anthropic server-side fallback: the models that declined first, in order; ``model``
    is then the fallback model that served the reply (named by the last ``fallback``
    block, while ``message_start`` names the requested model)."""
    input_transformations: tuple[dict[str, Any], ...] = ()
    """Anthropic: entries the server reports in ``input_transformations`` (after the ones
    the emulator's own prefix check produced); sent only to a request carrying the
    thinking-binding beta, as the API does."""
    citations: tuple[Citation, ...] = ()
    """The reply's citations, as an adapter maps them (pages as the model numbered what it
    was sent): `FakeModel` returns them on its response; the emulator's Anthropic wire
    streams each one's ``raw`` dict as a ``citations_delta`` on the reply's text block."""


@dataclass(frozen=True, slots=True)
class Fault:
    """A failure of one request.

    kinds:
        ``status``: an HTTP error status before any byte streams (``status``,
        ``retry_after``, ``retry_after_ms``, ``error_type``, ``message``).
        ``stream_error``: a 200 stream that starts, sends ``partial_text`` and then an
        ``error`` event (Anthropic's ``overloaded_error``).
        ``disconnect``: a 200 stream cut after ``partial_text``.
        ``malformed``: a 200 stream whose next line after ``partial_text`` is not JSON.
        ``stall``: a 200 stream that goes quiet after ``partial_text`` for
        ``stall_seconds``, sending only keep-alives (pings / SSE comments / blank lines,
        per dialect) every ``keepalive_interval`` seconds (None: nothing), then is cut.
        ``truncate``: a 200 stream that ends cleanly after ``partial_text`` with no
        terminal event.
    """

    kind: Literal["status", "stream_error", "disconnect", "malformed", "stall", "truncate"] = (
        "status"
    )
    status: int = 500
    retry_after: float | None = None
    retry_after_ms: int | None = None
    error_type: str | None = None
    message: str = "scripted fault"
    partial_text: str = ""
    input_tokens: int = 10
    """Usage reported at stream start before a mid-stream fault (FakeModel: 0 reports no
    usage at all, as OpenAI's Responses stream does before its final event)."""
    stall_seconds: float = 0.0
    """How long a ``stall`` lasts before the connection is cut."""
    keepalive_interval: float | None = None
    """Seconds between keep-alives during a ``stall`` (None: silence)."""


ScriptStep: TypeAlias = Reply | Fault


PREFIX_BINDING_MESSAGE = (
    "{path}: Invalid `signature` in `thinking` block. The block is bound to a different "
    "conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` "
    'to "drop_block". That setting requires the `thinking-binding-controls-2026-08-01` value '
    "in the `anthropic-beta` header. The first change is in {changed}."
)
"""The Anthropic 400 refusing a replayed thinking block whose conversation prefix moved."""


def prefix_binding_fault(path: str = "messages.1.content.0", changed: str = "messages.0") -> Fault:
    """Anthropic's prefix-binding 400 (``invalid_request_error``) for the block at ``path``."""
    return Fault(
        status=400,
        error_type="invalid_request_error",
        message=PREFIX_BINDING_MESSAGE.format(path=path, changed=changed),
    )


def reply(text: str = "", **kwargs: Any) -> Reply:
    """Shorthand for `Reply`."""
    return Reply(text=text, **kwargs)


def tool_call(name: str, arguments: dict[str, Any] | None = None, id: str | None = None) -> Reply:
    """A reply that makes one tool call."""
    return Reply(tool_calls=(ToolCall(name=name, arguments=arguments or {}, id=id),))
