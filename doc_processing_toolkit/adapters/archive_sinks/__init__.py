"""Archive sinks: where compaction puts the conversation it is about to compact
(``directory``: one JSON file per compaction, the default)."""
