"""OpenAI Responses annotations -> `Citation`.

Each ``output_text`` part of a ``message`` output item carries ``annotations`` with
character indices into that part's text: ``url_citation`` (web search: ``url``,
``title``, ``start_index`` / ``end_index``), ``file_citation`` (file search:
``file_id``, ``filename`` and one ``index``, the position of the marker after the
sentence it supports) and ``container_file_citation`` (a file the code interpreter
wrote: ``container_id``, ``file_id``, ``filename``, ``start_index`` / ``end_index``).
Any other type is kept with ``kind="unknown"`` and its dict in ``raw`` (one DEBUG line).
OpenAI cannot cite a document given in the request (``input_file``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.grounding import Citation

__all__ = ["map_annotations"]

PROVIDER = "openai"

log = get_logger(__name__)

_SENTENCE_END = re.compile(r"[.!?\n](?=\s)|\n")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _sentence_before(text: str, index: int) -> tuple[int, int]:
    """The span of the sentence that ends at ``index`` (a file_citation's marker)."""
    index = max(0, min(index, len(text)))
    start = 0
    for match in _SENTENCE_END.finditer(text, 0, max(0, index - 1)):
        start = match.end()
    while start < index and text[start].isspace():
        start += 1
    return start, index


def _one(note: Mapping[str, Any], text: str, offset: int) -> Citation:
    raw = dict(note)
    kind = note.get("type")
    start, end = _int(note.get("start_index")), _int(note.get("end_index"))
    if kind == "file_citation" and _int(note.get("index")) is not None:
        start, end = _sentence_before(text, _int(note.get("index")) or 0)
    span = text[start:end] if start is not None and end is not None else ""
    base: dict[str, Any] = {
        "cited_text": span,
        "char_start": offset + start if start is not None else None,
        "char_end": offset + end if end is not None else None,
        "provider": PROVIDER,
        "raw": raw,
    }
    if kind == "url_citation":
        return Citation(
            **base, kind="web", url=_str(note.get("url")), title=_str(note.get("title"))
        )
    if kind in ("file_citation", "container_file_citation"):
        name = _str(note.get("filename"))
        return Citation(**base, kind="file_search", title=name or _str(note.get("file_id")))
    log.debug("openai: unknown annotation type kept as raw", annotation_type=str(kind))
    return Citation(**base, kind="unknown")


def map_annotations(output: list[dict[str, Any]]) -> tuple[Citation, ...]:
    """The citations of a response's output items, in answer order; ``char_start`` /
    ``char_end`` locate each span in the message's text (the texts joined)."""
    out: list[Citation] = []
    offset = 0
    for item in output:
        if not isinstance(item, Mapping) or item.get("type") != "message":
            continue
        for part in item.get("content") or ():
            if not isinstance(part, Mapping) or part.get("type") != "output_text":
                continue
            value = part.get("text")
            text = value if isinstance(value, str) else ""
            for note in part.get("annotations") or ():
                if isinstance(note, Mapping):
                    out.append(_one(note, text, offset))
            offset += len(text)
    return tuple(out)
