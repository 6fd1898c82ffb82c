"""Merging the structured answers of a document's chunks, field by field (pure).

Each chunk answered the same schema about its own pages; `merge_chunk_outputs` folds the
answers in page order by three rules:

* a **list** field: the chunks' lists concatenated in page order, an item equal to one
  already kept (same JSON) left out;
* an **object** field: merged field by field by these same rules;
* a **scalar** field: the first non-empty value in page order (``None``, ``""``, ``[]``
  and ``{}`` are empty). A later chunk that answers a different non-empty value does not
  change it: the field is listed in the conflicts with every value and the ORIGINAL pages
  of the chunks that gave it.

Provenance maps each field path (``"parties"``, ``"parties[2]"``, ``"terms.governing_law"``)
to the original pages of the chunks its value came from.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.documents.pages import describe_pages

__all__ = ["ChunkOutput", "Conflict", "ConflictValue", "MergeResult", "merge_chunk_outputs"]


@dataclass(frozen=True, slots=True)
class ChunkOutput:
    """One chunk's answer: its original pages and its output as JSON data."""

    pages: tuple[int, ...]
    """The original pages the chunk covered, ascending."""
    output: Mapping[str, Any]
    """The chunk's structured output (``model_dump(mode="json")``)."""


@dataclass(frozen=True, slots=True)
class ConflictValue:
    """One answer to a conflicting field and where it came from."""

    value: Any
    """The value a chunk answered."""
    pages: tuple[int, ...]
    """The original pages of the chunks that answered it."""

    def __repr__(self) -> str:
        return f"ConflictValue(value={self.value!r}, pages={describe_pages(self.pages)!r})"


@dataclass(frozen=True, slots=True)
class Conflict:
    """A scalar field that chunks answered differently; the first value (in page order)
    is the one kept in the merged output."""

    path: str
    """The field path, e.g. ``"effective_date"`` or ``"terms.governing_law"``."""
    values: tuple[ConflictValue, ...]
    """Every distinct answer in page order; ``values[0]`` is the one kept."""

    @property
    def kept(self) -> Any:
        """The value the merged output holds."""
        return self.values[0].value


@dataclass(frozen=True, slots=True)
class MergeResult:
    """The merged output, its conflicts and its provenance."""

    output: dict[str, Any]
    conflicts: tuple[Conflict, ...] = ()
    provenance: dict[str, tuple[int, ...]] = field(default_factory=dict)


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict | tuple) and not value


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _union(groups: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(sorted({page for group in groups for page in group}))


class _Merger:
    def __init__(self) -> None:
        self.conflicts: list[Conflict] = []
        self.provenance: dict[str, tuple[int, ...]] = {}

    def merge(self, answers: Sequence[tuple[tuple[int, ...], Mapping[str, Any]]], path: str) -> Any:
        keys: list[str] = []
        for _pages, output in answers:
            keys.extend(k for k in output if k not in keys)
        merged: dict[str, Any] = {}
        for key in keys:
            sub = f"{path}.{key}" if path else key
            present = [(pages, output[key]) for pages, output in answers if key in output]
            merged[key] = self.value(present, sub)
        return merged

    def value(self, present: Sequence[tuple[tuple[int, ...], Any]], path: str) -> Any:
        filled = [(pages, value) for pages, value in present if not _empty(value)]
        if not filled:
            return present[0][1]
        if all(isinstance(value, list) for _, value in filled):
            return self.concat(filled, path)
        if all(isinstance(value, Mapping) for _, value in filled):
            return self.merge(filled, path)
        return self.scalar(filled, path)

    def concat(self, filled: Sequence[tuple[tuple[int, ...], Any]], path: str) -> list[Any]:
        items: list[Any] = []
        seen: set[str] = set()
        sources: list[tuple[int, ...]] = []
        for pages, values in filled:
            for item in values:
                key = _key(item)
                if key in seen:
                    continue
                seen.add(key)
                self.provenance[f"{path}[{len(items)}]"] = pages
                items.append(item)
                if pages not in sources:
                    sources.append(pages)
        self.provenance[path] = _union(sources)
        return items

    def scalar(self, filled: Sequence[tuple[tuple[int, ...], Any]], path: str) -> Any:
        order: list[str] = []
        by_value: dict[str, tuple[Any, list[tuple[int, ...]]]] = {}
        for pages, value in filled:
            key = _key(value.strip() if isinstance(value, str) else value)
            if key not in by_value:
                order.append(key)
                by_value[key] = (value, [])
            by_value[key][1].append(pages)
        kept_value, kept_pages = by_value[order[0]]
        self.provenance[path] = _union(kept_pages)
        if len(order) > 1:
            values = tuple(ConflictValue(by_value[k][0], _union(by_value[k][1])) for k in order)
            self.conflicts.append(Conflict(path, values))
        return kept_value


def merge_chunk_outputs(chunks: Sequence[ChunkOutput]) -> MergeResult:
    """The chunks' outputs merged by the rules of the module docstring.

    Args:
        chunks: The chunks that answered, in page order (a chunk that failed is left out
            by the caller and reported as missing pages).

    Returns:
        MergeResult: The merged output (an empty dict for no chunks), the conflicts in
            field order, and the provenance of every field that has a value.
    """
    merger = _Merger()
    answers = [(chunk.pages, chunk.output) for chunk in chunks]
    output = merger.merge(answers, "") if answers else {}
    return MergeResult(output, tuple(merger.conflicts), dict(merger.provenance))
