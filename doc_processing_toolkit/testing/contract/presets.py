"""Ready-made EmulatorHarness instances for the toolkit's own provider adapters.

Each function imports its adapter lazily and raises ImportError (naming what is missing)
when the adapter or its SDK is not installed, so a test module can skip with a reason.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.testing.contract.harness import (
    MID_STREAM_FAULTS,
    ContractCapabilities,
    EmulatorHarness,
)

__all__ = [
    "ANTHROPIC_CAPABILITIES",
    "FIREWORKS_CAPABILITIES",
    "GOOGLE_CAPABILITIES",
    "OPENAI_CAPABILITIES",
    "anthropic_harness",
    "fireworks_harness",
    "genai_contents_to_native",
    "google_harness",
    "openai_harness",
]

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
    partial_usage=MID_STREAM_FAULTS,
)
"""What the Anthropic adapter offers through the emulator's Anthropic dialect."""

OPENAI_CAPABILITIES = ContractCapabilities(
    parallel_tool_calls=True,
    structured_output=True,
    thinking=True,
    thinking_config={"effort": "low", "summary": "auto"},
    thinking_deltas=True,
    signed_reasoning=True,
    retry_after=True,
    cache_reads=True,
    reasoning_tokens=True,
    partial_usage=frozenset({"stream_error"}),
)
"""What the OpenAI Responses adapter offers through the emulator's Responses dialect."""

FIREWORKS_CAPABILITIES = ContractCapabilities(
    parallel_tool_calls=True,
    structured_output=True,
    thinking=True,
    thinking_config={"effort": "low"},
    thinking_deltas=True,
    signed_reasoning=False,
    retry_after=True,
    cache_reads=True,
    reasoning_tokens=True,
    partial_usage=MID_STREAM_FAULTS,
)
"""What the Fireworks adapter offers through the emulator's chat-completions dialect
(reasoning is plain ``reasoning_content`` text: nothing opaque to replay)."""

GOOGLE_CAPABILITIES = ContractCapabilities(
    parallel_tool_calls=True,
    structured_output=True,
    thinking=True,
    thinking_config={"budget_tokens": 1024, "include_thoughts": True},
    thinking_deltas=True,
    signed_reasoning=True,
    retry_after=True,
    cache_reads=True,
    reasoning_tokens=True,
    partial_usage=MID_STREAM_FAULTS,
)
"""What the Gemini adapter offers through the emulator's generateContent dialect."""

_ANTHROPIC_KEY = "sk-ant-contract-not-real"
_GOOGLE_KEY = "AIza-contract-not-real"
_OPENAI_KEY = "sk-contract-openai-not-real"
_FIREWORKS_KEY = "fw-contract-not-real"


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


def openai_harness(model: str = "gpt-contract-1") -> EmulatorHarness:
    """The OpenAIModelClient (own API key) against the emulator's Responses dialect."""
    from doc_processing_toolkit.adapters.providers.openai import (
        OpenAIHistoryCodec,
        OpenAIModelClient,
    )

    return EmulatorHarness(
        "openai",
        model,
        lambda url: OpenAIModelClient(base_url=url, api_key=_OPENAI_KEY),
        base_path="/v1",
        codec=OpenAIHistoryCodec(),
        capabilities=OPENAI_CAPABILITIES,
        history_key="input",
    )


def fireworks_harness(model: str = "accounts/fireworks/models/contract-1") -> EmulatorHarness:
    """The FireworksModelClient (own API key) against the emulator's chat-completions
    dialect."""
    from doc_processing_toolkit.adapters.providers.fireworks import (
        FireworksHistoryCodec,
        FireworksModelClient,
    )

    return EmulatorHarness(
        "fireworks",
        model,
        lambda url: FireworksModelClient(base_url=url, api_key=_FIREWORKS_KEY),
        dialect="chat_completions",
        base_path="/inference/v1",
        codec=FireworksHistoryCodec(),
        capabilities=FIREWORKS_CAPABILITIES,
        history_key="messages",
    )


def google_harness(model: str = "gemini-contract-1") -> EmulatorHarness:
    """The GoogleModelClient (own API key) against the emulator's Gemini dialect."""
    from doc_processing_toolkit.adapters.providers.google import (
        GoogleHistoryCodec,
        GoogleModelClient,
    )

    return EmulatorHarness(
        "google",
        model,
        lambda url: GoogleModelClient(base_url=url, api_key=_GOOGLE_KEY),
        codec=GoogleHistoryCodec(),
        capabilities=GOOGLE_CAPABILITIES,
        history_key="contents",
        history_to_native=genai_contents_to_native,
    )


def genai_contents_to_native(contents: list[Any]) -> list[dict[str, Any]]:
    """Wire ``contents`` (camelCase JSON, as google-genai sends it) in the Gemini codec's
    native form: ``Content.model_dump(exclude_none=True, mode="json")`` (snake_case)."""
    from google.genai import types

    return [
        types.Content.model_validate(item).model_dump(exclude_none=True, mode="json")
        for item in contents
    ]
