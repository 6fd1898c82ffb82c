"""What every session over an MCP ``ClientSession`` shares.

* `list_all_tools` follows ``tools/list`` pagination (``next_cursor``) to the end,
  each page within a bound (`MCPTimeoutError` naming the server past it);
* `call_client_tool` runs one call under a timeout and turns every failure — a
  protocol error, a dropped connection, a crashed server, a timeout — into an error
  `ToolOutcome` instead of an exception;
* `ConnectionOwner` holds the transport and ``ClientSession`` context managers
  open in one dedicated background task, from ``connect()`` to ``aclose()``. anyio cancel
  scopes belong to the task that entered them, so the task that opens the transports is
  the one that closes them, whichever task calls ``aclose()``. It also knows when the
  connection is lost (`ConnectionOwner.lost`): the background task ended, a call
  failed because the connection closed, or the session's dispatcher saw the transport end
  (a crashed stdio server closes its stdout);
* `reconnect_owner` and `list_tools_reconnecting` are what a session does to
  reopen a lost connection: on the next run, and once within a run for ``tools/list``,
  which is idempotent (a tool call is never repeated).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.mcp.results import outcome_from_call_result, spec_from_mcp_tool
from doc_processing_toolkit.domain.errors import MCPTimeoutError, StateError
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = [
    "ConnectionOwner",
    "call_client_tool",
    "connection_closed",
    "leaf_exception",
    "list_all_tools",
    "list_tools_reconnecting",
    "reconnect_owner",
]

log = get_logger(__name__)

_MAX_PAGES = 1000


def leaf_exception(exc: BaseException) -> BaseException:
    """The first real exception inside (nested) exception groups, or ``exc`` itself."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = (inner or list(exc.exceptions))[0]
    return exc


async def _list_page(session: Any, cursor: str | None) -> Any:
    if cursor is None:
        return await session.list_tools()
    try:
        from mcp_types import PaginatedRequestParams
    except ImportError:  # pragma: no cover - an mcp without the types package
        return await session.list_tools(cursor=cursor)
    try:
        return await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
    except TypeError:  # mcp.Client and older sessions take the cursor directly
        return await session.list_tools(cursor=cursor)


async def _bounded_page(
    session: Any, server_name: str, cursor: str | None, limit_s: float | None
) -> Any:
    try:
        with anyio.fail_after(limit_s):
            return await _list_page(session, cursor)
    except TimeoutError:
        raise MCPTimeoutError(
            f"MCP server {server_name!r} did not answer tools/list within {limit_s:g}s",
            server=server_name,
        ) from None


async def list_all_tools(
    session: Any, server_name: str, limit_s: float | None = None
) -> list[ToolSpec]:
    """Every tool ``session`` lists, following ``next_cursor`` to the last page.

    Raises:
        MCPTimeoutError: a page took longer than ``limit_s`` seconds (None: no bound).
    """
    specs: list[ToolSpec] = []
    seen_names: set[str] = set()
    seen_cursors: set[str] = set()
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await _bounded_page(session, server_name, cursor, limit_s)
        tools = page if isinstance(page, list) else getattr(page, "tools", None) or []
        for tool in tools:
            spec = spec_from_mcp_tool(tool, server_name)
            if spec.name not in seen_names:
                seen_names.add(spec.name)
                specs.append(spec)
        cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
        if not cursor:
            return specs
        if cursor in seen_cursors:
            log.warning(
                "MCP server repeated a tools/list cursor; stopping pagination",
                server_name=server_name,
                tools=len(specs),
            )
            return specs
        seen_cursors.add(cursor)
    log.warning("MCP server listed too many pages of tools", server_name=server_name)
    return specs


_LOST_TEXTS = frozenset({"Connection closed", "Session not found", "Session terminated"})
"""The mcp SDK's texts for a closed transport and for a Streamable HTTP session the server
no longer knows (HTTP 404 on a request with an ``Mcp-Session-Id``: the client must start a
new session)."""


def connection_closed(exc: BaseException) -> bool:
    """Whether ``exc`` (a leaf) says the connection to the server is gone."""
    closed = anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream | EOFError
    return isinstance(exc, closed) or str(exc) in _LOST_TEXTS


def _failure_text(name: str, server: str, exc: BaseException, timeout: float | None) -> str:
    if isinstance(exc, TimeoutError):
        within = f" within {timeout:g}s" if timeout is not None else ""
        return f"Error executing tool {name}: no answer from MCP server {server!r}{within}"
    if isinstance(
        exc,
        anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream | EOFError,
    ):
        return f"Error executing tool {name}: the connection to MCP server {server!r} is closed"
    detail = str(exc) or type(exc).__name__
    if detail == "Connection closed":
        return (
            f"Error executing tool {name}: MCP server {server!r} closed the connection "
            "(the server process may have exited)"
        )
    return f"Error executing tool {name}: {detail}"


async def call_client_tool(
    session: Any,
    server_name: str,
    name: str,
    arguments: dict[str, Any],
    limit_s: float | None,
    scrub: Callable[[str], str] | None = None,
    on_lost: Callable[[], None] | None = None,
) -> ToolOutcome:
    """Call ``name`` on ``session`` (at most ``limit_s`` seconds); every failure becomes an
    error outcome. ``on_lost`` is called when the failure says the connection is gone."""
    try:
        with anyio.fail_after(limit_s):
            result = await session.call_tool(name, arguments)
    except Exception as exc:
        leaf = leaf_exception(exc)
        text = _failure_text(name, server_name, leaf, limit_s)
        if on_lost is not None and connection_closed(leaf):
            on_lost()
            text += "; it is reconnected on the next run"
        if scrub is not None:
            text = scrub(text)
        log.warning(
            "MCP tool call failed",
            server_name=server_name,
            tool_name=name,
            error_type=type(leaf).__name__,
        )
        return ToolOutcome.error(text)
    return outcome_from_call_result(result)


class ConnectionOwner:
    """Runs ``opener`` in a background task and keeps what it opened until `close`.

    ``opener(stack)`` enters the transport and session context managers on ``stack`` and
    returns the ready session. The background task enters them, signals readiness, waits
    for `close`, then unwinds the stack itself.
    """

    def __init__(self, label: str) -> None:
        self._label = label
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._session: Any = None
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lost = False

    @property
    def session(self) -> Any:
        """The open session (None before `open` or after `close`)."""
        return self._session

    def open_here(self) -> bool:
        """Whether a live connection exists on the running event loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        task = self._task
        return (
            self._session is not None
            and task is not None
            and not task.done()
            and self._loop is loop
        )

    @property
    def lost(self) -> bool:
        """Whether a connection opened on the running loop is gone: its task ended, a call
        found it closed (`mark_lost`), or the session's dispatcher saw the transport
        end (best effort: the mcp SDK's ``ClientSession`` keeps that flag private)."""
        task = self._task
        if task is None or not self.open_on_running_loop() or not self._ready.is_set():
            return False
        if self._lost or task.done() or self._session is None:
            return True
        dispatcher = getattr(self._session, "_dispatcher", None)
        return bool(getattr(dispatcher, "_closed", False))

    def mark_lost(self) -> None:
        """Record that the connection was found closed (the next run reconnects)."""
        self._lost = True

    def open_on_running_loop(self) -> bool:
        """Whether a connection was opened (and not closed) on the running loop."""
        try:
            return self._task is not None and self._loop is asyncio.get_running_loop()
        except RuntimeError:
            return False

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop the connection was opened on."""
        return self._loop

    async def open(
        self,
        opener: Callable[[contextlib.AsyncExitStack], Awaitable[Any]],
        limit_s: float | None,
    ) -> Any:
        """Start the background task and wait until the session is ready.

        Raises:
            Exception: whatever ``opener`` raised (group-wrapped errors unwrapped to the
                leaf), or TimeoutError when it takes longer than ``timeout``.
        """
        loop = asyncio.get_running_loop()
        if self._task is not None:
            if not self._task.done() and self._loop is loop:
                raise StateError(f"{self._label} is already connected")
            self._task = None  # finished, or left on another (likely dead) loop: abandoned
            self._session = None
        self._loop = loop
        self._ready, self._stop = asyncio.Event(), asyncio.Event()
        self._error = None
        self._lost = False
        self._task = asyncio.create_task(self._run(opener), name=f"mcp:{self._label}")
        try:
            await asyncio.wait_for(self._ready.wait(), limit_s)
        except BaseException:
            await self.close()
            raise
        if self._error is not None:
            error = self._error
            await self.close()
            raise error
        return self._session

    async def _run(self, opener: Callable[[contextlib.AsyncExitStack], Awaitable[Any]]) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                self._session = await opener(stack)
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # the connection's own failure, reported to open()
            if not self._ready.is_set():
                self._error = leaf_exception(exc)
            elif not isinstance(exc, asyncio.CancelledError):
                log.debug(
                    "MCP connection ended with an error",
                    server_name=self._label,
                    error_type=type(leaf_exception(exc)).__name__,
                )
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._session = None
            self._ready.set()

    async def close(self, grace_s: float = 10.0) -> None:
        """Ask the background task to unwind and wait for it (idempotent).

        From a loop other than the one that opened the connection (or once that loop is
        closed) the task is abandoned without being awaited.
        """
        task, self._task = self._task, None
        if task is None or task.done():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover - close() is async, so a loop runs
            running = None
        if running is not self._loop:
            log.debug("MCP connection dropped from another event loop", server_name=self._label)
            self._session = None
            return
        if not self._ready.is_set():
            task.cancel()
        else:
            self._stop.set()
            done, _ = await asyncio.wait({task}, timeout=grace_s)
            if done:
                return
            task.cancel()
        with contextlib.suppress(BaseException):
            await task


async def reconnect_owner(
    owner: ConnectionOwner, server_name: str, reason: str, connect: Callable[[], Awaitable[None]]
) -> None:
    """Close what is left of ``owner``'s connection and ``connect()`` again, with a WARNING
    naming the server (a dead process or session may not close cleanly: that is logged at
    DEBUG and ignored)."""
    log.warning(
        f"MCP server {server_name!r} lost its connection; reconnecting",
        server_name=server_name,
        reason=reason,
    )
    try:
        await owner.close(grace_s=2.0)
    except Exception as exc:
        log.debug("closing a lost MCP connection failed", server_name=server_name, error=exc)
    await connect()


async def list_tools_reconnecting(
    owner: ConnectionOwner,
    server_name: str,
    reconnect: Callable[[str], Awaitable[None]],
    limit_s: float | None = None,
) -> list[ToolSpec]:
    """``tools/list`` on ``owner``'s session; when the connection is lost (before or during
    the call) it is reconnected once and the list asked again (``tools/list`` is idempotent).

    Raises:
        StateError: not connected.
        MCPTimeoutError: a page took longer than ``limit_s`` seconds.
        Exception: the second attempt's failure, or a failure that is not a lost connection.
    """
    if owner.lost:
        await reconnect("tools/list found the connection lost")
    session = owner.session
    if session is None:
        raise StateError(f"MCP server {server_name!r} is not connected; call connect() first")
    try:
        return await list_all_tools(session, server_name, limit_s)
    except Exception as exc:
        if not connection_closed(leaf_exception(exc)):
            raise
    owner.mark_lost()
    await reconnect("tools/list failed: the connection closed")
    return await list_all_tools(owner.session, server_name, limit_s)
