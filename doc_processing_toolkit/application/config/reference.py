"""The Agent constructor's reference text, generated from the API reference's parameter table.

Kept apart from ``application/agent.py`` so the facade stays small; the Agent assigns it as
``Agent.__init__.__doc__`` (what ``help(Agent)`` shows).
``tests/unit/application/config/test_reference.py`` checks it against the signature and,
where ``../shared/spec`` is present, against the spec.
"""

import re
import textwrap
from collections.abc import Iterable

__all__ = [
    "AGENT_INIT_DOC",
    "with_setting_entries",
]

AGENT_INIT_DOC = """Initialize an Agent.

The model's provider is detected from the registry; every argument is validated here,
and an option the provider cannot take fails now, before any request is sent.

Args:
    model (str): Model name (e.g., "claude-sonnet-4-5", "gpt-4o", "gemini-2.5-flash",
        etc.) Default: required.
    instructions (str): System prompt/instructions. Default: ''.
    tools (Optional[List[Any]]): List of tools in any supported format. The Agent
        accepts 9 tool formats (including directory paths): @tool decorated functions —
        Direct Python callables decorated with @tool from doc_processing_toolkit. File path
        strings — Paths to .py files containing @tool decorated functions. The agent
        dynamically imports them. Directory paths — String paths to directories. All .py
        files in the directory are scanned for @tool functions which are imported
        dynamically. FastMCP server objects — In-process MCP servers created with
        FastMCP("name"). Tools are discovered from the server. MCP script path dicts —
        {"type": "mcp_script", "path": "/path/to/server.py", "name": "server-name"}.
        Launches a local MCP server from a Python script. MCP command dicts — {"type":
        "mcp_command", "command": "npx", "args": ["-y", "@mcp/server"], "name":
        "server-name"}. Launches a local MCP server via a shell command (npx, uvx, etc.).
        Remote MCP URL dicts — {"type": "mcp", "server_url": "https://...",
        "authorization_token": "...", "name": "server-name"}. The provider connects to the
        remote MCP server (Anthropic, OpenAI and Fireworks only; tool calls never pass
        through this process). Pre-built session dicts — {"session": ClientSession, "name":
        "server-name"}. Uses an already-established MCP ClientSession. Client-side remote
        MCP dicts — {"type": "mcp_remote_client", "url": "https://.../mcp",
        "authorization_token": "...", "name": "server-name"}. This process connects over
        Streamable HTTP (or "transport": "sse") and executes the remote tools like local
        ones, so they work on every provider (including Google), take the function-calling
        path (compatible with output_schema), and are visible to hooks and tools_used.
        Optional keys: headers, auth (an httpx.Auth, e.g. an OAuth provider), timeout,
        sse_read_timeout, allowed_tools. The session is opened once per event loop and
        reused until `close`. Default: None.
    api_key (Optional[str]): Optional API key override for this Agent's provider. When
        supplied, this key is used instead of the provider's environment variable
        (ANTHROPIC_API_KEY, OPENAI_API_KEY, GOOGLE_GEMINI_API_KEY, FIREWORKS_API_KEY) and
        the Agent constructs its own client, bypassing the shared process-level client cache
        — per-key clients are never shared between Agents, and this Agent's close() closes
        them. Without it, clients come from the shared cache and are left open by close().
        Default: None.
    max_iterations (int): Maximum tool calling iterations (default: 10). Default: 10.
    max_tokens (Optional[int]): Maximum output tokens per response. Default: None.
    temperature (Optional[float]): Sampling temperature (0.0 to 2.0). Default: None.
    thinking (Optional[Dict[str, Any]]): Thinking/reasoning configuration dict. Format
        varies by provider: Anthropic: {"budget_tokens": int, "interleaved": bool} or
        {"type": "adaptive"} for models supporting adaptive thinking. {"type": "disabled"}
        (or {"type": "between_tools"}, the same request) turns thinking off; what is sent
        comes from the model's registry row (thinking_off_type, thinking_off_max_effort),
        and a model that cannot turn thinking off runs adaptive with a warning. OpenAI:
        {"effort": "low"|"medium"|"high"|"xhigh", "summary": "auto"|"detailed"}. GPT-5.6
        models additionally accept "mode": "standard"|"pro" — pro mode requires effort of at
        least "medium" (allowed values are registry-driven via supported_reasoning_modes /
        supported_reasoning_values_pro_mode in model_information.json; an unsupported effort
        in pro mode is dropped so the API default applies). Google: {"budget_tokens": int}
        or {"level": "minimal"|"low"|"medium"|"high"} Fireworks: {"effort":
        "low"|"medium"|"high"} Default: None.
    built_in_tools (Optional[Dict[str, Any]]): Built-in tool configuration dict. Keys:
        "web_search": BuiltInToolConfig(enabled=True, config={"max_uses": 10})
        "code_execution": BuiltInToolConfig(enabled=True) "code_execution" with container
        reuse (Anthropic only): BuiltInToolConfig(enabled=True, config={"container_id":
        "<prior_id>"}) reuses an existing Anthropic code execution container so uploaded
        files and REPL state persist across runs (up to 30 days). Supported by: Anthropic,
        OpenAI, Google (not Fireworks). Default: None.
    strict_tools (bool): Enable strict schema validation (default: True). Anthropic
        only. Each request stays within Anthropic's per-request strict limits (20 strict
        tools, 24 optional properties, 16 union-typed parameters); a tool that does not fit
        is sent without strict mode, with one WARNING (DPT_ANTHROPIC_STRICT_BUDGET=off
        restores the per-tool check). Default: True.
    auto_inject_memory_instructions (bool): Auto-detect memory tools and inject memory
        instructions into the system prompt (default: True). Default: True.
    auto_inject_skills (bool): Detect a skills MCP server — one exposing list_skills and
        load_skill (the doc-processing-std-tools contract, 0.2+; the server's name does not
        matter) — call list_skills and inject the catalog (name, description, path) into the
        system prompt as <available_skills> (default: True). On an empty catalog the
        activation tools load_skill, load_skill_resource and execute_skill_script are hidden
        from the model. Skipped — no call, no injection, no hidden tools, one INFO line per
        run — while the agent's instructions already carry an <available_skills> block (an
        app that builds its own catalog). A failed or malformed list_skills reply leaves the
        activation tools advertised and logs one WARNING naming the server. Default: True.
    compaction (bool): Enable provider-agnostic context compaction (default: False).
        When True, the toolkit monitors conversation length and automatically compresses
        history when it approaches the model's context window limit. Default: False.
    compaction_config (Optional[Dict[str, Any]]): Configuration dict for compaction
        behaviour. Keys include: strategy (str): "summarize", "sliding_window",
        "tool_result_clearing", or "combined" (default "summarize"). trigger_threshold
        (float|int): Float 0.0–1.0 for percentage of context window, or int for absolute
        token count (default 0.8). keep_recent_messages (int): Messages to preserve verbatim
        in sliding_window/combined (default 5). keep_recent_tool_results (int): Tool results
        to keep in tool_result_clearing/combined (default 3). min_messages_before_compaction
        (int): Minimum messages before compaction can trigger (default 4). summary_model
        (str|None): Model for summarization (defaults to agent's model). summary_prompt
        (str|None): Inline custom summarization prompt. summary_prompt_file (str|None): File
        path to custom summarization prompt. archive_history (bool): Archive the original
        conversation before compacting (default True). archive_dir (str): Directory for
        archive files (default "./compaction_archives"). Ignored when archive_sink is set.
        archive_sink (Callable|None): Receives the archived conversation instead of a local
        file, for a host whose filesystem is ephemeral (default None). Called with the
        sanitised, JSON-serialisable message list; a string it returns is used wherever the
        file path would have been. An exception from it is logged at WARNING and never fails
        the run. Python only — a callable has no YAML spelling.
        include_archive_path_in_summary (bool): Include the archive's path (or the sink's
        locator) in summary output (default True). clear_tool_inputs (bool): Also clear tool
        call parameters (default False). combined_order (list[str]): Order of strategies for
        combined (default ["tool_result_clearing", "sliding_window", "summarize"]).
        max_compactions_per_session (int|None): Limit on compaction count (default None).
        summary_max_tokens (int): Maximum output tokens for the summarization LLM call
        (default 4096). Must be a positive integer and should not exceed the model's
        max_output_tokens_request. sliding_window_include_truncation_notice (bool): When
        True, the sliding_window strategy prepends a synthetic user message informing the
        model that earlier context was truncated. This helps the model understand that it
        may be missing prior conversation context. Defaults to True. Default: None.
    session_history_config (Optional[Dict[str, Any]]): Default session history
        configuration dict. Applied to all sessions created via agent.session() unless
        overridden per-session. Supported keys: mode (str): History filtering mode — "full",
        "messages_only", "no_tool_results", "no_reasoning", "compact_tool_results", or
        "text_summary" (default "full"). include_system_prompt (bool): Include system prompt
        in history (default True). compact_tool_results_max_chars (int): Max chars per tool
        result when mode="compact_tool_results" (default 500). Default: None.
    logger (Optional[Logger]): Optional pre-configured Logger instance. If provided,
        used as-is; otherwise one is created via _setup_logger. Default: None.
    log_level (str): Logging level (DEBUG, INFO, WARNING, ERROR, CRITICAL, NOTSET). Will
        be overwritten by the AGENT_LOG_LEVEL environment variable if set. Default: 'DEBUG'.
    log_file (Optional[str]): Optional log file path. If not provided, defaults to
        ./logs/Agent-{model}_{timestamp}.log. Default: None.
    log_to_file (bool): Write the log file (default True). False — or the
        DPT_AGENT_LOG_TO_FILE=0 environment variable — makes the logger built when logger is
        None console-only: no file is opened, ./logs/ is not created, and log_file is
        ignored with a WARNING. Has no effect when logger is supplied. Default: True.
    tool_choice (str): Tool selection strategy: "auto", "required", "none", "any",
        "validated", or a specific tool name. Default: "auto" (Google default is
        "validated"). Default: 'auto'.
    code_execution_output_dir (Optional[str]): Output directory for the files a
        provider's code execution writes. None (the default) creates a fresh
        ./<provider>_code_execution_files_<timestamp>_<random>/ for each run that produces
        files (0.5.3; before, the timestamp alone, so two runs in one second shared a
        folder). An explicit directory is shared across runs by design, and a file an
        earlier run left there is overwritten as before. A name the run itself already wrote
        is written as name (2).ext and the record in downloaded_files carries the name
        written; AgentResult.files_created lists the paths written. Claude downloads on both
        of its paths since 0.5.3; until then the tool-calling path (local tools present)
        downloaded only when this directory or skills was set. Default: None.
    service_tier (Optional[str]): Requested service tier, e.g. "priority". On OpenAI
        this maps to Fast mode (2x token pricing, higher tokens/sec and priority handling);
        on Google to priority inference (1.8x pricing, non-sheddable processing). "flex"
        (half price, slower) and, on gpt-6-astra only, "ultrafast" (6x Standard, about three
        times Fast's output speed) are requested the same way. Ignored with a log line for
        providers/models without a matching service_tiers pricing row in
        model_information.json (the tier vocabulary is data-driven). Billing always follows
        the tier that actually SERVED each request: a request served at another tier is
        billed at the tier that ran and sets AgentResult.tier_downgraded. Default: None.
    hooks (Optional[Any]): Optional hooks object or callable for real-time steering (see
        `doc_processing_toolkit.agent.hooks`). Awaited at run/iteration boundaries and
        around every tool call; may veto tool calls (skip_tool), inject user-role messages
        at turn boundaries (inject_message), pause (resume via agent.run_handle.resume()),
        or abort (raises AgentAborted). Coexists with stream_callback: the callback is a
        passive tap, hooks are the control channel. Text/thinking deltas are not routed to
        hooks (use the callback for those) — awaiting a hook per token would stall
        streaming. Default: None.
    emit_request_start (bool): Emit a request_start event immediately before every
        ACTUAL provider send — the first request, each tool-loop iteration, each max_tokens
        / truncation / empty-turn re-request, each pause_turn continuation and each
        compaction summarisation call (B10). Default False, so a consumer that enumerates
        event types sees exactly the events earlier releases produced. When True the event
        goes to stream_callback on both public paths and, on the tool-calling path, to hooks
        as well — where it is OBSERVATION-ONLY: a directive other than continue is ignored
        with a WARNING, because a send point has no pending tool call to veto and no legal
        place to insert a message. metadata carries request_index (1-based, monotonic across
        the whole run), iteration, attempt (the tenacity attempt number), purpose, model and
        provider. run_start is unchanged and still fires once per run. Default: False.
    max_tool_result_chars (Optional[int]): Character cap on each tool result fed back to
        the model. None (the default) derives it from the registry: context_window_tokens *
        4 * 0.25 — a quarter of the window at four characters per token, i.e. 200,000
        characters on a 200k-token model and 1,000,000 on a 1M-token model
        (utils.TOOL_RESULT_CAP_CONTEXT_FRACTION / utils.TOOL_RESULT_CAP_CHARS_PER_TOKEN). A
        longer result is cut and ends with … [truncated: N of M characters shown; raise
        max_tool_result_chars to keep more], with one WARNING. Applies identically on all
        four providers to every result the toolkit executes (@tool functions and every
        client-side MCP format, mcp_remote_client included); results of provider-executed
        remote MCP servers never pass through the toolkit and are not capped. 0 turns the
        cap off (the kill switch — the previous behaviour), as does any value larger than a
        result can be. The raw result in hooks and stream_callback events is untouched.
        Default: None.
    tool_result_preview_chars (int): How much of each tool result the tool_call_result
        stream and hook events carry: the client's copy, which is independent of the model's
        copy that max_tool_result_chars cuts, so it never changes what the model is sent.
        500 (the default) is the preview the events always carried. 0 carries the whole
        result, and adds result_data: the result as JSON data (a tool that returned a dict
        gives the dict; other MCP results give their content items, JSON text decoded; see
        utils.tool_result_data). Every event also carries result_truncated, so a client
        knows whether it holds everything. Keep the default where events are logged or
        stored: one result can be megabytes (DEBUG_AGENT_STREAMING mirrors every event into
        the log). Default: DEFAULT_TOOL_RESULT_PREVIEW_CHARS.
    truncated_result_read_chars (Optional[int]): How many more characters of a truncated
        tool result the model may read back, per result, beyond what it was first shown.
        None (the default) or 0 turns it off, and nothing changes. When set, the built-in
        read_truncated_result(tool_call_id, offset) tool is on the tool list from the first
        request of every run with client-side tools, and the marker on a result
        max_tool_result_chars cuts becomes … [truncated: N of M characters shown. Call
        read_truncated_result(tool_call_id="…", offset=N) to read up to K more.]. Each call
        returns the next slice, at most max_tool_result_chars long, ending with where to
        continue; every character returned counts against the allowance, and past it the
        tool answers with a short refusal. Truncated results are kept in full in memory for
        the run, or for an AgentSession's lifetime, and are never exported with a session.
        Has no effect with max_tool_result_chars=0 (nothing is cut) or a forcing tool_choice
        (the run ends after one tool round), and is not offered when a loaded tool is
        already named read_truncated_result (one WARNING for each). Default: None.
    prompt_caching (Optional[Any]): Opt-in Anthropic prompt caching. True or a dict
        {"ttl": "5m" | "1h"}. Places cache_control breakpoints on the system block (caching
        tools + system together) and on the most recent turn so each tool roundtrip reads
        the prior prefix from cache (reads bill at 0.1x input, writes at 1.25x for 5m / 2x
        for 1h — tracked via cached_input_tokens / cache_write_tokens). Prefixes below the
        model's minimum cacheable length (cache_min_prompt_tokens in the registry) are
        simply not cached by the API. Ignored for non-Anthropic providers
        (OpenAI/Google/Fireworks cache automatically server-side). Default: None.
    anthropic_block_binding (Optional[str]): How the API should treat a replayed
        thinking block whose conversation prefix no longer matches. "drop_block" has the
        server drop the stale blocks and report them in
        `AgentResult.input_transformations`; "error" fails the request; "off" sends
        nothing. None (the default) defers to DPT_ANTHROPIC_BLOCK_BINDING and then to the
        model's registry row. Four rows carry the registry flag (claude-fable-5-1,
        claude-opus-5-5, claude-sonnet-5-5, claude-haiku-5-5) and send "drop_block" plus the
        beta on every thinking request by default; on any other extended-thinking row
        "drop_block" is the opt-in that makes a model-binding drop (history produced by a
        model the serving one cannot read) visible in
        `AgentResult.model_binding_mismatches`. This setting has no effect on that drop
        itself: an unreadable block is always dropped. A caller-supplied
        thinking={"block_binding": ...} always wins. Anthropic-only. Default: None.
    strict_prefix_binding (bool): Sugar for anthropic_block_binding="error". Turn it on
        in CI so a history edit, an MCP server whose tool list moved, or a rebuilt
        instructions string fails loudly in test while production stays tolerant. Also makes
        a mid-session tool-surface change fatal rather than frozen. Anthropic-only (default:
        False). Default: False.
    prefix_audit (bool): Shadow mode. Fingerprints system, tools and every message
        before each Anthropic request and logs a WARNING naming what changed since the
        previous request — without altering a single request byte, on every model, with no
        beta header. The only mechanism that catches MCP tool-list drift at a client site.
        Also enabled process-wide by DPT_PREFIX_AUDIT (default: False). Default: False.
    prefix_strip_fallback (bool): For a client that cannot send the binding beta header.
        Strips all thinking and redacted_thinking blocks from the replayed history once per
        run, at the completed-turn boundary before the first request. The model loses that
        reasoning; the request never carries a stale binding. Anthropic-only (default:
        False). Default: False.
    remove_citations (bool): Remove citation markers from output (default: False).
        Default: False.
    output_retries (int): When a structured answer (``output_schema``) fails validation,
        send the validation errors back (field path and message) and ask again, up to this
        many times in the same run; each re-ask is its own request with purpose
        "output_retry" (in result.cost and request_cost_records). After the last failure
        StructuredOutputError is raised, its ``attempts`` holding every attempt's errors.
        With ``evidence=True`` a value missing from its own quote is re-asked the same
        way. A run may override it (``run(output_retries=...)``). Default: 0.
    evidence_threshold (float): The rapidfuzz score (0-100) at or above which an
        evidence quote counts as found on its page (``run(evidence=True)``). Default: 85.0.
    citations (bool): Ask for document citations where the provider needs a request flag
        (Anthropic document blocks get ``citations: {"enabled": true}``; a provider that
        cannot cite documents logs one WARNING per run that sends documents), and emit a
        ``citation`` stream event per citation. ``AgentResult.citations`` is filled on
        every provider either way. Default: False.
    on_unsupported_part (str): What to do with a prompt part the model cannot accept —
        an image sent to a text-only model, a video sent to a model without video input, a
        PDF sent to Fireworks (B12). "drop" (default): today's behaviour — log a warning and
        send the request without the part. "raise": refuse the run with UnsupportedPartError
        before any request is sent, so a confident answer about a document the model never
        received is impossible. Either way every dropped part is listed on
        AgentResult.dropped_parts. "convert": send what the model can read instead — an
        Office/HTML file as Markdown (MarkItDown, the documents extra), a PDF as its text
        layer with scanned pages read by OCR (the ocr extra) or sent as page images to a
        model that takes images; each conversion is listed on AgentResult.converted_parts,
        and a part that cannot be converted is dropped (and listed). Default: 'drop'.
    media_policy (str): How this agent's sessions write media when saved (to_dict /
        to_json; session-portability P2): "auto" (default) externalises when a media_store
        is configured and keeps media inline otherwise; "inline" writes every part exactly
        as stored; "externalize" hands every inline payload to the store and leaves a
        $media:<ref> marker; "strip" replaces every payload by a text placeholder. A
        per-call media= overrides it. Default: 'auto'.
    media_store (Any): Where externalised bytes live — a directory path (a
        DirectoryMediaStore) or any object with put(sha256, mime_type, data) -> ref and
        get(ref) -> bytes. Inherited by every session of this agent; also the store a
        restore reads from unless from_dict / from_json are given one. Default: None.
    media_max_inline_bytes (Optional[int]): Per-part cap (8 MiB by default) on the bytes
        of a Google Files API upload that a session keeps beside the stored file_uri when no
        store is configured, so a restore after the 48-hour expiry can re-upload. Above the
        cap the bytes are not kept (a WARNING and a media_report entry); None lifts the cap.
        Inline parts on the other providers are never removed by the cap. Default:
        DEFAULT_MEDIA_MAX_INLINE_BYTES.
    estimate_input_tokens (Any): How the pre-flight input-token estimate is produced.
        The estimate seeds _estimated_input_tokens, which only the stream-failure cost
        record reads (B14). "lazy" (the default): a purely local approximation — no API call
        and, on Google, no Files API upload. Before this, every run uploaded each media part
        to count it and deleted it again, so a request with one image uploaded the same
        bytes twice (measured 4-5 s of that on the event loop per turn). True: the previous
        behaviour verbatim — the provider's own token-counting API, including that upload.
        False: no estimate at all (0), as the previous behaviour already did whenever the
        count raised. Default: 'lazy'.
    defer_tools (Optional[Any]): Which client tools to hide behind the provider's native
        tool-search tool (C4), so a large tool surface stops consuming the cached prompt
        prefix. Either a set of tool names, or a predicate called as predicate(tool_name,
        server_name) where server_name is the MCP server the tool came from (None for a tool
        with no server). Requires built_in_tools={"tool_search":
        BuiltInToolConfig(enabled=True)} on a model whose registry row lists tool_search —
        Anthropic and OpenAI only. Nothing here can make a tool unreachable: if tool search
        is not enabled, or the provider has no native tool search (Google, Fireworks), every
        tool loads eagerly and one warning names why. The tools actually deferred are listed
        on AgentResult.deferred_tools. Example: agent = Agent( model="claude-haiku-4-5",
        tools=[big_mcp_server], built_in_tools={"tool_search":
        BuiltInToolConfig(enabled=True)}, defer_tools=lambda name, server: server ==
        "catalog", ) Default: None.
    detailed_costs (bool): Enable detailed cost tracking with per-iteration metrics.
        Default: False.
    cost_output_dir (Optional[str]): Directory for cost reports. Defaults to
        agent_costs. When detailed_costs=True, reports are saved as JSON files. Default:
        None.
    **provider_kwargs (Any): Provider-specific parameters passed directly to provider
        functions. A keyword this provider's entry points do not accept, or one the Agent
        supplies itself (system_prompt, client, logger and similar), is still passed through
        but logs one WARNING at construction naming it (with the Agent parameter to use
        instead where there is one, e.g. instructions= for system_prompt=). Supported
        parameters by provider: Anthropic: - effort_config (str): Computational effort —
        "low", "medium", "high", or "max" (Opus 4.6 only). - skills: Agent Skills for
        document tasks — "xlsx", "pptx", "docx", "pdf" or custom skill file paths. Supported
        formats: - Built-in skill name (str): "xlsx", "pptx", "docx", or "pdf" - Multiple
        built-in skills (List[str]): ["xlsx", "pptx"] - Custom skill directory path (str):
        "/path/to/custom_skill/" (must contain SKILL.md) - Mixed skills (List):
        ["/path/to/skill/", "xlsx", "/path/to/skill2/"] - Advanced dict format: {"type":
        "anthropic", "skill_id": "xlsx", "version": "20251013"} - max_pause_turn_iterations
        (int): Max iterations for pause_turn stop reason (default: 10). OpenAI: -
        verbosity_config (str): Output verbosity — "low", "medium", "high". -
        parallel_tool_calls (bool): Allow parallel tool calls (default: True). -
        image_detail (str): Image detail level applied uniformly to all images in the
        request (not per-image) — "low", "high", "auto", or "original" (gpt-5.4+ only). -
        ``openai_transport`` (str): ``"http"`` (the default) or ``"websocket"`` (0.5.2).
        ``"websocket"`` sends the requests of a run with local tools over one WebSocket to
        the Responses API, with the same results, billing and retries as HTTP. Unset,
        ``DPT_OPENAI_TRANSPORT`` is the process default. An unrecognised value is ignored
        with one warning, and a run with no local tools stays on HTTP. Google: -
        ``video_metadata`` (dict): Video preprocessing config — {"start_offset": str,
        "end_offset": str, "fps": float}. - ``media_resolution`` (str): Global media
        resolution setting. Supported values (model-dependent): -
        "MEDIA_RESOLUTION_UNSPECIFIED": Default setting (varies by model) -
        "MEDIA_RESOLUTION_LOW": Lower detail, faster processing, lower cost -
        "MEDIA_RESOLUTION_MEDIUM": Balance of detail, cost, and latency -
        "MEDIA_RESOLUTION_HIGH": Higher detail (recommended for most use cases) -
        ``file_active_timeout_s`` (float): Seconds to wait for a Files API upload to reach
        ``ACTIVE`` before the request proceeds. Applies to every media part. Defaults to 60
        s for images and 120 s for video/audio/document, which a long MP4 exceeds — a
        ten-minute video needs roughly 600. Bounds 1-3600; out of range raises. Environment
        default: ``DPT_GOOGLE_FILE_ACTIVE_TIMEOUT_S``. - ``file_poll_interval_s`` (float):
        Seconds between state checks while waiting. Bounds 0.05-60, must not exceed the
        timeout. Environment default: ``DPT_GOOGLE_FILE_POLL_INTERVAL_S``. -
        ``file_poll_backoff`` (float): Multiplier applied to the poll interval after each
        check (bounds 1-10). ``1.0`` keeps the fixed cadence. Environment default:
        ``DPT_GOOGLE_FILE_POLL_BACKOFF``. Default: {}.
    client (Optional[ModelClient]): A ModelClient to use instead of the adapter the
        composition root builds (FakeModel in tests, a host's own adapter). Keyword-only,
        after the documented parameters. Default: None.
    base_url (Optional[str]): The endpoint the provider's adapter talks to (a gateway, a
        proxy, a local OpenAI-compatible server, the ProviderEmulator);
        DPT_<PROVIDER>_BASE_URL and the SDKs' own variables work too. Keyword-only. Default:
        None.
    connect_timeout (Optional[float]): Seconds to open a connection to the provider (None:
        the SDK's 5 s; Gemini takes one timeout, request_timeout). Keyword-only. Default:
        None.
    request_timeout (Optional[float]): Seconds for the response to start and for each read
        (None: the SDK's 600 s). Keyword-only. Default: None.
    stream_idle_timeout (Optional[float]): Seconds a stream may go without a content event
        (pings and keep-alive comments do not count) before it fails with
        StreamIdleTimeoutError, retried when nothing reached the caller; None: no limit.
        Keyword-only. Default: 300.0.
    tool_timeout (Optional[float]): Seconds a local @tool call may run; a call over it gets
        an error result naming the limit and the run goes on (MCP servers keep their own
        timeout). Keyword-only. Default: None.
    registry (Optional[Any]): Model registry rows of your own, merged over the packaged
        registry for this Agent: a JSON file path in the shape of
        registry/model_information.json, that shape as a mapping (provider -> model ->
        row), or a list of rows (ModelInfo or dicts with model and provider). A row under
        an existing provider and key replaces the packaged one. Each row is checked against
        the registry's JSON schema; a bad one raises ValueError naming it. The file named
        by DPT_REGISTRY_FILE is merged for every Agent the same way. Keyword-only.
        Default: None.
    deployment (Optional[str]): The cloud serving the model: None (the provider's own
        API), "vertex" (Claude or Gemini on Vertex AI), "bedrock" (Claude on Amazon
        Bedrock), "foundry" (Claude on Microsoft Foundry) or "azure" (GPT on Azure OpenAI).
        The model's registry row lists the deployments it has, its id and prices there; an
        unlisted pair raises ConfigurationError naming them. Unset, DPT_<PROVIDER>_DEPLOYMENT
        chooses. See docs/guide/deployments.md. Keyword-only. Default: None.
    deployment_options (Optional[dict]): What the deployment needs: Vertex project,
        location, access_token or credentials; Bedrock region, aws_profile,
        aws_access_key, aws_secret_key, aws_session_token; Foundry resource, api_key;
        Azure azure_endpoint, api_version, azure_deployment, api_key or
        azure_ad_token_provider; base_url on every one. Unset keys come from the SDKs' own
        variables (AWS_REGION, ANTHROPIC_VERTEX_PROJECT_ID, AZURE_OPENAI_ENDPOINT...).
        Credentials are never exported by to_config(). Keyword-only. Default: None.
    deps (Optional[AgentDeps]): The adapters this Agent is handed (registry, model
        clients, codecs, profiles, tool sessions, stores). None takes the process default
        from the composition root. Default: None.

Raises:
    ValueError: If model is invalid or parameters are out of range (the message names
        the parameter and what is wrong with its value).
"""


def with_setting_entries(doc: str, parameters: Iterable[str]) -> str:
    """``doc`` (the constructor's reference) with an Args entry for each of ``parameters``
    it lacks, written from that setting's model field: its type, description and default.
    A setting added to a group is documented by its field until the API reference's table
    gives it its own text here."""
    from doc_processing_toolkit.application.config.settings import setting_field

    args = doc.split("Args:", 1)[1]
    documented = set(re.findall(r"^    (?:\*\*)?(\w+) \(", args, re.M))
    entries = []
    for name in parameters:
        if name in documented:
            continue
        field = setting_field(name)
        kind = getattr(field.annotation, "__name__", None) or str(field.annotation)
        default = field.get_default(call_default_factory=True)
        text = f"{name} ({kind.replace('typing.', '')}): {field.description} Default: {default!r}."
        entries.append(textwrap.fill(text, 88, initial_indent="    ", subsequent_indent="        "))
    if not entries:
        return doc
    anchor = doc.index("\n    deps (") + 1
    return doc[:anchor] + "\n".join(entries) + "\n" + doc[anchor:]
