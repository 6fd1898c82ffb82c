"""The compaction strategies as pure functions on the IR, and their legality checks.

``config`` (CompactionConfig, its resolution, thresholds), ``structure`` (turns, size
estimates, the shared wire rules), ``strategies`` (sliding_window, tool_result_clearing,
the pure half of summarize) and ``result`` (CompactionResult). The summarisation call,
archives and the Level-1 / Level-2 checks are orchestrated in ``application/compaction``.
"""
