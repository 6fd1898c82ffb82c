"""The compaction strategies as pure functions on the IR, and their legality checks (lands
with the compaction issue; nothing here yet)."""
