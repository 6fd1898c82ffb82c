"""Agent class - High-level interface for AI agents (documented import path).

``Agent(...)`` without ``deps=`` is handed the composition root's AgentDeps
(``application.container.default_deps``): this entry point's `Agent` passes them in when
it is built. The container is imported and built on that first use, so importing the
package imports neither dependency_injector nor any adapter, and installs nothing.
"""

from __future__ import annotations

from doc_processing_toolkit.application.agent import STREAM_CANCEL_WAIT_SECONDS
from doc_processing_toolkit.application.agent import Agent as ApplicationAgent
from doc_processing_toolkit.application.builder import AgentBuilder
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.domain.errors import AgentAborted

__all__ = ["STREAM_CANCEL_WAIT_SECONDS", "Agent", "AgentAborted", "AgentBuilder", "AgentDeps"]


def container_deps() -> AgentDeps:
    """The composition root's AgentDeps (its process container is built on first use)."""
    from doc_processing_toolkit.application.container import default_deps

    return default_deps()


class Agent(ApplicationAgent):
    """High-level Agent class for AI interactions.

    Attributes:
        model: The model name.
        instructions: System prompt/instructions.
    """

    _default_deps = staticmethod(container_deps)
