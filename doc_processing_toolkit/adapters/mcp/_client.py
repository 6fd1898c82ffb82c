"""What every session over an MCP ``ClientSession`` shares.

* :func:`list_all_tools` follows ``tools/list`` pagination (``next_cursor``) to the end;
* :func:`call_client_tool` runs one call under a timeout and turns every failure — a
  protocol error, a dropped connection, a crashed server, a timeout — into an error
  :class:`ToolOutcome` instead of an exception;
* :class:`ConnectionOwner` holds the transport and ``ClientSession`` context managers
  open in one dedicated background task, from ``connect()`` to ``aclose()``. anyio cancel
  scopes belong to the task that entered them, so the task that opens the transports is
  the one that closes them, whichever task calls ``aclose()``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.mcp.results import outcome_from_call_result, spec_from_mcp_tool
from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = [
    "ConnectionOwner",
    "call_client_tool",
    "leaf_exception",
    "list_all_tools",
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


async def list_all_tools(session: Any, server_name: str) -> list[ToolSpec]:
    """Every tool ``session`` lists, following ``next_cursor`` to the last page."""
    specs: list[ToolSpec] = []
    seen_names: set[str] = set()
    seen_cursors: set[str] = set()
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await _list_page(session, cursor)
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
) -> ToolOutcome:
    """Call ``name`` on ``session`` (at most ``limit_s`` seconds); every failure becomes an
    error outcome."""
    try:
        with anyio.fail_after(limit_s):
            result = await session.call_tool(name, arguments)
    except Exception as exc:
        leaf = leaf_exception(exc)
        text = _failure_text(name, server_name, leaf, limit_s)
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
    """Runs ``opener`` in a background task and keeps what it opened until :meth:`close`.

    ``opener(stack)`` enters the transport and session context managers on ``stack`` and
    returns the ready session. The background task enters them, signals readiness, waits
    for :meth:`close`, then unwinds the stack itself.
    """

    def __init__(self, label: str) -> None:
        self._label = label
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._session: Any = None
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def session(self) -> Any:
        """The open session (None before :meth:`open` or after :meth:`close`)."""
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
