"""Helpers the contract suite uses to drive one client: streaming, collecting, fixtures.

They are public so a provider's own tests can reuse them next to the suite.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.messages import Message, TextPart, ToolResultPart, user_text
from doc_processing_toolkit.domain.registry import ModelInfo, Pricing
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    ModelResponse,
    StreamDelta,
    TextDelta,
    ThinkingDelta,
)
from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = [
    "CONTRACT_PRICING",
    "CONTRACT_TOOLS",
    "StreamOutcome",
    "contract_row",
    "expected_cost",
    "request_for",
    "signature_payload",
    "stream_once",
    "string_leaves",
    "tool_results_for",
]

CONTRACT_PRICING = Pricing(input_per_mtok=3.0, output_per_mtok=15.0, cache_read_per_mtok=0.3)
"""USD per million tokens of the suite's own registry row."""

_OBJECT = {"type": "object", "additionalProperties": False}
CONTRACT_TOOLS = (
    ToolSpec(
        "get_weather",
        "Current weather in a city.",
        {
            **_OBJECT,
            "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
            "required": ["city", "units"],
        },
    ),
    ToolSpec(
        "get_time",
        "Current time in a time zone.",
        {
            **_OBJECT,
            "properties": {
                "tz": {"type": "string"},
                "nested": {
                    "type": "object",
                    "properties": {"a": {"type": "array", "items": {"type": "integer"}}},
                },
            },
            "required": ["tz"],
        },
    ),
    ToolSpec(
        "lookup",
        "Look a term up.",
        {**_OBJECT, "properties": {"q": {"type": "string"}}, "required": ["q"]},
    ),
)
"""The tools every suite request offers."""


def signature_payload() -> str:
    """An opaque, valid-base64 signature (so dialects carrying bytes can hold it)."""
    return base64.b64encode(b"contract-suite signature \x00\x01\xfe\xff" * 3).decode("ascii")


def contract_row(provider: str, model: str) -> ModelInfo:
    """A registry row for ``model`` with `CONTRACT_PRICING`."""
    return ModelInfo(model=model, provider=provider, pricing=CONTRACT_PRICING)


def expected_cost(input_tokens: int, cached: int, output_tokens: int) -> float:
    """USD of a request without cache writes at `CONTRACT_PRICING`."""
    pricing = CONTRACT_PRICING
    assert pricing.input_per_mtok is not None and pricing.output_per_mtok is not None
    assert pricing.cache_read_per_mtok is not None
    total = (
        (input_tokens - cached) * pricing.input_per_mtok
        + cached * pricing.cache_read_per_mtok
        + output_tokens * pricing.output_per_mtok
    )
    return total / 1_000_000


def request_for(model: str, *messages: Message, **kwargs: Any) -> ModelRequest:
    """A ModelRequest offering `CONTRACT_TOOLS` (one user turn when none is given)."""
    kwargs.setdefault("tools", CONTRACT_TOOLS)
    kwargs.setdefault("max_tokens", 2048)
    return ModelRequest(model=model, messages=messages or (user_text("Hello"),), **kwargs)


def tool_results_for(response: ModelResponse, prefix: str = "result of ") -> Message:
    """The tool turn answering every call of ``response`` (text results, in call order)."""
    parts = tuple(
        ToolResultPart(call.id, call.name, (TextPart(f"{prefix}{call.name}"),))
        for call in response.message.tool_calls
    )
    return Message("tool", parts)


def string_leaves(value: Any) -> list[str]:
    """Every string inside nested dicts / lists (keys excluded), depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, bytes):
        return [base64.b64encode(value).decode("ascii")]
    if isinstance(value, Mapping):
        return [leaf for item in value.values() for leaf in string_leaves(item)]
    if isinstance(value, list | tuple):
        return [leaf for item in value for leaf in string_leaves(item)]
    return []


@dataclass(slots=True)
class StreamOutcome:
    """What one ``stream()`` call produced."""

    deltas: list[StreamDelta] = field(default_factory=list)
    """Every delta, in order."""
    response: ModelResponse | None = None
    """The final response (None when the stream failed)."""
    error: Exception | None = None
    """The exception the stream raised (None on success)."""
    after_response: list[object] = field(default_factory=list)
    """Items yielded after the ModelResponse (must stay empty)."""

    @property
    def text(self) -> str:
        """The concatenated text deltas."""
        return "".join(d.text for d in self.deltas if isinstance(d, TextDelta))

    @property
    def thinking(self) -> str:
        """The concatenated thinking deltas."""
        return "".join(d.text for d in self.deltas if isinstance(d, ThinkingDelta))

    def ok(self) -> ModelResponse:
        """The response; fails with the stream's error when there is none."""
        if self.error is not None:
            raise AssertionError(
                f"the stream failed: {type(self.error).__name__}: {self.error}"
            ) from self.error
        assert self.response is not None, "the stream ended without a ModelResponse"
        assert not self.after_response, f"items after the ModelResponse: {self.after_response}"
        return self.response

    def failed(self) -> Exception:
        """The error; fails when the stream succeeded."""
        assert self.error is not None, f"the stream did not fail (response: {self.response})"
        return self.error


async def stream_once(client: ModelClient, request: ModelRequest) -> StreamOutcome:
    """Drain ``client.stream(request)``, keeping deltas, the response and any error."""
    outcome = StreamOutcome()
    try:
        async for item in client.stream(request):
            if outcome.response is not None:
                outcome.after_response.append(item)
            elif isinstance(item, ModelResponse):
                outcome.response = item
            else:
                outcome.deltas.append(item)
    except Exception as exc:
        outcome.error = exc
    return outcome
