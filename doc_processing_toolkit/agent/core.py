"""Agent class - High-level interface for AI agents (documented import path).

``Agent(...)`` without ``deps=`` is handed the composition root's AgentDeps
(``application.container.default_deps``): this entry point's `Agent` passes them in when
it is built. The container is imported and built on that first use, so importing the
package imports neither dependency_injector nor any adapter, and installs nothing.
"""

from __future__ import annotations

from typing import Any, Self

from doc_processing_toolkit.application.agent import STREAM_CANCEL_WAIT_SECONDS
from doc_processing_toolkit.application.agent import Agent as ApplicationAgent
from doc_processing_toolkit.application.builder import AgentBuilder
from doc_processing_toolkit.application.deps import AgentDeps, default_deps_from
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

    @classmethod
    def from_config(cls, config_path: str, **overrides: Any) -> Self:
        """Create an Agent from a YAML file (see ``agent.config`` for errors and rules)."""
        with default_deps_from(container_deps):  # the YAML model check's registry
            return super().from_config(config_path, **overrides)

    @classmethod
    def from_config_string(cls, yaml_content: str, **overrides: Any) -> Self:
        """Create an Agent from a YAML string (overrides as in `from_config`)."""
        with default_deps_from(container_deps):
            return super().from_config_string(yaml_content, **overrides)


for _name in ("from_config", "from_config_string"):  # the Args/Raises of config/reference.py
    getattr(Agent, _name).__func__.__doc__ = getattr(ApplicationAgent, _name).__doc__
del _name
