"""Gemini grounding metadata and citation metadata -> `Citation`.

A grounded answer's candidate carries ``grounding_metadata``: ``grounding_chunks`` (the
sources: ``web`` {uri, title}, ``retrieved_context`` {uri, title, text}) and
``grounding_supports`` (each a ``segment`` of the answer, with its ``start_index`` /
``end_index`` in UTF-8 bytes and its ``text``, and the ``grounding_chunk_indices`` that
support it). Each (support, chunk) pair is one `Citation` of kind "grounding", its
``raw`` ``{"grounding_support": ..., "grounding_chunk": ...}`` verbatim. A candidate's
``citation_metadata.citations`` (sources the answer recites, with character indices,
``uri``, ``title``, ``license``) map to kind "grounding" too, ``raw`` the entry.
The SDK's JSON form is read (snake_case keys). Gemini cannot cite a document given in
the request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.grounding import Citation

__all__ = ["map_grounding"]

PROVIDER = "google"

log = get_logger(__name__)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _span(text: str, segment: Mapping[str, Any]) -> tuple[str, int | None, int | None]:
    """The segment's text and its character span in ``text`` (indices are bytes)."""
    wanted = _str(segment.get("text"))
    data = text.encode("utf-8")
    start = _int(segment.get("start_index")) or 0
    end = _int(segment.get("end_index"))
    if end is not None and 0 <= start <= end <= len(data):
        span = data[start:end].decode("utf-8", errors="ignore")
        char_start = len(data[:start].decode("utf-8", errors="ignore"))
        if wanted is None or span == wanted:
            return span, char_start, char_start + len(span)
    if wanted:
        found = text.find(wanted)
        if found >= 0:
            return wanted, found, found + len(wanted)
        return wanted, None, None
    return "", None, None


def _source(chunk: Mapping[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(url, title, quote) of a grounding chunk."""
    for key in ("web", "retrieved_context", "maps"):
        value = chunk.get(key)
        if isinstance(value, Mapping):
            return _str(value.get("uri")), _str(value.get("title")), _str(value.get("text"))
    return None, None, None


def _grounding(text: str, metadata: Mapping[str, Any]) -> list[Citation]:
    chunks = metadata.get("grounding_chunks")
    chunks = chunks if isinstance(chunks, list) else []
    out: list[Citation] = []
    for support in metadata.get("grounding_supports") or ():
        if not isinstance(support, Mapping):
            continue
        segment = support.get("segment")
        cited, start, end = _span(text, segment if isinstance(segment, Mapping) else {})
        for index in support.get("grounding_chunk_indices") or ():
            chunk = chunks[index] if _int(index) is not None and 0 <= index < len(chunks) else {}
            chunk = chunk if isinstance(chunk, Mapping) else {}
            url, title, quote = _source(chunk)
            if not chunk:
                log.debug("google: a grounding support names no known chunk", index=index)
            out.append(
                Citation(
                    cited_text=cited,
                    quote=quote,
                    char_start=start,
                    char_end=end,
                    url=url,
                    title=title,
                    provider=PROVIDER,
                    kind="grounding" if chunk else "unknown",
                    raw={"grounding_support": dict(support), "grounding_chunk": dict(chunk)},
                )
            )
    return out


def _recited(text: str, metadata: Mapping[str, Any]) -> list[Citation]:
    out: list[Citation] = []
    for entry in metadata.get("citations") or metadata.get("citation_sources") or ():
        if not isinstance(entry, Mapping):
            continue
        start, end = _int(entry.get("start_index")), _int(entry.get("end_index"))
        cited = text[start:end] if start is not None and end is not None else ""
        out.append(
            Citation(
                cited_text=cited,
                char_start=start,
                char_end=end,
                url=_str(entry.get("uri")),
                title=_str(entry.get("title")),
                provider=PROVIDER,
                kind="grounding",
                raw=dict(entry),
            )
        )
    return out


def map_grounding(
    text: str, grounding: Sequence[Mapping[str, Any]], citation_metadata: Any
) -> tuple[Citation, ...]:
    """The citations of one answer (``text``: its text parts joined), in answer order.

    ``grounding``: every grounding metadata the stream carried (a pair met twice is
    kept once);
    ``citation_metadata``: the candidate's citation metadata, if any.
    """
    found: list[Citation] = []
    seen: set[tuple[str, int | None, str | None, str | None]] = set()
    for metadata in grounding:  # a stream may spread (or repeat) them over its chunks
        for citation in _grounding(text, metadata):
            key = (citation.cited_text, citation.char_start, citation.url, citation.title)
            if key not in seen:
                seen.add(key)
                found.append(citation)
    if isinstance(citation_metadata, Mapping):
        found.extend(_recited(text, citation_metadata))
    return tuple(sorted(found, key=lambda c: c.char_start if c.char_start is not None else -1))
