"""Pure validation of the MCP tool configs (formats 5, 6, 8, 9 and the allowed_tools key).

These functions import no SDK and start nothing, so the ToolLoader can call them when the
Agent is built: a bad config fails at ``Agent(...)``, not at the first run. Each returns
a normalised copy of the config; the session classes take exactly those keys.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from doc_processing_toolkit._logging import register_secret
from doc_processing_toolkit.adapters.mcp._redact import (
    redact_url,
    register_header_secrets,
    register_url_secrets,
)
from doc_processing_toolkit.adapters.mcp.timeouts import REMOTE_SSE_READ_S, REMOTE_TIMEOUT_S
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.tools.allowed import allowed_tool_names

__all__ = [
    "DEFAULT_REMOTE_NAME",
    "validate_allowed_tools",
    "validate_env",
    "validate_prebuilt_config",
    "validate_remote_config",
    "validate_stdio_config",
]

DEFAULT_REMOTE_NAME = "remote-mcp"
"""Server name of an mcp_remote_client config without ``name``."""
_TRANSPORTS = ("streamable_http", "sse")


def validate_allowed_tools(value: Any, server: str) -> tuple[str, ...] | None:
    """``allowed_tools`` as a tuple of names, or None when absent (every tool exposed).

    The one rule is `allowed_tool_names`.

    Raises:
        TypeError: ``value`` is a bare string (it would read as a set of characters), not a
            list/tuple, or holds something other than non-empty strings; the message names
            the server.
    """
    return allowed_tool_names(value, f"MCP server {server!r}")


def validate_env(env: Any, server: str) -> dict[str, str] | None:
    """``env`` as ``{name: str}``: strings kept, booleans as ``true``/``false``, numbers as str.

    Raises:
        ValueError: a value is None (or of another type), a name is not a non-empty string,
            or ``env`` is not a mapping. Messages name the variable, never its value.
    """
    if env is None:
        return None
    if not isinstance(env, Mapping):
        raise ConfigurationError(
            f"env of MCP server {server!r} must be a dict of variable names to values, "
            f"got {type(env).__name__}"
        )
    result: dict[str, str] = {}
    for key, value in env.items():
        if not isinstance(key, str) or not key or "=" in key:
            raise ConfigurationError(
                f"env of MCP server {server!r} has an invalid variable name {key!r}"
            )
        if value is None:
            raise ConfigurationError(
                f"env variable {key!r} of MCP server {server!r} is None; give a string, a "
                "number or a boolean (or leave the variable out)"
            )
        if isinstance(value, bool):
            result[key] = "true" if value else "false"
        elif isinstance(value, str | int | float):
            result[key] = str(value)
        else:
            raise ConfigurationError(
                f"env variable {key!r} of MCP server {server!r} must be a string, a number or "
                f"a boolean, got {type(value).__name__}"
            )
    return result


def _cwd(value: Any, server: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value:
        raise ConfigurationError(f"cwd of MCP server {server!r} must be a directory path")
    return value


def _args(value: Any, server: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise InvalidArgumentTypeError(f"args of MCP server {server!r} must be a list of strings")
    return [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in value]


def _script_path(path: str, cwd: str | None) -> str:
    """The script path made absolute: against this process's directory first, then ``cwd``."""
    if os.path.isabs(path):
        return path
    here = os.path.abspath(path)
    if not os.path.exists(here) and cwd is not None:
        there = os.path.abspath(os.path.join(cwd, path))
        if os.path.exists(there):
            return there
    return here


def validate_stdio_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Validate an ``mcp_script`` or ``mcp_command`` config.

    Returns ``{"type", "name", "command", "args", "env", "cwd", "allowed_tools",
    "timeout"}``: an ``mcp_script`` becomes ``command=sys.executable`` with the script
    path (made absolute against this process's directory) as the first argument.

    Raises:
        ValueError: missing path/command, a None or unsupported env value, a bad cwd.
        TypeError: allowed_tools or args of the wrong shape.
    """
    import sys

    kind = config.get("type")
    if kind not in ("mcp_script", "mcp_command"):
        raise ConfigurationError(f"not an mcp_script / mcp_command config: type={kind!r}")
    if kind == "mcp_script":
        path = config.get("path")
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str) or not path:
            raise ConfigurationError("an mcp_script config needs 'path', the server script")
        name = str(config.get("name") or os.path.splitext(os.path.basename(path))[0])
        command = sys.executable
        args = [_script_path(path, _cwd(config.get("cwd"), name)), *_args(config.get("args"), name)]
    else:
        given = config.get("command")
        if isinstance(given, os.PathLike):
            given = os.fspath(given)
        if not isinstance(given, str) or not given:
            raise ConfigurationError("an mcp_command config needs 'command', the executable to run")
        command = given
        name = str(config.get("name") or os.path.basename(command))
        args = _args(config.get("args"), name)
    timeout = config.get("timeout")
    if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
        raise ConfigurationError(
            f"timeout of MCP server {name!r} must be a positive number of seconds"
        )
    return {
        "type": kind,
        "name": name,
        "command": command,
        "args": args,
        "env": validate_env(config.get("env"), name),
        "cwd": _cwd(config.get("cwd"), name),
        "allowed_tools": validate_allowed_tools(config.get("allowed_tools"), name),
        "timeout": float(timeout) if timeout is not None else None,
    }


def _check_url(given: Any, name: str) -> str:
    if not isinstance(given, str) or not given.strip():
        raise ConfigurationError(f"remote MCP server {name!r} needs 'url', an http(s) URL")
    url = given.strip()
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError:
        raise ConfigurationError(f"remote MCP server {name!r}: url is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            f"remote MCP server {name!r}: url must be an absolute http:// or https:// URL, "
            f"got {redact_url(url)!r}"
        )
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        register_url_secrets(url)
        raise ConfigurationError(
            f"remote MCP server {name!r}: url {redact_url(url)!r} embeds credentials; pass "
            "them as headers, authorization_token or auth instead"
        )
    return url


def _seconds(value: Any, key: str, default: float, name: str) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigurationError(f"{key} of remote MCP server {name!r} must be a positive number")
    return float(value)


def validate_remote_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Validate an ``mcp_remote_client`` config and register its credentials as secrets.

    Returns ``{"name", "url", "transport", "headers", "authorization_token", "auth",
    "timeout", "sse_read_timeout", "allowed_tools"}`` (``server_url`` accepted for ``url``).

    Raises:
        ValueError: url missing, not absolute http/https, or embedding userinfo; unknown
            transport; a non-positive timeout.
        TypeError: headers not a dict of strings; authorization_token not a string;
            allowed_tools of the wrong shape.
    """
    name = config.get("name") or DEFAULT_REMOTE_NAME
    if not isinstance(name, str):
        raise InvalidArgumentTypeError(
            f"name of a remote MCP server must be a string, got {name!r}"
        )
    url = _check_url(config.get("url", config.get("server_url")), name)
    register_url_secrets(url)
    transport = config.get("transport") or "streamable_http"
    if transport not in _TRANSPORTS:
        raise ConfigurationError(
            f"transport of remote MCP server {name!r} must be 'streamable_http' or 'sse', "
            f"got {transport!r}"
        )
    headers_in = config.get("headers")
    headers: dict[str, str] = {}
    if headers_in is not None:
        if not isinstance(headers_in, Mapping):
            raise InvalidArgumentTypeError(f"headers of remote MCP server {name!r} must be a dict")
        for key, value in headers_in.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise InvalidArgumentTypeError(
                    f"headers of remote MCP server {name!r} must map strings to strings "
                    f"(header {key!r})"
                )
            headers[key] = value
    register_header_secrets(headers)
    token = config.get("authorization_token")
    if token is not None:
        if not isinstance(token, str) or not token:
            raise InvalidArgumentTypeError(
                f"authorization_token of remote MCP server {name!r} must be a string"
            )
        register_secret(token)
    return {
        "name": name,
        "url": url,
        "transport": transport,
        "headers": headers,
        "authorization_token": token,
        "auth": config.get("auth"),
        "timeout": _seconds(config.get("timeout"), "timeout", REMOTE_TIMEOUT_S, name),
        "sse_read_timeout": _seconds(
            config.get("sse_read_timeout"), "sse_read_timeout", REMOTE_SSE_READ_S, name
        ),
        "allowed_tools": validate_allowed_tools(config.get("allowed_tools"), name),
    }


def validate_prebuilt_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a pre-built session dict ``{"session": ..., "name": ..., "allowed_tools"}``.

    Raises:
        ValueError: no session; TypeError: a session without list_tools/call_tool, or a bad
            allowed_tools.
    """
    session = config.get("session")
    name = str(config.get("name") or "client-session")
    if session is None:
        raise ConfigurationError(
            f"pre-built MCP session {name!r} needs 'session', an open ClientSession"
        )
    for method in ("list_tools", "call_tool"):
        if not callable(getattr(session, method, None)):
            raise InvalidArgumentTypeError(
                f"pre-built MCP session {name!r} has no {method}(); pass an initialised "
                "mcp.ClientSession"
            )
    return {
        "name": name,
        "session": session,
        "allowed_tools": validate_allowed_tools(config.get("allowed_tools"), name),
    }
