"""The provider contract suite against the OpenAI Responses adapter, through the openai SDK,
against the emulator's Responses dialect."""

from __future__ import annotations

from doc_processing_toolkit.testing.contract import ProviderContract

CONTRACT_PRESET = "openai"


class TestOpenAIContract(ProviderContract):
    """Every contract test, for OpenAI."""
