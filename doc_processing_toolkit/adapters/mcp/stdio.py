"""StdioMCPSession: an MCP server run as a subprocess (formats 5 and 6).

``{"type": "mcp_script", "path": ...}`` runs ``sys.executable path``;
``{"type": "mcp_command", "command": ..., "args": [...]}`` runs the command. Both go
through the SDK's ``stdio_client(StdioServerParameters(command, args, env, cwd))`` and a
``ClientSession``. The child sees only the SDK's ``get_default_environment()`` allow-list
(HOME, LOGNAME, PATH, SHELL, TERM, USER on POSIX) with the config's ``env`` merged over it.
Neither env values nor cwd are logged: only the env names, at DEBUG.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.mcp._client import (
    ConnectionOwner,
    call_client_tool,
    list_tools_reconnecting,
    reconnect_owner,
)
from doc_processing_toolkit.adapters.mcp._sdk import import_mcp
from doc_processing_toolkit.adapters.mcp.config import validate_env, validate_stdio_config
from doc_processing_toolkit.adapters.mcp.timeouts import (
    STDIO_CALL_S,
    STDIO_CONNECT_S,
    stdio_timeouts,
)
from doc_processing_toolkit.domain.errors import MissingFileError
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = ["DEFAULT_CALL_TIMEOUT", "DEFAULT_CONNECT_TIMEOUT", "StdioMCPSession"]

log = get_logger(__name__)

DEFAULT_CALL_TIMEOUT = STDIO_CALL_S
"""Seconds one tool call may take before it becomes an error result (see `timeouts`)."""
DEFAULT_CONNECT_TIMEOUT = STDIO_CONNECT_S
"""Seconds the server may take to start and answer ``initialize`` (see `timeouts`)."""


class StdioMCPSession:
    """A `ManagedToolSession` over stdio."""

    def __init__(
        self,
        *,
        name: str,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, Any] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
        connect_timeout: float | None = DEFAULT_CONNECT_TIMEOUT,
        list_timeout: float | None = DEFAULT_CONNECT_TIMEOUT,
    ) -> None:
        """Describe the server process; nothing starts until `connect`.

        Raises:
            ValueError: an env value is None or of an unsupported type.
        """
        self.name = name
        self._command = command
        self._args = [str(a) for a in args]
        self._env = validate_env(env, name)
        self._cwd = os.fspath(cwd) if cwd is not None else None
        self._call_timeout = call_timeout
        self._connect_timeout = connect_timeout
        self._list_timeout = list_timeout
        self._owner = ConnectionOwner(name)
        self._script: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> StdioMCPSession:
        """Build from an ``mcp_script`` / ``mcp_command`` dict (validated; allowed_tools is
        applied by `AllowedToolsSession`).
        """
        checked = validate_stdio_config(config)
        limits = stdio_timeouts(checked["timeout"])
        session = cls(
            name=checked["name"],
            command=checked["command"],
            args=checked["args"],
            env=checked["env"],
            cwd=checked["cwd"],
            call_timeout=limits.call,
            connect_timeout=limits.connect,
            list_timeout=limits.list,
        )
        if checked["type"] == "mcp_script":
            session._script = checked["args"][0]
        return session

    def __repr__(self) -> str:
        return f"StdioMCPSession(name={self.name!r}, command={os.path.basename(self._command)!r})"

    @property
    def connected(self) -> bool:
        """Whether the server process is running and initialised."""
        return self._owner.session is not None

    @property
    def connection_lost(self) -> bool:
        """Whether the server was started and its connection is gone (it crashed or
        exited, or a call found the pipe closed)."""
        return self._owner.lost

    async def connect(self) -> None:
        """Start the server process and initialise the MCP session.

        Raises:
            FileNotFoundError: the command (or an mcp_script path) does not exist.
            Exception: the leaf error of a failed start or handshake.
        """
        if self._owner.open_here() and not self._owner.lost:
            return
        if self._owner.open_on_running_loop():  # lost: restart the process
            await self.reconnect("the connection was lost")
            return
        self._check_script()
        log.debug(
            "starting stdio MCP server",
            server_name=self.name,
            command=os.path.basename(self._command),
            env_names=",".join(sorted(self._env or {})),
        )
        await self._owner.open(self._open, self._connect_timeout)

    def _check_script(self) -> None:
        if self._script is not None and not os.path.exists(self._script):
            raise MissingFileError(
                f"MCP server script of {self.name!r} not found: {os.path.basename(self._script)}"
            )

    async def _open(self, stack: contextlib.AsyncExitStack) -> Any:
        mcp = import_mcp()
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=self._command, args=self._args, env=self._env, cwd=self._cwd
        )
        read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(mcp.ClientSession(read, write))
        await session.initialize()
        return session

    async def aclose(self) -> None:
        """Stop the server process (idempotent)."""
        await self._owner.close()

    async def reconnect(self, reason: str) -> None:
        """Stop what is left of the server process and start it again (WARNING logged)."""
        await reconnect_owner(self._owner, self.name, reason, self._start)

    async def _start(self) -> None:
        self._check_script()
        await self._owner.open(self._open, self._connect_timeout)

    async def list_tools(self) -> list[ToolSpec]:
        """Every tool the server lists (all pages, each within the list bound); a lost
        connection is reconnected once.

        Raises:
            MCPTimeoutError: the server did not answer a ``tools/list`` page in time.
        """
        return await list_tools_reconnecting(
            self._owner, self.name, self.reconnect, self._list_timeout
        )

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call one tool; a failure, a timeout or a crashed server is an error outcome."""
        session = self._owner.session
        if session is None:
            return ToolOutcome.error(
                f"Error executing tool {name}: MCP server {self.name!r} is not connected"
            )
        return await call_client_tool(
            session,
            self.name,
            name,
            arguments,
            self._call_timeout,
            on_lost=self._owner.mark_lost,
        )
