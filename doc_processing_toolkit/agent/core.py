"""Agent class - High-level interface for AI agents (documented import path)."""

from doc_processing_toolkit.application.agent import STREAM_CANCEL_WAIT_SECONDS, Agent
from doc_processing_toolkit.application.builder import AgentBuilder
from doc_processing_toolkit.domain.errors import AgentAborted

__all__ = ["STREAM_CANCEL_WAIT_SECONDS", "Agent", "AgentAborted", "AgentBuilder"]
