"""One request to a model and what comes back: ModelRequest, stream deltas, ModelResponse.

A `ModelClient` turns a
`ModelRequest` into an async stream of `StreamDelta` values that ends
with exactly one `ModelResponse`. Nothing here knows a provider's wire format.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias

from doc_processing_toolkit.domain.grounding.citations import Citation
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.domain.tools.specs import ToolChoice, ToolSpec

__all__ = [
    "ModelRequest",
    "ModelResponse",
    "StopReason",
    "StreamDelta",
    "StreamItem",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "Usage",
]

StopReason: TypeAlias = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "pause_turn",
    "stop_sequence",
    "refusal",
    "content_filter",
    "other",
]
"""Why the model stopped, normalised across providers."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one API request, on the toolkit's one convention.

    ``cached_input_tokens`` and ``reasoning_tokens`` are SUBSETS of ``input_tokens`` and
    ``output_tokens``. ``cache_write_tokens`` is on top of input for Anthropic-style
    billing and a subset for OpenAI-style billing; the registry row says which.
    """

    input_tokens: int = 0
    """All prompt tokens billed (cache reads included; see the class docstring)."""
    output_tokens: int = 0
    """All generated tokens, reasoning included."""
    reasoning_tokens: int = 0
    """The reasoning share of ``output_tokens``."""
    cached_input_tokens: int = 0
    """Prompt-cache READ tokens."""
    cache_write_tokens: int = 0
    """Prompt-cache WRITE tokens (all TTLs)."""
    cache_write_1h_tokens: int = 0
    """The 1-hour-TTL share of ``cache_write_tokens`` (Anthropic bills it at 2x)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cache_write_1h_tokens=self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )

    @property
    def total_tokens(self) -> int:
        """input + output."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one API request needs, in neutral terms."""

    model: str
    """The model name as the user gave it."""
    messages: tuple[Message, ...]
    """The conversation so far (user, assistant and tool turns)."""
    system: str = ""
    """System instructions."""
    tools: tuple[ToolSpec, ...] = ()
    """Client-side tools, already budgeted for strict mode (``ToolSpec.strict``)."""
    tool_choice: ToolChoice = "auto"
    """Normalised tool choice."""
    max_tokens: int | None = None
    """Output cap; None lets the adapter use the registry's default."""
    temperature: float | None = None
    """Sampling temperature, when the provider takes one."""
    thinking: dict[str, Any] | None = None
    """The Agent's thinking configuration, translated by the adapter."""
    output_schema: dict[str, Any] | None = None
    """JSON schema for native structured output (Path A)."""
    service_tier: str | None = None
    """The requested service tier."""
    prompt_caching: dict[str, Any] | None = None
    """Anthropic prompt caching: ``{"ttl": "5m" | "1h"}`` or None."""
    provider_options: dict[str, Any] = field(default_factory=dict)
    """Provider keywords passed through from ``Agent(**provider_kwargs)``."""
    built_in_tools: dict[str, Any] | None = None
    """Neutral built-in tool configuration (web_search, code_execution, tool_search), as
    ``{name: {"enabled": bool, "config": {...}}}``; the adapter maps it to its wire."""
    remote_mcp_servers: tuple[dict[str, Any], ...] = ()
    """Provider-run remote MCP server configs (tool format 7), as the user gave them."""
    purpose: str = "generation"
    """Why this request is made (the request_start vocabulary)."""
    media_resolutions: tuple[str | None, ...] = ()
    """``run(media_resolution_list=...)``: per-media-part resolution levels of the run's
    user turn, in order (None: the default); providers without them ignore it."""
    code_execution_file_ids: tuple[str, ...] = ()
    """Uploaded ``tool_files`` the code-execution tool's configuration names (providers
    that hand files to code execution in the user turn ignore it)."""
    block_binding: str | None = None
    """How replayed reasoning bound to a conversation prefix that moved is treated:
    "drop_block", "error", "off", or None (nothing sent); see `binding`.
    Providers without bound reasoning ignore it."""
    rebind: bool = False
    """A prefix-binding refusal was re-sent in this run: stale bound reasoning is dropped
    ("drop_block"), or removed from the history when the request cannot carry the field."""
    strip_reasoning_before: int = 0
    """``prefix_strip_fallback``: replayed reasoning in ``messages[:n]`` is not sent."""
    cited_documents: bool | frozenset[str] = False
    """Document citations asked for: True for every document (``Agent(citations=True)``),
    else the names (``MediaPart.filename``) of the documents built with
    ``Document(citations=True)``. Providers that need a request flag set it on those
    documents; the others ignore it."""
    on_usage: Callable[[Usage], None] | None = field(default=None, compare=False, repr=False)
    """Receives the usage the provider reports while the response is still streaming
    (Anthropic's ``message_start``), so a request cancelled mid-stream still reports what
    it had billed. Adapters call it when they learn usage early; it never alters the wire."""

    def with_messages(self, messages: tuple[Message, ...]) -> ModelRequest:
        """A copy with another conversation."""
        return replace(self, messages=messages)


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A chunk of answer text."""

    text: str
    structured_output: bool = False
    """True when the text is a native structured-output JSON payload (Path A)."""
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A chunk of visible reasoning."""

    text: str
    kind: Literal["thinking_delta"] = "thinking_delta"


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A tool call began streaming (its arguments arrive with the final response)."""

    id: str
    name: str
    kind: Literal["tool_call_delta"] = "tool_call_delta"


StreamDelta: TypeAlias = TextDelta | ThinkingDelta | ToolCallDelta
"""What a client yields while the response streams."""


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """The completed response of one API request."""

    message: Message
    """The assistant message (text, reasoning, tool calls, provider blocks)."""
    usage: Usage
    """Token counts the provider reported."""
    stop_reason: StopReason
    """Why the model stopped."""
    model: str
    """The model that served the request."""
    provider: str
    """The provider name: a registry row's provider, or a plug-in's."""
    request_id: str | None = None
    """The provider's request id, for support tickets."""
    served_tier: str | None = None
    """The service tier that actually served the request, when the provider says."""
    served_tier_source: str | None = None
    """How the served tier was established: "body", "header" or "none" (Google)."""
    built_in_tools_invoked: tuple[str, ...] = ()
    """Built-in tools with evidence they ran in this response ("remote_mcp" included)."""
    usage_by_model: tuple[tuple[str, Usage], ...] = ()
    """The billed usage per model when a server-side fallback ran several models for
    this one request (a declined attempt included); empty: all of it is `model`'s."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Provider facts the run surfaces on the result (container_id, input_transformations,
    distinct_urls, ...), keyed by AgentResult field name."""
    raw: dict[str, Any] | None = None
    """The provider's final response object as plain data (debugging only)."""
    citations: tuple[Citation, ...] = ()
    """The answer's citations in answer order, as the adapter mapped them (pages as the
    model numbered what it was sent; the run maps them to original pages)."""
    response_id: str | None = None
    """The provider's id of this completion (Anthropic ``msg_...``, OpenAI ``resp_...``,
    Gemini ``responseId``, a chat completion's ``id``); None when it sent none. Not the
    HTTP request id (`request_id`)."""
    kind: Literal["response"] = "response"


StreamItem: TypeAlias = TextDelta | ThinkingDelta | ToolCallDelta | ModelResponse
"""Everything a ModelClient stream yields; the last item is a ModelResponse."""
