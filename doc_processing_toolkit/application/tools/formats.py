"""The nine tool input formats: detection, validation, and ``.py`` files and directories.

`detect_format` names the format of one ``tools=`` entry; `normalize_entry`
checks an entry (``allowed_tools`` is a list of names, a path exists, a dict has its
required keys) and turns it into the config dict a session factory receives;
`functions_from_path` imports ``.py`` files by path and collects their ``@tool``
functions.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.domain.errors import (
    InvalidArgumentTypeError,
    MissingFileError,
    ToolDefinitionError,
)
from doc_processing_toolkit.domain.tools.allowed import allowed_tool_names
from doc_processing_toolkit.domain.tools.schema import is_tool

__all__ = [
    "CLIENT_SESSION",
    "DIRECTORY",
    "FASTMCP",
    "FILE_PATH",
    "FUNCTION",
    "MCP_COMMAND",
    "MCP_REMOTE",
    "MCP_REMOTE_CLIENT",
    "MCP_SCRIPT",
    "SESSION_FORMATS",
    "LoadedTool",
    "detect_format",
    "functions_from_path",
    "normalize_entry",
    "validate_allowed_tools",
]

FUNCTION: Final = "function"
FILE_PATH: Final = "file_path"
DIRECTORY: Final = "directory"
FASTMCP: Final = "fastmcp"
MCP_SCRIPT: Final = "mcp_script"
MCP_COMMAND: Final = "mcp_command"
MCP_REMOTE: Final = "mcp_remote"
CLIENT_SESSION: Final = "client_session"
MCP_REMOTE_CLIENT: Final = "mcp_remote_client"

SESSION_FORMATS: Final = (FASTMCP, MCP_SCRIPT, MCP_COMMAND, CLIENT_SESSION, MCP_REMOTE_CLIENT)
"""The formats whose tools come from a session opened at connect time."""

_DICT_TYPES: Final = {
    "fastmcp": FASTMCP,
    "mcp_script": MCP_SCRIPT,
    "mcp_command": MCP_COMMAND,
    "mcp": MCP_REMOTE,
    "mcp_remote_client": MCP_REMOTE_CLIENT,
}
_DEFAULT_NAMES: Final = {
    FASTMCP: "fastmcp-server",
    MCP_SCRIPT: "mcp-script",
    MCP_COMMAND: "mcp-command",
    CLIENT_SESSION: "client-session",
    MCP_REMOTE_CLIENT: "remote-mcp",
}


@dataclass(frozen=True, slots=True)
class LoadedTool:
    """Unified representation of a loaded tool."""

    name: str
    """Tool name."""
    description: str
    """Tool description."""
    input_schema: dict[str, Any]
    """JSON Schema for tool parameters."""
    function: Callable[..., Any] | None = None
    """The callable function (for ``@tool`` decorated functions)."""
    is_async: bool = False
    """Whether the function is async."""
    source_type: str = FUNCTION
    """Original format type (a `detect_format` name)."""
    server_name: str | None = None
    """Name of the MCP server (for MCP tools)."""
    session: Any = None
    """The session serving the tool (for MCP tools)."""


def _module_names(obj: Any) -> list[str]:
    return [str(getattr(cls, "__module__", "")) for cls in type(obj).__mro__]


def _is_server_object(obj: Any) -> bool:
    modules = _module_names(obj)
    if any(m == "fastmcp" or m.startswith(("fastmcp.", "mcp.server.")) for m in modules):
        return True
    return callable(getattr(obj, "list_tools", None)) and callable(getattr(obj, "call_tool", None))


def detect_format(tool: Any) -> str:
    """Detect the format of a tool input.

    Returns:
        One of ``"function"``, ``"file_path"``, ``"directory"``, ``"fastmcp"``,
        ``"mcp_script"``, ``"mcp_command"``, ``"mcp_remote"``, ``"client_session"`` or
        ``"mcp_remote_client"``.

    Raises:
        TypeError: the format cannot be determined.
        FileNotFoundError: a path that does not exist.
        ToolDefinitionError: a plain function not decorated with ``@tool`` (a ValueError).
    """
    if isinstance(tool, dict):
        if "session" in tool:
            return CLIENT_SESSION
        kind = tool.get("type")
        if kind in _DICT_TYPES:
            return _DICT_TYPES[kind]
        raise InvalidArgumentTypeError(
            f"unknown tool config type {kind!r}: expected one of "
            f"{sorted(_DICT_TYPES)} or a {{'session': ..., 'name': ...}} dict"
        )
    if isinstance(tool, str | os.PathLike):
        path = Path(tool)
        if path.suffix == ".py":
            return FILE_PATH
        if path.is_dir():
            return DIRECTORY
        if not path.exists():
            raise MissingFileError(f"tool path {str(tool)!r} does not exist")
        raise InvalidArgumentTypeError(
            f"tool path {str(tool)!r} is neither a .py file nor a directory"
        )
    if is_tool(tool):
        return FUNCTION
    if any(m.startswith("mcp.client") for m in _module_names(tool)):
        raise InvalidArgumentTypeError(
            "a client session is passed as {'session': session, 'name': ...}, not bare"
        )
    if not isinstance(tool, type) and _is_server_object(tool):
        return FASTMCP
    if callable(tool) and not isinstance(tool, type):
        label = getattr(tool, "__name__", None) or repr(tool)
        raise ToolDefinitionError(
            f"tool {label!r} is a plain function: decorate it with @tool so its schema can be built"
        )
    raise InvalidArgumentTypeError(
        f"cannot determine the tool format of {type(tool).__name__} object {tool!r}"
    )


def validate_allowed_tools(value: Any, label: str) -> list[str] | None:
    """``allowed_tools`` as a list of names (None when absent).

    The one rule is `allowed_tool_names`.

    Raises:
        TypeError: a bare string, or anything but a list/tuple of non-empty strings.
    """
    names = allowed_tool_names(value, label)
    return None if names is None else list(names)


def normalize_entry(tool: Any, kind: str) -> dict[str, Any]:
    """The config dict a session factory receives for a session-format entry.

    Bare server objects become ``{"type": "fastmcp", "server": obj}``; every dict is
    copied, gets its ``name`` default, and has its ``allowed_tools`` checked.

    Raises:
        TypeError: a bad ``allowed_tools`` value or a missing/ill-typed required key.
    """
    if kind == FASTMCP and not isinstance(tool, dict):
        config: dict[str, Any] = {"type": "fastmcp", "server": tool}
    else:
        config = dict(tool)
    if kind == FASTMCP and "server" not in config:
        raise InvalidArgumentTypeError(
            'a {"type": "fastmcp"} tool config needs "server": the server object'
        )
    if kind == MCP_SCRIPT and not isinstance(config.get("path"), str | os.PathLike):
        raise InvalidArgumentTypeError(
            'a {"type": "mcp_script"} tool config needs "path": the script path'
        )
    if kind == MCP_COMMAND and not isinstance(config.get("command"), str):
        raise InvalidArgumentTypeError(
            'a {"type": "mcp_command"} tool config needs "command": a string'
        )
    if kind == MCP_REMOTE_CLIENT and not isinstance(
        config.get("url", config.get("server_url")), str
    ):
        raise InvalidArgumentTypeError(
            'a {"type": "mcp_remote_client"} tool config needs "url": a string'
        )
    if kind == CLIENT_SESSION and config.get("session") is None:
        raise InvalidArgumentTypeError(
            'a pre-built session config needs "session": the session object'
        )
    if kind in _DEFAULT_NAMES and not config.get("name"):
        config["name"] = _default_name(kind, config)
    label = f"tool server {config.get('name') or config.get('server_label') or kind!r}"
    allowed = validate_allowed_tools(config.get("allowed_tools"), label)
    if allowed is not None and kind != MCP_REMOTE:
        config["allowed_tools"] = allowed
    return config


def _default_name(kind: str, config: dict[str, Any]) -> str:
    if kind == FASTMCP:
        server_name = getattr(config.get("server"), "name", None)
        if isinstance(server_name, str) and server_name:
            return server_name
    if kind == MCP_SCRIPT:
        return Path(os.fspath(config["path"])).stem or _DEFAULT_NAMES[kind]
    if kind == MCP_COMMAND:
        return os.path.basename(config["command"]) or _DEFAULT_NAMES[kind]
    return _DEFAULT_NAMES[kind]


def _module_name(path: Path) -> str:
    digest = hashlib.sha1(str(path).encode("utf-8"), usedforsecurity=False).hexdigest()[:12]
    return f"_dpt_tools_{path.stem}_{digest}"


def _import_file(path: Path) -> list[Callable[..., Any]]:
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ToolDefinitionError(f"cannot import tool file {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise ToolDefinitionError(
            f"importing tool file {str(path)!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    found: list[Callable[..., Any]] = []
    for value in vars(module).values():
        if is_tool(value) and getattr(value, "__module__", None) == name and value not in found:
            found.append(value)
    return found


def functions_from_path(path: str | os.PathLike[str]) -> list[Callable[..., Any]]:
    """The ``@tool`` functions defined in a ``.py`` file, or in the ``.py`` files of a
    directory (not recursive; names starting with ``_`` are skipped), in file order.

    Raises:
        FileNotFoundError: the path does not exist.
        ToolDefinitionError: a file could not be imported.
    """
    resolved = environment.expand_user(path).resolve()
    if not resolved.exists():
        raise MissingFileError(f"tool path {str(path)!r} does not exist")
    if resolved.is_dir():
        files = sorted(p for p in resolved.glob("*.py") if not p.name.startswith("_"))
    else:
        files = [resolved]
    functions: list[Callable[..., Any]] = []
    for file in files:
        functions.extend(_import_file(file))
    return functions
