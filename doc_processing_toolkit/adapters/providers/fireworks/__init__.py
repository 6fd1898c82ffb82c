"""The Fireworks chat-completions provider adapter (the ``openai`` SDK is imported lazily)."""

from doc_processing_toolkit.adapters.providers.fireworks.client import FireworksModelClient
from doc_processing_toolkit.adapters.providers.fireworks.dialect import FireworksHistoryCodec

__all__ = ["FireworksHistoryCodec", "FireworksModelClient"]
