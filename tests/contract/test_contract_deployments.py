"""The provider contract suite on every cloud deployment: the same adapters through the
SDKs' deployment clients (AsyncAnthropicBedrock, AsyncAnthropicVertex,
AsyncAnthropicFoundry, genai.Client(vertexai=True), AsyncAzureOpenAI) against the
emulator's deployment routes, which check each cloud's authentication."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from doc_processing_toolkit.testing.contract import ContractHarness, ProviderContract, presets

pytest_plugins = ["doc_processing_toolkit.testing.contract.plugin"]

DEPLOYMENT_PRESETS = [
    "anthropic_bedrock",
    "anthropic_vertex",
    "anthropic_foundry",
    "google_vertex",
    "azure_openai",
]


@pytest.fixture(scope="module", params=DEPLOYMENT_PRESETS)
def contract_harness(request: pytest.FixtureRequest) -> Iterator[ContractHarness]:
    harness = getattr(presets, f"{request.param}_harness")()
    with harness:
        yield harness


class TestDeploymentContract(ProviderContract):
    """Every contract test, on every deployment."""
