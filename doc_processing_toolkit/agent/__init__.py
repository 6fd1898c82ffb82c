"""Agent abstraction layer for doc-processing-toolkit.

Main exports: Agent, AgentBuilder, AgentResult, AgentStreamEvent, tool, DetailedCostReport,
CompactionConfig. Features of later releases (AgentSession, ToolLoader, MediaTransformer)
are not exported until they exist.
"""

from doc_processing_toolkit.agent.compaction import CompactionConfig
from doc_processing_toolkit.agent.core import Agent, AgentAborted, AgentBuilder
from doc_processing_toolkit.agent.cost import AgentStreamEvent, DetailedCostReport
from doc_processing_toolkit.agent.result import AgentResult
from doc_processing_toolkit.agent.tools import tool
from doc_processing_toolkit.domain.tools.built_in import BuiltInToolConfig

__all__ = [
    "Agent",
    "AgentAborted",
    "AgentBuilder",
    "AgentResult",
    "AgentStreamEvent",
    "BuiltInToolConfig",
    "CompactionConfig",
    "DetailedCostReport",
    "tool",
]
