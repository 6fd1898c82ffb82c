"""Gemini ``streamGenerateContent`` chunks -> domain deltas and the final assistant message.

`StreamAssembler` is fed each chunk as a plain dict in the SDK's JSON form
(``chunk.model_dump(mode="json", exclude_none=True)``: snake_case keys, bytes as URL-safe
base64), so it is independent of the SDK's typed models and can be driven by hand.
Parts are kept as Gemini sent them, except that consecutive unsigned text parts of the
same kind (answer text, or thought summary) are joined, as streamed text is: a part that
carries a ``thought_signature`` is never merged with another, so the signature replays
byte-identical on the part it arrived on. The parts are then parsed with the same code
as a stored history (`dialect`).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers.google.citations import map_grounding
from doc_processing_toolkit.adapters.providers.google.code_files import output_file_refs
from doc_processing_toolkit.adapters.providers.google.dialect import (
    PROVIDER,
    call_id_for,
    native_part_to_parts,
)
from doc_processing_toolkit.adapters.providers.google.mapping import (
    SERVED_TIER_HEADER,
    map_stop_reason,
    parse_usage,
    resolve_served_tier,
)
from doc_processing_toolkit.domain.messages import Message, Part
from doc_processing_toolkit.domain.requests import (
    ModelResponse,
    StreamDelta,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)

__all__ = ["StreamAssembler"]

_TEXT_KEYS = frozenset({"text", "thought", "thought_signature"})
_CODE_KEYS = ("executable_code", "code_execution_result")


class StreamAssembler:
    """Accumulates one Gemini stream; `feed` returns the deltas each chunk yields."""

    def __init__(self, *, structured_output: bool = False, requested_tier: str | None = None):
        self._structured_output = structured_output
        self._requested_tier = requested_tier
        self._settled: list[dict[str, Any]] = []
        self._tail: list[str] = []
        """Text still to be added to the last part (joined once: no quadratic copying)."""
        self._call_ids: dict[int, str] = {}
        self._usage: dict[str, Any] = {}
        self._finish: str | None = None
        self._candidate_extra: dict[str, Any] = {}
        self._grounding: list[dict[str, Any]] = []
        self._blocked = False
        self._body_tier: Any = None
        self._header_tier: str | None = None
        self._model_version: str | None = None
        self._response_id: str | None = None
        self._prompt_feedback: dict[str, Any] | None = None
        self.received = False
        """True once a chunk arrived."""
        self.complete = False
        """True once a finish reason (or a blocked-prompt feedback) arrived."""

    # -- feeding -------------------------------------------------------------------------

    def set_headers(self, headers: Mapping[str, str] | None) -> None:
        """Record the response headers (the served-tier header)."""
        for name, value in (headers or {}).items():
            if name.lower() == SERVED_TIER_HEADER and value:
                self._header_tier = value

    def feed(self, chunk: Mapping[str, Any]) -> list[StreamDelta]:
        """Apply one chunk; returns the deltas to yield for it (often one)."""
        self.received = True
        if self._response_id is None and isinstance(chunk.get("response_id"), str):
            self._response_id = chunk["response_id"]
        if isinstance(chunk.get("model_version"), str):
            self._model_version = chunk["model_version"]
        usage = chunk.get("usage_metadata")
        if isinstance(usage, Mapping):
            self._usage = dict(usage)
            if usage.get("service_tier") is not None:
                self._body_tier = usage["service_tier"]
        feedback = chunk.get("prompt_feedback")
        if isinstance(feedback, Mapping):
            self._prompt_feedback = dict(feedback)
            if feedback.get("block_reason"):
                self._blocked = True
                self.complete = True
        deltas: list[StreamDelta] = []
        candidates = chunk.get("candidates")
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], Mapping):
            candidate = candidates[0]
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, Mapping) else None
            for part in parts if isinstance(parts, list) else []:
                if isinstance(part, Mapping):
                    deltas.extend(self._add(dict(part)))
            grounding = candidate.get("grounding_metadata")
            if isinstance(grounding, Mapping):
                self._grounding.append(dict(grounding))
            for key, value in candidate.items():
                if key not in ("content", "grounding_metadata", "finish_reason", "index"):
                    self._candidate_extra[key] = value
            if candidate.get("finish_reason"):
                self._finish = str(candidate["finish_reason"])
                self.complete = True
        return deltas

    @property
    def _parts(self) -> list[dict[str, Any]]:
        """The native parts so far, the last one's text complete."""
        if self._tail:
            self._settled[-1]["text"] += "".join(self._tail)
            self._tail.clear()
        return self._settled

    def _add(self, part: dict[str, Any]) -> list[StreamDelta]:
        call = part.get("function_call")
        if isinstance(call, Mapping):
            name = str(call.get("name", ""))
            gid = call.get("id")
            call_id = gid if isinstance(gid, str) and gid else self._new_call_id(name)
            self._call_ids[len(self._settled)] = call_id
            self._parts.append(part)
            return [ToolCallDelta(id=call_id, name=name)]
        text = part.get("text")
        if not isinstance(text, str) or not set(part) <= _TEXT_KEYS:
            self._parts.append(part)
            return []
        thought = part.get("thought") is True
        previous = self._settled[-1] if self._settled else None
        if (
            "thought_signature" not in part
            and previous is not None
            and set(previous) <= {"text", "thought"}
            and isinstance(previous.get("text"), str)
            and (previous.get("thought") is True) == thought
        ):
            self._tail.append(text)
        else:
            self._parts.append(part)
        if not text:
            return []
        if thought:
            return [ThinkingDelta(text)]
        return [TextDelta(text, structured_output=self._structured_output)]

    def _new_call_id(self, name: str) -> str:
        index = len(self._call_ids)
        if self._response_id is not None:
            return call_id_for(f"{self._response_id}:{index}:{name}")
        return call_id_for(f"{secrets.token_hex(16)}:{index}:{name}")

    # -- results -------------------------------------------------------------------------

    def partial_usage(self) -> Usage | None:
        """The usage reported so far (None before any usage_metadata)."""
        return parse_usage(self._usage) if self._usage else None

    def message(self) -> Message:
        """The assistant message as IR (parts the IR cannot hold stay verbatim)."""
        parts: list[Part] = []
        for index, native in enumerate(self._parts):
            parts.extend(
                native_part_to_parts(native, call_id=self._call_ids.get(index), seed=str(index))
            )
        return Message(role="assistant", parts=tuple(parts), provider=PROVIDER)

    def _built_in_evidence(self) -> tuple[tuple[str, ...], list[str]]:
        invoked: list[str] = []
        urls: list[str] = []
        for grounding in self._grounding:
            if any(
                grounding.get(key)
                for key in ("web_search_queries", "grounding_chunks", "search_entry_point")
            ):
                invoked.append("web_search")
            for chunk in grounding.get("grounding_chunks") or []:
                web = chunk.get("web") if isinstance(chunk, Mapping) else None
                uri = web.get("uri") if isinstance(web, Mapping) else None
                if isinstance(uri, str) and uri not in urls:
                    urls.append(uri)
        if any(key in part for part in self._parts for key in _CODE_KEYS):
            invoked.append("code_execution")
        return tuple(dict.fromkeys(invoked)), urls

    def raw(self) -> dict[str, Any]:
        """The response as plain data, as a non-streaming call would have returned it."""
        candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": [dict(p) for p in self._parts]},
            **self._candidate_extra,
        }
        if self._finish is not None:
            candidate["finish_reason"] = self._finish
        if self._grounding:
            candidate["grounding_metadata"] = self._grounding[-1]
        raw: dict[str, Any] = {"candidates": [candidate], "usage_metadata": dict(self._usage)}
        if self._prompt_feedback is not None:
            raw["prompt_feedback"] = self._prompt_feedback
        if self._model_version is not None:
            raw["model_version"] = self._model_version
        if self._response_id is not None:
            raw["response_id"] = self._response_id
        return raw

    def _metadata(self, urls: list[str]) -> dict[str, Any]:
        metadata: dict[str, Any] = {"distinct_urls": urls} if urls else {}
        files = output_file_refs(self._parts)
        if files:
            metadata["code_execution_files"] = files
        return metadata

    def response(self, *, requested_model: str, request_id: str | None = None) -> ModelResponse:
        """The `ModelResponse` of a completed stream."""
        message = self.message()
        invoked, urls = self._built_in_evidence()
        served, source = resolve_served_tier(
            self._body_tier, self._header_tier, self._requested_tier
        )
        return ModelResponse(
            message=message,
            usage=parse_usage(self._usage),
            stop_reason=map_stop_reason(
                self._finish, has_tool_calls=bool(message.tool_calls), blocked=self._blocked
            ),
            model=self._model_version or requested_model,
            provider=PROVIDER,
            request_id=request_id or self._response_id,
            served_tier=served,
            served_tier_source=source,
            built_in_tools_invoked=invoked,
            metadata=self._metadata(urls),
            raw=self.raw(),
            citations=map_grounding(
                message.text, self._grounding, self._candidate_extra.get("citation_metadata")
            ),
            response_id=self._response_id,
        )
