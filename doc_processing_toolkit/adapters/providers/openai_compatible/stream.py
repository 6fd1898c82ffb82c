"""Chat-completion chunks -> domain deltas and the final assistant message (every
OpenAI-compatible vendor: its codec says whose message it is).

`ChunkAssembler` is fed the chunks as the API sent them, plain dicts (read off the raw
stream by `OpenAIRawEvents`), so
it is independent of the SDK's typed models and can be driven by hand in tests. Reasoning
arrives either as ``delta.reasoning_content`` or as ``<think>...</think>`` at the start of
``delta.content`` (`ThinkTagSplitter`, which holds back a tag split across chunks);
both become `ThinkingDelta` values and one ``reasoning_content`` on the message, and
the tags never reach the answer text. Tool calls are accumulated by ``index``. The final
message is built as a native chat-completions message and parsed with the history codec,
so it replays byte-identical.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers.openai_compatible.codec import (
    ChatCompletionsCodec,
    arguments_object,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.mapping import (
    map_stop_reason,
    parse_usage,
)
from doc_processing_toolkit.domain.messages import Message, Part, ToolCallPart
from doc_processing_toolkit.domain.requests import (
    ModelResponse,
    StreamDelta,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)

__all__ = ["CLOSE_TAG", "OPEN_TAG", "ChunkAssembler", "Segment", "ThinkTagSplitter"]

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"

log = get_logger(__name__)

Segment = tuple[Literal["text", "thinking"], str]
"""A piece of streamed content: answer text or reasoning."""


class ThinkTagSplitter:
    """Splits streamed content into answer text and ``<think>`` reasoning.

    An opening tag counts only at the start of the content (after whitespace), so an answer
    that talks about the tag is left alone; the closing tag ends the reasoning and the
    whitespace right after it is dropped. A tag cut across chunks is held back until the
    next chunk decides it.
    """

    def __init__(self) -> None:
        self._state: Literal["start", "thinking", "answer_start", "answer"] = "start"
        self._pending = ""
        self.tagged = False
        """True once an opening ``<think>`` tag was found."""

    def feed(self, text: str) -> list[Segment]:
        """The segments ``text`` completes (held-back text comes out with a later call)."""
        self._pending += text
        out: list[Segment] = []
        while self._pending:
            if self._state == "start":
                stripped = self._pending.lstrip()
                if stripped.startswith(OPEN_TAG):
                    self._pending = stripped[len(OPEN_TAG) :]
                    self._state = "thinking"
                    self.tagged = True
                elif not stripped or OPEN_TAG.startswith(stripped):
                    break  # only whitespace or a partial tag so far: wait
                else:
                    self._state = "answer"
            elif self._state == "thinking":
                end = self._pending.find(CLOSE_TAG)
                if end >= 0:
                    if end:
                        out.append(("thinking", self._pending[:end]))
                    self._pending = self._pending[end + len(CLOSE_TAG) :]
                    self._state = "answer_start"
                    continue
                keep = _partial_suffix(self._pending, CLOSE_TAG)
                ready = self._pending[: len(self._pending) - keep]
                if ready:
                    out.append(("thinking", ready))
                self._pending = self._pending[len(ready) :]
                break
            elif self._state == "answer_start":
                self._pending = self._pending.lstrip()
                if self._pending:
                    self._state = "answer"
            else:
                out.append(("text", self._pending))
                self._pending = ""
        return out

    def flush(self) -> list[Segment]:
        """What is still held back when the stream ends."""
        pending, self._pending = self._pending, ""
        if not pending:
            return []
        if self._state == "thinking":
            return [("thinking", pending)]
        if self._state == "answer_start":
            pending = pending.lstrip()
        return [("text", pending)] if pending else []


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


_HEAD_KEYS = ("id", "model", "created", "service_tier", "system_fingerprint")
"""The chunk fields the assembled response keeps (the last value sent)."""


class ChunkAssembler:
    """Accumulates one chat-completions stream; `feed` returns each chunk's deltas."""

    def __init__(self, codec: ChatCompletionsCodec, *, structured_output: bool = False) -> None:
        self._codec = codec
        self._structured_output = structured_output
        self._splitter = ThinkTagSplitter()
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._usage: dict[str, Any] | None = None
        self._finish_reason: str | None = None
        self._head: dict[str, Any] = {}

    @property
    def complete(self) -> bool:
        """True once a choice reported its finish_reason."""
        return self._finish_reason is not None

    def feed(self, chunk: Mapping[str, Any]) -> list[StreamDelta]:
        """Apply one chunk; returns the deltas to yield for it (often none)."""
        for key in _HEAD_KEYS:
            if chunk.get(key) is not None:
                self._head[key] = chunk[key]
        usage = chunk.get("usage")
        if isinstance(usage, Mapping):
            self._usage = dict(usage)
        out: list[StreamDelta] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue  # n > 1 is not supported: the first choice is the answer
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning:
                out.extend(self._segment(("thinking", reasoning)))
            content = delta.get("content")
            if isinstance(content, str) and content:
                for segment in self._splitter.feed(content):
                    out.extend(self._segment(segment))
            for call in delta.get("tool_calls") or ():
                out.extend(self._apply_call(call))
            if choice.get("finish_reason") is not None:
                self._finish_reason = str(choice["finish_reason"])
                for segment in self._splitter.flush():
                    out.extend(self._segment(segment))
        return out

    def _segment(self, segment: Segment) -> list[StreamDelta]:
        kind, text = segment
        if kind == "thinking":
            self._reasoning.append(text)
            return [ThinkingDelta(text)]
        self._text.append(text)
        return [TextDelta(text, structured_output=self._structured_output)]

    @property
    def think_tags(self) -> bool:
        """True when reasoning arrived as ``<think>`` tags inside the content."""
        return self._splitter.tagged

    def _apply_call(self, piece: Any) -> list[StreamDelta]:
        if not isinstance(piece, Mapping):
            return []
        index = piece.get("index")
        index = index if isinstance(index, int) else len(self._calls)
        call = self._calls.setdefault(
            index, {"id": None, "name": "", "arguments": [], "sent": False}
        )
        if piece.get("id"):
            call["id"] = str(piece["id"])
        function = piece.get("function") or {}
        if function.get("name") and not call["name"]:
            call["name"] = str(function["name"])
        if function.get("arguments"):
            call["arguments"].append(str(function["arguments"]))
        if not call["sent"] and call["name"]:
            call["sent"] = True
            if call["id"] is None:
                call["id"] = "call_" + secrets.token_hex(12)
            return [ToolCallDelta(id=call["id"], name=call["name"])]
        return []

    # -- results -------------------------------------------------------------------------

    def partial_usage(self) -> Usage | None:
        """The usage reported so far (None when no chunk carried usage)."""
        return parse_usage(self._usage) if self._usage is not None else None

    def native_message(self) -> dict[str, Any]:
        """The assistant message as a chat-completions dict."""
        for segment in self._splitter.flush():
            self._segment(segment)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(self._text) if self._text else None,
        }
        calls = []
        for index in sorted(self._calls):
            call = self._calls[index]
            calls.append(
                {
                    "id": call["id"] or "call_" + secrets.token_hex(12),
                    "type": "function",
                    "function": {"name": call["name"], "arguments": "".join(call["arguments"])},
                }
            )
        if calls:
            message["tool_calls"] = calls
        if self._reasoning:
            message["reasoning_content"] = "".join(self._reasoning)
        return message

    def message(self) -> Message:
        """The assistant message as IR (parsed by the history codec: replays byte-identical)."""
        native = self.native_message()
        (parsed,) = self._codec.parse([native])
        invalid = {
            call["id"]: raw
            for call in native.get("tool_calls", ())
            if (raw := call["function"]["arguments"]).strip() and arguments_object(raw) is None
        }
        if not invalid:
            return parsed
        parts: list[Part] = []
        for part in parsed.parts:
            if isinstance(part, ToolCallPart) and part.id in invalid:
                log.warning(
                    f"{self._codec.provider}: tool call arguments are not a JSON object; "
                    "the tool is not run",
                    tool=part.name,
                    call_id=part.id,
                )
                part = replace(part, invalid_arguments=invalid[part.id])
            parts.append(part)
        return replace(parsed, parts=tuple(parts))

    def raw(self) -> dict[str, Any]:
        """The response as a non-streaming ``chat.completion`` object would have carried it."""
        raw: dict[str, Any] = {**self._head, "object": "chat.completion"}
        raw["choices"] = [
            {"index": 0, "message": self.native_message(), "finish_reason": self._finish_reason}
        ]
        raw["usage"] = self._usage
        return raw

    def response(
        self,
        *,
        requested_model: str,
        request_id: str | None,
        metadata: dict[str, Any] | None = None,
    ) -> ModelResponse:
        """The `ModelResponse` of a completed stream (``metadata`` rides along)."""
        message = self.message()
        tier = self._head.get("service_tier")
        model = self._head.get("model")
        return ModelResponse(
            message=message,
            usage=parse_usage(self._usage),
            stop_reason=map_stop_reason(
                self._finish_reason, has_tool_calls=bool(message.tool_calls)
            ),
            model=model if isinstance(model, str) else requested_model,
            provider=self._codec.provider,
            request_id=request_id or self._head.get("id"),
            served_tier=tier if isinstance(tier, str) else None,
            served_tier_source="body" if isinstance(tier, str) else None,
            metadata=dict(metadata or {}),
            raw=self.raw(),
            response_id=head_id if isinstance(head_id := self._head.get("id"), str) else None,
        )
