"""ArchiveSink: where compaction sends the conversation it is about to compact."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["ArchiveSink"]


@runtime_checkable
class ArchiveSink(Protocol):
    """Receives an archived conversation instead of a local archive file.

    Called once per compaction (when ``archive_history`` is on) with the sanitised,
    JSON-serialisable message list that would otherwise have been written to
    ``archive_dir``. It may return a locator string (an object key, a URL), which is then
    used wherever the file path would have been: ``CompactionResult.archive_path``,
    ``AgentResult.compaction_archives`` and the summary's reference section; None means
    "archived, no locator". Raising is contained by the caller: the compaction and the run
    go on, with a WARNING naming only the exception type.
    """

    def __call__(self, payload: list[Any]) -> str | None:
        """Archive ``payload``; return its locator, or None."""
        ...
