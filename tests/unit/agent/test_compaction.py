"""``doc_processing_toolkit.agent.compaction``: the documented entry points are the
application's functions (one signature, one docstring), handed the composition root's
adapters when the caller passes none (issue 34)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

import pytest

from doc_processing_toolkit.agent import compaction
from doc_processing_toolkit.application.compaction import levels, setup
from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.domain.registry import ModelInfo

WRAPPED: dict[str, Callable[..., Any]] = {
    "check_and_perform_compaction": levels.check_and_perform_compaction,
    "check_and_perform_pre_call_compaction": levels.check_and_perform_pre_call_compaction,
    "resolve_context_window": setup.resolve_context_window,
}

# agent-api.txt, section doc_processing_toolkit.agent.compaction: the documented headers.
SPEC = {
    "check_and_perform_compaction": "messages, input_tokens, config, model_name, provider, "
    "context_window_tokens, compaction_count, session_id, logger, request_start_emitter=None",
    "check_and_perform_pre_call_compaction": "history, estimated_tokens, config, model_name, "
    "provider, context_window_tokens, compaction_count, session_id, logger, "
    "request_start_emitter=None",
    "resolve_context_window": "model_name, provider, logger",
}


@pytest.mark.parametrize("name", sorted(WRAPPED))
def test_each_entry_point_has_the_application_signature_and_docstring(name: str) -> None:
    public, inner = getattr(compaction, name), WRAPPED[name]
    assert inspect.signature(public) == inspect.signature(inner)
    assert public.__doc__ is inner.__doc__ and public.__doc__
    assert inspect.iscoroutinefunction(public) == inspect.iscoroutinefunction(inner)
    documented = [p.strip() for p in SPEC[name].split(",")]
    parameters = list(inspect.signature(public).parameters.values())
    shown = [p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in parameters]
    assert shown[: len(documented)] == documented
    assert all(p.default is not p.empty for p in parameters[len(documented) :])


def test_resolve_context_window_reads_the_composition_roots_registry_by_default() -> None:
    logger = logging.getLogger("test-compaction")
    window = compaction.resolve_context_window("claude-sonnet-5-5", "anthropic", logger)
    assert window > 0
    row = ModelInfo(model="x", provider="p", context_window_tokens=4321)
    assert compaction.resolve_context_window("x", "p", logger, lambda _: row) == 4321
    assert compaction.resolve_context_window("x", "p", logger, row_lookup=lambda _: row) == 4321
    # The application function itself takes no adapter it is not handed.
    with pytest.raises(StateError, match="no adapters given"):
        setup.resolve_context_window("claude-sonnet-5-5", "anthropic", logger)
