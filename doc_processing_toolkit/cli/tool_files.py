"""Loading ``@tool`` functions from a Python file (``dpt run --tool``, ``dpt fleet run --tool``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from doc_processing_toolkit.agent.tools import is_tool
from doc_processing_toolkit.domain.errors import ConfigurationError, MissingFileError

__all__ = ["load_tool_file"]


def load_tool_file(path: str) -> list[Any]:
    """The ``@tool`` functions a Python file defines.

    Raises:
        MissingFileError: no such file.
        ConfigurationError: the file cannot be imported or defines no tool.
    """
    file = Path(path)
    if not file.is_file():
        raise MissingFileError(f"tool file not found: {path}")
    spec = importlib.util.spec_from_file_location(f"dpt_cli_tools_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise ConfigurationError(f"cannot import tool file {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tools = [obj for obj in vars(module).values() if is_tool(obj)]
    if not tools:
        raise ConfigurationError(f"{path} defines no @tool functions")
    return tools
