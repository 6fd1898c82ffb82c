"""The provider contract suite against the Gemini adapter, through the google-genai SDK,
against the emulator's generateContent dialect."""

from __future__ import annotations

from doc_processing_toolkit.testing.contract import ProviderContract

CONTRACT_PRESET = "google"


class TestGoogleContract(ProviderContract):
    """Every contract test, for Google Gemini."""
