"""An Agent's compaction settings, checked once at construction.

`check_compaction_settings` runs the key checks once (``summary_prompt_file`` must
exist); `check_summary_cap` then checks the resolved ``summary_max_tokens`` against the
summary model's output cap in the registry. `resolve_context_window` is the one
place a model's context window is read for compaction (warn-and-floor on a miss).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.config.resolution import CompactionSetup
from doc_processing_toolkit.application.deps import no_default_deps
from doc_processing_toolkit.domain.compaction.config import (
    CONTEXT_WINDOW_FLOOR,
    CompactionConfig,
    resolve_compaction_config,
)
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "DEFAULT_SUMMARY_PROMPT",
    "PROTECT_CURRENT_TURN_ENV",
    "CompactionSetup",
    "check_compaction_settings",
    "check_summary_cap",
    "protect_current_turn",
    "resolve_context_window",
    "summary_prompt_text",
]

PROTECT_CURRENT_TURN_ENV = environment.COMPACTION_PROTECT_CURRENT_TURN_ENV
"""``off`` lets Level-2 summarize / sliding_window fold the current turn (the old way)."""

DEFAULT_SUMMARY_PROMPT = (
    "You compress a conversation between a user and an AI assistant that uses tools, so "
    "the assistant can continue the work with less context. Write a faithful, dense "
    "summary of the transcript you are given: the user's goals and constraints, every "
    "decision and conclusion, the facts and figures the tools returned that still matter "
    "(names, numbers, page and clause references, file paths, ids), what was tried and "
    "failed, and what remains to do. Do not invent anything; do not address the user; "
    "write it as notes for the assistant."
)
"""The summarisation prompt used when neither summary_prompt nor summary_prompt_file is set."""


def protect_current_turn() -> bool:
    """False when DPT_COMPACTION_PROTECT_CURRENT_TURN=off."""
    return environment.compaction_protect_current_turn()


def summary_prompt_text(config: CompactionConfig) -> str:
    """The summarisation prompt of ``config``.

    Raises:
        ConfigurationError: the summary_prompt_file cannot be read.
    """
    if config.summary_prompt:
        return config.summary_prompt
    if config.summary_prompt_file:
        path = Path(config.summary_prompt_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigurationError(
                f"compaction_config['summary_prompt_file'] cannot be read: {str(path)!r} "
                f"({type(exc).__name__})"
            ) from None
        if not text.strip():
            raise ConfigurationError(
                f"compaction_config['summary_prompt_file'] is empty: {str(path)!r}"
            )
        return text
    return DEFAULT_SUMMARY_PROMPT


def check_compaction_settings(enabled: bool, raw: dict[str, Any] | None) -> CompactionSetup | None:
    """The resolved setup (None when compaction is off), every key checked once.

    The registry check of ``summary_max_tokens`` comes later, at resolution, on the
    resolved config (`check_summary_cap`): nothing here is validated twice.

    Args:
        enabled: ``Agent(compaction=...)``.
        raw: ``Agent(compaction_config=...)`` (checked even when compaction is off).

    Raises:
        ConfigurationError: (a ValueError) naming the key: an unknown strategy, a
            threshold that is not positive, a summary_prompt_file that does not exist, ...
    """
    if not isinstance(enabled, bool):
        raise ConfigurationError(f"compaction must be a bool, got {enabled!r}")
    if not enabled and raw is None:
        return None
    config = resolve_compaction_config(raw)
    prompt = summary_prompt_text(config)
    return CompactionSetup(config=config, prompt=prompt) if enabled else None


def check_summary_cap(
    setup: CompactionSetup | None,
    *,
    model: str,
    row_lookup: Callable[[str], ModelInfo | None],
) -> None:
    """``summary_max_tokens`` must fit the summary model's output cap in the registry.

    Args:
        setup: The checked setup (`check_compaction_settings`; None: nothing to check).
        model: The agent's model (the summary model when none is configured).
        row_lookup: The registry's row lookup.

    Raises:
        ConfigurationError: naming the key, the summary model and its cap.
    """
    if setup is None:
        return
    config = setup.config
    summary_model = config.summary_model or model
    row = row_lookup(summary_model)
    cap = row.max_output_tokens if row is not None else None
    if cap is not None and config.summary_max_tokens > cap:
        raise ConfigurationError(
            f"compaction_config['summary_max_tokens'] must not exceed the max output of "
            f"{summary_model} ({cap}), got {config.summary_max_tokens}"
        )


def resolve_context_window(
    model_name: str,
    provider: str,
    logger: logging.Logger | Any,
    row_lookup: Callable[[str], ModelInfo | None] | None = None,
) -> int:
    """The model's context window from the registry; 128,000 with a loud WARNING on a miss.

    Args:
        model_name: Registry model name.
        provider: Provider key (names the JSON path to fix).
        logger: Logger of the warning.
        row_lookup: The registry's row lookup (default: the composition root's registry,
            passed in by the documented function in ``agent.compaction``).
    """
    lookup = row_lookup or no_default_deps().registry.row
    row = lookup(model_name)
    window = row.context_window_tokens if row is not None else None
    if window:
        return int(window)
    logger.warning(
        "compaction: no context window for model %s in the registry; assuming %d tokens. "
        "Fix it at registry/model_information.json -> %s -> %s -> context_window_tokens",
        model_name,
        CONTEXT_WINDOW_FLOOR,
        provider,
        model_name,
    )
    return CONTEXT_WINDOW_FLOOR
