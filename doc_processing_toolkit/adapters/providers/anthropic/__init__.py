"""The Anthropic Messages provider adapter (the ``anthropic`` SDK is imported lazily)."""

from doc_processing_toolkit.adapters.providers.anthropic.client import AnthropicModelClient
from doc_processing_toolkit.adapters.providers.anthropic.dialect import AnthropicHistoryCodec

__all__ = ["AnthropicHistoryCodec", "AnthropicModelClient"]
