"""The request-prefix fingerprint: SHA-256 of the system prompt and the tool surface.

Digests, never the text: an envelope travels between processes and parties and a system
prompt is often confidential. The tool surface is what the Agent declares (local tool
schemas, MCP server entries by name and format, built-in tools), deliberately not MCP
connection state.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol

__all__ = ["FingerprintedAgent", "compare_fingerprints", "compute_prefix_fingerprint"]


class FingerprintedAgent(Protocol):
    """What a fingerprint reads of an Agent."""

    @property
    def instructions(self) -> str: ...

    def declared_tool_surface(self) -> list[dict[str, Any]]: ...


def _digest(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def compute_prefix_fingerprint(agent: FingerprintedAgent) -> dict[str, str]:
    """Fingerprint the request prefix an Agent will send: ``{"system", "tools"}`` digests."""
    tools = agent.declared_tool_surface()
    return {"system": _digest(agent.instructions or ""), "tools": _digest(tools)}


def compare_fingerprints(
    saved: dict[str, str] | None, current: dict[str, str], schema_version: int
) -> dict[str, Any] | None:
    """The prefix change report, or None when nothing moved (or nothing was saved)."""
    if not saved:
        return None
    changed = [half for half in ("system", "tools") if saved.get(half) != current.get(half)]
    if not changed:
        return None
    return {
        "changed": changed,
        "saved": dict(saved),
        "current": dict(current),
        "schema_version": schema_version,
    }
