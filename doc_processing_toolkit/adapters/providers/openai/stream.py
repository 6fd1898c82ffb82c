"""OpenAI Responses stream events -> domain deltas and the final assistant message.

`StreamAssembler` is fed the events as the API sent them, plain dicts (read off the raw
stream by `OpenAIRawEvents`), so
it is independent of the SDK's typed models and can be driven by hand in tests. Output
items are kept exactly as the API sent them in ``response.output_item.done`` (the
reasoning item with its ``encrypted_content``, function calls with their ids) and then
parsed with the same code as a stored history, so the message replays byte-identical.

Failures inside a 200 stream (an ``error`` event, ``response.failed``) are recorded, not
raised: the client reads on to the end of the stream, so the failure carries the usage
the API reported, then raises `StreamAssembler.failure`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers.openai.citations import map_annotations
from doc_processing_toolkit.adapters.providers.openai.dialect import PROVIDER, item_to_parts
from doc_processing_toolkit.adapters.providers.openai.files import output_file_refs
from doc_processing_toolkit.adapters.providers.openai.mapping import (
    built_in_evidence,
    map_stop_reason,
    parse_usage,
    served_tier,
    web_search_urls,
)
from doc_processing_toolkit.domain.messages import Message, Part, ProviderPart, ToolCallPart
from doc_processing_toolkit.domain.requests import (
    ModelResponse,
    StreamDelta,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)

__all__ = ["StreamAssembler", "StreamFailure"]

log = get_logger(__name__)

_TERMINAL = frozenset({"response.completed", "response.incomplete"})
_SNAPSHOTS = frozenset({"response.created", "response.in_progress", "response.queued"})


@dataclass(frozen=True, slots=True)
class StreamFailure:
    """A failure the stream reported in-band (``error`` event or ``response.failed``)."""

    code: str | None
    """The error code (``server_error``, ``rate_limit_exceeded``, ...), when given."""
    message: str
    """The provider's message."""
    source: str
    """``error`` (an error event) or ``response.failed``."""


class StreamAssembler:
    """Accumulates one Responses stream; `feed` returns the deltas each event yields."""

    def __init__(self, *, structured_output: bool = False) -> None:
        self._structured_output = structured_output
        self._response: dict[str, Any] = {}
        self._added: dict[int, dict[str, Any]] = {}
        self._done: dict[int, dict[str, Any]] = {}
        self._arguments: dict[int, list[str]] = {}
        self._texts: dict[tuple[int, int], list[str]] = {}
        self.started = False
        """True once response.created (or any event) arrived."""
        self.complete = False
        """True once response.completed / response.incomplete arrived."""
        self.failure: StreamFailure | None = None
        """The in-band failure, if the stream reported one."""

    def _text_delta(self, index: int, content_index: Any, delta: Any) -> list[StreamDelta]:
        text = str(delta or "")
        self._texts.setdefault((index, _index(content_index)), []).append(text)
        return [TextDelta(text, structured_output=self._structured_output)] if text else []

    def feed(self, event: Mapping[str, Any]) -> list[StreamDelta]:
        """Apply one event; returns the deltas to yield for it (often none)."""
        self.started = True
        kind = event.get("type")
        if kind in _SNAPSHOTS or kind in _TERMINAL or kind == "response.failed":
            response = event.get("response")
            if isinstance(response, Mapping):
                self._response = dict(response)
            if kind in _TERMINAL:
                self.complete = True
            elif kind == "response.failed":
                self._fail_from_response(self._response)
            return []
        index = _index(event.get("output_index"))
        match kind:
            case "response.output_item.added":
                item = dict(event.get("item") or {})
                self._added[index] = item
                if item.get("type") == "function_call":
                    return [
                        ToolCallDelta(
                            id=str(item.get("call_id", "")), name=str(item.get("name", ""))
                        )
                    ]
            case "response.output_item.done":
                self._done[index] = dict(event.get("item") or {})
            case "response.output_text.delta":
                return self._text_delta(index, event.get("content_index"), event.get("delta"))
            case "response.function_call_arguments.delta":
                self._arguments.setdefault(index, []).append(str(event.get("delta") or ""))
            case "response.function_call_arguments.done":
                arguments = event.get("arguments")
                if isinstance(arguments, str):
                    self._arguments[index] = [arguments]
            case "response.reasoning_summary_part.added":
                if _index(event.get("summary_index")) > 0:
                    return [ThinkingDelta("\n\n")]
            case "response.reasoning_summary_text.delta":
                text = str(event.get("delta") or "")
                return [ThinkingDelta(text)] if text else []
            case "error":
                code = event.get("code")
                self.failure = StreamFailure(
                    code=code if isinstance(code, str) else None,
                    message=str(event.get("message") or "error event"),
                    source="error",
                )
            case _:
                pass
        return []

    def _fail_from_response(self, response: Mapping[str, Any]) -> None:
        error = response.get("error")
        error = error if isinstance(error, Mapping) else {}
        code = error.get("code")
        self.failure = StreamFailure(
            code=code if isinstance(code, str) else (self.failure.code if self.failure else None),
            message=str(error.get("message") or (self.failure.message if self.failure else "")),
            source="response.failed",
        )

    def fail(self, code: str | None, message: str) -> None:
        """Record a failure the SDK raised instead of yielding it as an event."""
        self.failure = StreamFailure(code=code, message=message, source="error")

    # -- results -----------------------------------------------------------------------------

    def partial_usage(self) -> Usage | None:
        """The usage reported so far (None when the stream reported none)."""
        usage = self._response.get("usage")
        return parse_usage(usage) if isinstance(usage, Mapping) else None

    def _item(self, index: int) -> dict[str, Any]:
        """The final item at ``index``: as ``output_item.done`` sent it, else rebuilt."""
        if index in self._done:
            return self._done[index]
        item = copy.deepcopy(self._added.get(index, {}))
        if index in self._arguments:
            item["arguments"] = "".join(self._arguments[index])
        texts = {c: "".join(t) for (i, c), t in self._texts.items() if i == index}
        if texts:
            content = [dict(e) for e in item.get("content") or [] if isinstance(e, dict)]
            for position, text in sorted(texts.items()):
                while len(content) <= position:
                    content.append({"type": "output_text", "text": "", "annotations": []})
                content[position]["text"] = text
            item["content"] = content
        return item

    def output_items(self) -> list[dict[str, Any]]:
        """The output items in output order (the final response's list fills any gaps)."""
        final = self._response.get("output")
        final = (
            [dict(i) for i in final if isinstance(i, Mapping)] if isinstance(final, list) else []
        )
        indexes = set(self._added) | set(self._done) | set(self._arguments)
        indexes |= {i for i, _ in self._texts}
        if not indexes:
            return final
        streamed = {index: self._item(index) for index in indexes}
        # output_index counts items the stream never announced (the final list may leave
        # them out too), so a gap is filled from the final list only with an item that was
        # not streamed under another index
        ids = {item.get("id") for item in streamed.values() if item.get("id")}
        items = []
        for index in range(max(max(indexes) + 1, len(final))):
            if index in streamed:
                items.append(streamed[index])
            elif index < len(final) and final[index].get("id") not in ids:
                items.append(final[index])
        return [item for item in items if item]

    def message(self) -> Message:
        """The assistant message as IR (items the IR cannot hold stay verbatim)."""
        parts: list[Part] = []
        for item in self.output_items():
            new_parts = item_to_parts(item)
            if item.get("type") == "function_call" and isinstance(new_parts[0], ProviderPart):
                log.warning(
                    "openai: tool call arguments are not a JSON object; the tool is not run",
                    tool=item.get("name"),
                    call_id=item.get("call_id"),
                )
                new_parts = [
                    ToolCallPart(
                        id=str(item.get("call_id", "")),
                        name=str(item.get("name", "")),
                        arguments={},
                        provider_details={PROVIDER: {"item": item}},
                        invalid_arguments=_nonblank(item.get("arguments")),
                    )
                ]
            parts.extend(new_parts)
        return Message(role="assistant", parts=tuple(parts), provider=PROVIDER)

    def raw(self) -> dict[str, Any]:
        """The final response as plain data, with the assembled output items."""
        raw = dict(self._response)
        raw["output"] = self.output_items()
        return raw

    def response(self, *, requested_model: str, request_id: str | None) -> ModelResponse:
        """The `ModelResponse` of a completed stream."""
        raw = self.raw()
        tier = served_tier(raw)
        model = raw.get("model")
        urls = web_search_urls(raw["output"])
        metadata: dict[str, Any] = {"distinct_urls": urls} if urls else {}
        outputs = output_file_refs(raw["output"])
        if outputs:
            metadata["code_execution_files"] = outputs
        return ModelResponse(
            message=self.message(),
            usage=parse_usage(raw.get("usage") if isinstance(raw.get("usage"), Mapping) else None),
            stop_reason=map_stop_reason(raw),
            model=model if isinstance(model, str) and model else requested_model,
            provider=PROVIDER,
            request_id=request_id,
            served_tier=tier,
            served_tier_source="body" if tier is not None else None,
            built_in_tools_invoked=built_in_evidence(raw["output"]),
            metadata=metadata,
            raw=raw,
            citations=map_annotations(raw["output"]),
            response_id=raw["id"] if isinstance(raw.get("id"), str) and raw["id"] else None,
        )


def _index(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _nonblank(raw: Any) -> str | None:
    """Arguments text that is not blank (blank arguments are ``{}``, not an error)."""
    text = raw if isinstance(raw, str) else "" if raw is None else str(raw)
    return text if text.strip() else None
