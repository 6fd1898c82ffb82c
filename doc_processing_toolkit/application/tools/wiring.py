"""ToolWiring: the tool-session adapters the ToolLoader and the run planner are handed.

The composition root builds one (``application/container.py``); nothing in the tools room
imports an adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from doc_processing_toolkit.application.tools.lifecycle import SessionFactory
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = ["ConfigValidator", "LocalSessionFactory", "ToolWiring", "TruncatedSessionFactory"]

ConfigValidator = Callable[[Mapping[str, Any]], Any]
"""Checks a format's config when the Agent is built (raises on a bad one)."""
TruncatedSessionFactory = Callable[[TruncatedResultStore], ToolSession]
"""Builds the session serving ``read_truncated_result`` over a run's store."""


class LocalSessionFactory(Protocol):
    """Builds the session serving ``@tool`` functions."""

    def __call__(self, functions: Sequence[Callable[..., Any]], name: str = ...) -> ToolSession: ...


@dataclass(frozen=True, slots=True)
class ToolWiring:
    """The session factories of every tool format."""

    session_factories: Mapping[str, SessionFactory]
    """A factory per session format (``fastmcp``, ``mcp_script``, ``mcp_command``,
    ``client_session``, ``mcp_remote_client``): config dict -> unconnected session."""
    local_session_factory: LocalSessionFactory
    """The session over ``@tool`` functions (formats 1-3)."""
    config_validators: Mapping[str, ConfigValidator]
    """Checks run by ``ToolLoader.load`` per format."""
    truncated_session_factory: TruncatedSessionFactory
    """The ``read_truncated_result`` session of a run."""
