"""Provider-run remote MCP servers (tool format 7) and their ``allowed_tools``.

The user gives ``{"type": "mcp", "server_label": ..., "server_url": ..., ...}``
(``name`` / ``url`` are accepted as aliases). Each provider runs such a server in its
own connector, in its own format:

* Anthropic: an ``mcp_servers`` entry ``{"type": "url", "url", "name",
  "authorization_token"}`` plus one ``{"type": "mcp_toolset", "mcp_server_name"}``
  entry in ``tools``, sent with the :data:`ANTHROPIC_MCP_BETA` header.
  ``allowed_tools`` becomes the toolset's allow-list.
* OpenAI: a ``{"type": "mcp", "server_label", "server_url", "require_approval",
  "headers", "allowed_tools"}`` entry in ``tools``; ``allowed_tools`` is sent as given.
* Fireworks: the same ``{"type": "mcp"}`` entry; ``allowed_tools`` is refused because
  Fireworks ignores it (measured), which would expose tools the caller meant to hide.
* Google: no provider-run MCP; use ``mcp_remote_client`` (format 9).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "ANTHROPIC_MCP_BETA",
    "anthropic_mcp_connector",
    "apply_anthropic_allowed_tools",
    "check_provider_run_allowed_tools",
    "openai_allowed_tools",
    "refuse_provider_ignored_allowed_tools",
    "transform_mcp_remote_servers",
]

ANTHROPIC_MCP_BETA = "mcp-client-2025-11-20"
"""The MCP connector beta that takes ``mcp_servers`` plus ``mcp_toolset`` tool entries."""

_USE_CLIENT = (
    'use {"type": "mcp_remote_client", "url": ..., "allowed_tools": [...]}, which runs '
    "the server from this process and filters it on every provider"
)

_OPENAI_PASSTHROUGH = (
    "require_approval",
    "headers",
    "server_description",
    "authorization",
    "connector_id",
    "defer_loading",
)
_FIREWORKS_PASSTHROUGH = ("require_approval", "headers", "server_description")
_TOOLSET_PASSTHROUGH = ("default_config", "configs", "cache_control")


def _label(server: Mapping[str, Any]) -> str:
    label = server.get("server_label") or server.get("name")
    if not isinstance(label, str) or not label:
        raise ValueError("a remote MCP server config needs a server_label (or name)")
    return label


def _url(server: Mapping[str, Any], label: str) -> str:
    url = server.get("server_url") or server.get("url")
    if not isinstance(url, str) or not url:
        raise ValueError(f"remote MCP server {label!r} needs a server_url (or url)")
    return url


def _names(value: Any, label: str, what: str) -> list[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | set | frozenset):
        raise TypeError(
            f"allowed_tools of MCP server {label!r} must be {what}, got {type(value).__name__}"
        )
    names = sorted(value) if isinstance(value, set | frozenset) else list(value)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise TypeError(
            f"allowed_tools of MCP server {label!r} must hold tool names (str): {bad!r}"
        )
    return names


def openai_allowed_tools(server: Mapping[str, Any], label: str) -> Any:
    """Check the ``allowed_tools`` of an OpenAI provider-run MCP server or connector.

    A list of names or the filter object ``{"tool_names": [...], "read_only": bool}`` is
    sent as given, except that a tuple or set of names becomes a list. ``[]`` is sent
    too (the model sees no tool of the server).

    Returns:
        None when the key is absent or null (send nothing: every tool), else the list
        or the filter object to send.

    Raises:
        TypeError: if the value is neither a list of names nor a valid filter object.

    Example:
        >>> openai_allowed_tools({"allowed_tools": ("search",)}, "docs")
        ['search']
        >>> openai_allowed_tools({}, "docs") is None
        True
    """
    value = server.get("allowed_tools")
    if value is None:
        return None
    if isinstance(value, Mapping):
        if "tool_names" in value:
            tool_names = value["tool_names"]
            if isinstance(tool_names, str) or not isinstance(tool_names, list):
                raise TypeError(
                    f"allowed_tools.tool_names of MCP server {label!r} must be a list of tool "
                    f"names, got {type(tool_names).__name__}"
                )
            _names(tool_names, label, "a list of tool names")
        if "read_only" in value and not isinstance(value["read_only"], bool):
            raise TypeError(
                f"allowed_tools.read_only of MCP server {label!r} must be a bool, "
                f"got {type(value['read_only']).__name__}"
            )
        return dict(value)
    return _names(value, label, 'a list of tool names or {"tool_names": [...], "read_only": bool}')


def refuse_provider_ignored_allowed_tools(server: Mapping[str, Any], provider: str) -> None:
    """Refuse ``allowed_tools`` on a provider-run server whose provider ignores it.

    Raises:
        ValueError: if ``provider`` is "fireworks" and the config sets allowed_tools.
    """
    if provider == "fireworks" and server.get("allowed_tools") is not None:
        label = server.get("server_label") or server.get("name") or "remote-mcp"
        raise ValueError(
            f"Fireworks ignores allowed_tools on a provider-run MCP server ({label!r}) and "
            f"would expose every tool; {_USE_CLIENT}"
        )


def check_provider_run_allowed_tools(server: Mapping[str, Any], provider: str) -> None:
    """Fail on a provider-run MCP server's ``allowed_tools`` before any request.

    Raises:
        ValueError: if ``provider`` is "fireworks" and the config sets allowed_tools.
        TypeError: if the value is not a form the provider takes.
    """
    label = str(server.get("server_label") or server.get("name") or "remote-mcp")
    match provider:
        case "fireworks":
            refuse_provider_ignored_allowed_tools(server, provider)
        case "openai":
            openai_allowed_tools(server, label)
        case "anthropic":
            if server.get("allowed_tools") is not None:
                _names(server["allowed_tools"], label, "a list of tool names")
        case _:
            pass


def apply_anthropic_allowed_tools(
    server: Mapping[str, Any], toolset_config: dict[str, Any], label: str
) -> None:
    """Apply ``allowed_tools`` to one ``mcp_toolset`` entry (in place).

    ``default_config`` gets ``enabled: false`` and each listed tool
    ``configs[name].enabled: true``; a caller's other default_config / configs keys are
    kept. No key (or null) leaves the entry unchanged: every tool.

    Raises:
        TypeError: if allowed_tools is not a list of tool-name strings.
    """
    value = server.get("allowed_tools")
    if value is None:
        return
    names = _names(value, label, "a list of tool names")
    default_config = dict(toolset_config.get("default_config") or {})
    default_config["enabled"] = False
    toolset_config["default_config"] = default_config
    configs: dict[str, Any] = {
        str(k): dict(v) for k, v in (toolset_config.get("configs") or {}).items()
    }
    for name in configs:
        if name not in names:
            configs[name]["enabled"] = False
    for name in names:
        configs.setdefault(name, {})["enabled"] = True
    toolset_config["configs"] = configs


def _anthropic_server(server: Mapping[str, Any], label: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "url", "url": _url(server, label), "name": label}
    token = server.get("authorization_token")
    headers = dict(server.get("headers") or {})
    auth = next((k for k in headers if k.lower() == "authorization"), None)
    if auth is not None:
        value = str(headers.pop(auth))
        if token is None and value.lower().startswith("bearer "):
            token = value[7:]
        elif token is None:
            raise ValueError(
                f"Anthropic's MCP connector takes a bearer token only (server {label!r}); "
                "pass authorization_token"
            )
    if headers:
        raise ValueError(
            f"Anthropic's MCP connector cannot send headers {sorted(headers)} (server "
            f"{label!r}); pass authorization_token, or {_USE_CLIENT}"
        )
    if token is not None:
        entry["authorization_token"] = token
    return entry


def anthropic_mcp_connector(
    servers: Sequence[Mapping[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Anthropic's ``mcp_servers`` entries and their ``mcp_toolset`` tool entries.

    Send both with the :data:`ANTHROPIC_MCP_BETA` beta header.

    Raises:
        ValueError: for a server without label or URL, or headers Anthropic cannot send.
        TypeError: for allowed_tools that is not a list of tool names.
    """
    entries: list[dict[str, Any]] = []
    toolsets: list[dict[str, Any]] = []
    for server in servers:
        label = _label(server)
        entries.append(_anthropic_server(server, label))
        toolset: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": label}
        for key in _TOOLSET_PASSTHROUGH:
            if server.get(key) is not None:
                toolset[key] = copy.deepcopy(server[key])
        apply_anthropic_allowed_tools(server, toolset, label)
        toolsets.append(toolset)
    return entries, toolsets


def _tool_entry(
    server: Mapping[str, Any], label: str, passthrough: tuple[str, ...]
) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "mcp", "server_label": label}
    if server.get("connector_id") is None or server.get("server_url") or server.get("url"):
        entry["server_url"] = _url(server, label)
    entry["require_approval"] = "never"
    for key in passthrough:
        if server.get(key) is not None:
            entry[key] = copy.deepcopy(server[key])
    token = server.get("authorization_token")
    if token is not None:
        headers = dict(entry.get("headers") or {})
        if not any(k.lower() == "authorization" for k in headers):
            headers["Authorization"] = f"Bearer {token}"
        entry["headers"] = headers
    return entry


def transform_mcp_remote_servers(
    servers: Sequence[Mapping[str, Any]], provider: str
) -> list[dict[str, Any]]:
    """Transform remote MCP server configs to the provider's format.

    Anthropic: the ``mcp_servers`` entries (the toolsets come from
    :func:`anthropic_mcp_connector`). OpenAI / Fireworks: ``{"type": "mcp"}`` tool entries.

    Raises:
        ValueError: if the provider has no provider-run MCP (Google), or Fireworks is
            given allowed_tools, or a config lacks its label / URL.
        TypeError: for an allowed_tools value the provider does not take.
    """
    match provider:
        case "anthropic":
            return anthropic_mcp_connector(servers)[0]
        case "openai":
            out = []
            for server in servers:
                label = _label(server)
                entry = _tool_entry(server, label, _OPENAI_PASSTHROUGH)
                allowed = openai_allowed_tools(server, label)
                if allowed is not None:
                    entry["allowed_tools"] = allowed
                out.append(entry)
            return out
        case "fireworks":
            out = []
            for server in servers:
                refuse_provider_ignored_allowed_tools(server, provider)
                out.append(_tool_entry(server, _label(server), _FIREWORKS_PASSTHROUGH))
            return out
        case "google":
            raise ValueError(f"Google has no provider-run (remote) MCP servers; {_USE_CLIENT}")
        case _:
            raise ValueError(f"provider {provider!r} does not support remote MCP servers")
