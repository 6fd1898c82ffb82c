"""doc-processing-toolkit: one Agent API over Anthropic, OpenAI, Google Gemini and Fireworks.

Importing the package imports nothing but this module: every public name below is loaded
on first access (PEP 562), so ``import doc_processing_toolkit`` costs about a millisecond
and a worker pays for the Agent (and pydantic) only when it touches it. No provider SDK
and no MCP library is imported until an adapter that needs it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from doc_processing_toolkit.agent import (
        Agent,
        AgentAborted,
        AgentBuilder,
        AgentResult,
        AgentStreamEvent,
        DetailedCostReport,
        tool,
    )
    from doc_processing_toolkit.agent.session import AgentSession
    from doc_processing_toolkit.agent.tools import get_tool_metadata, is_tool
    from doc_processing_toolkit.domain.approvals import Approval, PendingApproval
    from doc_processing_toolkit.domain.errors import (
        ApprovalError,
        AuthenticationError,
        BadRequestError,
        CompatibilityError,
        ConfigParseError,
        ConfigurationError,
        ConfigValidationError,
        ConflictError,
        DocProcessingToolkitError,
        DocumentError,
        DocumentLimitError,
        EvalDatasetError,
        FileTooLargeError,
        InvalidArgumentTypeError,
        InvalidInputError,
        MCPConnectionError,
        MCPTimeoutError,
        MediaUploadError,
        MissingDependencyError,
        MissingFileError,
        OverloadedError,
        ProviderConnectionError,
        ProviderError,
        ProviderStatusError,
        ProviderTimeoutError,
        RateLimitError,
        RegistryFileError,
        RequestTimeoutError,
        ServerError,
        SessionCompatibilityError,
        SessionConflictError,
        SessionNotFoundError,
        SessionStoreError,
        StateError,
        StreamIdleTimeoutError,
        StreamInterruptedError,
        StructuredOutputError,
        ToolDefinitionError,
        ToolExecutionError,
        UnsupportedPartError,
    )
    from doc_processing_toolkit.domain.events import HookDirective
    from doc_processing_toolkit.domain.grounding import Citation, Evidence
    from doc_processing_toolkit.domain.session import MalformedEnvelopeError
    from doc_processing_toolkit.domain.tools.built_in import BuiltInToolConfig
__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "Agent": "doc_processing_toolkit.agent",
    "AgentAborted": "doc_processing_toolkit.agent",
    "AgentBuilder": "doc_processing_toolkit.agent",
    "AgentResult": "doc_processing_toolkit.agent",
    "AgentStreamEvent": "doc_processing_toolkit.agent",
    "Citation": "doc_processing_toolkit.agent",
    "DetailedCostReport": "doc_processing_toolkit.agent",
    "tool": "doc_processing_toolkit.agent",
    "AgentSession": "doc_processing_toolkit.agent.session",
    "get_tool_metadata": "doc_processing_toolkit.agent.tools",
    "is_tool": "doc_processing_toolkit.agent.tools",
    "Approval": "doc_processing_toolkit.domain.approvals",
    "PendingApproval": "doc_processing_toolkit.domain.approvals",
    "ApprovalError": "doc_processing_toolkit.domain.errors",
    "AuthenticationError": "doc_processing_toolkit.domain.errors",
    "BadRequestError": "doc_processing_toolkit.domain.errors",
    "CompatibilityError": "doc_processing_toolkit.domain.errors",
    "ConfigParseError": "doc_processing_toolkit.domain.errors",
    "ConfigurationError": "doc_processing_toolkit.domain.errors",
    "ConfigValidationError": "doc_processing_toolkit.domain.errors",
    "ConflictError": "doc_processing_toolkit.domain.errors",
    "DocProcessingToolkitError": "doc_processing_toolkit.domain.errors",
    "DocumentError": "doc_processing_toolkit.domain.errors",
    "DocumentLimitError": "doc_processing_toolkit.domain.errors",
    "EvalDatasetError": "doc_processing_toolkit.domain.errors",
    "FileTooLargeError": "doc_processing_toolkit.domain.errors",
    "InvalidArgumentTypeError": "doc_processing_toolkit.domain.errors",
    "InvalidInputError": "doc_processing_toolkit.domain.errors",
    "MCPConnectionError": "doc_processing_toolkit.domain.errors",
    "MCPTimeoutError": "doc_processing_toolkit.domain.errors",
    "MediaUploadError": "doc_processing_toolkit.domain.errors",
    "MissingDependencyError": "doc_processing_toolkit.domain.errors",
    "MissingFileError": "doc_processing_toolkit.domain.errors",
    "OverloadedError": "doc_processing_toolkit.domain.errors",
    "ProviderConnectionError": "doc_processing_toolkit.domain.errors",
    "ProviderError": "doc_processing_toolkit.domain.errors",
    "ProviderStatusError": "doc_processing_toolkit.domain.errors",
    "ProviderTimeoutError": "doc_processing_toolkit.domain.errors",
    "RateLimitError": "doc_processing_toolkit.domain.errors",
    "RegistryFileError": "doc_processing_toolkit.domain.errors",
    "RequestTimeoutError": "doc_processing_toolkit.domain.errors",
    "ServerError": "doc_processing_toolkit.domain.errors",
    "SessionCompatibilityError": "doc_processing_toolkit.domain.errors",
    "SessionConflictError": "doc_processing_toolkit.domain.errors",
    "SessionNotFoundError": "doc_processing_toolkit.domain.errors",
    "SessionStoreError": "doc_processing_toolkit.domain.errors",
    "StateError": "doc_processing_toolkit.domain.errors",
    "StreamIdleTimeoutError": "doc_processing_toolkit.domain.errors",
    "StreamInterruptedError": "doc_processing_toolkit.domain.errors",
    "StructuredOutputError": "doc_processing_toolkit.domain.errors",
    "ToolDefinitionError": "doc_processing_toolkit.domain.errors",
    "ToolExecutionError": "doc_processing_toolkit.domain.errors",
    "UnsupportedPartError": "doc_processing_toolkit.domain.errors",
    "HookDirective": "doc_processing_toolkit.domain.events",
    "Evidence": "doc_processing_toolkit.domain.grounding",
    "MalformedEnvelopeError": "doc_processing_toolkit.domain.session",
    "BuiltInToolConfig": "doc_processing_toolkit.domain.tools.built_in",
}
"""Each public name and the module it is loaded from on first access."""


__all__ = [
    "Agent",
    "AgentAborted",
    "AgentBuilder",
    "AgentResult",
    "AgentSession",
    "AgentStreamEvent",
    "Approval",
    "ApprovalError",
    "AuthenticationError",
    "BadRequestError",
    "BuiltInToolConfig",
    "Citation",
    "CompatibilityError",
    "ConfigParseError",
    "ConfigValidationError",
    "ConfigurationError",
    "ConflictError",
    "DetailedCostReport",
    "DocProcessingToolkitError",
    "DocumentError",
    "DocumentLimitError",
    "EvalDatasetError",
    "Evidence",
    "FileTooLargeError",
    "HookDirective",
    "InvalidArgumentTypeError",
    "InvalidInputError",
    "MCPConnectionError",
    "MCPTimeoutError",
    "MalformedEnvelopeError",
    "MediaUploadError",
    "MissingDependencyError",
    "MissingFileError",
    "OverloadedError",
    "PendingApproval",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "ProviderTimeoutError",
    "RateLimitError",
    "RegistryFileError",
    "RequestTimeoutError",
    "ServerError",
    "SessionCompatibilityError",
    "SessionConflictError",
    "SessionNotFoundError",
    "SessionStoreError",
    "StateError",
    "StreamIdleTimeoutError",
    "StreamInterruptedError",
    "StructuredOutputError",
    "ToolDefinitionError",
    "ToolExecutionError",
    "UnsupportedPartError",
    "__version__",
    "get_tool_metadata",
    "is_tool",
    "tool",
]


def __getattr__(name: str) -> Any:
    """Load a public name (or a subpackage, e.g. ``doc_processing_toolkit.agent``) on first
    access and keep it on the module, so later lookups are plain attribute reads."""
    module = _LAZY.get(name)
    if module is None:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
