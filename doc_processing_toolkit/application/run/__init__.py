"""The run room: THE run loop, the one retry layer, the event channel and the run outcome.

Belongs here: what happens between run_start and run_end — requests, retries, tool rounds,
events, and turning the outcome into an AgentResult and its DetailedCostReport. The loop's
callbacks (hooks, request_start, compaction) are Protocols here (``callbacks``), which
``hooks/`` and ``compaction/`` implement from above. Does not: tool loading or MCP
lifecycle (``tools/``), settings (``config/``), hooks' control logic (``hooks/``).
"""
