"""The emulated Anthropic prefix check: bound thinking signatures, drops and the 400.

A thinking block the emulator generates (no scripted ``signature``) gets a bound
signature ``sigb_<digest>``: the digest of the conversation prefix before it (the
top-level system prompt, the tools and every message and earlier block before it, with
``cache_control`` markers ignored), remembered with the model that produced it.

When such a block is replayed, and the request carries ``thinking.block_binding``:

* produced by another model: dropped, ``reason: "model_binding_mismatch"``;
* its prefix moved: ``"drop_block"`` drops it (and the rest of that turn's consecutive
  thinking blocks), ``reason: "prefix_binding_mismatch"``; ``"error"`` (or an empty
  object) answers the real API's 400, naming the block's path and the first change.

Entries are reported in ``input_transformations`` only to a request carrying the
`THINKING_BINDING_BETA` header (``block_binding`` without it is itself a 400, as on
the API). A request without ``block_binding`` is not checked: the emulated model behaves
as a row that does not enforce the check. A scripted signature is never checked.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from dataclasses import dataclass, field, replace
from typing import Any

from doc_processing_toolkit.testing.emulator.common import EmulatorState, without_key
from doc_processing_toolkit.testing.script import PREFIX_BINDING_MESSAGE, Reply

__all__ = ["THINKING_BINDING_BETA", "BindingCheck", "bind_reply", "check_bindings"]

THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01"

_BOUND = "sigb_"

_SNAPSHOTS: weakref.WeakKeyDictionary[EmulatorState, dict[str, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)
"""Per emulator: bound signature -> {"model", "system", "tools", "messages"}."""


def _clean(value: Any) -> Any:
    return without_key(value, "cache_control")


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return _clean(content) if isinstance(content, list) else []


def _prefix(body: dict[str, Any], index: int, before: list[Any]) -> dict[str, Any]:
    """The prefix of a block at ``messages[index]`` after the blocks ``before``."""
    messages = [
        {"role": m.get("role"), "content": _blocks(m.get("content"))}
        for m in (body.get("messages") or [])[:index]
        if isinstance(m, dict)
    ]
    return {
        "system": _blocks(body.get("system") or ""),
        "tools": _clean(body.get("tools") or []),
        "messages": [*messages, {"role": "assistant", "content": _clean(before)}],
    }


def _digest(prefix: dict[str, Any]) -> str:
    text = json.dumps(prefix, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:40]


def bind_reply(state: EmulatorState, body: dict[str, Any], reply: Reply, model: str) -> Reply:
    """``reply`` with a bound signature on every thinking block that has none."""
    if not any(b.signature is None and b.redacted_data is None for b in reply.thinking):
        return reply
    snapshots = _SNAPSHOTS.setdefault(state, {})
    index = len(body.get("messages") or [])
    before: list[dict[str, Any]] = []
    blocks = []
    for block in reply.thinking:
        if block.redacted_data is not None:
            before.append({"type": "redacted_thinking", "data": block.redacted_data})
            blocks.append(block)
            continue
        if block.signature is None:
            prefix = _prefix(body, index, before)
            signature = f"{_BOUND}{_digest(prefix)}"
            snapshots[signature] = {"model": reply.model or model, **prefix}
            block = replace(block, signature=signature)
        before.append({"type": "thinking", "thinking": block.text, "signature": block.signature})
        blocks.append(block)
    return replace(reply, thinking=tuple(blocks))


@dataclass
class BindingCheck:
    """What the prefix check decided for one request."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    """``input_transformations`` entries (report them only with the beta)."""
    error: str | None = None
    """The 400 message, when the request is refused."""
    beta: bool = False
    """The request carried the thinking-binding beta."""


def _first_change(saved: dict[str, Any], now: dict[str, Any]) -> str:
    if saved["system"] != now["system"]:
        return "the system prompt"
    if saved["tools"] != now["tools"]:
        return "tools"
    for k, (a, b) in enumerate(zip(saved["messages"], now["messages"], strict=False)):
        if a != b:
            return f"messages.{k}"
    return "the messages before the block"


def _behaviour(body: dict[str, Any]) -> tuple[bool, str]:
    thinking = body.get("thinking")
    binding = thinking.get("block_binding") if isinstance(thinking, dict) else None
    if not isinstance(binding, dict):
        return False, ""
    return True, str(binding.get("prefix_mismatch_behavior") or "error")


def check_bindings(state: EmulatorState, body: dict[str, Any], headers: Any) -> BindingCheck:
    """Run the prefix check on ``body``'s replayed bound thinking blocks."""
    betas = [b.strip() for b in str(headers.get("anthropic-beta", "")).split(",")]
    check = BindingCheck(beta=THINKING_BINDING_BETA in betas)
    carries, behaviour = _behaviour(body)
    if carries and not check.beta:
        check.error = (
            "thinking.block_binding: this setting requires the "
            f"`{THINKING_BINDING_BETA}` value in the `anthropic-beta` header"
        )
        return check
    if not carries:
        return check
    snapshots = _SNAPSHOTS.get(state, {})
    model = str(body.get("model"))
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        dropping = False
        for j, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") not in (
                "thinking",
                "redacted_thinking",
            ):
                dropping = False
                continue
            path = f"messages.{i}.content.{j}"
            if dropping:
                check.entries.append(_dropped(path, "prefix_binding_mismatch"))
                continue
            saved = snapshots.get(str(block.get("signature", "")))
            if saved is None:
                continue
            if saved["model"] != model:
                check.entries.append(_dropped(path, "model_binding_mismatch"))
                continue
            now = _prefix(body, i, content[:j])
            if _digest(now) == _digest({k: saved[k] for k in ("system", "tools", "messages")}):
                continue
            if behaviour != "drop_block":
                check.error = PREFIX_BINDING_MESSAGE.format(
                    path=path, changed=_first_change(saved, now)
                )
                return check
            check.entries.append(_dropped(path, "prefix_binding_mismatch"))
            dropping = True
    return check


def _dropped(path: str, reason: str) -> dict[str, Any]:
    return {"type": "thinking_dropped", "reason": reason, "path": path}
