"""The OpenAI Responses provider adapter (the ``openai`` SDK is imported lazily)."""

from doc_processing_toolkit.adapters.providers.openai.client import OpenAIModelClient
from doc_processing_toolkit.adapters.providers.openai.dialect import OpenAIHistoryCodec

__all__ = ["OpenAIHistoryCodec", "OpenAIModelClient"]
