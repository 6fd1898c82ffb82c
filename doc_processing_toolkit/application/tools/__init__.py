"""The tools room: ToolLoader, format detection, MCP lifecycle per event loop, the tool set,
per-run planning (cap, defer, skills), spend accounting, and the MCP-compatible shapes that
``agent.loader`` documents.

Belongs here: everything between a ``tools=[...]`` entry and a callable tool in a run.
Does not: MCP transports or the @tool session (``adapters/mcp``, ``adapters/tool_sessions``),
tool schemas and the result cap as pure rules (``domain/tools``).
"""
