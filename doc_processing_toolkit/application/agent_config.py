"""The Agent's configuration methods: `builder`, `from_config`, `from_config_string` and
`to_config`, on a mixin so the Agent class keeps to running.

Every one of them goes through the constructor (or reads the settings it validated): a YAML
file, a builder and keywords meet one validation path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self

from doc_processing_toolkit.application.builder import AgentBuilder
from doc_processing_toolkit.application.config.env_references import references_of
from doc_processing_toolkit.application.config.export import export_config
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.from_config import agent_from_file, agent_from_string

__all__ = ["AgentConfigMethods"]


class AgentConfigMethods:
    """`builder`, `from_config`, `from_config_string` and `to_config` for a class whose
    instances hold ``settings`` and whose ``_default_deps`` builds its wiring."""

    __slots__ = ()

    _default_deps: Callable[[], AgentDeps]

    if TYPE_CHECKING:

        @property
        def settings(self) -> AgentSettings: ...

    @classmethod
    def builder(cls) -> AgentBuilder[Self]:
        """Create an AgentBuilder for fluent configuration."""
        return AgentBuilder(cls)

    @classmethod
    def from_config(cls, config_path: str, **overrides: Any) -> Self:
        """Create an Agent from a YAML file (see ``agent.config`` for errors and rules)."""
        return agent_from_file(cls, config_path, overrides, default_deps=cls._default_deps)

    @classmethod
    def from_config_string(cls, yaml_content: str, **overrides: Any) -> Self:
        """Create an Agent from a YAML string (overrides as in `from_config`)."""
        return agent_from_string(cls, yaml_content, overrides, default_deps=cls._default_deps)

    def to_config(self) -> dict[str, Any]:
        """The data half of this agent's constructor, in the YAML shape from_config reads.

        Live objects (callables, sessions, a logger, hooks) and values that may hold
        secrets (an api_key, mcp_command / mcp_script env values, remote MCP credentials)
        are listed under ``unserialisable``; a value read from ``${ENV}`` is ``${NAME}``.
        """
        return export_config(self.settings, references_of(self))
