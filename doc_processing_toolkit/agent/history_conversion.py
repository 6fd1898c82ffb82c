"""Cross-provider conversion of stored session history (documented import path).

Re-exports :mod:`doc_processing_toolkit.application.history.conversion`: a history stored
in one provider's dialect is read into the neutral representation and written back out in
another's; what cannot cross is dropped and reported in a :class:`ConversionReport`, and a
history that cannot be converted at all raises :class:`SessionCompatibilityError`.
"""

from __future__ import annotations

from doc_processing_toolkit.application.history.conversion import (
    ConversionReport,
    GoogleMediaLookup,
    SessionCompatibilityError,
    convert_history,
    decode_media_bytes,
    google_part_kind,
    iter_google_parts,
    read_history,
    summarize_report,
    write_history,
)

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
