"""FakeModel: a scripted, in-process ModelClient for tests (yours and ours).

It is a real adapter: it goes through the real container and the real run loop, it
streams deltas, reports usage, and raises the toolkit's own ProviderErrors for scripted
faults. Every request it receives is recorded on `FakeModel.requests`.

Example::

    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.testing import FakeModel, reply, tool_call

    fake = FakeModel([tool_call("calculate", {"a": 2, "b": 3}), reply("5")])
    agent = Agent("claude-sonnet-5-5", tools=[calculate], client=fake)
    result = agent.run_sync("What is 2 + 3?")
    assert result.tools_used == ["calculate"]
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field

import anyio

from doc_processing_toolkit.domain.errors import (
    OverloadedError,
    ProviderError,
    StreamInterruptedError,
    status_error_class,
)
from doc_processing_toolkit.domain.messages import (
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
)
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    ModelResponse,
    StopReason,
    StreamItem,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from doc_processing_toolkit.testing.script import Fault, Reply, ScriptStep, ToolCall

__all__ = ["FakeModel"]

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "pause_turn": "pause_turn",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
}


@dataclass
class FakeModel:
    """A scripted ModelClient. Each request consumes one step of ``script``."""

    script: list[ScriptStep] = field(default_factory=list)
    provider: str = "anthropic"
    """The provider this fake answers as (affects only ``Message.provider``)."""
    default: Reply | None = None
    """Answer once the script is exhausted; None raises a clear error instead."""
    requests: list[ModelRequest] = field(default_factory=list)
    closed: bool = False

    def __post_init__(self) -> None:
        self.script = list(self.script)
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def push(self, *steps: ScriptStep) -> None:
        """Append steps to the script."""
        with self._lock:
            self.script.extend(steps)

    @property
    def remaining(self) -> int:
        """Steps not consumed yet."""
        return len(self.script)

    def _next_step(self) -> ScriptStep:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        if self.default is not None:
            return self.default
        raise ProviderError("FakeModel script exhausted", provider=self.provider)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Answer ``request`` with the next script step."""
        self.requests.append(request)
        step = self._next_step()
        if isinstance(step, Fault):
            async for delta in self._fault(step):
                yield delta
            return
        async for item in self._reply(step, request):
            yield item

    async def _fault(self, fault: Fault) -> AsyncIterator[StreamItem]:
        if fault.kind == "status":
            retry_after = fault.retry_after
            if fault.retry_after_ms is not None:
                retry_after = fault.retry_after_ms / 1000
            raise status_error_class(fault.status)(
                f"HTTP {fault.status}: {fault.message}",
                provider=self.provider,
                status_code=fault.status,
                retry_after=retry_after,
                before_stream=True,
                error_type=fault.error_type,
            )
        if fault.partial_text:
            yield TextDelta(fault.partial_text)
        # Fault(input_tokens=0): a stream that reported no usage at all before it failed.
        partial = Usage(input_tokens=fault.input_tokens) if fault.input_tokens else None
        error_cls = OverloadedError if fault.kind == "stream_error" else StreamInterruptedError
        raise error_cls(
            f"stream {'error event' if fault.kind == 'stream_error' else 'disconnected'}: "
            f"{fault.message}",
            provider=self.provider,
            partial_usage=partial,
            error_type=fault.error_type,
        )

    async def _reply(self, step: Reply, request: ModelRequest) -> AsyncIterator[StreamItem]:
        parts: list[Part] = []
        if request.on_usage is not None:  # like Anthropic's message_start: input usage first
            request.on_usage(
                Usage(
                    input_tokens=step.input_tokens + step.cache_read_tokens,
                    cached_input_tokens=step.cache_read_tokens,
                )
            )
        for block in step.thinking:
            details: dict[str, str] = {}
            if block.signature is not None:
                details["signature"] = block.signature
            if block.redacted_data is not None:
                details["redacted_data"] = block.redacted_data
            if block.text:
                yield ThinkingDelta(block.text)
            parts.append(ReasoningPart(block.text, self.provider, details or None))
        if step.text:
            structured = request.output_schema is not None
            for start in range(0, len(step.text), max(1, step.chunk_size)):
                if step.delay_between_chunks:
                    await anyio.sleep(step.delay_between_chunks)
                chunk = step.text[start : start + max(1, step.chunk_size)]
                yield TextDelta(chunk, structured_output=structured)
            parts.append(TextPart(step.text))
        for call in step.tool_calls:
            call_id = call.id or f"call_{next(self._ids):04d}"
            yield ToolCallDelta(call_id, call.name)
            parts.append(_call_part(call_id, call))
        stop: StopReason = "tool_use" if step.tool_calls else "end_turn"
        if step.stop_reason is not None:
            stop = _STOP_REASONS.get(step.stop_reason, "other")
        usage = Usage(
            input_tokens=step.input_tokens + step.cache_read_tokens,
            output_tokens=step.output_tokens,
            reasoning_tokens=step.reasoning_tokens,
            cached_input_tokens=step.cache_read_tokens,
            cache_write_tokens=step.cache_write_tokens,
            cache_write_1h_tokens=step.cache_write_1h_tokens,
        )
        yield ModelResponse(
            message=Message("assistant", tuple(parts), provider=self.provider),
            usage=usage,
            stop_reason=stop,
            model=step.model or request.model,
            provider=self.provider,
            request_id=f"fake_req_{next(self._ids):04d}",
            served_tier=step.served_tier,
            citations=tuple(step.citations),
        )

    async def aclose(self) -> None:
        """Mark closed (nothing to release)."""
        self.closed = True

    @classmethod
    def from_steps(cls, steps: Iterable[ScriptStep], **kwargs: object) -> FakeModel:
        """Build from any iterable of steps."""
        return cls(list(steps), **kwargs)  # type: ignore[arg-type]


def _call_part(call_id: str, call: ToolCall) -> ToolCallPart:
    """The call as a provider adapter parses it (raw text that is not a JSON object is
    kept in ``invalid_arguments``, with ``{}`` as the arguments)."""
    if call.raw_arguments is None:
        return ToolCallPart(call_id, call.name, dict(call.arguments))
    try:
        decoded = json.loads(call.raw_arguments)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        return ToolCallPart(call_id, call.name, decoded)
    return ToolCallPart(call_id, call.name, {}, invalid_arguments=call.raw_arguments)
