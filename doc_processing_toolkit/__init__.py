"""doc-processing-toolkit: one Agent API over Anthropic, OpenAI, Google Gemini and Fireworks.

Importing the package imports no provider SDK and no MCP library: each adapter imports
its SDK when it is first used.
"""

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
from doc_processing_toolkit.domain.errors import (
    AuthenticationError,
    BadRequestError,
    CompatibilityError,
    ConfigParseError,
    ConfigurationError,
    ConfigValidationError,
    ConflictError,
    DocProcessingToolkitError,
    OverloadedError,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    ProviderTimeoutError,
    RateLimitError,
    RequestTimeoutError,
    ServerError,
    SessionCompatibilityError,
    StreamInterruptedError,
    StructuredOutputError,
    ToolDefinitionError,
    ToolExecutionError,
    UnsupportedPartError,
)
from doc_processing_toolkit.domain.events import HookDirective
from doc_processing_toolkit.domain.tools.built_in import BuiltInToolConfig

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentAborted",
    "AgentBuilder",
    "AgentResult",
    "AgentSession",
    "AgentStreamEvent",
    "AuthenticationError",
    "BadRequestError",
    "BuiltInToolConfig",
    "CompatibilityError",
    "ConfigParseError",
    "ConfigValidationError",
    "ConfigurationError",
    "ConflictError",
    "DetailedCostReport",
    "DocProcessingToolkitError",
    "HookDirective",
    "OverloadedError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "ProviderTimeoutError",
    "RateLimitError",
    "RequestTimeoutError",
    "ServerError",
    "SessionCompatibilityError",
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
