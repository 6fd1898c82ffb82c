"""Agent class - High-level interface for AI agents (documented import path).

``Agent(...)`` without ``deps=`` is handed the composition root's AgentDeps
(``application.container.default_deps``), which this entry point installs as the process
default. The container is imported when the first such Agent is built, so importing the
package imports neither dependency_injector nor any adapter.
"""

from doc_processing_toolkit.application.agent import STREAM_CANCEL_WAIT_SECONDS, Agent
from doc_processing_toolkit.application.builder import AgentBuilder
from doc_processing_toolkit.application.deps import AgentDeps, set_default_deps_factory
from doc_processing_toolkit.domain.errors import AgentAborted

__all__ = ["STREAM_CANCEL_WAIT_SECONDS", "Agent", "AgentAborted", "AgentBuilder", "AgentDeps"]


def _container_deps() -> AgentDeps:
    from doc_processing_toolkit.application.container import default_deps

    return default_deps()


set_default_deps_factory(_container_deps)
