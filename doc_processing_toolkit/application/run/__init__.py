"""The run room: THE run loop, the one retry layer, the event channel and the run outcome.

Belongs here: what happens between run_start and run_end — requests, retries, tool rounds,
events, and turning the outcome into an AgentResult and its DetailedCostReport. The loop's
callbacks (hooks, request_start, compaction) are Protocols here (``loop.callbacks``), which
``hooks/`` and ``compaction/`` implement from above. Does not: tool loading or MCP
lifecycle (``tools/``), settings (``config/``), hooks' control logic (``hooks/``).

Its sub-rooms, top to bottom (an import-linter ``layers`` contract in pyproject.toml):
``stream/`` (Agent.stream() plumbing, off-loop calls) > ``loop/`` (the tool loop, events,
binding, response decisions) > ``results/`` (RunOutcome, AgentResult, cost report) >
``policy/`` (run settings, retry, input estimate, prefix audit, tool surface, turn system);
``run_input.py`` (one run's input value) stands beside them and imports none.
"""
