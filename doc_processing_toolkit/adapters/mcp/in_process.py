"""InProcessMCPSession: an MCP server object running in this process (format 4).

Takes the mcp SDK's ``mcp.server.mcpserver.MCPServer`` (mcp 2.x, the successor of the
SDK-bundled FastMCP) or a standalone ``fastmcp`` ``FastMCP`` (fastmcp 3/4), bare or from
``{"type": "fastmcp", "server": ..., "allowed_tools": [...]}`` (the filter itself is
`AllowedToolsSession`). Tools are
listed and called through the server's public async ``list_tools()`` / ``call_tool()``.

How the two switches map onto today's SDKs (see ``docs/design/mcp.md``):

* ``DPT_FASTMCP_VALIDATED_CALL`` (default on): arguments are validated and coerced as the
  server does over stdio. On: the server's own ``call_tool``. Off, on ``MCPServer`` only:
  the function from the server's tool registry is called with the raw arguments; a
  return value that is, or holds, an ``Image`` / ``Audio`` helper or an MCP content object
  is converted the way the server converts it, any other value as a ``@tool`` return.
* ``DPT_FASTMCP_SYNC_TOOLS_OFFLOOP`` (default on): a synchronous tool runs on a worker
  thread. Both SDKs already do this inside their own ``call_tool`` (``MCPServer``:
  ``FuncMetadata.call_fn`` uses ``anyio.to_thread.run_sync``; fastmcp: ``run_in_thread``,
  on unless the tool opts out). Off, on ``MCPServer`` only: a sync tool runs on the event
  loop (validated against the registry entry's argument model when validation is on).

``MCPServer.call_tool`` withholds a crashing tool's message (``UnexpectedToolError`` reads
only ``Error executing tool <name>``); its documented ``__cause__`` is the original
exception, so the outcome reads ``Error executing tool <name>: <message>`` like a
``@tool`` function's. A masked fastmcp error is completed the same way.

``fastmcp`` is never imported here: a fastmcp server object is recognised by the module
of its class and driven through its public methods.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Mapping
from typing import Any

import anyio.to_thread

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.mcp._sdk import env_switch, server_kind
from doc_processing_toolkit.adapters.mcp.results import (
    content_parts,
    outcome_from_call_result,
    spec_from_mcp_tool,
)
from doc_processing_toolkit.adapters.tool_sessions.local_functions import outcome_from_return
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = [
    "SYNC_OFFLOOP_ENV",
    "VALIDATED_CALL_ENV",
    "InProcessMCPSession",
    "error_text",
    "fastmcp_sync_tools_offloop_enabled",
    "fastmcp_validated_call_enabled",
]

log = get_logger(__name__)

VALIDATED_CALL_ENV = "DPT_FASTMCP_VALIDATED_CALL"
"""Switch: validate and coerce arguments as the server does (default on)."""
SYNC_OFFLOOP_ENV = "DPT_FASTMCP_SYNC_TOOLS_OFFLOOP"
"""Switch: run synchronous tools on a worker thread (default on)."""
DEFAULT_NAME = "fastmcp-server"
_MEDIA_KINDS = ("text", "image", "audio")


def fastmcp_validated_call_enabled() -> bool:
    """Whether an in-process registry tool is called through its own run
    (``DPT_FASTMCP_VALIDATED_CALL``, default on)."""
    return env_switch(VALIDATED_CALL_ENV)


def fastmcp_sync_tools_offloop_enabled() -> bool:
    """Whether a synchronous in-process tool runs on a worker thread
    (``DPT_FASTMCP_SYNC_TOOLS_OFFLOOP``, default on)."""
    return env_switch(SYNC_OFFLOOP_ENV)


def error_text(name: str, exc: BaseException) -> str:
    """The message a failed in-process call shows the model, the tool's own text kept.

    Follows ``__cause__`` to the original exception and appends its text when the
    server's message withheld it.
    """
    shown = str(exc) or type(exc).__name__
    leaf: BaseException = exc
    while leaf.__cause__ is not None:
        leaf = leaf.__cause__
    detail = str(leaf) or type(leaf).__name__
    if leaf is not exc and detail not in shown:
        shown = f"{shown}: {detail}"
    if not shown.startswith("Error"):
        shown = f"Error executing tool {name}: {shown}"
    return shown


class InProcessMCPSession:
    """A `ManagedToolSession` over an
    in-process MCP server object."""

    def __init__(
        self,
        server: Any,
        *,
        name: str | None = None,
        validated_call: bool | None = None,
        sync_tools_offloop: bool | None = None,
    ) -> None:
        """Wrap ``server``; the switches default to their environment variables.

        ``name`` defaults to the server's own name, else ``"fastmcp-server"``.
        """
        self._server = server
        self._kind = server_kind(server)
        own_name = getattr(server, "name", None)
        if not name:
            name = own_name if isinstance(own_name, str) and own_name else DEFAULT_NAME
        self.name: str = name
        self._validated = (
            env_switch(VALIDATED_CALL_ENV) if validated_call is None else validated_call
        )
        self._offloop = (
            env_switch(SYNC_OFFLOOP_ENV) if sync_tools_offloop is None else sync_tools_offloop
        )
        self._warned_no_surface = False

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> InProcessMCPSession:
        """Build from ``{"type": "fastmcp", "server": ..., "name"?}`` (allowed_tools is
        applied by `AllowedToolsSession`).

        Raises:
            ValueError: no ``server``.
        """
        server = config.get("server")
        if server is None:
            raise ConfigurationError(
                'a {"type": "fastmcp"} config needs "server", the server object'
            )
        name = config.get("name")
        return cls(server, name=str(name) if name else None)

    @property
    def server(self) -> Any:
        """The wrapped server object."""
        return self._server

    @property
    def kind(self) -> str:
        """``"mcpserver"``, ``"fastmcp"``, ``"public"`` or ``"none"`` (see ``server_kind``)."""
        return self._kind

    def __repr__(self) -> str:
        return f"InProcessMCPSession(name={self.name!r}, kind={self._kind!r})"

    async def connect(self) -> None:
        """Nothing to open in-process; a server with no tool surface logs one WARNING."""
        self._check_surface()

    async def aclose(self) -> None:
        """Nothing to close in-process."""

    def _check_surface(self) -> bool:
        if self._kind != "none":
            return True
        if not self._warned_no_surface:
            self._warned_no_surface = True
            log.warning(
                "MCP server object offers neither list_tools() nor call_tool(); it exposes "
                "no tools",
                server_name=self.name,
                server_type=type(self._server).__name__,
            )
        return False

    async def list_tools(self) -> list[ToolSpec]:
        """The server's tools, through its public ``list_tools()`` (one entry per name)."""
        if not self._check_surface():
            return []
        tools = await self._server.list_tools()
        specs: list[ToolSpec] = []
        seen: set[str] = set()
        for tool in tools:
            spec = spec_from_mcp_tool(tool, self.name)
            if spec.name not in seen:  # fastmcp lists every version of a tool
                seen.add(spec.name)
                specs.append(spec)
        return specs

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call one tool; whatever it raises becomes an error outcome with its message."""
        if not self._check_surface():
            return ToolOutcome.error(f"Unknown tool {name!r}: MCP server {self.name!r} has none")
        arguments = dict(arguments or {})
        if self._kind == "mcpserver" and not (self._validated and self._offloop):
            entry = _registry_entry(self._server, name)
            if entry is not None:
                return await self._call_entry(entry, name, arguments)
        try:
            result = await self._server.call_tool(name, arguments)
        except Exception as exc:  # a tool failure is a result the model reads
            return self._failed(name, exc)
        return _outcome(result)

    async def _call_entry(self, entry: Any, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call an ``MCPServer`` registry entry ourselves (a switch is off)."""
        try:
            if self._validated:
                kwargs = entry.fn_metadata.validate_arguments(arguments)
            else:
                kwargs = arguments
            if entry.is_async:
                result = await entry.fn(**kwargs)
            elif self._offloop:
                result = await anyio.to_thread.run_sync(functools.partial(entry.fn, **kwargs))
            else:
                result = entry.fn(**kwargs)
            if inspect.isawaitable(result):
                result = await result
            if self._validated:
                return _outcome(entry.fn_metadata.convert_result(result))
        except Exception as exc:
            return self._failed(name, exc)
        return _unvalidated_outcome(result)

    def _failed(self, name: str, exc: Exception) -> ToolOutcome:
        log.warning(
            "in-process MCP tool failed",
            server_name=self.name,
            tool_name=name,
            error_type=type(exc).__name__,
        )
        return ToolOutcome.error(error_text(name, exc))


def _registry_entry(server: Any, name: str) -> Any:
    """The ``MCPServer`` tool registry entry for ``name`` when we can call it ourselves.

    Entries that need the request context or resolvers go through ``call_tool``.
    """
    manager = getattr(server, "_tool_manager", None)
    get_tool = getattr(manager, "get_tool", None)
    if not callable(get_tool):
        return None
    entry = get_tool(name)
    if entry is None or getattr(entry, "context_kwarg", None):
        return None
    if getattr(entry, "resolved_params", None):
        return None
    if not all(hasattr(entry, a) for a in ("fn", "is_async", "fn_metadata")):
        return None
    return entry


def _outcome(result: Any) -> ToolOutcome:
    """A server's call result (CallToolResult, fastmcp ToolResult, or a content list)."""
    if getattr(result, "result_type", None) == "input_required":
        return ToolOutcome.error(
            "The tool asked for client input (input_required), which in-process calls "
            "do not support."
        )
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], Mapping):
        return outcome_from_call_result({"content": result[0], "structured_content": result[1]})
    if isinstance(result, list | tuple):
        return outcome_from_call_result({"content": list(result)})
    return outcome_from_call_result(result)


def _media_block(value: Any) -> Any:
    """``value`` as an MCP content block when the server would convert it to one."""
    for method in ("to_image_content", "to_audio_content"):
        convert = getattr(value, method, None)
        if callable(convert):
            return convert()
    if getattr(value, "type", None) in _MEDIA_KINDS and hasattr(value, "model_dump"):
        return value
    return None


def _unvalidated_outcome(result: Any) -> ToolOutcome:
    """A raw return value: media helpers and content objects as the server converts them."""
    items = list(result) if isinstance(result, list | tuple) else [result]
    blocks = [_media_block(item) for item in items]
    if not any(b is not None for b in blocks):
        return outcome_from_return(result)
    converted: list[Any] = []
    for item, block in zip(items, blocks, strict=True):
        if block is not None:
            converted.append(block)
        elif isinstance(item, str):
            converted.append({"type": "text", "text": item})
        else:
            text = json.dumps(item, ensure_ascii=False, indent=2, default=str)
            converted.append({"type": "text", "text": text})
    parts, _ = content_parts(converted)
    return ToolOutcome(content=parts)
