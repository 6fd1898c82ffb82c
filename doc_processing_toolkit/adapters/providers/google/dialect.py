"""Gemini ``contents`` <-> the neutral IR (`GoogleHistoryCodec`).

The native shape is ``{"role": "user" | "model", "parts": [part, ...]}``, exactly the
SDK's own JSON form ``Content.model_dump(mode="json", exclude_none=True)``: snake_case
keys, bytes (``inline_data.data``, ``thought_signature``) as URL-safe base64 strings,
which is also how the SDK puts them on the wire. The SDK takes these dicts as
``contents`` unchanged and decodes the base64 back to the same bytes, so a signature
replays byte-identical (and string-identical on the wire).

Canonical mapping (``render(parse(x)) == x`` for every native history):

* ``{"text": t}`` <-> ``TextPart(t)``.
* ``{"text": t, "thought": True[, "thought_signature": s]}`` (a thought summary) <->
  ``ReasoningPart(t, "google", {"thought": True[, "thought_signature": s]})``.
* A text or media part that carries a signature (Gemini signs the last part of a turn) is
  the IR part followed by ``ReasoningPart("", "google", {"thought_signature": s,
  "signs": "previous"})``: rendering puts the signature back on the part before it, so
  ``Message.text`` keeps the text and the signature stays on the part it arrived on.
* A part holding only a signature, ``{"thought_signature": s}``, <->
  ``ReasoningPart("", "google", {"thought_signature": s})``.
* ``{"inline_data": {"mime_type", "data"}}`` <-> ``MediaPart(data=...)``;
  ``{"file_data": {"mime_type", "file_uri"}}`` <-> ``MediaPart(file_uri=...)`` (a
  MediaPart with only a ``url`` renders as ``file_data`` too).
* ``{"function_call": {"name", "args"[, "id"]}[, "thought_signature": s]}`` <->
  ``ToolCallPart``. Models before Gemini 3.5 send no ``id``: the part gets a stable
  generated id and ``provider_details["google"]["id"] = None`` so the replay carries no
  id; a signature rides in ``provider_details["google"]["thought_signature"]``.
* ``{"function_response": {"name", "response": {"result" | "error": text}[, "id"]
  [, "parts": [media...]]}}`` <-> ``ToolResultPart`` (``error`` means ``is_error``). A
  response without an id answers the earliest unanswered id-less call of that name in
  the model turn before it.
* A user turn whose parts are all ``function_response`` parses as an IR ``tool`` message.
* Anything else (``executable_code``, ``code_execution_result``, unknown keys, other
  response shapes, base64 not in the canonical URL-safe form) is kept verbatim as a
  `ProviderPart`: a part maps to IR parts only when rendering them gives it back.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, assert_never

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers._codec import own_payload
from doc_processing_toolkit.adapters.providers._source import uploaded_ref, with_bytes
from doc_processing_toolkit.domain.errors import InvalidInputError
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Message,
    Part,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "DETAILS_KEY",
    "PROVIDER",
    "GoogleHistoryCodec",
    "call_id_for",
    "native_part_to_parts",
]

PROVIDER = "google"
DETAILS_KEY = "google"
"""The ``ToolCallPart.provider_details`` key holding Gemini's call id and signature."""
_SIGNS_PREVIOUS = "previous"

log = get_logger(__name__)


def call_id_for(seed: str) -> str:
    """A stable tool-call id for a Gemini call that came without one."""
    return "gcall_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:20]


@dataclass
class _CallBook:
    """Tool calls seen so far: their Gemini ids, and the id-less ones still unanswered."""

    gemini_ids: dict[str, str | None] = field(default_factory=dict)
    """IR call id -> the id Gemini sent (None: it sent none)."""
    names: dict[str, str] = field(default_factory=dict)
    """IR call id -> tool name."""
    open_idless: list[tuple[str, str]] = field(default_factory=list)
    """(IR id, name) of the last model turn's id-less calls not answered yet."""

    def add_call(self, part: ToolCallPart) -> None:
        gid = _gemini_id(part)
        self.gemini_ids[part.id] = gid
        self.names[part.id] = part.name
        if gid is None:
            self.open_idless.append((part.id, part.name))

    def answer_idless(self, name: str) -> str | None:
        for index, (call_id, call_name) in enumerate(self.open_idless):
            if call_name == name:
                del self.open_idless[index]
                return call_id
        return None


class GoogleHistoryCodec:
    """Renders IR messages as Gemini ``contents`` dicts and parses them back (lossless)."""

    native_roles: tuple[str, ...] = ("user", "model")
    """The roles a stored Gemini history holds (a saved session is checked against them)."""

    provider: str = PROVIDER

    def render(self, messages: list[Message]) -> list[dict[str, Any]]:
        """IR -> Gemini-native ``{"role", "parts"}`` dicts."""
        book = _CallBook()
        return [_render_message(message, book) for message in messages]

    def parse(self, native: list[dict[str, Any]]) -> list[Message]:
        """Gemini-native contents -> IR messages."""
        book = _CallBook()
        return [_parse_content(index, item, book) for index, item in enumerate(native)]


# -- IR -> native ------------------------------------------------------------------------


def _render_message(message: Message, book: _CallBook) -> dict[str, Any]:
    role = "model" if message.role == "assistant" else "user"
    return {"role": role, "parts": _render_parts(message.parts, book)}


def _render_parts(parts: tuple[Part, ...] | list[Part], book: _CallBook) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    previous_rendered = False
    previous: Part | None = None
    for part in parts:
        if _is_carrier(part) and isinstance(previous, TextPart | MediaPart) and previous_rendered:
            last = out[-1]
            if "thought_signature" not in last:
                assert isinstance(part, ReasoningPart) and part.provider_details is not None
                out[-1] = {**last, "thought_signature": part.provider_details["thought_signature"]}
                previous, previous_rendered = part, True
                continue
        rendered = _render_part(part, book)
        if rendered is not None:
            out.append(rendered)
        previous, previous_rendered = part, rendered is not None
    return out


def _is_carrier(part: Part) -> bool:
    if not isinstance(part, ReasoningPart) or part.provider != PROVIDER:
        return False
    details = part.provider_details or {}
    return details.get("signs") == _SIGNS_PREVIOUS and isinstance(
        details.get("thought_signature"), str
    )


def _render_part(part: Part, book: _CallBook) -> dict[str, Any] | None:
    match part:
        case TextPart(text=text):
            return {"text": text}
        case MediaPart():
            return _media(part)
        case ToolCallPart():
            book.add_call(part)
            return _function_call(part)
        case ToolResultPart():
            return _function_response(part, book)
        case ReasoningPart():
            return _reasoning(part)
        case ProviderPart():
            return own_payload(part, PROVIDER, log)
        case _:
            assert_never(part)


def _gemini_id(part: ToolCallPart) -> str | None:
    details = (part.provider_details or {}).get(DETAILS_KEY)
    if isinstance(details, dict) and "id" in details:
        gid = details["id"]
        return gid if isinstance(gid, str) else None
    return part.id


def _function_call(part: ToolCallPart) -> dict[str, Any]:
    details = (part.provider_details or {}).get(DETAILS_KEY)
    details = details if isinstance(details, dict) else {}
    call: dict[str, Any] = {"name": part.name}
    if not (details.get("args_absent") and not part.arguments):
        call["args"] = part.arguments
    gid = _gemini_id(part)
    if gid is not None:
        call["id"] = gid
    out: dict[str, Any] = {"function_call": call}
    signature = details.get("thought_signature")
    if isinstance(signature, str):
        out["thought_signature"] = signature
    return out


def _function_response(part: ToolResultPart, book: _CallBook) -> dict[str, Any]:
    gid = book.gemini_ids[part.call_id] if part.call_id in book.gemini_ids else part.call_id
    name = part.name or book.names.get(part.call_id, "")
    key = "error" if part.is_error else "result"
    response: dict[str, Any] = {"name": name, "response": {key: part.text}}
    if gid is not None:
        response["id"] = gid
    media = [m for item in part.content if isinstance(item, MediaPart) if (m := _media(item))]
    if media:
        response["parts"] = media
    return {"function_response": response}


def _reasoning(part: ReasoningPart) -> dict[str, Any] | None:
    if part.provider != PROVIDER:
        log.warning(
            "google: dropping reasoning that Gemini cannot replay",
            reasoning_provider=part.provider,
        )
        return None
    details = part.provider_details or {}
    signature = details.get("thought_signature")
    if details.get("thought") is True or (part.text and signature is None):
        out: dict[str, Any] = {"text": part.text, "thought": True}
    elif isinstance(signature, str):
        out = {}
    else:
        return None
    if isinstance(signature, str):
        out["thought_signature"] = signature
    return out


def _media(part: MediaPart) -> dict[str, Any] | None:
    uploaded = uploaded_ref(PROVIDER, part)
    if uploaded is not None:  # a file on disk sent by upload: the history names the file
        uri = uploaded["uri"]
        return {
            "file_data": {"mime_type": uploaded.get("mime_type") or part.mime_type, "file_uri": uri}
        }
    part = with_bytes(part)  # a file on disk never uploaded goes inline
    if part.data is not None:
        data = base64.urlsafe_b64encode(part.data).decode("ascii")
        return {"inline_data": {"mime_type": part.mime_type, "data": data}}
    uri = part.file_uri or part.url
    if uri is not None:
        return {"file_data": {"mime_type": part.mime_type, "file_uri": uri}}
    log.warning("google: dropping media with no bytes, file URI or URL", mime_type=part.mime_type)
    return None


# -- native -> IR ------------------------------------------------------------------------


def _parse_content(index: int, native: Any, book: _CallBook) -> Message:
    if not isinstance(native, dict):
        raise InvalidInputError(f"a Gemini content must be an object, got {native!r}")
    role = native.get("role")
    parts = native.get("parts", [])
    if role not in ("user", "model"):
        raise InvalidInputError(f"not a Gemini content role: {role!r}")
    if not isinstance(parts, list):
        raise InvalidInputError(f"Gemini content parts must be a list, got {parts!r}")
    if role == "model":
        book.open_idless.clear()
    out: list[Part] = []
    for position, part in enumerate(parts):
        seed = f"{index}:{position}"
        out.extend(native_part_to_parts(part, book=book, call_id=None, seed=seed))
    if role == "model":
        return Message("assistant", tuple(out), provider=PROVIDER)
    if parts and all(isinstance(p, dict) and "function_response" in p for p in parts):
        return Message("tool", tuple(out))
    return Message("user", tuple(out))


def native_part_to_parts(
    part: Any,
    *,
    book: _CallBook | None = None,
    call_id: str | None = None,
    seed: str = "",
) -> list[Part]:
    """One native Gemini part as IR parts (a verbatim ProviderPart when not exact).

    ``call_id`` is the IR id to give a function call (the stream's own); None derives a
    stable one from ``seed`` when Gemini sent no id.
    """
    if not isinstance(part, dict):
        raise InvalidInputError(f"a Gemini part must be an object, got {part!r}")
    book = book if book is not None else _CallBook()
    trial = _copy(book)
    candidate = _candidate(part, trial, call_id, seed)
    if candidate is None or _render_parts(candidate, _copy(book)) != [part]:
        return [ProviderPart(provider=PROVIDER, payload=part)]
    for item in candidate:
        if isinstance(item, ToolCallPart):
            trial.add_call(item)
    book.gemini_ids, book.names, book.open_idless = (
        trial.gemini_ids,
        trial.names,
        trial.open_idless,
    )
    return candidate


def _copy(book: _CallBook) -> _CallBook:
    return _CallBook(dict(book.gemini_ids), dict(book.names), list(book.open_idless))


def _candidate(
    part: dict[str, Any], book: _CallBook, call_id: str | None, seed: str
) -> list[Part] | None:
    signature = part.get("thought_signature")
    if signature is not None and not _canonical_b64(signature):
        return None
    keys = set(part) - {"thought_signature"}
    if not keys:
        return [ReasoningPart("", PROVIDER, {"thought_signature": signature})]
    main: Part | None
    if keys == {"text"} or keys == {"text", "thought"}:
        text = part.get("text")
        if not isinstance(text, str):
            return None
        if "thought" in part:
            if part["thought"] is not True:
                return None
            details: dict[str, Any] = {"thought": True}
            if signature is not None:
                details["thought_signature"] = signature
            return [ReasoningPart(text, PROVIDER, details)]
        main = TextPart(text)
    elif keys == {"inline_data"} or keys == {"file_data"}:
        main = _media_part(part)
    elif keys == {"function_call"}:
        return _call_part(part["function_call"], signature, call_id, seed)
    elif keys == {"function_response"} and signature is None:
        result = _result_part(part["function_response"], book)
        return [result] if result is not None else None
    else:
        return None
    if main is None:
        return None
    if signature is None:
        return [main]
    carrier = {"thought_signature": signature, "signs": _SIGNS_PREVIOUS}
    return [main, ReasoningPart("", PROVIDER, carrier)]


_URLSAFE_B64 = re.compile(r"^[A-Za-z0-9_-]*={0,2}$")


def _canonical_b64(value: Any) -> bool:
    """True for padded URL-safe base64 in the one form the SDK itself writes."""
    if not isinstance(value, str) or len(value) % 4 or not _URLSAFE_B64.match(value):
        return False
    try:
        return base64.urlsafe_b64encode(base64.urlsafe_b64decode(value)).decode() == value
    except (binascii.Error, ValueError):
        return False


def _media_part(part: dict[str, Any]) -> MediaPart | None:
    inline, file_data = part.get("inline_data"), part.get("file_data")
    if isinstance(inline, dict):
        mime, data = inline.get("mime_type"), inline.get("data")
        if not (isinstance(mime, str) and isinstance(data, str) and _canonical_b64(data)):
            return None
        return MediaPart(mime_type=mime, data=base64.urlsafe_b64decode(data))
    if isinstance(file_data, dict):
        mime, uri = file_data.get("mime_type"), file_data.get("file_uri")
        if not (isinstance(mime, str) and isinstance(uri, str)):
            return None
        return MediaPart(mime_type=mime, file_uri=uri)
    return None


def _call_part(
    call: Any, signature: str | None, call_id: str | None, seed: str
) -> list[Part] | None:
    if not isinstance(call, dict):
        return None
    name, args, gid = call.get("name"), call.get("args"), call.get("id")
    if not isinstance(name, str) or not (args is None or isinstance(args, dict)):
        return None
    if gid is not None and not isinstance(gid, str):
        return None
    details: dict[str, Any] = {}
    if gid is None:
        details["id"] = None
        if call_id is None:
            call_id = call_id_for(f"{seed}:{name}:{json.dumps(args, sort_keys=True)}")
    if args is None:
        details["args_absent"] = True
    if signature is not None:
        details["thought_signature"] = signature
    return [
        ToolCallPart(
            id=gid if gid is not None else str(call_id),
            name=name,
            arguments=dict(args or {}),
            provider_details={DETAILS_KEY: details} if details else None,
        )
    ]


def _result_part(response: Any, book: _CallBook) -> ToolResultPart | None:
    if not isinstance(response, dict):
        return None
    name, body, gid = response.get("name"), response.get("response"), response.get("id")
    if not isinstance(name, str) or not isinstance(body, dict) or len(body) != 1:
        return None
    key, text = next(iter(body.items()))
    if key not in ("result", "error") or not isinstance(text, str):
        return None
    items: list[ContentPart] = [TextPart(text)] if text else []
    raw_parts = response.get("parts", [])
    if not isinstance(raw_parts, list):
        return None
    for media in raw_parts:
        part = _media_part(media) if isinstance(media, dict) else None
        if part is None:
            return None
        items.append(part)
    if isinstance(gid, str):
        call_id = gid
    elif gid is None:
        found = book.answer_idless(name)
        if found is None:
            return None
        call_id = found
    else:
        return None
    return ToolResultPart(call_id=call_id, name=name, content=tuple(items), is_error=key == "error")
