"""Cross-provider conversion of stored session history (documented import path).

Binds `doc_processing_toolkit.application.history.conversion` to the process
container's codecs and profiles: a history stored in one provider's dialect is read into
the neutral representation and written back out in another's; what cannot cross is dropped
and reported in a `ConversionReport`, and a history that cannot be converted at all
raises `SessionCompatibilityError`. The Gemini part helpers are re-exported from
the Google adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doc_processing_toolkit.adapters.providers.google.media import (
    GoogleMediaLookup,
    google_part_kind,
    iter_google_parts,
)
from doc_processing_toolkit.application import container as _composition
from doc_processing_toolkit.application.history import conversion as _conversion
from doc_processing_toolkit.application.history.conversion import (
    ConversionReport,
    SessionCompatibilityError,
    decode_media_bytes,
    summarize_report,
)
from doc_processing_toolkit.application.history.dialects import Dialects

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

_DIALECTS = Dialects(
    codec=lambda provider: _composition.build_history_codec(
        _composition.default_container(), provider
    ),
    profile=lambda provider: _composition.build_provider_profile(
        _composition.default_container(), provider
    ),
)
"""The process default container's codecs and profiles (looked up on each call)."""


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

    Args:
        messages: The stored session messages.
        source: Their dialect.
        target: The provider to write for.
        model: The target model (for placeholders and the report).
        input_types: The target row's input_types.
        google_media: Resolver for Files API URIs in a Google history.

    Returns:
        ``(converted_messages, report)``.

    Raises:
        SessionCompatibilityError: When the history cannot be converted (see
            `read_history`).
        ValueError: If ``source`` or ``target`` is not a known dialect.
    """
    return _conversion.convert_history(
        messages,
        source=source,
        target=target,
        dialects=_DIALECTS,
        model=model,
        input_types=input_types,
        media_lookup=google_media,
    )


def read_history(
    messages: list[Any],
    source: str,
    report: ConversionReport,
    *,
    google_media: GoogleMediaLookup | None = None,
) -> list[dict[str, Any]]:
    """Read a stored history into neutral turns.

    Args:
        messages: The stored session messages.
        source: Their dialect ("anthropic", "openai", "google", "fireworks").
        report: Receives every dropped artefact.
        google_media: Resolves a Files API URI to ``(mime_type, base64)``; None means no
            bytes are available for any URI.

    Returns:
        The neutral turns, validated: every tool round is closed and every result matches
        a call.

    Raises:
        SessionCompatibilityError: For an open tool round, a call without a name, or a
            result that matches no call.
        ValueError: If ``source`` is not a known dialect.
    """
    return _conversion.read_history(
        messages, source, report, dialects=_DIALECTS, media_lookup=google_media
    )


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
        SessionCompatibilityError: When the turns hold an open round or an orphan result.
        ValueError: If ``target`` is not a known dialect or a turn is malformed.
    """
    return _conversion.write_history(
        turns, target, report, dialects=_DIALECTS, model=model, input_types=input_types
    )
