"""Anthropic citations -> `Citation`, and the request flag that turns them on.

A text block of the answer may carry ``citations`` (streamed as ``citations_delta``
events beside ``text_delta``): ``char_location`` (plain-text documents),
``page_location`` (PDFs; ``end_page_number`` is exclusive), ``content_block_location``
(custom-content documents), ``search_result_location`` (search results a tool returned)
and ``web_search_result_location`` (the web search tool). Each is mapped to one
`Citation` whose ``cited_text`` is the block's text (the span of the answer it supports)
and whose ``quote`` is Anthropic's ``cited_text`` (the source's words). An unknown type is
kept with ``kind="unknown"`` and its dict in ``raw`` (one DEBUG line).

Document citations need a request flag: each document block gets
``citations: {"enabled": true}`` (`enable_document_citations`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.grounding import Citation

__all__ = ["enable_document_citations", "map_citations"]

PROVIDER = "anthropic"

log = get_logger(__name__)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _one(raw: Mapping[str, Any], text: str, start: int) -> Citation:
    base: dict[str, Any] = {
        "cited_text": text,
        "quote": _str(raw.get("cited_text")),
        "char_start": start,
        "char_end": start + len(text),
        "provider": PROVIDER,
        "raw": dict(raw),
    }
    kind = raw.get("type")
    if kind in ("char_location", "page_location", "content_block_location"):
        title = _str(raw.get("document_title"))
        base.update(kind="document", document_index=_int(raw.get("document_index")), title=title)
        base["document"] = title
        if kind == "page_location":
            first = _int(raw.get("start_page_number"))
            after = _int(raw.get("end_page_number"))  # exclusive
            if first is not None:
                base["page_start"] = first
                base["page_end"] = max(first, after - 1) if after is not None else first
        return Citation(**base)
    if kind == "web_search_result_location":
        return Citation(**base, kind="web", url=_str(raw.get("url")), title=_str(raw.get("title")))
    if kind == "search_result_location":
        source = _str(raw.get("source"))
        return Citation(
            **base,
            kind="file_search",
            url=source,
            title=_str(raw.get("title")),
            document_index=_int(raw.get("search_result_index")),
        )
    log.debug("anthropic: unknown citation type kept as raw", citation_type=str(kind))
    return Citation(**base, kind="unknown")


def map_citations(blocks: list[dict[str, Any]]) -> tuple[Citation, ...]:
    """The citations of an answer's content blocks, in answer order.

    ``char_start`` / ``char_end`` locate each block's text in the message's text (the
    text blocks joined, as ``Message.text`` joins them).
    """
    out: list[Citation] = []
    offset = 0
    for block in blocks:
        if not isinstance(block, Mapping) or block.get("type") != "text":
            continue
        value = block.get("text")
        text = value if isinstance(value, str) else ""
        for raw in block.get("citations") or ():
            if isinstance(raw, Mapping):
                out.append(_one(raw, text, offset))
        offset += len(text)
    return tuple(out)


def enable_document_citations(
    messages: list[dict[str, Any]], cited: bool | frozenset[str]
) -> list[dict[str, Any]]:
    """``messages`` with ``citations: {"enabled": true}`` on each document block asked for
    (``cited`` True: every one; else the blocks whose ``title`` is in ``cited``). Blocks
    are copied, never changed in place."""
    if not cited:
        return messages
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            out.append(message)
            continue
        blocks = [
            {**block, "citations": {"enabled": True}}
            if isinstance(block, Mapping)
            and block.get("type") == "document"
            and (cited is True or (isinstance(cited, frozenset) and block.get("title") in cited))
            else block
            for block in content
        ]
        out.append({**message, "content": blocks})
    return out
