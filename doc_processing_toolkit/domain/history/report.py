"""The record of a cross-provider conversion and the values its rules hand back.

`ConversionReport` collects every dropped artefact and re-keyed id;
`Salvage` is what a verbatim provider payload (or a reasoning part) contributes
when it crosses; `Locator` maps an IR position back to the stored message. Shared by
the crossing passes (``crossing``), the filter (``filtering``), the dialect rules
(``rules``) and the provider profiles; imports nothing else of the history room.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeAlias

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.grounding.citations import Citation
from doc_processing_toolkit.domain.messages import Part, ProviderPart

__all__ = ["ARTEFACTS", "ConversionReport", "Locator", "PayloadSalvager", "Salvage"]

ARTEFACTS = frozenset(
    {
        "thinking",
        "thought",
        "thought_signature",
        "reasoning",
        "reasoning_content",
        "provider_item",
        "provider_block",
        "provider_part",
        "media",
        "tool_result_media",
        "container",
        "unknown_part",
    }
)
"""The artefact names a ``dropped`` entry may carry."""


Locator: TypeAlias = Callable[[int, int], int]
"""(IR message index, part index) -> the index of the stored message it came from."""


@dataclass(frozen=True, slots=True)
class Salvage:
    """What a verbatim provider payload contributes when it crosses (for a reasoning part,
    which never crosses: only ``drops``, naming it)."""

    parts: tuple[Part, ...] = ()
    """Neutral parts recovered from it (filtered like any other part)."""
    drops: tuple[tuple[str, str], ...] = ()
    """``(artefact, detail)`` for what it carried that cannot cross."""
    citations: tuple[Citation, ...] = ()
    """Citations it carried: they cross as a text source list at the end of its message."""


PayloadSalvager: TypeAlias = Callable[[ProviderPart], Salvage | None]
"""Reads a ProviderPart of another provider; None drops it whole as a provider artefact."""


class ConversionReport:
    """The record of one conversion: dropped artefacts and re-keyed ids.

    Each entry is a JSON-clean dict: ``kind`` (``"dropped"`` or ``"rekeyed"``), ``index``
    (the stored message it concerns), ``from`` / ``to`` (the dialects), ``at`` (UTC, ISO
    8601) and, for a drop, ``artefact`` and ``detail``; for a re-key ``name``, ``from_id``
    and ``to_id``.
    """

    def __init__(
        self,
        source: str | None = None,
        target: str | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.source = source
        """The dialect converted from (the entries' ``from``)."""
        self.target = target
        """The dialect converted to (the entries' ``to``)."""
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self.entries: list[dict[str, Any]] = []
        """The entries, in the order they were recorded."""

    def _entry(self, kind: str, index: int) -> dict[str, Any]:
        at = self.clock().astimezone(UTC).isoformat()
        return {"kind": kind, "index": index, "from": self.source, "to": self.target, "at": at}

    def dropped(self, index: int, artefact: str, detail: str, **extra: Any) -> dict[str, Any]:
        """Record an artefact the conversion left out (``extra`` keys ride the entry)."""
        if artefact not in ARTEFACTS:
            raise ConfigurationError(
                f"unknown artefact {artefact!r}; expected one of {sorted(ARTEFACTS)}"
            )
        entry = self._entry("dropped", index)
        entry.update(artefact=artefact, detail=detail, **extra)
        self.entries.append(entry)
        return entry

    def rekeyed(self, index: int, name: str, from_id: str, to_id: str) -> dict[str, Any]:
        """Record a tool-call id rewritten to the target's convention."""
        entry = self._entry("rekeyed", index)
        entry.update(name=name, from_id=from_id, to_id=to_id)
        self.entries.append(entry)
        return entry

    def extend(self, entries: list[dict[str, Any]]) -> None:
        """Append entries recorded elsewhere (e.g. by a conversion that succeeded)."""
        self.entries.extend(entries)

    @property
    def drops(self) -> list[dict[str, Any]]:
        """The ``dropped`` entries."""
        return [e for e in self.entries if e["kind"] == "dropped"]

    @property
    def rekeys(self) -> list[dict[str, Any]]:
        """The ``rekeyed`` entries."""
        return [e for e in self.entries if e["kind"] == "rekeyed"]

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.entries)

    def __repr__(self) -> str:
        return (
            f"ConversionReport(source={self.source!r}, target={self.target!r}, "
            f"dropped={len(self.drops)}, rekeyed={len(self.rekeys)})"
        )
