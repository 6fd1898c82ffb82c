"""MCP session lifecycle: sessions opened once per event loop, rolled back on failure.

`SessionPool` opens the sessions of formats 4, 5, 6, 8 and 9 on the running
event loop and lists their tools. A later connect on the same loop reuses them; a
connect on another loop discards the old ones (closed on their own loop when it still
runs, else dropped unawaited — a dead loop's context managers cannot be awaited) and
opens new ones. A connect that fails closes what it had opened, so a retry never ships
duplicate tool names. A reused session whose connection was lost (a crashed stdio server,
a dropped remote session) is reconnected first, with a WARNING naming the server; its
tools stay registered as listed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit._redaction import redact_text, redacted_summary
from doc_processing_toolkit.application.deps import SessionFactory
from doc_processing_toolkit.domain.errors import (
    DocProcessingToolkitError,
    MCPConnectionError,
    MCPTimeoutError,
    ToolDefinitionError,
)
from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.ports.tool_session import ManagedToolSession, ReconnectingToolSession

__all__ = ["Connection", "ServerConfig", "SessionFactory", "SessionPool"]

log = get_logger(__name__)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One session-format entry of ``tools=``, as loaded."""

    format: str
    """The `detect_format` name."""
    config: dict[str, Any]
    """The normalised config the factory receives."""

    @property
    def name(self) -> str:
        """The server name."""
        return str(self.config.get("name") or self.format)


@dataclass
class Connection:
    """The sessions open on one event loop and the tools they registered."""

    loop: asyncio.AbstractEventLoop
    sessions: list[tuple[ServerConfig, ManagedToolSession]] = field(default_factory=list)
    tools: list[tuple[ToolSpec, ManagedToolSession]] = field(default_factory=list)


async def _close_quietly(session: ManagedToolSession) -> None:
    try:
        await session.aclose()
    except Exception as exc:  # closing must not mask the failure being handled
        log.warning(
            "closing an MCP session failed",
            server=getattr(session, "name", "?"),
            error=f"{type(exc).__name__}: {exc}",
        )


async def _close_all(sessions: Sequence[ManagedToolSession]) -> None:
    for session in reversed(sessions):
        await _close_quietly(session)


class SessionPool:
    """Connects the configured servers on the running loop and keeps them for it."""

    def __init__(self) -> None:
        self._connection: Connection | None = None
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    @property
    def connection(self) -> Connection | None:
        """The live connection, or None."""
        return self._connection

    def connected_on(self, loop: asyncio.AbstractEventLoop) -> bool:
        """True when the sessions are open on ``loop``."""
        return self._connection is not None and self._connection.loop is loop

    def _loop_lock(self, loop: asyncio.AbstractEventLoop) -> asyncio.Lock:
        if self._lock is None or self._lock_loop is not loop:
            self._lock = asyncio.Lock()
            self._lock_loop = loop
        return self._lock

    def _discard_foreign(self, loop: asyncio.AbstractEventLoop) -> None:
        """Drop a connection opened on another loop without awaiting it here."""
        old, self._connection = self._connection, None
        if old is None or old.loop is loop:
            return
        sessions = [session for _, session in old.sessions]
        if old.loop.is_running() and not old.loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop stopped meanwhile
                asyncio.run_coroutine_threadsafe(_close_all(sessions), old.loop)
            log.debug("MCP sessions of another event loop handed back to it to close")
        else:
            log.debug(
                "MCP sessions of a closed event loop discarded unawaited",
                servers=[config.name for config, _ in old.sessions],
            )

    async def connect(
        self,
        configs: Sequence[ServerConfig],
        factories: Mapping[str, SessionFactory],
        reserved_names: Mapping[str, str],
    ) -> Connection:
        """Open every server on the running loop (a no-op when already open on it).

        Args:
            configs: The servers to open, in order.
            factories: A session factory per format.
            reserved_names: Tool names already taken (name -> owner), e.g. local functions.

        Raises:
            ToolDefinitionError: two sources offer the same tool name, or a format has no
                session factory.
            Exception: whatever a session's connect or list_tools raised; every session
                this call opened is closed first.
        """
        loop = asyncio.get_running_loop()
        open_here = self._connection
        if open_here is not None and open_here.loop is loop and not _lost(open_here):
            return open_here  # every run after the first: no lock to take
        if self._connection is not None and self._connection.loop is not loop:
            self._discard_foreign(loop)
        async with self._loop_lock(loop):
            if self._connection is not None and self._connection.loop is loop:
                await _revive(self._connection)
                return self._connection
            connection = Connection(loop)
            owners = dict(reserved_names)
            opened: list[ManagedToolSession] = []
            current = ""
            try:
                for config in configs:
                    current = config.name
                    factory = factories.get(config.format)
                    if factory is None:
                        raise ToolDefinitionError(
                            f"no session adapter is wired for tool format {config.format!r} "
                            f"(server {config.name!r})"
                        )
                    session = factory(dict(config.config))
                    opened.append(session)
                    await session.connect()
                    connection.sessions.append((config, session))
                    for spec in await session.list_tools():
                        if spec.name in owners:
                            raise ToolDefinitionError(
                                f"tool name {spec.name!r} is offered by both "
                                f"{owners[spec.name]!r} and {config.name!r}; tool names must "
                                "be unique (narrow a server with allowed_tools)"
                            )
                        owners[spec.name] = config.name
                        if spec.server_name is None:
                            spec = _with_server(spec, config.name)
                        connection.tools.append((spec, session))
            except BaseException as exc:
                if isinstance(exc, Exception):
                    log.warning(
                        "connecting the MCP servers failed; the sessions opened so far are closed",
                        server=current,
                        error=f"{type(exc).__name__}: {exc}",
                    )
                await asyncio.shield(_close_all(opened))
                if isinstance(exc, Exception) and not isinstance(exc, DocProcessingToolkitError):
                    raise mcp_connection_error(exc, current) from redacted_summary(exc)
                raise
            self._connection = connection
            log.debug(
                "MCP servers connected",
                servers=[config.name for config in configs],
                tools=len(connection.tools),
            )
            return connection

    async def disconnect(self) -> None:
        """Close the sessions (on their own loop) or discard them (any other loop)."""
        connection = self._connection
        if connection is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or connection.loop is not loop:
            if loop is not None:
                self._discard_foreign(loop)
            else:
                self._connection = None
            return
        self._connection = None
        await _close_all([session for _, session in connection.sessions])


def _lost(connection: Connection) -> list[tuple[ServerConfig, ReconnectingToolSession]]:
    """The sessions of ``connection`` that lost their connection since the last run."""
    lost = []
    for config, session in connection.sessions:
        if isinstance(session, ReconnectingToolSession) and session.connection_lost:
            lost.append((config, session))
    return lost


async def _revive(connection: Connection) -> None:
    """Reconnect every session of ``connection`` whose connection was lost.

    Raises:
        MCPConnectionError: a server could not be reconnected (the next run tries again).
    """
    for config, session in _lost(connection):
        try:
            await session.reconnect("its connection was lost since the last run")
        except DocProcessingToolkitError:
            raise
        except Exception as exc:
            raise mcp_connection_error(exc, config.name) from redacted_summary(exc)


def mcp_connection_error(exc: BaseException, server: str) -> MCPConnectionError:
    """The toolkit error for an MCP server that could not be connected or listed: the
    adapter's message when it names the server (it is already redacted), else one that
    does, with the SDK error's type and redacted text; a connect that timed out is an
    `MCPTimeoutError`."""
    if isinstance(exc, TimeoutError):
        return MCPTimeoutError(
            f"MCP server '{server}' did not finish connecting in time (start-up and initialize)",
            server=server or None,
        )
    text = redact_text(str(exc))
    if server and f"'{server}'" not in text:
        text = f"MCP server '{server}' could not be connected: {type(exc).__name__}: {text}"
    return MCPConnectionError(text, server=server or None)


def _with_server(spec: ToolSpec, server: str) -> ToolSpec:
    from dataclasses import replace

    return replace(spec, server_name=server)
