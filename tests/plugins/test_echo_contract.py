"""The public contract suite against the example echo plug-in: once with its harness's own
client, once with clients the toolkit builds through the entry-point group."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from echo_provider import EchoHarness

from doc_processing_toolkit.application.container import build_model_client, default_container
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.testing.contract import ContractHarness, ProviderContract

pytest_plugins = ["doc_processing_toolkit.testing.contract.plugin"]


class TestEchoProviderContract(ProviderContract):
    """Every contract test, for the echo plug-in."""

    @pytest.fixture(scope="class")
    @classmethod
    def contract_harness(cls) -> Iterator[ContractHarness]:
        with EchoHarness() as harness:
            yield harness


class EntryPointEchoHarness(EchoHarness):
    """Clients come from the container, which finds the plug-in by its entry point."""

    def make_client(self) -> ModelClient:
        return build_model_client(
            default_container(), "echo", base_url=self.server.url, api_key="echo-ep-key"
        )


class TestEchoContractThroughEntryPoint(ProviderContract):
    """Every contract test, with the client the toolkit itself builds for provider "echo"."""

    @pytest.fixture(scope="class")
    @classmethod
    def contract_harness(cls, echo_plugin_installed: Path) -> Iterator[ContractHarness]:
        with EntryPointEchoHarness() as harness:
            yield harness
