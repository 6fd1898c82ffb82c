"""Issue 36 (citations), acceptance: recorded provider shapes, streamed through the real
SDKs on loopback, give the right `Citation` list, and the answer keeps every cited span.

The recordings: ``tests/fixtures/recordings/`` (see its SOURCES.md) and
``tests/fixtures/citations/`` (SOURCES.md beside them). Anthropic document citations were
recorded as whole Messages responses; `_anthropic_stream` replays one as the stream the
API sends for it (``citations: []`` on a cited block's start, one ``citations_delta``
per citation), which is the shape `test_recorded_fixes` checks on streamed recordings.
Each expectation is read from the recording by this file's own small parsers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from recordings import ROOT, Exchange, ReplayServer, load, sse_events

from doc_processing_toolkit import Agent, Citation
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing.pdf import text_pdf

pytestmark = pytest.mark.anyio

CITATIONS = Path(__file__).resolve().parents[1] / "fixtures" / "citations"
MODELS = {"anthropic": "claude-opus-4-8", "openai": "gpt-4.1", "google": "gemini-3.5-flash"}


def _anthropic_stream(message: dict[str, Any]) -> Exchange:
    """A recorded Messages response as the SSE stream of it."""
    events: list[dict[str, Any]] = []
    head = {k: v for k, v in message.items() if k not in ("content", "stop_reason")}
    events.append({"type": "message_start", "message": {**head, "content": []}})
    for index, block in enumerate(message["content"]):
        start = {"type": "text", "text": ""}
        if "citations" in block:
            start = {"citations": [], **start}
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        delta = {"type": "text_delta", "text": block["text"]}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        for citation in block.get("citations") or []:
            delta = {"type": "citations_delta", "citation": citation}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events.append({"type": "message_delta", "delta": stop, "usage": {"output_tokens": 1}})
    events.append({"type": "message_stop"})
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return Exchange(200, (("content-type", "text/event-stream"),), body.encode("utf-8"))


def _cited_blocks(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(b["text"], c) for b in message["content"] for c in b.get("citations") or []]


async def _run(
    dialect: str, exchanges: tuple[Exchange, ...], **kwargs: Any
) -> tuple[Any, ReplayServer]:
    files = kwargs.pop("files", None)
    with ReplayServer(exchanges) as server:
        base = f"{server.url}/v1" if dialect == "openai" else server.url
        agent = Agent(
            MODELS[dialect],
            api_key="test-key-not-real",
            base_url=base,
            max_iterations=1,
            log_to_file=False,
            **kwargs,
        )
        result = await agent.run("What does the document say?", files=files)
    return result, server


def _five_page_pdf() -> bytes:
    return text_pdf([[f"Page {n}.", "The Answer is 42."] for n in range(1, 6)])


async def test_anthropic_page_location_citations_report_the_original_pages() -> None:
    path = CITATIONS / "anthropic" / "generate-text-with-pdf-citations-1.json"
    message = json.loads(path.read_text(encoding="utf-8"))
    document = Document(_five_page_pdf(), pages="3-4", name="guide.pdf")
    result, server = await _run(
        "anthropic", (_anthropic_stream(message),), files=[document], citations=True
    )
    ((text, raw),) = _cited_blocks(message)
    assert result.citations == [
        Citation(
            cited_text=text,
            quote=raw["cited_text"],
            document="guide.pdf",
            document_index=0,
            page_start=3,  # the model's page 1 of the two pages sent (3-4)
            page_end=3,  # end_page_number 2 is exclusive
            char_start=len("According to the document, "),
            char_end=len("According to the document, ") + len(text),
            provider="anthropic",
            kind="document",
        )
    ]
    assert result.citations[0].raw == raw
    assert text in result.output
    # Agent(citations=True): the document block asked for citations
    sent = json.loads(server.bodies[0])
    blocks = [b for m in sent["messages"] for b in m["content"] if isinstance(b, dict)]
    documents = [b for b in blocks if b.get("type") == "document"]
    assert [d.get("citations") for d in documents] == [{"enabled": True}]


async def test_a_document_built_with_citations_true_asks_for_them_alone() -> None:
    path = CITATIONS / "anthropic" / "generate-text-with-pdf-citations-1.json"
    message = json.loads(path.read_text(encoding="utf-8"))
    cited = Document(_five_page_pdf(), pages="4", name="cited.pdf", citations=True)
    plain = Document(_five_page_pdf(), pages="1", name="plain.pdf")
    result, server = await _run("anthropic", (_anthropic_stream(message),), files=[cited, plain])
    sent = json.loads(server.bodies[0])
    blocks = [b for m in sent["messages"] for b in m["content"] if isinstance(b, dict)]
    asked = {b["title"]: b.get("citations") for b in blocks if b.get("type") == "document"}
    assert asked == {"cited.pdf": {"enabled": True}, "plain.pdf": None}
    # document_index 0 is the first document sent: cited.pdf, its page 1 is page 4
    assert [(c.document, c.page_start, c.page_end) for c in result.citations] == [
        ("cited.pdf", 4, 4)
    ]


async def test_anthropic_char_location_citations_on_a_text_document() -> None:
    path = CITATIONS / "anthropic" / "generate-text-with-text-document-citations-1.json"
    message = json.loads(path.read_text(encoding="utf-8"))
    result, _ = await _run("anthropic", (_anthropic_stream(message),))
    cited = _cited_blocks(message)
    assert [(c.cited_text, c.quote, c.kind, c.raw) for c in result.citations] == [
        (text, raw["cited_text"], "document", raw) for text, raw in cited
    ]
    for citation in result.citations:
        assert citation.page_start is None
        assert result.output[citation.char_start : citation.char_end] == citation.cited_text


async def test_anthropic_content_block_location_citations() -> None:
    path = CITATIONS / "anthropic" / "generate-text-with-custom-content-document-citations-1.json"
    message = json.loads(path.read_text(encoding="utf-8"))
    result, _ = await _run("anthropic", (_anthropic_stream(message),))
    assert [(c.cited_text, c.kind, c.raw["type"]) for c in result.citations] == [
        (text, "document", "content_block_location") for text, _ in _cited_blocks(message)
    ]


def _streamed_anthropic_citations(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    blocks: dict[int, dict[str, Any]] = {}
    for _name, data in sse_events(body):
        event = json.loads(data)
        if event.get("type") == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif event.get("type") == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif delta["type"] == "citations_delta":
                block.setdefault("citations", []).append(delta["citation"])
    return [(b["text"], c) for _, b in sorted(blocks.items()) for c in b.get("citations") or []]


async def test_anthropic_web_search_citations() -> None:
    recording = load(ROOT / "anthropic" / "anthropic-web-search-tool.1.chunks.txt")
    result, _ = await _run("anthropic", recording.exchanges)
    expected = _streamed_anthropic_citations(recording.exchanges[-1].body)
    assert expected
    assert [(c.cited_text, c.url, c.title, c.quote, c.kind) for c in result.citations] == [
        (text, raw["url"], raw["title"], raw["cited_text"], "web") for text, raw in expected
    ]
    for citation in result.citations:
        assert citation.cited_text in result.output


def _openai_annotations(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for _name, data in sse_events(body):
        event = json.loads(data)
        if event.get("type") == "response.completed":
            for item in event["response"]["output"]:
                for part in item.get("content") or [] if item.get("type") == "message" else []:
                    found.extend((part["text"], note) for note in part.get("annotations") or [])
    return found


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (ROOT / "openai" / "openai-web-search-tool.1.chunks.txt", "web"),
        (ROOT / "openai" / "test_openai_include_raw_annotations_streaming.yaml", "web"),
        (ROOT / "openai" / "openai-code-interpreter-tool.1.chunks.txt", "file_search"),
        (CITATIONS / "openai" / "openai-file-search-tool.2.chunks.txt", "file_search"),
    ],
    ids=lambda value: getattr(value, "name", value),
)
async def test_openai_annotations(path: Path, kind: str) -> None:
    recording = load(path)
    result, _ = await _run("openai", recording.exchanges[:1])
    expected = _openai_annotations(recording.exchanges[0].body)
    assert expected
    assert [c.raw for c in result.citations] == [note for _, note in expected]
    assert {c.kind for c in result.citations} == {kind}
    for citation, (_, note) in zip(result.citations, expected, strict=True):
        assert citation.provider == "openai"
        assert citation.cited_text
        assert citation.cited_text in result.output
        if "url" in note:
            assert (citation.url, citation.title) == (note["url"], note["title"])
        else:
            assert citation.title == note["filename"]


async def test_openai_file_citation_cites_the_sentence_before_its_marker() -> None:
    recording = load(CITATIONS / "openai" / "openai-file-search-tool.2.chunks.txt")
    result, _ = await _run("openai", recording.exchanges)
    (citation,) = result.citations
    assert citation.cited_text.startswith("Unlike generative models")
    assert citation.char_end == citation.raw["index"]


def _gemini_supports(body: bytes) -> list[tuple[str, str]]:
    pairs = []
    for _name, data in sse_events(body):
        for candidate in json.loads(data).get("candidates") or []:
            grounding = candidate.get("groundingMetadata") or {}
            chunks = grounding.get("groundingChunks") or []
            for support in grounding.get("groundingSupports") or []:
                for index in support["groundingChunkIndices"]:
                    pairs.append((support["segment"]["text"], chunks[index]["web"]["uri"]))
    return pairs


async def test_gemini_grounding_metadata() -> None:
    recording = load(ROOT / "google" / "test_google_model_web_search_tool_stream.yaml")
    result, _ = await _run("google", recording.exchanges[:1])
    expected = _gemini_supports(recording.exchanges[0].body)
    assert expected
    assert sorted((c.cited_text, c.url) for c in result.citations) == sorted(expected)
    assert {(c.kind, c.provider) for c in result.citations} == {("grounding", "google")}
    starts = [c.char_start for c in result.citations]
    assert starts == sorted(starts)  # answer order
    for citation in result.citations:
        assert citation.cited_text in result.output
        assert result.output[citation.char_start : citation.char_end] == citation.cited_text


async def test_remove_citations_strips_markers_and_still_fills_citations() -> None:
    recording = load(ROOT / "openai" / "openai-web-search-tool.1.chunks.txt")
    plain, _ = await _run("openai", recording.exchanges[:1])
    stripped, _ = await _run("openai", recording.exchanges[:1], remove_citations=True)
    assert "([techcrunch.com](" in plain.output
    assert "([techcrunch.com](" not in stripped.output
    assert stripped.citations == plain.citations
    assert stripped.citations


async def test_the_emulator_streams_anthropic_citations_through_the_sdk() -> None:
    from doc_processing_toolkit.testing import ProviderEmulator, Reply

    path = CITATIONS / "anthropic" / "generate-text-with-text-document-citations-1.json"
    (text, raw), *_ = _cited_blocks(json.loads(path.read_text(encoding="utf-8")))
    with ProviderEmulator() as emulator:
        emulator.push(Reply(text, citations=(Citation("", raw=raw),)))
        agent = Agent(
            "claude-sonnet-5-5",
            api_key="test-key-not-real",
            base_url=emulator.anthropic_base_url,
            log_to_file=False,
        )
        result = await agent.run("Q?")
    (citation,) = result.citations
    assert (citation.cited_text, citation.quote, citation.raw) == (text, raw["cited_text"], raw)
    assert result.output == text


async def test_fireworks_answers_carry_no_citations() -> None:
    recording = load(ROOT / "fireworks" / "deepseek-deepseek-text.chunks.txt")
    with ReplayServer(recording.exchanges) as server:
        agent = Agent(
            "kimi-k2p6",
            api_key="test-key-not-real",
            base_url=f"{server.url}/inference/v1",
            max_iterations=1,
            log_to_file=False,
        )
        result = await agent.run("Q?")
    assert result.output and result.citations == []
