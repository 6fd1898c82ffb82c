"""Tool sessions that are not MCP transports: the ``@tool`` functions' session
(`local_functions`, with the worker threads its synchronous tools run on,
`worker_thread`) and the session that reads back truncated tool results
(`truncated_results`)."""
