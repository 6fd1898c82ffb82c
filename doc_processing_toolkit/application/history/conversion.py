"""Cross-provider conversion of stored session history (session portability).

One mechanism, through the neutral IR: the source provider's HistoryCodec parses the
stored messages, :func:`doc_processing_toolkit.domain.history.filtering.cross_provider` keeps what
the target can take (recording every drop and re-key in a :class:`ConversionReport`), and
the target's codec renders the result. :func:`read_history` / :func:`write_history` expose
the same filter over plain neutral turns (:mod:`.history_turns`). Codecs come from the
process container, so a plug-in provider's codec takes part too. Nothing here touches a
provider or the network.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers._salvage import (
    GOOGLE_PROVIDER_KEYS,
    decode_base64,
    salvage,
)
from doc_processing_toolkit.application.history.turns import (
    decode_media_bytes,
    messages_to_turns,
    turns_to_messages,
)
from doc_processing_toolkit.domain.errors import SessionCompatibilityError
from doc_processing_toolkit.domain.history.filtering import (
    NEUTRAL,
    ConversionReport,
    cross_provider,
    filter_history,
)
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    Part,
    ToolResultPart,
)
from doc_processing_toolkit.ports.dialect import HistoryCodec

__all__ = [
    "ConversionReport",
    "GoogleMediaLookup",
    "SessionCompatibilityError",
    "convert_history",
    "decode_media_bytes",
    "google_part_kind",
    "iter_google_parts",
    "read_history",
    "summarize_report",
    "write_history",
]

GoogleMediaLookup: TypeAlias = (
    Callable[[str], "tuple[str, str] | None"] | Mapping[str, "tuple[str, str]"]
)
"""Resolves a Gemini Files API URI to ``(mime_type, base64)``: a callable returning None
when it has no bytes for the URI, or a mapping from URI to that pair."""

_FILES_API_HOST = "generativelanguage.googleapis.com"

log = get_logger(__name__)


def _codec(provider: str) -> HistoryCodec:
    from doc_processing_toolkit.application import container as composition

    codec = composition.build_history_codec(composition.default_container(), provider)
    if codec is None:
        raise ValueError(
            f"not a known dialect: {provider!r} (anthropic, openai, google, fireworks, or a "
            "plug-in registered under doc_processing_toolkit.history_codecs)"
        )
    return codec


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


def _lookup(google_media: GoogleMediaLookup | None, uri: str) -> tuple[str, str] | None:
    if google_media is None:
        return None
    if isinstance(google_media, Mapping):
        return google_media.get(uri)
    return google_media(uri)


def _resolved(part: MediaPart, google_media: GoogleMediaLookup | None) -> MediaPart:
    """A Gemini file_data part as bytes (Files API, via the lookup) or as a URL (web)."""
    uri = part.file_uri
    if part.data is not None or part.url is not None or uri is None:
        return part
    if _FILES_API_HOST not in uri and re.match(r"https?://", uri):
        return MediaPart(mime_type=part.mime_type, url=uri, filename=part.filename)
    found = _lookup(google_media, uri)
    raw = decode_base64(found[1]) if found is not None else None
    if found is None or raw is None:
        return part
    mime = found[0] or part.mime_type
    return MediaPart(mime_type=mime, data=raw, filename=part.filename)


def _resolve_google_media(
    messages: list[Message], google_media: GoogleMediaLookup | None
) -> list[Message]:
    def resolve(part: Part) -> Part:
        if isinstance(part, MediaPart):
            return _resolved(part, google_media)
        if isinstance(part, ToolResultPart):
            content = tuple(
                _resolved(item, google_media) if isinstance(item, MediaPart) else item
                for item in part.content
            )
            return ToolResultPart(part.call_id, part.name, content, part.is_error)
        return part

    return [Message(m.role, tuple(resolve(p) for p in m.parts), m.provider) for m in messages]


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
    model: str | None = None,
    input_types: Sequence[str] | None = None,
    google_media: GoogleMediaLookup | None = None,
) -> tuple[list[dict[str, Any]], ConversionReport]:
    """Convert a stored history from one provider's dialect to another's.

    Same provider: the messages come back as they are (a copy), with an empty report. Otherwise
    what cannot cross is dropped (media replaced by a text placeholder), tool-call ids are
    re-keyed to the target's convention, each is an entry in the report, and one WARNING
    summarises the drops.

    Raises:
        SessionCompatibilityError: for an open tool round, a call without a name or a
            result that matches no call (naming the turn); nothing partial is returned.
        ValueError: if ``source`` or ``target`` is not a known dialect.
    """
    report = ConversionReport(source, target)
    source_codec, target_codec = _codec(source), _codec(target)
    if source == target:
        return copy.deepcopy(list(messages)), report
    parsed = _parse(source_codec, messages, source)
    ir = _resolve_google_media(parsed, google_media) if source == "google" else parsed
    filtered = cross_provider(
        ir,
        source=source,
        target=target,
        input_types=input_types,
        report=report,
        model=model,
        locate=_Locator(source_codec, parsed),
        salvage=salvage,
    )
    converted = copy.deepcopy(target_codec.render(filtered))  # shares nothing with the input
    _log_report(report)
    return converted, report


def read_history(
    messages: list[Any],
    source: str,
    report: ConversionReport,
    *,
    google_media: GoogleMediaLookup | None = None,
) -> list[dict[str, Any]]:
    """Read a stored history into neutral turns (shapes: :mod:`.history_turns`).

    Every tool round is closed and every result matches a call; what a neutral turn cannot
    hold (reasoning, provider-run traffic, media without bytes or URL, media in a model
    turn) is dropped into ``report``.

    Raises:
        SessionCompatibilityError: for an open tool round, a call without a name, or a
            result that matches no call.
        ValueError: if ``source`` is not a known dialect.
    """
    codec = _codec(source)
    if report.source is None:
        report.source = source
    parsed = _parse(codec, messages, source)
    ir = _resolve_google_media(parsed, google_media) if source == "google" else parsed
    locate = _Locator(codec, parsed)
    kept = filter_history(
        ir, source=source, target=NEUTRAL, report=report, locate=locate, salvage=salvage
    )
    return messages_to_turns([(locate(index, 0), message) for index, message in kept])


def write_history(
    turns: list[dict[str, Any]],
    target: str,
    report: ConversionReport,
    *,
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
    codec = _codec(target)
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


# -- Gemini helpers ------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _part_dict(part: Any) -> dict[str, Any]:
    if hasattr(part, "model_dump"):
        part = part.model_dump()
    if not isinstance(part, dict):
        return {}
    return {_CAMEL.sub("_", key).lower(): value for key, value in part.items()}


def google_part_kind(part: Any) -> str:
    """Classify one stored Gemini part (a ``Part.model_dump()`` dict; camelCase works too).

    Returns ``"thought"`` (a thought-summary part), ``"text"``, ``"function_call"``,
    ``"function_response"``, ``"inline_data"``, ``"file_data"``, ``"provider"``
    (executable code and its result) or ``"unknown"``.
    """
    fields = _part_dict(part)
    if fields.get("thought") is True:
        return "thought"
    for key in ("function_call", "function_response", "inline_data", "file_data"):
        if fields.get(key) is not None:
            return key
    if any(fields.get(key) is not None for key in GOOGLE_PROVIDER_KEYS):
        return "provider"
    if isinstance(fields.get("text"), str):
        return "text"
    return "unknown"


def iter_google_parts(msg: Any) -> Iterator[tuple[str, Any]]:
    """Yield ``(kind, part)`` for every part of a stored Gemini message (dict or Content)."""
    if hasattr(msg, "model_dump"):
        msg = msg.model_dump()
    parts = msg.get("parts") if isinstance(msg, dict) else None
    for part in parts or []:
        yield google_part_kind(part), part
