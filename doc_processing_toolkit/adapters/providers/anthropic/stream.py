"""Anthropic raw stream events -> domain deltas and the final assistant message.

`StreamAssembler` is fed the raw events as plain dicts, as the API sent them
(`RawEvents` reads them off the response the SDK opened, so no per-event SDK model
is built), and can be driven by hand in tests.
Blocks are rebuilt exactly as the API sent them (text, tool_use with its accumulated
``input_json_delta``, thinking with its ``signature_delta``, redacted thinking, and
server-tool blocks verbatim) and then parsed with the same code as a stored history,
so the message replays byte-identical.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers._sse import SseDecoder, SseEvent
from doc_processing_toolkit.adapters.providers.anthropic.citations import map_citations
from doc_processing_toolkit.adapters.providers.anthropic.deployments import (
    EVENT_STREAM_TYPE,
    EventStreamDecoder,
)
from doc_processing_toolkit.adapters.providers.anthropic.dialect import PROVIDER, block_to_part
from doc_processing_toolkit.adapters.providers.anthropic.fallback import (
    fallback_target,
    usage_by_model,
)
from doc_processing_toolkit.adapters.providers.anthropic.files import output_file_refs
from doc_processing_toolkit.adapters.providers.anthropic.mapping import (
    map_stop_reason,
    merge_usage,
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

__all__ = ["RawEvents", "StreamAssembler"]


class RawEvents:
    """A stream's server-sent events as the dicts the API sent, read off the response
    the SDK opened (`SseDecoder`)
    instead of the SDK's per-event models: pings, unnamed and empty events are skipped,
    as the SDK skips them, and an ``event: error`` is raised as the SDK raises it
    (``APIStatusError`` with the error body). A line that is not JSON raises
    ``json.JSONDecodeError`` (a ``ValueError``, which the stream guard maps); a read that
    fails raises httpx2's error, as the SDK's stream does."""

    __slots__ = ("_chunks", "_decoder", "_ready", "_sdk", "response")

    def __init__(self, sdk: Any, response: Any) -> None:
        self._sdk = sdk
        self.response = response
        """The HTTP response (the stream guard closes it when the stream stalls)."""
        self._chunks = response.aiter_bytes().__aiter__()
        self._decoder: Any = SseDecoder()
        if response.headers.get("content-type", "").startswith(EVENT_STREAM_TYPE):
            self._decoder = EventStreamDecoder()  # Claude on Amazon Bedrock
        self._ready: deque[SseEvent] = deque()

    def __aiter__(self) -> RawEvents:
        return self

    async def __anext__(self) -> dict[str, Any]:
        ready = self._ready
        while True:
            while ready:
                kind, data = ready.popleft()
                if kind is None or kind == "ping":
                    continue
                if kind == "error":
                    raise self._error(data)
                if not data:
                    continue
                event = json.loads(data)
                if isinstance(event, dict):
                    return event
                raise json.JSONDecodeError("a stream event is not a JSON object", data, 0)
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                ready.extend(self._decoder.end()[0])  # an unfinished last event is dropped
                if not ready:
                    raise
                continue
            ready.extend(self._decoder.feed(chunk))

    def _error(self, data: str) -> Exception:
        body: object = data
        try:
            body = json.loads(data)
            message = f"{body}"
        except ValueError:
            message = data or f"Error code: {self.response.status_code}"
        error: Exception = self._sdk.APIStatusError(message, response=self.response, body=body)
        return error


log = get_logger(__name__)


class StreamAssembler:
    """Accumulates one Messages stream; `feed` returns the deltas each event yields."""

    def __init__(
        self, *, structured_output: bool = False, report_transformations: bool = False
    ) -> None:
        """Args:
        report_transformations: The request carried the thinking-binding beta, so the
            response's ``input_transformations`` is reported (see `binding`).
        """
        self._structured_output = structured_output
        self._report_transformations = report_transformations
        self._transformations: Any = None
        self._served: str | None = None
        self._message: dict[str, Any] = {}
        self._usage: dict[str, Any] = {}
        self._parsed: tuple[dict[str, Any], Usage] | None = None
        """The last `parse_usage` and the usage dict it parsed (each event that
        carries usage makes a new dict, so an unchanged one is parsed once)."""
        self._delta: dict[str, Any] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._pieces: dict[tuple[int, str], list[str]] = {}
        """Streamed text, thinking and signature pieces by (block, field), joined once into
        their block (`content_blocks`): no quadratic copying on long answers."""
        self._invalid: dict[int, str] = {}
        """Tool-call argument texts that were not a JSON object, by block index."""
        self.started = False
        """True once message_start arrived (usage is known from then on)."""
        self.complete = False
        """True once message_stop arrived."""

    def feed(self, event: Mapping[str, Any]) -> list[StreamDelta]:
        """Apply one raw event; returns the deltas to yield for it (often none)."""
        match event.get("type"):
            case "message_start":
                self._message = dict(event.get("message") or {})
                self._usage = dict(self._message.get("usage") or {})
                self._transformations = self._message.get("input_transformations")
                self.started = True
            case "content_block_start":
                return self._start_block(int(event["index"]), dict(event["content_block"]))
            case "content_block_delta":
                return self._apply_delta(int(event["index"]), event.get("delta") or {})
            case "content_block_stop":
                self._stop_block(int(event["index"]))
            case "message_delta":
                self._delta.update(
                    {k: v for k, v in (event.get("delta") or {}).items() if v is not None}
                )
                self._usage = merge_usage(self._usage, event.get("usage"))
                if event.get("input_transformations") is not None:
                    # only after a mid-stream server-side fallback: the serving model's
                    self._transformations = event["input_transformations"]
            case "message_stop":
                self.complete = True
            case _:
                pass
        return []

    def _start_block(self, index: int, block: dict[str, Any]) -> list[StreamDelta]:
        self._blocks[index] = block
        self._served = fallback_target(block) or self._served
        kind = block.get("type")
        if kind == "tool_use":
            self._json[index] = []
            return [ToolCallDelta(id=str(block.get("id", "")), name=str(block.get("name", "")))]
        if kind == "text" and block.get("text"):
            return [TextDelta(block["text"], structured_output=self._structured_output)]
        if kind == "thinking" and block.get("thinking"):
            return [ThinkingDelta(block["thinking"])]
        return []

    def _append(self, index: int, field: str, text: str) -> None:
        pieces = self._pieces.get((index, field))
        if pieces is None:
            self._pieces[(index, field)] = [text]
        else:
            pieces.append(text)

    def _apply_delta(self, index: int, delta: Mapping[str, Any]) -> list[StreamDelta]:
        if delta.get("type") == "text_delta":  # most events: inline, no further calls
            text = str(delta.get("text", ""))
            if index not in self._blocks:
                self._blocks[index] = {"type": "text", "text": ""}
            pieces = self._pieces.get((index, "text"))
            if pieces is None:
                self._pieces[(index, "text")] = [text]
            else:
                pieces.append(text)
            return [TextDelta(text, structured_output=self._structured_output)] if text else []
        block = self._blocks.setdefault(index, {"type": "text", "text": ""})
        match delta.get("type"):
            case "thinking_delta":
                text = str(delta.get("thinking", ""))
                self._append(index, "thinking", text)
                return [ThinkingDelta(text)] if text else []
            case "signature_delta":
                self._append(index, "signature", str(delta.get("signature", "")))
            case "input_json_delta":
                self._json.setdefault(index, []).append(str(delta.get("partial_json", "")))
            case "citations_delta":
                block.setdefault("citations", []).append(delta.get("citation"))
            case _:
                pass
        return []

    def _stop_block(self, index: int) -> None:
        pieces = self._json.pop(index, None)
        block = self._blocks.get(index)
        if block is None or pieces is None:
            return
        text = "".join(pieces)
        if not text:
            block.setdefault("input", {})
            return
        try:
            arguments = json.loads(text)
        except json.JSONDecodeError:
            arguments = None
        if not isinstance(arguments, dict):
            log.warning(
                "anthropic: tool call arguments are not a JSON object; the tool is not run",
                tool=block.get("name"),
                call_id=block.get("id"),
            )
            self._invalid[index] = text
            arguments = {}
        block["input"] = arguments

    def partial_usage(self) -> Usage | None:
        """The usage reported so far (None before message_start)."""
        return self._usage_now() if self.started else None

    def _usage_now(self) -> Usage:
        parsed, raw = self._parsed, self._usage
        if parsed is None or parsed[0] is not raw:
            parsed = self._parsed = (raw, parse_usage(raw))
        return parsed[1]

    @property
    def request_model(self) -> str | None:
        """The model that served the response: the last ``fallback`` block's target, else
        the model named in message_start."""
        model = self._served or self._message.get("model")
        return model if isinstance(model, str) else None

    def content_blocks(self) -> list[dict[str, Any]]:
        """The assistant's content blocks so far, in index order."""
        for index in list(self._json):
            self._stop_block(index)
        for (index, field), pieces in self._pieces.items():
            block = self._blocks[index]
            block[field] = block.get(field, "") + "".join(pieces)
        self._pieces.clear()
        return [self._blocks[i] for i in sorted(self._blocks)]

    def message(self, blocks: list[dict[str, Any]] | None = None) -> Message:
        """The assistant message as IR (blocks that the IR cannot hold stay verbatim);
        ``blocks``: `content_blocks`, when the caller has them already."""
        parts: list[Part] = []
        names: dict[str, str] = {}
        if blocks is None:
            blocks = self.content_blocks()
        for index, block in zip(sorted(self._blocks), blocks, strict=True):
            part = block_to_part(block, names)
            if isinstance(part, ToolCallPart):
                names[part.id] = part.name
                if index in self._invalid:
                    part = replace(part, invalid_arguments=self._invalid[index])
            parts.append(part)
        return Message(role="assistant", parts=tuple(parts), provider=PROVIDER)

    def raw(self, blocks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The final message as plain data, as a non-streaming call would have returned it."""
        raw = dict(self._message)
        raw.update(self._delta)
        raw["content"] = list(blocks) if blocks is not None else self.content_blocks()
        raw["usage"] = dict(self._usage)
        raw.setdefault("stop_reason", None)
        return raw

    def response(self, *, requested_model: str, request_id: str | None) -> ModelResponse:
        """The `ModelResponse` of a completed stream."""
        tier = self._usage.get("service_tier")
        blocks = self.content_blocks()
        invoked, metadata = built_in_evidence(blocks, self._delta, self._message)
        if self._report_transformations and isinstance(self._transformations, list):
            metadata["input_transformations"] = [
                dict(t) for t in self._transformations if isinstance(t, Mapping)
            ]
        served = self.request_model or requested_model
        return ModelResponse(
            message=self.message(blocks),
            usage=self._usage_now(),
            usage_by_model=usage_by_model(self._usage, served),
            stop_reason=map_stop_reason(self._delta.get("stop_reason")),
            model=served,
            provider=PROVIDER,
            request_id=request_id,
            served_tier=tier if isinstance(tier, str) else None,
            built_in_tools_invoked=invoked,
            metadata=metadata,
            raw=self.raw(blocks),
            citations=map_citations(blocks),
            response_id=_text_or_none(self._message.get("id")),
        )


_SERVER_TOOL_NAMES = {
    "web_search": "web_search",
    "web_fetch": "web_fetch",
    "code_execution": "code_execution",
    "bash_code_execution": "code_execution",
    "text_editor_code_execution": "code_execution",
    "tool_search_tool_regex": "tool_search",
    "tool_search_tool_bm25": "tool_search",
}


def built_in_evidence(
    blocks: list[dict[str, Any]], delta: Mapping[str, Any], message: Mapping[str, Any]
) -> tuple[tuple[str, ...], dict[str, Any]]:
    """Which provider-run tools actually ran, and the facts they left behind.

    ``server_tool_use`` blocks name a built-in tool; ``mcp_tool_use`` blocks a tool of a
    provider-run MCP server (reported with the neutral "remote_mcp" beside it);
    ``web_search_tool_result`` blocks carry the URLs; code execution results name the
    files it wrote (``code_execution_files``); the message's ``container`` (when
    code execution ran) carries the id a later run can reuse.
    """
    invoked: list[str] = []
    urls: list[str] = []

    def add(name: str) -> None:
        if name and name not in invoked:
            invoked.append(name)

    for block in blocks:
        kind = block.get("type")
        if kind == "server_tool_use":
            name = str(block.get("name") or "")
            add(_SERVER_TOOL_NAMES.get(name, name))
        elif kind == "mcp_tool_use":
            add(str(block.get("name") or ""))
            add("remote_mcp")
        elif kind == "web_search_tool_result":
            content = block.get("content")
            for item in content if isinstance(content, list) else []:
                url = item.get("url") if isinstance(item, Mapping) else None
                if isinstance(url, str) and url not in urls:
                    urls.append(url)
    metadata: dict[str, Any] = {}
    if urls:
        metadata["distinct_urls"] = urls
    outputs = output_file_refs(blocks)
    if outputs:
        metadata["code_execution_files"] = outputs
    container = delta.get("container") or message.get("container")
    if isinstance(container, Mapping) and isinstance(container.get("id"), str):
        metadata["container_id"] = container["id"]
    return tuple(invoked), metadata


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
