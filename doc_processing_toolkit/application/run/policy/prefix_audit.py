"""The prefix audit (``prefix_audit=True`` / ``DPT_PREFIX_AUDIT``): shadow mode.

Before each request to a provider that binds replayed reasoning to its conversation
prefix, `PrefixAuditor` fingerprints the system prompt, the tools (each by name)
and every message, compares them with the previous request this Agent sent, and logs one
WARNING naming what changed: the system prompt, the tools (added / removed / redefined),
or the first message that is no longer what the previous request sent. It only reads the
request: no byte of it changes, no header is added, and it works on every model. An
append-only conversation (a tool round, the next session turn) changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.domain import messages as _ir
from doc_processing_toolkit.domain.requests import ModelRequest

__all__ = ["PREFIX_AUDIT_ENV", "PrefixAuditor", "prefix_audit_enabled"]

PREFIX_AUDIT_ENV = environment.PREFIX_AUDIT_ENV
"""Turns the audit on process-wide (``1`` / ``true`` / ``on`` / ``yes``)."""


def prefix_audit_enabled(setting: bool) -> bool:
    """The Agent's ``prefix_audit``, or the process-wide `PREFIX_AUDIT_ENV`."""
    return bool(setting) or environment.prefix_audit()


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class _Prints:
    system: str
    tools: dict[str, str]
    messages: tuple[str, ...]


def _fingerprint(request: ModelRequest) -> _Prints:
    tools = {
        spec.name: _digest([spec.description, spec.parameters, spec.strict, spec.defer_loading])
        for spec in request.tools
    }
    for name, config in sorted((request.built_in_tools or {}).items()):
        tools[f"built-in {name}"] = _digest(config)
    for server in request.remote_mcp_servers:
        label = server.get("server_label") or server.get("name") or server.get("url")
        tools[f"remote MCP {label}"] = _digest(sorted(server))
    dumped = _ir.MESSAGES_ADAPTER.dump_python(list(request.messages), mode="json")
    return _Prints(
        system=_digest(request.system),
        tools=tools,
        messages=tuple(_digest(m) for m in dumped),
    )


def describe_changes(before: _Prints, after: _Prints) -> list[str]:
    """What moved from ``before`` to ``after``, one phrase per part (empty: nothing)."""
    changes: list[str] = []
    if before.system != after.system:
        changes.append("the system prompt changed")
    if before.tools != after.tools:
        added = sorted(set(after.tools) - set(before.tools))
        removed = sorted(set(before.tools) - set(after.tools))
        redefined = sorted(
            n for n in set(before.tools) & set(after.tools) if before.tools[n] != after.tools[n]
        )
        parts = [
            f"{label}: {', '.join(names)}"
            for label, names in (("added", added), ("removed", removed), ("redefined", redefined))
            if names
        ]
        changes.append(f"the tool surface changed ({'; '.join(parts)})")
    common = min(len(before.messages), len(after.messages))
    moved = next((i for i in range(common) if before.messages[i] != after.messages[i]), None)
    if moved is not None:
        changes.append(f"messages.{moved} changed (and everything after it)")
    elif len(after.messages) < len(before.messages):
        changes.append(
            f"the history lost messages: {len(before.messages)} before, {len(after.messages)} now"
        )
    return changes


class PrefixAuditor:
    """Remembers the previous request's fingerprints (one per Agent; thread-safe)."""

    def __init__(self) -> None:
        """An auditor that has seen no request yet."""
        self._lock = threading.Lock()
        self._previous: _Prints | None = None
        self.warnings: list[str] = []
        """Every change description logged so far (newest last)."""

    def observe(self, request: ModelRequest, log: Any) -> str | None:
        """Fingerprint ``request``; log and return what changed since the previous one."""
        prints = _fingerprint(request)
        with self._lock:
            before, self._previous = self._previous, prints
        if before is None:
            return None
        changes = describe_changes(before, prints)
        if not changes:
            return None
        text = "; ".join(changes)
        self.warnings.append(text)
        log.warning(
            f"prefix audit: the request prefix moved since the previous request: {text}",
            model=request.model,
            changed=changes,
        )
        return text
