"""Tool sessions that are not MCP transports: the ``@tool`` functions' session
(:mod:`.local_functions`, with the worker threads its synchronous tools run on,
:mod:`.worker_thread`) and the session that reads back truncated tool results
(:mod:`.truncated_results`)."""
