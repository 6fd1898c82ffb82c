"""Provider-agnostic context compaction for doc-processing-toolkit.

Level 1 (pre-call) compacts a session's history before a turn's first request; Level 2
(intra-run) compacts between complete tool rounds on the input tokens the provider
reported. Both archive the original conversation (when enabled) before compacting.
Thin re-exports: the strategies are pure functions in ``domain/compaction``, the
orchestration is in ``application/compaction`` (where each function's signature and
docstring live); the three entry points below are those functions, handed the
composition root's adapters when the caller passes none.

See Also:
    docs/guide/compaction.md (the "Context compaction" page of the user guide)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.application.compaction import levels as _levels
from doc_processing_toolkit.application.compaction import setup as _setup
from doc_processing_toolkit.application.compaction.setup import DEFAULT_SUMMARY_PROMPT
from doc_processing_toolkit.domain.compaction.config import (
    CompactionConfig,
    resolve_compaction_config,
    resolve_threshold,
)
from doc_processing_toolkit.domain.compaction.result import CompactionResult
from doc_processing_toolkit.domain.compaction.structure import (
    COMPACTION_CONTINUATION_TEXT,
    TRUNCATION_NOTICE_TEXT,
)

__all__ = [
    "COMPACTION_CONTINUATION_TEXT",
    "DEFAULT_SUMMARY_PROMPT",
    "TRUNCATION_NOTICE_TEXT",
    "CompactionConfig",
    "CompactionResult",
    "check_and_perform_compaction",
    "check_and_perform_pre_call_compaction",
    "resolve_compaction_config",
    "resolve_context_window",
    "resolve_threshold",
]

P = ParamSpec("P")
R = TypeVar("R")


def _filler(
    fn: Callable[..., Any], parameter: str, default: Callable[[], Any]
) -> Callable[[tuple[Any, ...], dict[str, Any]], inspect.BoundArguments]:
    """Binds a call's arguments to ``fn``'s signature and fills ``parameter`` with
    ``default()`` when the call omits it or passes None."""
    signature = inspect.signature(fn)

    def fill(args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
        bound = signature.bind(*args, **kwargs)
        if bound.arguments.get(parameter) is None:
            bound.arguments[parameter] = default()
        return bound

    return fill


def _with_default_async(
    parameter: str, default: Callable[[], Any]
) -> Callable[[Callable[P, Coroutine[Any, Any, R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """An async function of the application, with the composition root's ``parameter``
    when the caller gives none (signature and docstring are the wrapped function's)."""

    def decorate(
        fn: Callable[P, Coroutine[Any, Any, R]],
    ) -> Callable[P, Coroutine[Any, Any, R]]:
        fill = _filler(fn, parameter, default)

        @functools.wraps(fn)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            bound = fill(args, kwargs)
            return await fn(*bound.args, **bound.kwargs)

        return wrapper

    return decorate


def _with_default(
    parameter: str, default: Callable[[], Any]
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """`_with_default_async` for a plain function."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        fill = _filler(fn, parameter, default)

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            bound = fill(args, kwargs)
            return fn(*bound.args, **bound.kwargs)

        return wrapper

    return decorate


def _registry_rows() -> Any:
    return container_deps().registry.row


check_and_perform_compaction = _with_default_async("deps", container_deps)(
    _levels.check_and_perform_compaction
)
check_and_perform_pre_call_compaction = _with_default_async("deps", container_deps)(
    _levels.check_and_perform_pre_call_compaction
)
resolve_context_window = _with_default("row_lookup", _registry_rows)(_setup.resolve_context_window)
