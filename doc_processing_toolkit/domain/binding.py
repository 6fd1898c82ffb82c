"""Thinking-block binding: the behaviours, the server's report vocabulary and its counts.

A provider may bind a replayed reasoning block to the conversation prefix that produced
it (the system prompt, the tools and every message before the block). When that prefix
moved, the block fails the check, and the request says what happens then:

* ``"drop_block"``: the server drops the stale blocks and reports each one in the
  response's ``input_transformations``;
* ``"error"``: the request fails (a 400 whose ``ProviderError.error_type`` is
  `PREFIX_BINDING_ERROR_TYPE`);
* ``"off"``: nothing is sent (the model's own default applies, nothing is reported).

The precedence is `resolve_behaviour`'s: a caller's ``thinking={"block_binding":
...}``, then the Agent's setting (``strict_prefix_binding`` is ``"error"``), then the
process-wide environment value, then the model's registry row. Pure: the caller reads the
environment and the row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = [
    "BLOCK_BINDING_BEHAVIOURS",
    "MODEL_BINDING_MISMATCH",
    "PREFIX_BINDING_ERROR_TYPE",
    "PREFIX_BINDING_MISMATCH",
    "THINKING_DROPPED",
    "annotate_transformations",
    "caller_behaviour",
    "check_behaviour",
    "count_mismatches",
    "resolve_behaviour",
]

BLOCK_BINDING_BEHAVIOURS: tuple[str, ...] = ("drop_block", "error", "off")
"""The values ``anthropic_block_binding`` (and ``thinking["block_binding"]``) take."""

THINKING_DROPPED = "thinking_dropped"
"""An ``input_transformations`` entry type: the server removed a replayed block."""

PREFIX_BINDING_MISMATCH = "prefix_binding_mismatch"
"""The reason of a block whose conversation prefix moved (the alarm)."""

MODEL_BINDING_MISMATCH = "model_binding_mismatch"
"""The reason of a block the serving model cannot read (another model produced it)."""

PREFIX_BINDING_ERROR_TYPE = "prefix_binding_mismatch"
"""``ProviderError.error_type`` of a 400 that refused a replayed block bound to another
conversation prefix (set by the adapter that recognises it)."""


def check_behaviour(value: Any, name: str) -> str | None:
    """``value`` as a behaviour (None allowed).

    Raises:
        ConfigurationError: naming ``name`` and the value when it is not one of
            `BLOCK_BINDING_BEHAVIOURS`.
    """
    if value is None or (isinstance(value, str) and value in BLOCK_BINDING_BEHAVIOURS):
        return value
    raise ConfigurationError(
        f"{name} must be one of {', '.join(repr(b) for b in BLOCK_BINDING_BEHAVIOURS)} "
        f"or None, got {value!r}"
    )


def caller_behaviour(thinking: Mapping[str, Any] | None) -> str | None:
    """The behaviour a caller put in ``thinking={"block_binding": ...}`` (None: none).

    Takes the string form (``"drop_block"``) and the wire form
    (``{"prefix_mismatch_behavior": "drop_block"}``; an empty object is the default).

    Raises:
        ConfigurationError: for a value that is neither.
    """
    if not thinking or "block_binding" not in thinking:
        return None
    value = thinking["block_binding"]
    if isinstance(value, Mapping):
        value = value.get("prefix_mismatch_behavior")
    return check_behaviour(value, 'thinking["block_binding"]')


def resolve_behaviour(
    thinking: Mapping[str, Any] | None,
    setting: str | None,
    *,
    strict: bool = False,
    environment: str | None = None,
    row_enforces: bool = False,
) -> str | None:
    """The behaviour a thinking request carries, by the documented precedence.

    Args:
        thinking: The run's thinking dict (a caller's ``block_binding`` always wins).
        setting: ``anthropic_block_binding``.
        strict: ``strict_prefix_binding`` (``"error"`` when ``setting`` is None).
        environment: The process-wide value (``DPT_ANTHROPIC_BLOCK_BINDING``), if set.
        row_enforces: The model's row runs the prefix check (its default is
            ``"drop_block"``).

    Returns:
        ``"drop_block"``, ``"error"``, ``"off"``, or None (nothing to send).
    """
    for value in (
        caller_behaviour(thinking),
        setting,
        "error" if strict else None,
        environment or None,
    ):
        if value is not None:
            return value
    return "drop_block" if row_enforces else None


def count_mismatches(transformations: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """``(prefix_binding_mismatches, model_binding_mismatches)``: dropped blocks only."""
    prefix = model = 0
    for entry in transformations:
        if entry.get("type") != THINKING_DROPPED:
            continue
        if entry.get("reason") == PREFIX_BINDING_MISMATCH:
            prefix += 1
        elif entry.get("reason") == MODEL_BINDING_MISMATCH:
            model += 1
    return prefix, model


def annotate_transformations(entries: Any, request_index: int) -> list[dict[str, Any]]:
    """Each entry (kept verbatim, unknown types included) with its 1-based request_index."""
    if not isinstance(entries, list):
        return []
    return [
        {**entry, "request_index": request_index} for entry in entries if isinstance(entry, dict)
    ]
