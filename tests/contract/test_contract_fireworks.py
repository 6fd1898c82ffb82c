"""The provider contract suite against the Fireworks chat-completions adapter, through the
openai SDK, against the emulator's chat-completions dialect."""

from __future__ import annotations

from doc_processing_toolkit.testing.contract import ProviderContract

CONTRACT_PRESET = "fireworks"


class TestFireworksContract(ProviderContract):
    """Every contract test, for Fireworks."""
