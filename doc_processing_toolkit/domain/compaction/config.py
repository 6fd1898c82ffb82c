"""CompactionConfig and the pure parts of resolving it.

`resolve_compaction_config` merges a raw ``compaction_config`` dict with the
defaults and checks every key, raising a `ConfigurationError` (also a ValueError)
that names the key. Checks that need the registry row (``summary_max_tokens`` against the
model's output cap) and the file system (``summary_prompt_file``) happen in the
application when the Agent is built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = [
    "COMPACTION_STRATEGIES",
    "CONTEXT_WINDOW_FLOOR",
    "DEFAULT_COMBINED_ORDER",
    "CompactionConfig",
    "resolve_compaction_config",
    "resolve_threshold",
]

COMPACTION_STRATEGIES = ("summarize", "sliding_window", "tool_result_clearing", "combined")
"""The strategy names ``compaction_config["strategy"]`` accepts."""

DEFAULT_COMBINED_ORDER = ("tool_result_clearing", "sliding_window", "summarize")
"""The default order of the ``combined`` strategy's steps."""

CONTEXT_WINDOW_FLOOR = 128_000
"""The context window assumed for a model the registry does not know."""


@dataclass
class CompactionConfig:
    """Configuration for context compaction behaviour."""

    strategy: str = "summarize"
    """One of "summarize", "sliding_window", "tool_result_clearing", or "combined"."""
    trigger_threshold: float | int = 0.8
    """A float in (0.0, 1.0]: a fraction of the context window; an int: absolute tokens."""
    summary_model: str | None = None
    """Model of the summarisation call (None: the agent's own model)."""
    summary_prompt_file: str | None = None
    """Path to a text file holding a custom summarisation prompt."""
    summary_prompt: str | None = None
    """Inline custom summarisation prompt (takes precedence over the file)."""
    keep_recent_messages: int = 5
    """Messages kept verbatim by sliding_window / combined."""
    keep_recent_tool_results: int = 3
    """Tool results kept by tool_result_clearing / combined."""
    clear_tool_inputs: bool = False
    """Also clear tool call arguments during tool_result_clearing."""
    archive_history: bool = True
    """Archive the original conversation before compacting."""
    archive_dir: str = "./compaction_archives"
    """Directory of archive files (ignored when ``archive_sink`` is set)."""
    archive_sink: Callable[[list[Any]], str | None] | None = None
    """Receives the archived conversation instead of a local file."""
    include_archive_path_in_summary: bool = True
    """Name the archive's path (or the sink's locator) in the summary."""
    combined_order: list[str] = field(default_factory=lambda: list(DEFAULT_COMBINED_ORDER))
    """Ordered strategies of ``combined``."""
    min_messages_before_compaction: int = 4
    """Minimum number of messages before compaction can trigger."""
    max_compactions_per_session: int | None = None
    """Maximum compaction events per session (None: unlimited)."""
    summary_max_tokens: int = 4096
    """Maximum output tokens of the summarisation call."""
    sliding_window_include_truncation_notice: bool = True
    """sliding_window prepends a user message saying earlier context was truncated."""


_FIELDS = tuple(f.name for f in dataclasses.fields(CompactionConfig))


def _fail(key: str, what: str, value: Any) -> ConfigurationError:
    return ConfigurationError(f"compaction_config[{key!r}] {what}, got {value!r}")


def _int(raw: dict[str, Any], key: str, minimum: int, optional: bool = False) -> None:
    value = raw.get(key)
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = "a positive integer" if minimum > 0 else "a non-negative integer"
        raise _fail(key, f"must be {kind}" + (" or None" if optional else ""), value)


def resolve_compaction_config(raw: dict[str, Any] | None = None) -> CompactionConfig:
    """Merge a raw configuration dict with CompactionConfig defaults.

    Keys that are not CompactionConfig fields are ignored.

    Raises:
        ConfigurationError: (a ValueError) a bad strategy, a threshold that is not positive,
            or another key of the wrong type; the message names the key.
    """
    if raw is not None and not isinstance(raw, dict):
        raise ConfigurationError(f"compaction_config must be a dict or None, got {raw!r}")
    values = {k: v for k, v in (raw or {}).items() if k in _FIELDS}
    config = CompactionConfig(**values)
    if config.strategy not in COMPACTION_STRATEGIES:
        raise _fail(
            "strategy", f"must be one of {', '.join(COMPACTION_STRATEGIES)}", config.strategy
        )
    threshold = config.trigger_threshold
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or threshold <= 0:
        raise _fail("trigger_threshold", "must be a positive number", threshold)
    checked = dataclasses.asdict(config) | {"archive_sink": config.archive_sink}
    _int(checked, "keep_recent_messages", 0)
    _int(checked, "keep_recent_tool_results", 0)
    _int(checked, "min_messages_before_compaction", 0)
    _int(checked, "max_compactions_per_session", 1, optional=True)
    _int(checked, "summary_max_tokens", 1)
    for key in (
        "clear_tool_inputs",
        "archive_history",
        "include_archive_path_in_summary",
        "sliding_window_include_truncation_notice",
    ):
        if not isinstance(checked[key], bool):
            raise _fail(key, "must be a bool", checked[key])
    for key in ("summary_model", "summary_prompt_file", "summary_prompt"):
        value = checked[key]
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise _fail(key, "must be a non-empty string or None", value)
    if not isinstance(config.archive_dir, str) or not config.archive_dir:
        raise _fail("archive_dir", "must be a non-empty path string", config.archive_dir)
    if config.archive_sink is not None and not callable(config.archive_sink):
        raise _fail("archive_sink", "must be a callable or None", config.archive_sink)
    order = config.combined_order
    if (
        not isinstance(order, list | tuple)
        or not order
        or any(step not in DEFAULT_COMBINED_ORDER for step in order)
    ):
        raise _fail(
            "combined_order",
            f"must be a non-empty list of {', '.join(DEFAULT_COMBINED_ORDER)}",
            order,
        )
    config.combined_order = list(order)
    return config


def resolve_threshold(threshold: float | int, context_window_tokens: int) -> int:
    """Convert a threshold value to an absolute token count.

    A float in (0.0, 1.0] is a fraction of the context window; an int (or a float above
    1.0) is used as-is.
    """
    if isinstance(threshold, float) and 0.0 < threshold <= 1.0:
        return int(threshold * context_window_tokens)
    return int(threshold)
