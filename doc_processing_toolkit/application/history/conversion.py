"""Cross-provider conversion of stored session history (session portability).

One mechanism, through the neutral IR: the source provider's HistoryCodec parses the
stored messages, its profile resolves file references it can (a Files API URI through a
media lookup), `doc_processing_toolkit.domain.history.filtering.cross_provider` keeps
what the target can take under the rules the two profiles give (recording every drop and
re-key in a `ConversionReport`), and the target's codec renders the result.
`read_history` / `write_history` expose the same filter over plain neutral
turns (`turns`). Codecs and profiles are handed in as `Dialects`
(``agent.history_conversion`` binds the process container's), so a plug-in provider takes
part like a built-in one. Nothing here touches a provider or the network.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.history.dialects import (
    Dialects,
    ResolvesFileReferences,
    rules_of,
)
from doc_processing_toolkit.application.history.turns import (
    decode_media_bytes,
    messages_to_turns,
    turns_to_messages,
)
from doc_processing_toolkit.domain.errors import ConfigurationError, SessionCompatibilityError
from doc_processing_toolkit.domain.history.filtering import (
    NEUTRAL,
    ConversionReport,
    cross_provider,
    filter_history,
)
from doc_processing_toolkit.domain.media import MediaLookup, map_media
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.ports.dialect import HistoryCodec
from doc_processing_toolkit.ports.provider_profile import ProviderProfile

__all__ = [
    "ConversionReport",
    "Dialects",
    "SessionCompatibilityError",
    "convert_history",
    "decode_media_bytes",
    "read_history",
    "summarize_report",
    "write_history",
]

log = get_logger(__name__)


def _codec(dialects: Dialects, provider: str) -> HistoryCodec:
    codec = dialects.codec(provider)
    if codec is None:
        raise ConfigurationError(
            f"not a known dialect: {provider!r} (anthropic, openai, google, fireworks, or a "
            "plug-in registered under doc_processing_toolkit.history_codecs)"
        )
    return codec


def _resolved(
    messages: list[Message], profile: ProviderProfile, lookup: MediaLookup | None
) -> list[Message]:
    """The source's file references made sendable where its profile can tell how."""
    if not isinstance(profile, ResolvesFileReferences):
        return messages
    return map_media(messages, lambda part: profile.resolve_file_reference(part, lookup))


def _parse(codec: HistoryCodec, messages: list[Any], source: str) -> list[Message]:
    try:
        return codec.parse(list(messages))
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise SessionCompatibilityError(
            f"cannot read the stored history as {source}: {exc}", source=source
        ) from exc


class _Locator:
    """(IR message, part) -> the stored message it came from, by re-rendering prefixes.

    A codec is lossless for its own IR, so rendering each message alone gives exactly the
    native messages it was parsed from (OpenAI groups several items into one IR message;
    Fireworks one native tool message per result).
    """

    def __init__(self, codec: HistoryCodec, messages: list[Message]) -> None:
        self._codec = codec
        self._messages = messages
        self._starts: list[int] | None = None

    def _count(self, message: Message) -> int:
        try:
            return len(self._codec.render([message]))
        except (ValueError, TypeError, KeyError):
            return 1

    def __call__(self, index: int, position: int) -> int:
        if self._starts is None:
            starts, total = [], 0
            for message in self._messages:
                starts.append(total)
                total += self._count(message)
            self._starts = starts
        message = self._messages[index]
        prefix = Message(message.role, message.parts[: position + 1], message.provider)
        return self._starts[index] + max(0, self._count(prefix) - 1)


def _log_report(report: ConversionReport) -> None:
    if not report.entries:
        return
    summary = "; ".join(summarize_report(report.entries))
    message = f"history converted from {report.source} to {report.target}: {summary}"
    if report.drops:
        log.warning(message, source=report.source, target=report.target)
    else:
        log.info(message, source=report.source, target=report.target)


def convert_history(
    messages: list[Any],
    *,
    source: str,
    target: str,
    dialects: Dialects,
    model: str | None = None,
    input_types: Sequence[str] | None = None,
    media_lookup: MediaLookup | None = None,
) -> tuple[list[dict[str, Any]], ConversionReport]:
    """Convert a stored history from one provider's dialect to another's.

    Same provider: the messages come back as they are (a copy), with an empty report. Otherwise
    what cannot cross is dropped (media replaced by a text placeholder), tool-call ids are
    re-keyed to the target's convention, each is an entry in the report, and one WARNING
    summarises the drops. ``media_lookup`` resolves the source's file references (e.g.
    Gemini Files API URIs) to bytes, when its profile can use it.

    Raises:
        SessionCompatibilityError: for an open tool round, a call without a name or a
            result that matches no call (naming the turn); nothing partial is returned.
        ValueError: if ``source`` or ``target`` is not a known dialect.
    """
    report = ConversionReport(source, target)
    source_codec, target_codec = _codec(dialects, source), _codec(dialects, target)
    if source == target:
        return copy.deepcopy(list(messages)), report
    parsed = _parse(source_codec, messages, source)
    source_profile = dialects.profile(source)
    filtered = cross_provider(
        _resolved(parsed, source_profile, media_lookup),
        source=source,
        target=target,
        input_types=input_types,
        report=report,
        model=model,
        locate=_Locator(source_codec, parsed),
        source_rules=rules_of(source_profile),
        target_rules=rules_of(dialects.profile(target)),
    )
    converted = copy.deepcopy(target_codec.render(filtered))  # shares nothing with the input
    _log_report(report)
    return converted, report


def read_history(
    messages: list[Any],
    source: str,
    report: ConversionReport,
    *,
    dialects: Dialects,
    media_lookup: MediaLookup | None = None,
) -> list[dict[str, Any]]:
    """Read a stored history into neutral turns (shapes: `turns`).

    Every tool round is closed and every result matches a call; what a neutral turn cannot
    hold (reasoning, provider-run traffic, media without bytes or URL, media in a model
    turn) is dropped into ``report``.

    Raises:
        SessionCompatibilityError: for an open tool round, a call without a name, or a
            result that matches no call.
        ValueError: if ``source`` is not a known dialect.
    """
    codec = _codec(dialects, source)
    if report.source is None:
        report.source = source
    parsed = _parse(codec, messages, source)
    profile = dialects.profile(source)
    locate = _Locator(codec, parsed)
    kept = filter_history(
        _resolved(parsed, profile, media_lookup),
        source=source,
        target=NEUTRAL,
        report=report,
        locate=locate,
        source_rules=rules_of(profile),
    )
    return messages_to_turns([(locate(index, 0), message) for index, message in kept])


def write_history(
    turns: list[dict[str, Any]],
    target: str,
    report: ConversionReport,
    *,
    dialects: Dialects,
    model: str | None = None,
    input_types: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Write neutral turns in ``target``'s dialect.

    Tool-call ids are re-keyed to the target's convention and media the target cannot take
    (``input_types`` None: every media part the wire format can carry is written) is
    replaced by a text placeholder; each is an entry in ``report``.

    Raises:
        SessionCompatibilityError: when the turns hold an open round or an orphan result.
        ValueError: if ``target`` is not a known dialect or a turn is malformed.
    """
    codec = _codec(dialects, target)
    if report.target is None:
        report.target = target
        for entry in report.entries:
            if entry.get("to") is None:
                entry["to"] = target
    messages, indices = turns_to_messages(turns)
    filtered = cross_provider(
        messages,
        source=NEUTRAL,
        target=target,
        input_types=input_types,
        report=report,
        model=model,
        locate=lambda index, _part: indices[index],
        target_rules=rules_of(dialects.profile(target)),
    )
    return codec.render(filtered)


def summarize_report(entries: list[dict[str, Any]]) -> list[str]:
    """One human-readable line per artefact kind, for the WARNING log.

    E.g. ``"dropped 3 reasoning (messages 1, 4, 7)"`` and ``"re-keyed 2 tool-call ids"``.
    """
    drops: dict[str, list[int]] = {}
    rekeyed = 0
    for entry in entries:
        if entry.get("kind") == "dropped":
            drops.setdefault(str(entry.get("artefact")), []).append(int(entry.get("index", 0)))
        elif entry.get("kind") == "rekeyed":
            rekeyed += 1
    lines = []
    for artefact, indices in drops.items():
        unique = sorted(set(indices))
        where = ", ".join(str(i) for i in unique)
        lines.append(
            f"dropped {len(indices)} {artefact} (message{'s' if len(unique) > 1 else ''} {where})"
        )
    if rekeyed:
        lines.append(f"re-keyed {rekeyed} tool-call id{'s' if rekeyed > 1 else ''}")
    return lines
