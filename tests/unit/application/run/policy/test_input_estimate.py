"""Agent(estimate_input_tokens=...): the local estimate, lazy, provider-counted or off."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.application.run.policy.input_estimate import (
    IMAGE_TOKENS,
    PDF_PAGE_TOKENS,
    local_estimate,
)
from doc_processing_toolkit.domain.errors import StreamInterruptedError
from doc_processing_toolkit.domain.messages import MediaPart, Message, TextPart
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCallDelta,
)
from doc_processing_toolkit.testing import FakeModel


def _request(*parts: object, system: str = "") -> ModelRequest:
    message = Message(role="user", parts=tuple(parts))  # type: ignore[arg-type]
    return ModelRequest(model="m", messages=(message,), system=system)


@dataclass
class _BreaksMidStream:
    """A ModelClient whose stream starts (a tool call, or text), then breaks with no usage
    reported."""

    counted: int | None = None
    provider: str = "anthropic"
    count_calls: list[ModelRequest] = field(default_factory=list)
    text: str = ""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        yield TextDelta(self.text) if self.text else ToolCallDelta(id="toolu_1", name="f")
        raise StreamInterruptedError("stream disconnected", provider=self.provider)

    async def aclose(self) -> None:
        return None


@dataclass
class _CountingClient(_BreaksMidStream):
    async def count_tokens(self, request: ModelRequest) -> int:
        self.count_calls.append(request)
        return self.counted or 0


def _failed_run(client: object, mode: object) -> dict[str, object]:
    agent = Agent(
        "claude-sonnet-5-5",
        "s" * 4_000,
        client=client,  # type: ignore[arg-type]
        estimate_input_tokens=mode,
    )

    async def go() -> dict[str, object]:
        async for event in agent.stream("hello"):
            if event.event_type == "complete":
                return dict(event.metadata or {})
        raise AssertionError("no complete event")

    return asyncio.run(go())


def test_local_estimate_counts_text_images_and_pdf_pages() -> None:
    text_only = local_estimate(_request(TextPart("x" * 400), system="y" * 400))
    assert text_only == 200
    image = MediaPart(mime_type="image/png", data=b"\x89PNG" + b"0" * 10_000)
    assert local_estimate(_request(image)) == IMAGE_TOKENS
    pdf = b"%PDF-1.4\n" + b"<< /Type /Pages >>" + b"<< /Type /Page >>" * 3
    document = MediaPart(mime_type="application/pdf", data=pdf)
    assert local_estimate(_request(document)) == 3 * PDF_PAGE_TOKENS


def test_lazy_estimate_bills_the_input_of_a_stream_that_broke_without_usage() -> None:
    client = _CountingClient(counted=999)
    data = _failed_run(client, "lazy")
    assert data["token_source"] == "billable_error_input_only"
    assert data["cost_estimated"] is True
    assert data["input_tokens"] >= 1_000  # type: ignore[operator]
    assert data["cost"] > 0  # type: ignore[operator]
    assert client.count_calls == []  # lazy: no count-tokens call


def test_streamed_text_adds_its_output_estimate_to_the_input_estimate() -> None:
    client = _CountingClient(counted=500, text="x" * 400)
    data = _failed_run(client, True)
    assert data["token_source"] == "stream_partial"
    assert data["input_tokens"] == 500 and data["output_tokens"] > 0  # type: ignore[operator]
    assert data["cost_estimated"] is True


def test_true_uses_the_provider_count() -> None:
    client = _CountingClient(counted=12_345)
    data = _failed_run(client, True)
    assert data["input_tokens"] == 12_345
    assert data["token_source"] == "billable_error_input_only"
    assert len(client.count_calls) == 1


def test_false_makes_no_estimate() -> None:
    client = _CountingClient(counted=12_345)
    data = _failed_run(client, False)
    assert data["input_tokens"] == 0
    assert data["cost"] == 0
    assert data["token_source"] == "unknown"
    assert client.count_calls == []


def test_estimate_mode_is_validated() -> None:
    with pytest.raises(ValueError, match="estimate_input_tokens"):
        Agent("claude-sonnet-5-5", client=FakeModel([]), estimate_input_tokens="eager")
