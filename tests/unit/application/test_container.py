"""The composition root: host overrides and one adapter per built-in provider."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dependency_injector import providers

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.container import build_model_client, default_container
from doc_processing_toolkit.testing import FakeModel, reply, tool_call


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.fixture
def fake_anthropic() -> Iterator[FakeModel]:
    fake = FakeModel([tool_call("calculate", {"a": 2, "b": 3}), reply("5")])
    container = default_container()
    container.model_clients.anthropic.override(providers.Object(fake))
    yield fake
    container.model_clients.anthropic.reset_override()


def test_host_overrides_the_model_client_for_every_agent(fake_anthropic: FakeModel) -> None:
    result = Agent("claude-sonnet-4-5", tools=[calculate]).run_sync("2+3")
    assert result.tools_used == ["calculate"]
    assert len(fake_anthropic.requests) == 2


def test_every_built_in_provider_has_an_adapter_and_unknown_ones_value_error() -> None:
    container = default_container()
    for provider in ("anthropic", "openai", "google", "fireworks"):
        assert build_model_client(container, provider).provider == provider
    with pytest.raises(ValueError, match="entry-point"):
        build_model_client(container, "acme")
