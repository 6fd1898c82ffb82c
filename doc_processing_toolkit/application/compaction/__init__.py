"""The compaction room (lands with the compaction issue): Level-1 (before a session turn)
and Level-2 (between tool rounds) orchestration; summaries through a ModelClient.

The strategies themselves are pure and live in ``domain/compaction``. Nothing is built yet:
``Agent(compaction=...)`` raises NotImplementedError naming it.
"""
