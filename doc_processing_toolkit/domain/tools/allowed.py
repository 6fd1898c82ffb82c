"""The one ``allowed_tools`` rule: which values name the tools a server exposes.

Every MCP format takes ``allowed_tools``, a list of tool names; no key (or None) exposes
every tool. `allowed_tool_names` is the one check behind each place that reads
the key (the ToolLoader's entry check, the MCP session configs and filter, the
provider-run server checks of the provider adapters): a bare string is refused (it
would read as a set of characters), so is anything but a list or tuple of non-empty
strings. A provider-run server whose provider takes a set of names as well passes
``sets=True``; a set is read in sorted order.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError

__all__ = ["allowed_tool_names"]

_LIST_OF_NAMES = "a list of tool names"


def allowed_tool_names(
    value: Any, owner: str, *, sets: bool = False, expected: str = _LIST_OF_NAMES
) -> tuple[str, ...] | None:
    """``allowed_tools`` as a tuple of tool names, or None when absent (every tool).

    Args:
        value: The ``allowed_tools`` value as given.
        owner: What the error message names (``"MCP server 'docs'"``).
        sets: Also take a set or frozenset of names (read in sorted order).
        expected: The accepted forms, as the error message states them.

    Raises:
        TypeError: for a bare string, a value that is not a list or tuple (or set, with
            ``sets``), or an entry that is not a non-empty string; the message names
            ``owner``.

    Example:
        >>> allowed_tool_names(["add"], "MCP server 'math'")
        ('add',)
        >>> allowed_tool_names(None, "MCP server 'math'") is None
        True
    """
    if value is None:
        return None
    if isinstance(value, str | bytes):
        raise InvalidArgumentTypeError(
            f"allowed_tools of {owner} must be {expected}, not the string {value!r}; "
            f"write allowed_tools=[{value!r}]"
        )
    if isinstance(value, list | tuple) or (sets and isinstance(value, set | frozenset)):
        bad = [item for item in value if not isinstance(item, str) or not item]
        if bad:
            raise InvalidArgumentTypeError(
                f"allowed_tools of {owner} must hold tool names (non-empty str), got {bad[0]!r}"
            )
        return tuple(sorted(value)) if isinstance(value, set | frozenset) else tuple(value)
    raise InvalidArgumentTypeError(
        f"allowed_tools of {owner} must be {expected}, got {type(value).__name__}"
    )
