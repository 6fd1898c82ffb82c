"""Cross-provider history conversion on the neutral IR: the filter.

A stored history is parsed by its provider's HistoryCodec into IR messages;
`cross_provider` keeps what the target provider can take and records, in a
`ConversionReport`, everything it leaves out or rewrites:

* reasoning of another provider (named by the source's rules: ``thinking``, ``thought``,
  ``thought_signature``, ``reasoning``, ``reasoning_content``), including a thought
  signature on a function call;
* provider-run blocks and items kept verbatim (the source's payload artefact, e.g.
  ``provider_block`` / ``provider_item`` / ``provider_part``), after the source's salvage
  rules have taken out what is neutral in them (the text of a cited block, a tool call the
  IR could not hold exactly);
* media the target row's ``input_types`` or the target's wire format cannot take, or
  whose bytes are not available (``media`` / ``tool_result_media``), each replaced by a
  text placeholder;
* tool-call ids not in the target's convention (its id prefix, e.g. ``toolu_...`` or
  ``call_...``) or used twice, re-keyed consistently within their round.

What differs per dialect comes in as `DialectRules` (``rules``), filled by the
application from the providers' profiles; this room names no provider.

A history that cannot be converted at all - an open tool round, a tool call with no
name, a result that matches no call - raises `SessionCompatibilityError` naming the
turn, and the report is left untouched. Same-provider conversion is the identity.
"""

from __future__ import annotations

from collections.abc import Sequence

from doc_processing_toolkit.domain.errors import SessionCompatibilityError
from doc_processing_toolkit.domain.history.crossing import Conversion
from doc_processing_toolkit.domain.history.report import (
    ARTEFACTS,
    ConversionReport,
    Locator,
    PayloadSalvager,
    Salvage,
)
from doc_processing_toolkit.domain.history.rules import DEFAULT_RULES, DialectRules
from doc_processing_toolkit.domain.media import NEUTRAL
from doc_processing_toolkit.domain.messages import Message

__all__ = [
    "ARTEFACTS",
    "DEFAULT_RULES",
    "NEUTRAL",
    "ConversionReport",
    "DialectRules",
    "Locator",
    "PayloadSalvager",
    "Salvage",
    "SessionCompatibilityError",
    "cross_provider",
    "filter_history",
]


def cross_provider(
    messages: list[Message],
    *,
    source: str,
    target: str,
    input_types: Sequence[str] | None = None,
    report: ConversionReport,
    model: str | None = None,
    locate: Locator | None = None,
    source_rules: DialectRules = DEFAULT_RULES,
    target_rules: DialectRules = DEFAULT_RULES,
) -> list[Message]:
    """IR messages of ``source`` made fit for ``target``; see the module docstring.

    ``source_rules`` read the source's verbatim payloads and name its reasoning;
    ``target_rules`` give the target's id convention and the media its wire format carries
    (both filled from the providers' profiles; the defaults assume nothing).

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
            source_rules=source_rules,
            target_rules=target_rules,
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
    source_rules: DialectRules = DEFAULT_RULES,
    target_rules: DialectRules = DEFAULT_RULES,
) -> list[tuple[int, Message]]:
    """`cross_provider`, each kept message paired with its IR index.

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
    run = Conversion(source, target, types, model, locate, source_rules, target_rules, local)
    parts = [(index, message, run.parts(index, message)) for index, message in enumerate(messages)]
    paired = run.pair(parts)
    report.extend(local.entries)
    return [(index, message) for index, message in paired if message.parts]
