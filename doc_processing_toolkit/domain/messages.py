"""The neutral message IR: what a conversation is, independent of any provider.

Every part is a frozen, slotted dataclass discriminated by ``kind``; one pydantic
``TypeAdapter`` (`MESSAGES_ADAPTER`) persists a list of messages. Vendor-specific
data rides only in ``provider_details`` / `ProviderPart`, never in ids, text or
arguments, so rendering for the same provider is lossless and rendering for another
one can drop exactly what cannot cross.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Discriminator, TypeAdapter

__all__ = [
    "MESSAGES_ADAPTER",
    "MESSAGE_ADAPTER",
    "ContentPart",
    "MediaPart",
    "Message",
    "Part",
    "ProviderPart",
    "ReasoningPart",
    "Role",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "assistant_text",
    "user_text",
]

_BYTES_AS_BASE64 = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

Role: TypeAlias = Literal["user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class TextPart:
    """Plain text written by the user or the model."""

    text: str
    """The text itself."""
    kind: Literal["text"] = "text"
    provider_details: dict[str, Any] | None = None
    """Vendor data that rides with the text, keyed by provider (e.g. Anthropic's
    ``citations``): kept for a lossless same-provider replay, ignored by other providers."""


@dataclass(frozen=True, slots=True)
class MediaPart:
    """An image, document, audio or video: bytes, a local file, a URL, or a provider file
    reference."""

    __pydantic_config__ = _BYTES_AS_BASE64

    mime_type: str
    """IANA media type, e.g. ``image/png`` or ``application/pdf``."""
    data: bytes | None = None
    """The bytes, when the media is inline."""
    url: str | None = None
    """A URL the provider fetches itself."""
    file_uri: str | None = None
    """A provider Files API URI (Google) or file id."""
    filename: str | None = None
    """The original file name, when known."""
    provider_ref: dict[str, Any] | None = None
    """Provider-specific reference data (upload records, expiry)."""
    kind: Literal["media"] = "media"
    path: str | None = None
    """A local file holding the bytes (``data`` is then None): a file too large to hold
    in memory, streamed from disk when it is uploaded and read only where it is sent
    inline or saved."""
    size: int | None = None
    """The size in bytes of ``path`` when the part was made (its ``stat``)."""


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """The model asked for a tool to run."""

    id: str
    """The call id the result must answer."""
    name: str
    """The tool's name."""
    arguments: dict[str, Any]
    """The decoded arguments."""
    provider_details: dict[str, Any] | None = None
    """Vendor data that must survive a same-provider replay (e.g. Gemini thought signatures)."""
    invalid_arguments: str | None = None
    """The arguments text as the model sent it when it was not a JSON object (``arguments``
    is then ``{}``): the call is answered with an error result and the tool does not run."""
    kind: Literal["tool_call"] = "tool_call"


ContentPart: TypeAlias = Annotated[TextPart | MediaPart, Discriminator("kind")]


@dataclass(frozen=True, slots=True)
class ToolResultPart:
    """What a tool returned, answering one `ToolCallPart`."""

    call_id: str
    """The id of the call this answers."""
    name: str
    """The tool's name."""
    content: tuple[ContentPart, ...]
    """Text and media items, in the order the tool returned them."""
    is_error: bool = False
    """True when the tool failed or was refused; the text says why."""
    kind: Literal["tool_result"] = "tool_result"

    @property
    def text(self) -> str:
        """All text items joined with newlines."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))


@dataclass(frozen=True, slots=True)
class ReasoningPart:
    """Model reasoning: signed thinking, thought summaries, encrypted reasoning items."""

    text: str
    """The visible reasoning text ("" for redacted or encrypted reasoning)."""
    provider: str | None = None
    """The provider that produced it; other providers cannot replay it."""
    provider_details: dict[str, Any] | None = None
    """Signature, redacted payload or encrypted content, kept byte-identical."""
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, slots=True)
class ProviderPart:
    """A provider-run block kept verbatim: server tool use/results, code execution, MCP calls."""

    provider: str
    """The provider whose wire format ``payload`` is in."""
    payload: dict[str, Any]
    """The native block, exactly as received."""
    kind: Literal["provider"] = "provider"


Part: TypeAlias = Annotated[
    TextPart | MediaPart | ToolCallPart | ToolResultPart | ReasoningPart | ProviderPart,
    Discriminator("kind"),
]


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the conversation."""

    role: Role
    """``user``, ``assistant``, or ``tool`` (tool results)."""
    parts: tuple[Part, ...] = field(default_factory=tuple)
    """The content, in order."""
    provider: str | None = None
    """The provider that produced an assistant message (None for user-side turns)."""

    # plain loops on purpose: docs/performance.md, "Loops in the domain"
    @property
    def text(self) -> str:
        """The concatenated text parts (no reasoning, no tool traffic)."""
        texts = []
        for part in self.parts:
            if isinstance(part, TextPart):
                texts.append(part.text)
        return "".join(texts)

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        """The tool calls this message makes, in order."""
        calls = []
        for part in self.parts:
            if isinstance(part, ToolCallPart):
                calls.append(part)
        return tuple(calls)

    @property
    def reasoning(self) -> str:
        """The visible reasoning text of this message."""
        texts = []
        for part in self.parts:
            if isinstance(part, ReasoningPart):
                texts.append(part.text)
        return "".join(texts)


if TYPE_CHECKING:
    MESSAGE_ADAPTER: TypeAdapter[Message]
    """Validates / serialises one `Message`."""

    MESSAGES_ADAPTER: TypeAdapter[list[Message]]
    """The one adapter that persists a conversation (bytes travel as base64 in JSON)."""


def __getattr__(name: str) -> Any:
    # The adapters are built on first use, not at import: building their pydantic-core
    # schema is most of this module's import time (and most runs never persist).
    if name == "MESSAGE_ADAPTER":
        adapter: Any = TypeAdapter(Message)
    elif name == "MESSAGES_ADAPTER":
        adapter = TypeAdapter(list[Message])
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = adapter
    return adapter


def user_text(text: str) -> Message:
    """A user message holding one text part."""
    return Message(role="user", parts=(TextPart(text),))


def assistant_text(text: str, provider: str | None = None) -> Message:
    """An assistant message holding one text part."""
    return Message(role="assistant", parts=(TextPart(text),), provider=provider)
