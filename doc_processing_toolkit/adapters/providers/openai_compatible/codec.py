"""OpenAI chat-completions history <-> the neutral IR (`ChatCompletionsCodec`).

The base codec of every OpenAI-compatible chat-completions vendor (Fireworks today;
deployments and local servers such as vLLM, Ollama or LM Studio next). A vendor's codec
is this class with its ``provider`` name and its ``label`` (the name its messages show);
nothing else here is a vendor fact.

The native shape is the OpenAI chat-completions message list:

* ``{"role": "user", "content": str | [part, ...]}`` with ``text`` and ``image_url``
  parts (an image is a ``data:<mime>;base64,...`` URL or an http(s) URL);
* ``{"role": "assistant", "content": str | None, "tool_calls": [...],
  "reasoning_content": str}`` (``tool_calls`` and ``reasoning_content`` only when
  present); each call is ``{"id", "type": "function", "function": {"name",
  "arguments": <JSON string>}}``;
* ``{"role": "tool", "tool_call_id": id, "content": str | [text part, ...]}``.

Canonical rendering (what the adapter produces, so ``render(parse(x)) == x`` for it):

* a user message holding exactly one `TextPart` renders as a string ``content``;
* an assistant message renders its text parts joined (None when it has none), its
  reasoning as ``reasoning_content`` (same-provider replay keeps it there, never as
  ``<think>`` tags) and its calls as ``tool_calls``;
* an IR ``tool`` message renders one native ``tool`` message per result; consecutive
  native ``tool`` messages parse back into one IR ``tool`` message. The tool's name is
  not on the wire and is recovered from the matching call. ``is_error`` has no wire
  field: the result's text says why, and the flag does not survive a round trip;
* tool-call arguments whose JSON text is not exactly ``json.dumps(arguments)`` keep that
  text in ``ToolCallPart.provider_details[<provider>]["arguments_json"]``, and extra call
  keys under ``[<provider>]["extra"]``, so the call replays byte-identical;
* a message the IR cannot hold exactly (a system message, an assistant message with list
  content or unknown keys, ...) is kept whole as a `ProviderPart` whose payload is
  the native message: a message is only mapped to IR parts when rendering those parts
  gives the message back.

Chat completions take images only: any other media, reasoning or provider blocks of
another provider are dropped with a WARNING, and `ChatCompletionsCodec.render_with_drops`
says what was dropped so the run can report it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any, assert_never

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers._source import with_bytes
from doc_processing_toolkit.domain.errors import InvalidInputError
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Message,
    Part,
    ProviderPart,
    ReasoningPart,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "ChatCompletionsCodec",
    "DroppedPart",
    "arguments_object",
    "decode_arguments",
    "tool_call_part",
]

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.DOTALL)

log = get_logger(__name__)


@dataclass(frozen=True, slots=True)
class DroppedPart:
    """An IR part that could not go into a chat-completions request."""

    message_index: int
    """Position of its message in the rendered history."""
    part_index: int
    """Position of the part in its message (in a tool result: of the result part)."""
    kind: str
    """What it was: ``base64-application/pdf``, ``url-video/mp4``, ``reasoning``, ..."""
    reason: str
    """Why it was dropped."""


class ChatCompletionsCodec:
    """Renders IR messages as chat-completions dicts and parses them back (lossless).

    A vendor's codec sets `provider` (the name on its parts and provider details) and
    `label` (how its messages name it), as class attributes or arguments.
    """

    native_roles: tuple[str, ...] = ("system", "user", "assistant", "tool")
    """The roles a stored chat-completions history holds."""

    provider: str = "openai_compatible"
    """The provider name: on parts, messages and ``provider_details`` keys."""
    label: str = "this provider"
    """How drop reasons name the vendor (``"Fireworks takes images only"``)."""

    def __init__(self, provider: str | None = None, label: str | None = None) -> None:
        """A codec for ``provider`` (default: the class attribute), named ``label``."""
        if provider is not None:
            self.provider = provider
        if label is not None:
            self.label = label

    def render(self, messages: list[Message]) -> list[dict[str, Any]]:
        """IR -> chat-completions message dicts (what cannot cross is dropped, logged)."""
        native, drops = self.render_with_drops(messages)
        for drop in drops:
            log.warning(
                f"{self.provider}: dropping a part {self.label} cannot take",
                kind=drop.kind,
                reason=drop.reason,
                message_index=drop.message_index,
                part_index=drop.part_index,
            )
        return native

    def render_with_drops(
        self, messages: list[Message]
    ) -> tuple[list[dict[str, Any]], list[DroppedPart]]:
        """IR -> chat-completions message dicts, and every part that was dropped (not logged)."""
        out: list[dict[str, Any]] = []
        drops: list[DroppedPart] = []
        for index, message in enumerate(messages):
            out.extend(self._render_message(message, index, drops))
        return out, drops

    def parse(self, native: list[dict[str, Any]]) -> list[Message]:
        """Chat-completions message dicts -> IR messages."""
        names: dict[str, str] = {}
        out: list[Message] = []
        for item in native:
            message = self._parse_message(item, names)
            for call in message.tool_calls:
                names[call.id] = call.name
            previous = out[-1] if out else None
            if (
                message.role == "tool"
                and previous is not None
                and previous.role == "tool"
                and _is_tool_result_message(previous)
                and _is_tool_result_message(message)
            ):
                out[-1] = Message(role="tool", parts=previous.parts + message.parts)
            else:
                out.append(message)
        return out

    # -- IR -> native ----------------------------------------------------------------------

    def _verbatim(self, message: Message) -> dict[str, Any] | None:
        """The native message a whole-message ProviderPart holds, if that is what this is."""
        if len(message.parts) == 1:
            part = message.parts[0]
            if (
                isinstance(part, ProviderPart)
                and part.provider == self.provider
                and "role" in part.payload
            ):
                return part.payload
        return None

    def _render_message(
        self, message: Message, index: int, drops: list[DroppedPart]
    ) -> list[dict[str, Any]]:
        verbatim = self._verbatim(message)
        if verbatim is not None:
            return [verbatim]
        if message.role == "assistant":
            return [self._render_assistant(message, index, drops)]
        results = [(i, p) for i, p in enumerate(message.parts) if isinstance(p, ToolResultPart)]
        out = [self._render_tool_result(part, index, i, drops) for i, part in results]
        rest: list[tuple[int, Part]] = [
            (i, p) for i, p in enumerate(message.parts) if not isinstance(p, ToolResultPart)
        ]
        if rest or not results:
            out.append(self._render_user(rest, index, drops))
        return out

    def _render_user(
        self, parts: list[tuple[int, Part]], index: int, drops: list[DroppedPart]
    ) -> dict[str, Any]:
        if len(parts) == 1 and isinstance(parts[0][1], TextPart):
            return {"role": "user", "content": parts[0][1].text}
        content: list[dict[str, Any]] = []
        for i, part in parts:
            match part:
                case TextPart(text=text):
                    content.append({"type": "text", "text": text})
                case MediaPart():
                    block = self._image_part(part, index, i, drops)
                    if block is not None:
                        content.append(block)
                case ProviderPart(provider=provider, payload=payload):
                    if provider == self.provider:
                        content.append(payload)
                    else:
                        drops.append(_foreign_drop(index, i, provider, payload))
                case ReasoningPart() | ToolCallPart():
                    drops.append(
                        DroppedPart(
                            index, i, part.kind, f"a user turn cannot carry it on {self.label}"
                        )
                    )
                case ToolResultPart():  # pragma: no cover - split off by the caller
                    raise AssertionError("tool results are rendered as tool messages")
                case _:
                    assert_never(part)
        return {"role": "user", "content": content}

    def _render_assistant(
        self, message: Message, index: int, drops: list[DroppedPart]
    ) -> dict[str, Any]:
        texts: list[str] = []
        reasoning: list[str] = []
        calls: list[dict[str, Any]] = []
        for i, part in enumerate(message.parts):
            match part:
                case TextPart(text=text):
                    texts.append(text)
                case ToolCallPart():
                    calls.append(self._render_call(part))
                case ReasoningPart(text=text, provider=provider):
                    if provider == self.provider:
                        reasoning.append(text)
                    else:
                        drops.append(
                            DroppedPart(
                                index,
                                i,
                                "reasoning",
                                f"reasoning of {provider!r} cannot be replayed",
                            )
                        )
                case MediaPart():
                    drops.append(
                        DroppedPart(
                            index, i, _media_kind(part), "an assistant turn cannot carry media"
                        )
                    )
                case ProviderPart(provider=provider, payload=payload):
                    drops.append(_foreign_drop(index, i, provider, payload))
                case ToolResultPart():
                    drops.append(
                        DroppedPart(
                            index, i, "tool_result", "an assistant turn cannot carry results"
                        )
                    )
                case _:
                    assert_never(part)
        native: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(texts) if texts else None,
        }
        if calls:
            native["tool_calls"] = calls
        if reasoning:
            native["reasoning_content"] = "".join(reasoning)
        return native

    def _render_call(self, part: ToolCallPart) -> dict[str, Any]:
        details = (part.provider_details or {}).get(self.provider)
        details = details if isinstance(details, dict) else {}
        raw = details.get("arguments_json")
        if not (isinstance(raw, str) and decode_arguments(raw) == part.arguments):
            raw = json.dumps(part.arguments)
        call: dict[str, Any] = {
            "id": part.id,
            "type": "function",
            "function": {"name": part.name, "arguments": raw},
        }
        extra = details.get("extra")
        if isinstance(extra, dict):
            call.update(extra)
        return call

    def _render_tool_result(
        self, part: ToolResultPart, index: int, part_index: int, drops: list[DroppedPart]
    ) -> dict[str, Any]:
        texts = [item for item in part.content if isinstance(item, TextPart)]
        for item in part.content:
            if isinstance(item, MediaPart):
                drops.append(
                    DroppedPart(
                        index,
                        part_index,
                        _media_kind(item),
                        f"a {self.label} tool result is text only",
                    )
                )
        omitted = len(part.content) - len(texts)
        content: str | list[dict[str, Any]]
        if len(texts) == 1:
            content = texts[0].text
        elif not texts and omitted:
            content = f"[{omitted} media item(s) omitted: {self.label} tool results are text only]"
        else:
            content = [{"type": "text", "text": t.text} for t in texts]
        return {"role": "tool", "tool_call_id": part.call_id, "content": content}

    def _image_part(
        self, part: MediaPart, index: int, part_index: int, drops: list[DroppedPart]
    ) -> dict[str, Any] | None:
        if not part.mime_type.startswith("image/"):
            drops.append(
                DroppedPart(index, part_index, _media_kind(part), f"{self.label} takes images only")
            )
            return None
        part = with_bytes(part)
        if part.data is not None:
            data = base64.b64encode(part.data).decode("ascii")
            url = f"data:{part.mime_type};base64,{data}"
            return {"type": "image_url", "image_url": {"url": url}}
        if part.url is not None:
            return {"type": "image_url", "image_url": {"url": part.url}}
        drops.append(
            DroppedPart(
                index, part_index, _media_kind(part), f"{self.label} takes no file references"
            )
        )
        return None

    # -- native -> IR ----------------------------------------------------------------------

    def _parse_message(self, native: dict[str, Any], names: dict[str, str]) -> Message:
        """One native message as IR: exact parts when they render back to it, else verbatim."""
        if not isinstance(native, dict):
            raise InvalidInputError(f"a chat-completions message must be an object, got {native!r}")
        role = native.get("role")
        candidate = self._candidate(native, names)
        if candidate is not None:
            rendered = self._render_message(candidate, 0, [])
            if rendered == [native]:
                return candidate
        ir_role: Role = "tool" if role == "tool" else "assistant" if role == "assistant" else "user"
        return Message(
            role=ir_role,
            parts=(ProviderPart(provider=self.provider, payload=native),),
            provider=self.provider if ir_role == "assistant" else None,
        )

    def _candidate(self, native: dict[str, Any], names: dict[str, str]) -> Message | None:
        match native.get("role"):
            case "user":
                return self._user_candidate(native.get("content"))
            case "assistant":
                return self._assistant_candidate(native)
            case "tool":
                call_id, content = native.get("tool_call_id"), native.get("content")
                items = _text_items(content)
                if not isinstance(call_id, str) or items is None:
                    return None
                result = ToolResultPart(call_id=call_id, name=names.get(call_id, ""), content=items)
                return Message(role="tool", parts=(result,))
            case _:
                return None

    def _user_candidate(self, content: Any) -> Message | None:
        if isinstance(content, str):
            return Message(role="user", parts=(TextPart(content),))
        if not isinstance(content, list):
            return None
        parts: list[Part] = []
        for item in content:
            if not isinstance(item, dict):
                return None
            parts.append(self._user_part(item))
        return Message(role="user", parts=tuple(parts))

    def _user_part(self, item: dict[str, Any]) -> Part:
        kind = item.get("type")
        if kind == "text" and isinstance(item.get("text"), str) and set(item) == {"type", "text"}:
            return TextPart(item["text"])
        if kind == "image_url" and set(item) == {"type", "image_url"}:
            image = item["image_url"]
            if isinstance(image, dict) and set(image) == {"url"} and isinstance(image["url"], str):
                media = _media_from_url(image["url"])
                if media is not None and media.mime_type.startswith("image/"):
                    return media
        return ProviderPart(provider=self.provider, payload=item)

    def _assistant_candidate(self, native: dict[str, Any]) -> Message | None:
        parts: list[Part] = []
        reasoning = native.get("reasoning_content")
        if reasoning is not None:
            if not isinstance(reasoning, str):
                return None
            parts.append(ReasoningPart(reasoning, self.provider))
        content = native.get("content")
        if isinstance(content, str):
            parts.append(TextPart(content))
        elif content is not None:
            return None
        calls = native.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                return None
            for call in calls:
                part = tool_call_part(call, self.provider)
                if part is None:
                    return None
                parts.append(part)
        return Message(role="assistant", parts=tuple(parts), provider=self.provider)


def _is_tool_result_message(message: Message) -> bool:
    return bool(message.parts) and all(isinstance(p, ToolResultPart) for p in message.parts)


def _media_kind(part: MediaPart) -> str:
    if part.data is not None or part.path is not None:
        return f"base64-{part.mime_type}"
    if part.url is not None:
        return f"url-{part.mime_type}"
    return f"file-{part.mime_type}"


def _foreign_drop(index: int, part_index: int, provider: str, payload: Any) -> DroppedPart:
    kind = payload.get("type") if isinstance(payload, dict) else None
    return DroppedPart(index, part_index, f"provider-{kind or 'block'}", f"a block of {provider!r}")


def _text_items(content: Any) -> tuple[ContentPart, ...] | None:
    if isinstance(content, str):
        return (TextPart(content),)
    if not isinstance(content, list):
        return None
    items: list[ContentPart] = []
    for item in content:
        if not (isinstance(item, dict) and item.get("type") == "text"):
            return None
        text = item.get("text")
        if not isinstance(text, str):
            return None
        items.append(TextPart(text))
    return tuple(items)


def _media_from_url(url: str) -> MediaPart | None:
    match = _DATA_URL.match(url)
    if match is None:
        if url.startswith("data:"):
            return None
        return MediaPart(mime_type=_guess_image_mime(url), url=url)
    mime, data = match.group("mime"), match.group("data")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(raw).decode("ascii") != data:
        return None
    return MediaPart(mime_type=mime, data=raw)


def _guess_image_mime(url: str) -> str:
    path = url.split("?", 1)[0].lower()
    for ext, mime in ((".png", "image/png"), (".jpg", "image/jpeg"), (".jpeg", "image/jpeg")):
        if path.endswith(ext):
            return mime
    for ext, mime in ((".gif", "image/gif"), (".webp", "image/webp")):
        if path.endswith(ext):
            return mime
    return "image/*"


def _reject_constant(name: str) -> Any:
    raise InvalidInputError(f"{name} is not JSON")


def decode_arguments(raw: str) -> dict[str, Any]:
    """A call's JSON arguments as a dict ({} when the text is not a strict JSON object)."""
    value = arguments_object(raw) if raw else None
    return value if value is not None else {}


def arguments_object(raw: str) -> dict[str, Any] | None:
    """A call's JSON arguments as a dict (None when the text is not a strict JSON object)."""
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except ValueError:  # JSONDecodeError, NaN / Infinity
        return None
    return value if isinstance(value, dict) else None


def tool_call_part(call: Any, provider: str) -> ToolCallPart | None:
    """One native tool call as a `ToolCallPart` (None when it is not one); what does not
    fit the IR is kept under ``provider_details[provider]``."""
    if not isinstance(call, dict) or call.get("type") != "function":
        return None
    call_id, function = call.get("id"), call.get("function")
    if not (isinstance(call_id, str) and isinstance(function, dict)):
        return None
    name, raw = function.get("name"), function.get("arguments")
    if not (
        isinstance(name, str) and isinstance(raw, str) and set(function) == {"name", "arguments"}
    ):
        return None
    arguments = decode_arguments(raw)
    details: dict[str, Any] = {}
    if json.dumps(arguments) != raw:
        details["arguments_json"] = raw
    extra = {k: v for k, v in call.items() if k not in ("id", "type", "function")}
    if extra:
        details["extra"] = extra
    return ToolCallPart(
        id=call_id,
        name=name,
        arguments=arguments,
        provider_details={provider: details} if details else None,
    )
