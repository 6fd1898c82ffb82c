"""Anthropic thinking-block binding: the request field, the beta, the report, the 400.

Every signed thinking block is bound to the conversation prefix that produced it (the
top-level system prompt, the tools array and every message before the block). The run
resolves how a stale block is treated (`doc_processing_toolkit.domain.binding`);
this module puts that choice on the wire:

* ``"drop_block"`` / ``"error"`` on a thinking request: ``thinking.block_binding =
  {"prefix_mismatch_behavior": ...}`` plus ``anthropic-beta:``
  `THINKING_BINDING_BETA`. ``"off"`` / None send neither. A thinking-off value
  cannot carry the field.
* a caller's ``thinking["block_binding"]`` is consumed here: never forwarded verbatim.
* ``ModelRequest.rebind`` (the run re-sent a prefix-binding 400): ``"drop_block"`` with
  the beta, or, when the request cannot carry the field, every replayed ``thinking`` /
  ``redacted_thinking`` block removed from the history.
* ``ModelRequest.strip_reasoning_before`` (``prefix_strip_fallback``): those blocks
  removed from the replayed turns.

The response's ``input_transformations`` (final in ``message_start``; a
``message_delta`` carries it only after a mid-stream server-side fallback, and then
replaces it) is reported only when the request carried the beta: the API reports nothing
without it. A 400 whose message says the block "is bound to a different conversation"
is the prefix-binding refusal (`is_prefix_binding_refusal`); a signature that is
merely invalid is not, and ``prefix_mismatch_behavior`` cannot help it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.domain.requests import ModelRequest

__all__ = [
    "BOUND_BLOCK_TYPES",
    "PREFIX_BINDING_HINT",
    "THINKING_BINDING_BETA",
    "apply_binding",
    "beta_sent",
    "is_prefix_binding_refusal",
    "strip_bound_blocks",
    "without_block_binding",
]

THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01"
"""The ``anthropic-beta`` value the ``block_binding`` field and the report require."""

BOUND_BLOCK_TYPES = frozenset({"thinking", "redacted_thinking"})
"""The replayed blocks a prefix check binds."""

_REFUSAL_MARK = "bound to a different conversation"

PREFIX_BINDING_HINT = (
    " (a replayed thinking block's conversation prefix moved since it was produced: the "
    "history was edited, the tools changed or the instructions were rebuilt; "
    "anthropic_block_binding='drop_block' lets the server drop such blocks instead)"
)
"""Appended to the message of a prefix-binding 400 the run does not re-send."""


def without_block_binding(thinking: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The caller's thinking dict minus ``block_binding`` (the run already resolved it)."""
    if thinking is None:
        return None
    return {k: v for k, v in thinking.items() if k != "block_binding"}


def strip_bound_blocks(messages: list[dict[str, Any]], end: int | None = None) -> int:
    """Remove thinking and redacted_thinking blocks from ``messages[:end]`` (in place).

    An assistant message left with no content is removed (the API takes consecutive
    user turns). Returns how many blocks were removed.
    """
    stop = len(messages) if end is None else min(end, len(messages))
    removed = 0
    kept: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        content = message.get("content")
        if index >= stop or not isinstance(content, list):
            kept.append(message)
            continue
        blocks = [b for b in content if not _is_bound(b)]
        removed += len(content) - len(blocks)
        if len(blocks) == len(content):
            kept.append(message)
        elif blocks or message.get("role") != "assistant":
            kept.append({**message, "content": blocks})
    messages[:] = kept
    return removed


def _is_bound(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") in BOUND_BLOCK_TYPES


def apply_binding(
    params: dict[str, Any], betas: list[str], request: ModelRequest, *, thinking_on: bool
) -> list[str]:
    """Put the request's binding choice on ``params`` / ``betas`` (in place).

    Args:
        params: The ``messages.create`` keywords (``thinking`` already mapped).
        betas: The request's ``anthropic-beta`` values (appended to).
        request: Carries ``block_binding``, ``rebind`` and ``strip_reasoning_before``.
        thinking_on: The mapped thinking value makes the model think.

    Returns:
        Notes for the DEBUG log.
    """
    notes: list[str] = []
    messages = params.get("messages")
    if not isinstance(messages, list):
        return notes
    if request.strip_reasoning_before > 0:
        removed = strip_bound_blocks(messages, request.strip_reasoning_before)
        if removed:
            notes.append(f"prefix_strip_fallback: {removed} replayed thinking block(s) removed")
    behaviour = "drop_block" if request.rebind else request.block_binding
    thinking = params.get("thinking")
    if behaviour in ("drop_block", "error") and thinking_on and isinstance(thinking, dict):
        params["thinking"] = {**thinking, "block_binding": {"prefix_mismatch_behavior": behaviour}}
        betas.append(THINKING_BINDING_BETA)
        notes.append(f"thinking.block_binding: {behaviour} (with the {THINKING_BINDING_BETA} beta)")
    elif request.rebind:
        removed = strip_bound_blocks(messages)
        notes.append(f"prefix-binding re-send without thinking: {removed} block(s) removed")
    return notes


def beta_sent(headers: Mapping[str, str]) -> bool:
    """Whether the request's ``anthropic-beta`` header carries the binding beta."""
    value = headers.get("anthropic-beta", "")
    return THINKING_BINDING_BETA in (b.strip() for b in value.split(","))


def is_prefix_binding_refusal(status: int, message: str) -> bool:
    """A 400 refusing a replayed block bound to another conversation prefix."""
    return status == 400 and _REFUSAL_MARK in message
