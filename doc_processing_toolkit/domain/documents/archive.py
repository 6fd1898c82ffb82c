"""Office Open XML files are zips: the rule that refuses a zip bomb from its directory
alone, before a byte is inflated (pure: the caller lists the entries).

An Office file is refused when it has more than `MAX_ENTRIES` entries, inflates to more
than `MAX_UNCOMPRESSED_BYTES` in all, or has an entry of 1 MiB or more that inflates more
than `MAX_COMPRESSION_RATIO` times. The one copy of the rule: the check before an Office
file is sent natively and the MarkItDown adapter's check before converting both call
`archive_problem` (the adapter may pass its own limits).

The declared sizes are the ones the zip reader enforces while inflating (an entry that
inflates past its declared size fails its read), so checking them is checking the real
work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "MAX_COMPRESSION_RATIO",
    "MAX_ENTRIES",
    "MAX_UNCOMPRESSED_BYTES",
    "ArchiveEntry",
    "archive_problem",
]

MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
"""The most an Office file may inflate to, all entries together."""
MAX_COMPRESSION_RATIO = 100
"""The highest uncompressed/compressed ratio of an entry of 1 MiB or more."""
MAX_ENTRIES = 10_000
"""The most entries an Office file may have."""
_RATIO_FLOOR = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """One zip entry as its central directory declares it."""

    name: str
    size: int
    """Uncompressed bytes."""
    compressed: int
    """Compressed bytes."""


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):,.1f} MiB"


def archive_problem(
    entries: Sequence[ArchiveEntry],
    *,
    max_entries: int = MAX_ENTRIES,
    max_uncompressed_bytes: int = MAX_UNCOMPRESSED_BYTES,
    max_compression_ratio: float = MAX_COMPRESSION_RATIO,
) -> str | None:
    """Why an Office file with ``entries`` is refused as a possible zip bomb; None if not.

    The limits default to the module's; a converter may set its own.
    """
    if len(entries) > max_entries:
        return f"{len(entries):,} entries (the limit is {max_entries:,})"
    total = sum(e.size for e in entries)
    if total > max_uncompressed_bytes:
        return f"it inflates to {_mb(total)} (the limit is {_mb(max_uncompressed_bytes)})"
    for entry in entries:
        ratio = entry.size / max(entry.compressed, 1)
        if entry.size >= _RATIO_FLOOR and ratio > max_compression_ratio:
            return (
                f"{entry.name} inflates {ratio:,.0f}:1 to {_mb(entry.size)} (the limit is "
                f"{max_compression_ratio:g}:1)"
            )
    return None
