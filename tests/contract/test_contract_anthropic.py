"""The provider contract suite against AnthropicModelClient, the real anthropic SDK and the
emulator's Anthropic dialect."""

from __future__ import annotations

from doc_processing_toolkit.testing.contract import ProviderContract

pytest_plugins = ["doc_processing_toolkit.testing.contract.plugin"]

CONTRACT_PRESET = "anthropic"


class TestAnthropicContract(ProviderContract):
    """Every contract test, for Anthropic."""
