"""The evidence of a merged answer (``run_document``): each leaf of the merged output
follows its value back to the chunk that gave it (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from doc_processing_toolkit.domain.grounding.evidence import Evidence

__all__ = ["merge_evidence"]


_Candidate = tuple[Any, str, int]
"""A chunk's value at a path: (value, the chunk's own path, the chunk's index)."""


def _merge_walk(
    merged: Any,
    path: str,
    candidates: list[_Candidate],
    evidence: Sequence[Mapping[str, Evidence]],
    out: dict[str, Evidence],
) -> None:
    if isinstance(merged, Mapping):
        for key, value in merged.items():
            inner = [
                (cv[key], f"{cp}.{key}" if cp else key, ci)
                for cv, cp, ci in candidates
                if isinstance(cv, Mapping) and key in cv
            ]
            _merge_walk(value, f"{path}.{key}" if path else key, inner, evidence, out)
        return
    if isinstance(merged, list):
        for index, item in enumerate(merged):
            inner = [
                (cv[j], f"{cp}[{j}]", ci)
                for cv, cp, ci in candidates
                if isinstance(cv, list)
                for j in range(len(cv))
                if cv[j] == item
            ]
            _merge_walk(item, f"{path}[{index}]", inner, evidence, out)
        return
    found = [evidence[ci][cp] for cv, cp, ci in candidates if cv == merged and cp in evidence[ci]]
    if found:  # a verified quote wins over an unverified one; else the first in page order
        out[path] = next((e for e in found if e.verified), found[0])


def merge_evidence(
    merged: Any, chunks: Sequence[tuple[Any, Mapping[str, Evidence]]]
) -> dict[str, Evidence]:
    """The evidence of a merged answer (``run_document``): each leaf of ``merged`` takes
    the evidence of the chunk (in page order, ``chunks`` as ``(output, evidence)``) that
    gave the same value at the matching path (a list item is matched by equal value, as
    the merge keeps it); a verified one first. Pages stay the chunks' ORIGINAL pages."""
    out: dict[str, Evidence] = {}
    candidates = [(output, "", index) for index, (output, _) in enumerate(chunks)]
    _merge_walk(merged, "", candidates, [e for _, e in chunks], out)
    return out
