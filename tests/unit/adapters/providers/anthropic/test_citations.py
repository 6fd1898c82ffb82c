"""Anthropic citation shapes -> Citation, and the document-citations request flag."""

from __future__ import annotations

import logging

import pytest

from doc_processing_toolkit.adapters.providers.anthropic.citations import (
    enable_document_citations,
    map_citations,
)
from doc_processing_toolkit.adapters.providers.anthropic.stream import StreamAssembler


def _blocks(*citations: dict[str, object]) -> list[dict[str, object]]:
    return [
        {"type": "text", "text": "Intro. "},
        {"type": "text", "text": "Cited.", "citations": list(citations)},
    ]


def test_page_location_end_page_is_exclusive() -> None:
    (citation,) = map_citations(
        _blocks(
            {
                "type": "page_location",
                "cited_text": "source words",
                "document_index": 1,
                "document_title": "r.pdf",
                "start_page_number": 2,
                "end_page_number": 4,
            }
        )
    )
    assert (citation.page_start, citation.page_end) == (2, 3)
    assert (citation.document, citation.document_index, citation.quote) == (
        "r.pdf",
        1,
        "source words",
    )
    assert (citation.char_start, citation.char_end, citation.cited_text) == (7, 13, "Cited.")


def test_search_result_location_is_a_file_search_citation() -> None:
    (citation,) = map_citations(
        _blocks(
            {
                "type": "search_result_location",
                "cited_text": "w",
                "search_result_index": 0,
                "source": "https://kb.example/a",
                "title": "A",
                "start_block_index": 0,
                "end_block_index": 1,
            }
        )
    )
    assert (citation.kind, citation.url, citation.title) == (
        "file_search",
        "https://kb.example/a",
        "A",
    )


def test_an_unknown_citation_type_is_kept_raw_with_one_debug_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    raw = {"type": "future_location", "cited_text": "w", "anchor": 9}
    with caplog.at_level(logging.DEBUG):
        (citation,) = map_citations(_blocks(raw))
    assert (citation.kind, citation.raw, citation.quote) == ("unknown", raw, "w")
    assert sum("unknown citation type" in r.getMessage() for r in caplog.records) == 1


def test_streamed_citations_delta_events_reach_the_response() -> None:
    assembler = StreamAssembler()
    citation = {
        "type": "char_location",
        "cited_text": "The grass is green.",
        "document_index": 0,
        "document_title": None,
        "start_char_index": 0,
        "end_char_index": 19,
    }
    events = [
        {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 1}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"citations": [], "type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "green"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "citations_delta", "citation": citation},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    for event in events:
        assembler.feed(event)
    response = assembler.response(requested_model="m", request_id=None)
    assert [(c.cited_text, c.raw) for c in response.citations] == [("green", citation)]
    assert response.message.text == "green"


def test_document_blocks_get_the_citations_flag_without_changing_the_input() -> None:
    document = {"type": "document", "source": {"type": "text"}, "title": "a.txt"}
    other = {"type": "document", "source": {"type": "text"}, "title": "b.txt"}
    messages = [{"role": "user", "content": [document, other, {"type": "text", "text": "q"}]}]
    every = enable_document_citations(messages, True)
    assert [b.get("citations") for b in every[0]["content"]] == [
        {"enabled": True},
        {"enabled": True},
        None,
    ]
    some = enable_document_citations(messages, frozenset({"b.txt"}))
    assert [b.get("citations") for b in some[0]["content"]] == [None, {"enabled": True}, None]
    assert "citations" not in document  # copied, not changed in place
    assert enable_document_citations(messages, False) is messages


def test_no_document_citations_in_a_structured_output_request() -> None:
    from doc_processing_toolkit.adapters.providers.anthropic.mapping import build_request
    from doc_processing_toolkit.domain.messages import MediaPart, Message, TextPart
    from doc_processing_toolkit.domain.requests import ModelRequest

    document = MediaPart("text/plain", data=b"The sky is blue.", filename="a.txt")
    message = Message("user", (document, TextPart("q")))
    plain = ModelRequest("m", (message,), cited_documents=True)
    wire = build_request(plain, max_tokens=10)
    blocks = wire.params["messages"][0]["content"]
    assert blocks[0]["citations"] == {"enabled": True}
    structured = ModelRequest(
        "m", (message,), cited_documents=True, output_schema={"type": "object"}
    )
    wire = build_request(structured, max_tokens=10)
    assert "citations" not in wire.params["messages"][0]["content"][0]
    assert any("structured-output" in w for w in wire.warnings)
