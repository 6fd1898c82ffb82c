"""The compaction room: Level-1 (before a session turn) and Level-2 (between tool rounds)
orchestration; summaries through a ModelClient and the one retry layer; archives.

``setup`` (checks at Agent(...), the context window), ``engine`` (one compaction),
``summary`` (the compaction_summary request), ``archive`` (the ArchiveSink payload),
``run_hook`` (the run loop's seam and the session's scope), ``levels`` (the documented
entry points). The strategies themselves are pure and live in ``domain/compaction``.
"""
