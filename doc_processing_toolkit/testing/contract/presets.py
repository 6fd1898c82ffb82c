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
    "anthropic_bedrock_harness",
    "anthropic_foundry_harness",
    "anthropic_harness",
    "anthropic_vertex_harness",
    "azure_openai_harness",
    "fireworks_harness",
    "genai_contents_to_native",
    "google_harness",
    "google_vertex_harness",
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


# -- the same adapters on the cloud deployments (testing/emulator/deployments_wire.py) ----


def _cloud() -> Any:
    from doc_processing_toolkit.testing.emulator import deployments_wire

    return deployments_wire


def _anthropic_on(deployment: str, options: dict[str, Any], base_path: str) -> EmulatorHarness:
    from doc_processing_toolkit.adapters.providers.anthropic import (
        AnthropicHistoryCodec,
        AnthropicModelClient,
    )

    return EmulatorHarness(
        "anthropic",
        "claude-contract-1",
        lambda url: AnthropicModelClient(
            base_url=url, deployment=deployment, deployment_options=options
        ),
        base_path=base_path,
        codec=AnthropicHistoryCodec(),
        capabilities=ANTHROPIC_CAPABILITIES,
        history_key="messages",
    )


def anthropic_bedrock_harness() -> EmulatorHarness:
    """AnthropicModelClient on Amazon Bedrock (AsyncAnthropicBedrock, SigV4 checked)."""
    cloud = _cloud()
    options = {
        "region": cloud.AWS_REGION,
        "aws_access_key": cloud.AWS_ACCESS_KEY,
        "aws_secret_key": cloud.AWS_SECRET_KEY,
    }
    return _anthropic_on("bedrock", options, "")


def anthropic_vertex_harness() -> EmulatorHarness:
    """AnthropicModelClient on Vertex AI (AsyncAnthropicVertex, bearer token checked)."""
    options = {"project": "contract", "location": "us-east5", "access_token": _cloud().VERTEX_TOKEN}
    return _anthropic_on("vertex", options, "/v1")


def anthropic_foundry_harness() -> EmulatorHarness:
    """AnthropicModelClient on Microsoft Foundry (AsyncAnthropicFoundry, key checked)."""
    return _anthropic_on("foundry", {"api_key": _cloud().FOUNDRY_KEY}, "/anthropic")


def google_vertex_harness() -> EmulatorHarness:
    """GoogleModelClient on Vertex AI (genai.Client(vertexai=True), bearer token checked)."""
    from doc_processing_toolkit.adapters.providers.google import (
        GoogleHistoryCodec,
        GoogleModelClient,
    )

    options = {"project": "contract", "location": "us-east5", "access_token": _cloud().VERTEX_TOKEN}
    return EmulatorHarness(
        "google",
        "gemini-contract-1",
        lambda url: GoogleModelClient(
            base_url=url, deployment="vertex", deployment_options=options
        ),
        codec=GoogleHistoryCodec(),
        capabilities=GOOGLE_CAPABILITIES,
        history_key="contents",
        history_to_native=genai_contents_to_native,
    )


def azure_openai_harness() -> EmulatorHarness:
    """OpenAIModelClient on Azure OpenAI (AsyncAzureOpenAI, api-key checked)."""
    from doc_processing_toolkit.adapters.providers.openai import (
        OpenAIHistoryCodec,
        OpenAIModelClient,
    )

    cloud = _cloud()
    cloud.AZURE_DEPLOYMENTS.add("gpt-contract-1")
    options = {"api_version": "2025-04-01-preview", "api_key": cloud.AZURE_KEY}
    return EmulatorHarness(
        "openai",
        "gpt-contract-1",
        lambda url: OpenAIModelClient(base_url=url, deployment="azure", deployment_options=options),
        codec=OpenAIHistoryCodec(),
        capabilities=OPENAI_CAPABILITIES,
        history_key="input",
    )
