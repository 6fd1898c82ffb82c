"""Cross-provider history conversion on the neutral IR: the filter and its ConversionReport.

A stored history is parsed by its provider's HistoryCodec into IR messages;
:func:`cross_provider` keeps what the target provider can take and records, in a
:class:`ConversionReport`, everything it leaves out or rewrites:

* reasoning of another provider (``thinking``, ``thought``, ``thought_signature``,
  ``reasoning``, ``reasoning_content``), including a Gemini signature on a function call;
* provider-run blocks and items kept verbatim (``provider_block`` / ``provider_item`` /
  ``provider_part``), after a :data:`PayloadSalvager` has taken out what is neutral in
  them (the text of a cited block, a tool call the IR could not hold exactly);
* media the target row's ``input_types`` or the target's wire format cannot take, or
  whose bytes are not available (``media`` / ``tool_result_media``), each replaced by a
  text placeholder;
* tool-call ids not in the target's convention (Anthropic ``toolu_...``, OpenAI and
  Fireworks ``call_...``) or used twice, re-keyed consistently within their round.

A history that cannot be converted at all - an open tool round, a tool call with no
name, a result that matches no call - raises :class:`SessionCompatibilityError` naming the
turn, and the report is left untouched. Same-provider conversion is the identity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeAlias

from doc_processing_toolkit.domain.errors import SessionCompatibilityError
from doc_processing_toolkit.domain.history.crossing import (
    ID_PREFIXES,
    Conversion,
    reasoning_artefact,
)
from doc_processing_toolkit.domain.media import NEUTRAL
from doc_processing_toolkit.domain.messages import Message, Part, ProviderPart

__all__ = [
    "ARTEFACTS",
    "ID_PREFIXES",
    "NEUTRAL",
    "ConversionReport",
    "Locator",
    "PayloadSalvager",
    "Salvage",
    "SessionCompatibilityError",
    "cross_provider",
    "filter_history",
    "reasoning_artefact",
]

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
    """What a verbatim provider payload contributes when it crosses."""

    parts: tuple[Part, ...] = ()
    """Neutral parts recovered from it (filtered like any other part)."""
    drops: tuple[tuple[str, str], ...] = ()
    """``(artefact, detail)`` for what it carried that cannot cross."""


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
            raise ValueError(f"unknown artefact {artefact!r}; expected one of {sorted(ARTEFACTS)}")
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


def cross_provider(
    messages: list[Message],
    *,
    source: str,
    target: str,
    input_types: Sequence[str] | None = None,
    report: ConversionReport,
    model: str | None = None,
    locate: Locator | None = None,
    salvage: PayloadSalvager | None = None,
) -> list[Message]:
    """IR messages of ``source`` made fit for ``target``; see the module docstring.

    Raises:
        SessionCompatibilityError: for an open tool round, a nameless call or an orphan
            result (the report is left as it was).
    """
    return [
        message
        for _, message in filter_history(
            messages,
            source=source,
            target=target,
            input_types=input_types,
            report=report,
            model=model,
            locate=locate,
            salvage=salvage,
        )
    ]


def filter_history(
    messages: list[Message],
    *,
    source: str,
    target: str,
    input_types: Sequence[str] | None = None,
    report: ConversionReport,
    model: str | None = None,
    locate: Locator | None = None,
    salvage: PayloadSalvager | None = None,
) -> list[tuple[int, Message]]:
    """:func:`cross_provider`, each kept message paired with its IR index.

    Messages left with no parts are removed, so the indices tell where each one came from.
    """
    if source == target:
        return list(enumerate(messages))
    local = ConversionReport(
        report.source or source,
        report.target or (None if target == NEUTRAL else target),
        clock=report.clock,
    )
    types = (input_types,) if isinstance(input_types, str) else input_types
    run = Conversion(source, target, types, model, locate, salvage, local)
    parts = [(index, message, run.parts(index, message)) for index, message in enumerate(messages)]
    paired = run.pair(parts)
    report.extend(local.entries)
    return [(index, message) for index, message in paired if message.parts]
