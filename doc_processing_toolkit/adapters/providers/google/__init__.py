"""The Google Gemini provider adapter (the ``google-genai`` SDK is imported lazily)."""

from doc_processing_toolkit.adapters.providers.google.client import GoogleModelClient
from doc_processing_toolkit.adapters.providers.google.dialect import GoogleHistoryCodec

__all__ = ["GoogleHistoryCodec", "GoogleModelClient"]
