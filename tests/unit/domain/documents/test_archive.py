"""The zip-bomb rule of Office files, from the zip directory alone."""

from __future__ import annotations

from doc_processing_toolkit.domain.documents.archive import (
    MAX_ENTRIES,
    MAX_UNCOMPRESSED_BYTES,
    ArchiveEntry,
    archive_problem,
)

MIB = 1024 * 1024


def test_an_ordinary_office_file_passes() -> None:
    entries = [ArchiveEntry("word/document.xml", 3 * MIB, MIB), ArchiveEntry("a.png", 500, 1)]
    assert archive_problem(entries) is None


def test_a_bomb_is_named_by_what_gives_it_away() -> None:
    ratio = archive_problem([ArchiveEntry("x.xml", 2 * MIB, 2 * MIB // 1000)])
    assert ratio is not None and "x.xml inflates 1,000:1" in ratio
    total = archive_problem(
        [ArchiveEntry(f"p{i}", MAX_UNCOMPRESSED_BYTES // 2, 10 * MIB) for i in range(3)]
    )
    assert total is not None and "inflates to" in total
    many = archive_problem([ArchiveEntry(f"e{i}", 1, 1) for i in range(MAX_ENTRIES + 1)])
    assert many is not None and "entries" in many
