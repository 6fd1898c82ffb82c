"""Agent abstraction layer for doc-processing-toolkit.

The high-level Agent class and everything the API reference documents at
``doc_processing_toolkit.agent``, as thin re-exports of the documented submodules
(``agent.core``, ``agent.session``, ``agent.loader``, ``agent.media``, ``agent.hooks``, ...).

Main exports:

* Agent, AgentBuilder, AgentAborted: the agent, its fluent builder and the abort error
* AgentResult: the result of a run; AgentStreamEvent: one event of ``Agent.stream()``;
  Citation: one source of an answer, the same on every provider
* AgentSession: multi-turn conversations; SessionCompatibilityError when a saved one
  cannot be restored
* tool: the decorator for tool functions; ToolLoader: tools from the nine formats
* MediaTransformer: media inputs in each provider's format
* DetailedCostReport: detailed cost tracking; CompactionConfig: history compaction
* AgentHooks, HookDirective, RunHandle, ConfirmAfterNToolCalls: hooks and steering
"""

from doc_processing_toolkit.agent.compaction import CompactionConfig
from doc_processing_toolkit.agent.core import Agent, AgentAborted, AgentBuilder
from doc_processing_toolkit.agent.cost import AgentStreamEvent, DetailedCostReport
from doc_processing_toolkit.agent.hooks import (
    AgentHooks,
    ConfirmAfterNToolCalls,
    HookDirective,
    RunHandle,
)
from doc_processing_toolkit.agent.loader import ToolLoader
from doc_processing_toolkit.agent.media import MediaTransformer
from doc_processing_toolkit.agent.result import AgentResult
from doc_processing_toolkit.agent.session import AgentSession, SessionCompatibilityError
from doc_processing_toolkit.agent.tools import tool
from doc_processing_toolkit.domain.grounding import Citation, Evidence
from doc_processing_toolkit.domain.tools.built_in import BuiltInToolConfig

__all__ = [
    "Agent",
    "AgentAborted",
    "AgentBuilder",
    "AgentHooks",
    "AgentResult",
    "AgentSession",
    "AgentStreamEvent",
    "BuiltInToolConfig",
    "Citation",
    "CompactionConfig",
    "ConfirmAfterNToolCalls",
    "DetailedCostReport",
    "Evidence",
    "HookDirective",
    "MediaTransformer",
    "RunHandle",
    "SessionCompatibilityError",
    "ToolLoader",
    "tool",
]
