"""Issue acceptance: the same PDF + PNG + question, unchanged code, on one model per provider.

Each run goes Agent -> the provider's real SDK -> the loopback emulator; the assertions
read the wire body the SDK sent.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.domain.errors import UnsupportedPartError
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import reply

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 17
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
QUESTION = "What does the invoice total, and what is in the picture?"


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


@pytest.fixture
def inputs(tmp_path: Path) -> list[Any]:
    (tmp_path / "invoice.pdf").write_bytes(PDF)
    (tmp_path / "photo.png").write_bytes(PNG)
    return [str(tmp_path / "invoice.pdf"), tmp_path / "photo.png"]


def _agent(model: str, emulator: ProviderEmulator, **kwargs: Any) -> Agent:
    provider = registry().detect_provider(model)
    return Agent(
        model=model,
        api_key="offline-test-key",
        base_url=getattr(emulator, f"{provider}_base_url"),
        **({"log_to_file": False} | kwargs),
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def test_anthropic_gets_a_document_and_an_image_block(
    emulator: ProviderEmulator, inputs: list[Any]
) -> None:
    emulator.reset([reply("ok")])
    result = _agent("claude-sonnet-4-5", emulator).run_sync(QUESTION, files=inputs)
    content = emulator.requests[0].body["messages"][-1]["content"]
    assert content == [
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": _b64(PDF)},
            "title": "invoice.pdf",
        },
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": _b64(PNG)},
        },
        {"type": "text", "text": QUESTION},
    ]
    assert result.dropped_parts == []


def test_openai_gets_input_file_and_input_image(
    emulator: ProviderEmulator, inputs: list[Any]
) -> None:
    emulator.reset([reply("ok")])
    result = _agent("gpt-4o", emulator).run_sync(QUESTION, files=inputs)
    users = [i for i in emulator.requests[0].body["input"] if i.get("role") == "user"]
    content = [c for item in users for c in item["content"]]
    assert {
        "type": "input_file",
        "filename": "invoice.pdf",
        "file_data": f"data:application/pdf;base64,{_b64(PDF)}",
    } in content
    assert {
        "type": "input_image",
        "image_url": f"data:image/png;base64,{_b64(PNG)}",
        "detail": "auto",
    } in content
    assert result.dropped_parts == []


def test_gemini_gets_inline_data(emulator: ProviderEmulator, inputs: list[Any]) -> None:
    emulator.reset([reply("ok")])
    result = _agent("gemini-2.5-flash", emulator).run_sync(QUESTION, files=inputs)
    parts = emulator.requests[0].body["contents"][-1]["parts"]
    inline = [p.get("inline_data") or p.get("inlineData") for p in parts[:2]]
    assert [(i["mime_type"] if "mime_type" in i else i["mimeType"]) for i in inline] == [
        "application/pdf",
        "image/png",
    ]
    assert [base64.urlsafe_b64decode(i["data"]) for i in inline] == [PDF, PNG]
    assert parts[2]["text"] == QUESTION
    assert result.dropped_parts == []


def test_fireworks_gets_the_image_and_reports_the_pdf(
    emulator: ProviderEmulator, inputs: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    emulator.reset([reply("ok")])
    with caplog.at_level(logging.WARNING):
        agent = _agent("kimi-k3", emulator, logger=logging.getLogger("media-acceptance"))
        result = agent.run_sync(QUESTION, files=inputs)
    content = emulator.requests[0].body["messages"][-1]["content"]
    assert content == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{_b64(PNG)}"}},
        {"type": "text", "text": QUESTION},
    ]
    assert result.dropped_parts == [
        {
            "kind": "base64-application/pdf",
            "index": 0,
            "reason": "kimi-k3 does not take pdf input",
            "provider": "fireworks",
            "model": "kimi-k3",
        }
    ]
    warnings = [r for r in caplog.records if "dropping prompt part 0" in r.getMessage()]
    assert len(warnings) == 1


def test_fireworks_refuses_under_raise_with_no_request_sent(
    emulator: ProviderEmulator, inputs: list[Any]
) -> None:
    emulator.reset([reply("ok")])
    agent = _agent("kimi-k3", emulator, on_unsupported_part="raise")
    with pytest.raises(UnsupportedPartError, match=r"part 0 \(application/pdf invoice.pdf\)"):
        agent.run_sync(QUESTION, files=inputs)
    assert emulator.request_count == 0


@pytest.mark.anyio
async def test_stream_carries_the_files_and_reports_a_refusal(
    emulator: ProviderEmulator, inputs: list[Any]
) -> None:
    emulator.reset([reply("ok")])
    events = [e async for e in _agent("claude-sonnet-4-5", emulator).stream("Hi", files=inputs)]
    assert events[-1].event_type == "complete"
    assert [b["type"] for b in emulator.requests[0].body["messages"][-1]["content"]] == [
        "document",
        "image",
        "text",
    ]
    emulator.reset([reply("ok")])
    agent = _agent("kimi-k3", emulator, on_unsupported_part="raise")
    events = [e async for e in agent.stream("Hi", files=inputs)]
    assert [e.event_type for e in events] == ["error", "complete"]
    assert emulator.request_count == 0


def test_a_text_only_model_drops_the_image(emulator: ProviderEmulator, inputs: list[Any]) -> None:
    emulator.reset([reply("ok")])
    result = _agent("kimi-k2p6", emulator).run_sync(QUESTION, files=inputs[1:])
    assert emulator.requests[0].body["messages"][-1]["content"] == QUESTION or emulator.requests[
        0
    ].body["messages"][-1]["content"] == [{"type": "text", "text": QUESTION}]
    assert [(d["kind"], d["index"]) for d in result.dropped_parts] == [("image", 0)]


@pytest.mark.parametrize(
    ("files", "error", "match"),
    [
        (["/no/such/contract.pdf"], FileNotFoundError, "contract.pdf"),
        ([{"type": "weird", "data": "x"}], ValueError, "unknown file dict shape"),
        ([b"\x00\x01\x02\x03garbage\xff\xfe"], ValueError, "bytes of no known media type"),
        (
            [{"type": "base64", "media_type": "image/png", "data": "not base64!"}],
            ValueError,
            "base64",
        ),
        ([42], TypeError, "int"),
        ("photo.png", TypeError, "files must be a list"),
    ],
)
def test_bad_inputs_raise_before_any_request(
    emulator: ProviderEmulator, files: Any, error: type[Exception], match: str
) -> None:
    emulator.reset([reply("ok")])
    with pytest.raises(error, match=match):
        _agent("claude-sonnet-4-5", emulator).run_sync(QUESTION, files=files)
    assert emulator.request_count == 0


def test_bytes_dicts_and_urls(emulator: ProviderEmulator) -> None:
    emulator.reset([reply("ok")])
    files: list[Any] = [
        PDF,
        {"type": "base64", "media_type": "image/png", "data": _b64(PNG), "filename": "p.png"},
        {"type": "document", "media_type": "application/pdf", "data": PDF, "filename": "c.pdf"},
        "https://example.test/scan.jpg",
    ]
    _agent("claude-sonnet-4-5", emulator).run_sync(QUESTION, files=files)
    content = emulator.requests[0].body["messages"][-1]["content"]
    assert content[0]["source"]["media_type"] == "application/pdf"
    assert content[1]["source"]["media_type"] == "image/png"
    assert content[2]["title"] == "c.pdf"
    assert content[3] == {
        "type": "image",
        "source": {"type": "url", "url": "https://example.test/scan.jpg"},
    }


def test_a_youtube_url_reaches_gemini_as_file_data(emulator: ProviderEmulator) -> None:
    emulator.reset([reply("ok")])
    url = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    _agent("gemini-2.5-flash", emulator).run_sync("Summarise", files=[url])
    part = emulator.requests[0].body["contents"][-1]["parts"][0]
    data = part.get("file_data") or part.get("fileData")
    assert (data.get("file_uri") or data.get("fileUri")) == url
