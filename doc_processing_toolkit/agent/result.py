"""AgentResult dataclass for representing the output of an Agent run (documented import path)."""

from doc_processing_toolkit.application.result import AgentResult

__all__ = ["AgentResult"]
