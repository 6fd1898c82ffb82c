"""Running a synchronous tool function on a worker thread, with one hop.

On asyncio the call goes to the loop's ``run_in_executor`` on a pool of this module's,
in a copy of the caller's context (as ``anyio.to_thread.run_sync`` does): about 80 us of
CPU per call on the 2-core bench machine, against 120 us for anyio's worker threads,
whose per-call bookkeeping (backend lookup, capacity limiter, cancel scope) the tool
round paid on every call. Elsewhere (anyio on trio) it is ``anyio.to_thread.run_sync``.

Either way a cancelled caller (a ``tool_timeout``, a cancelled run) stops waiting at
once and the thread finishes on its own, like anyio's ``abandon_on_cancel=True``. The
pool holds at most :data:`MAX_WORKERS` threads, anyio's default capacity, and is made
again in a forked child.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["MAX_WORKERS", "run_in_worker_thread"]

MAX_WORKERS = 40
"""Tool calls that run at once on worker threads (anyio's default thread limit)."""

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    pool = _pool
    if pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(MAX_WORKERS, thread_name_prefix="dpt-tool")
            pool = _pool
    return pool


def _forget_pool() -> None:
    """In a forked child: the parent's threads are gone, so the pool is made again."""
    global _pool
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


async def run_in_worker_thread(call: Callable[[], Any]) -> Any:
    """``call()`` on a worker thread, in a copy of the current context."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio (anyio on trio)
        import anyio.to_thread

        return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
    context = contextvars.copy_context()
    return await loop.run_in_executor(_executor(), context.run, call)
