"""Ready-made EmulatorHarness instances for the toolkit's own provider adapters.

Each function imports its adapter lazily and raises ImportError (naming what is missing)
when the adapter or its SDK is not installed, so a test module can skip with a reason.
"""

from __future__ import annotations

from doc_processing_toolkit.testing.contract.harness import ContractCapabilities, EmulatorHarness

__all__ = ["ANTHROPIC_CAPABILITIES", "anthropic_harness"]

ANTHROPIC_CAPABILITIES = ContractCapabilities(
    parallel_tool_calls=True,
    structured_output=True,
    thinking=True,
    thinking_config={"type": "enabled", "budget_tokens": 1024},
    thinking_deltas=True,
    signed_reasoning=True,
    retry_after=True,
    cache_reads=True,
    reasoning_tokens=True,
    partial_usage=True,
)
"""What the Anthropic adapter offers through the emulator's Anthropic dialect."""

_ANTHROPIC_KEY = "sk-ant-contract-not-real"


def anthropic_harness(model: str = "claude-contract-1") -> EmulatorHarness:
    """The AnthropicModelClient (own API key) against the emulator's Anthropic dialect."""
    from doc_processing_toolkit.adapters.providers.anthropic import (
        AnthropicHistoryCodec,
        AnthropicModelClient,
    )

    return EmulatorHarness(
        "anthropic",
        model,
        lambda url: AnthropicModelClient(base_url=url, api_key=_ANTHROPIC_KEY),
        codec=AnthropicHistoryCodec(),
        capabilities=ANTHROPIC_CAPABILITIES,
        history_key="messages",
    )
