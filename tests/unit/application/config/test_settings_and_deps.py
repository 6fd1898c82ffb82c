"""AgentSettings is the one source of an Agent's settings; AgentDeps are handed in."""

from __future__ import annotations

import dataclasses
import inspect
import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, AgentBuilder, tool
from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.construction import validate_settings
from doc_processing_toolkit.application.container import default_container, default_deps
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.run.policy.settings import RunSettings, derive_run_settings
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.tools.specs import ForcedTool
from doc_processing_toolkit.testing import (
    FakeModel,
    InMemoryArchiveSink,
    InMemoryMediaStore,
    StaticRegistry,
    reply,
    tool_call,
)

ROOT = Path(__file__).resolve().parents[4]


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def test_the_constructor_validates_into_one_frozen_settings_object() -> None:
    fake = FakeModel([reply("hi")])
    agent = Agent(
        " claude-sonnet-4-5 ",
        "Be brief.",
        tools=[add],
        tool_choice="any",
        prompt_caching=True,
        client=fake,
        base_url="http://127.0.0.1:1",
        max_pause_turn_iterations=3,
        effort_config="high",
        log_to_file=False,
    )
    s = agent.settings
    assert isinstance(s, AgentSettings)
    assert s.model == agent.model == "claude-sonnet-4-5"
    assert s.tools.tool_choice == "any" and agent.tool_choice == "required"
    assert s.provider.prompt_caching is True and agent.prompt_caching == {"ttl": "5m"}
    assert s.client is fake and s.base_url == "http://127.0.0.1:1"
    assert s.generation.max_pause_turn_iterations == 3
    assert s.provider.provider_kwargs == agent.provider_kwargs == {"effort_config": "high"}
    assert agent.tools == [add]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_tokens = 5  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        agent.max_tokens = 5
    # The consumed provider keyword is exported too, so from_config rebuilds the agent.
    assert agent.to_config()["provider_overrides"] == {
        "effort_config": "high",
        "max_pause_turn_iterations": 3,
    }


def test_client_and_base_url_are_keyword_parameters_not_provider_kwargs() -> None:
    params = inspect.signature(Agent.__init__).parameters
    names = list(params)
    for name in ("client", "base_url", "deps"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
    assert names.index("cost_output_dir") < names.index("client") < names.index("deps")
    assert names[-1] == "provider_kwargs"
    fake = FakeModel([reply("built")])
    agent = Agent.builder().model("gpt-4o").client(fake).base_url("http://x").build()
    assert isinstance(agent, Agent) and agent.settings.base_url == "http://x"
    assert agent.provider_kwargs == {}
    assert agent.run_sync("hi").output == "built"
    assert isinstance(Agent.builder(), AgentBuilder)


def test_run_settings_are_derived_from_the_agent_settings() -> None:
    agent = Agent(
        "claude-sonnet-4-5",
        "sys",
        tool_choice="add",
        max_tokens=64,
        temperature=0.5,
        client=FakeModel([]),
        log_to_file=False,
    )
    run = derive_run_settings(agent.settings, agent._resolution, system="sys+")
    assert isinstance(run, RunSettings)
    assert (run.model, run.provider, run.system) == ("claude-sonnet-4-5", "anthropic", "sys+")
    assert run.tool_choice == ForcedTool("add")
    assert (run.max_tokens, run.temperature, run.max_iterations) == (64, 0.5, 10)
    assert run.row is not None and run.tool_result_cap > 0


def test_validate_settings_names_the_parameter() -> None:
    with pytest.raises(ValueError, match="max_pause_turn_iterations"):
        validate_settings(
            AgentSettings.of(model="m", provider_kwargs={"max_pause_turn_iterations": 0})
        )
    with pytest.raises(TypeError, match="defer_tools"):
        validate_settings(AgentSettings.of(model="m", defer_tools="add"))
    with pytest.raises(ValueError, match="prompt_caching"):
        validate_settings(AgentSettings.of(model="m", prompt_caching={"ttl": "9h"}))


ROW = ModelInfo(model="house-model", provider="house", context_window_tokens=1000)


def _deps(fake: FakeModel, built: list[str]) -> AgentDeps:
    base = default_deps(default_container())

    def clients(provider: str, **kwargs: Any) -> Any:
        built.append(provider)
        return fake

    profiles: Callable[[str], Any] = lambda provider: BaseProfile(name=provider)  # noqa: E731
    return dataclasses.replace(
        base,
        registry=StaticRegistry([ROW]),
        model_clients=clients,
        history_codecs=lambda provider: None,
        provider_profiles=profiles,
        media_store=InMemoryMediaStore(),
        archive_sink=InMemoryArchiveSink(),
    )


def test_an_agent_uses_the_deps_it_is_handed() -> None:
    fake = FakeModel([tool_call("add", {"a": 1, "b": 2}), reply("3")], provider="house")
    built: list[str] = []
    deps = _deps(fake, built)
    agent = Agent("house-model", tools=[add], deps=deps, log_to_file=False)
    assert agent.deps is deps and agent.provider == "house"
    result = agent.run_sync("1+2")
    assert result.output == "3" and result.tools_used == ["add"]
    assert built == ["house"]  # built once, from the handed factory
    assert isinstance(result.messages[0], dict)  # no codec: the neutral IR as JSON


def test_default_deps_come_from_the_process_container() -> None:
    deps = default_deps()
    assert deps.media_store is None and deps.archive_sink is None
    assert deps.registry.detect_provider("gpt-4o") == "openai"
    assert deps.provider_profiles("openai").name == "openai"
    assert set(deps.tools.session_factories) >= {"fastmcp", "mcp_script", "mcp_remote_client"}


def test_no_module_under_application_imports_the_composition_root() -> None:
    import grimp

    graph = grimp.build_graph("doc_processing_toolkit")
    root = "doc_processing_toolkit.application"
    importers = graph.find_modules_that_directly_import(f"{root}.container")
    inside = sorted(m for m in importers if m.startswith(f"{root}."))
    # history.conversion is on its way out (another part of the structure issue).
    assert set(inside) <= {"doc_processing_toolkit.application.history.conversion"}
    agent, builder = f"{root}.agent", f"{root}.builder"
    assert not (graph.chain_exists(agent, builder) and graph.chain_exists(builder, agent))


def test_importing_the_package_builds_no_container() -> None:
    code = (
        "import sys, doc_processing_toolkit\n"
        "from doc_processing_toolkit.agent.loader import ToolLoader\n"
        "print('dependency_injector' in sys.modules)\n"
        "ToolLoader()\n"
        "print('dependency_injector' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.split() == ["False", "True"]


def test_a_supplied_logger_is_used_as_is() -> None:
    logger = logging.getLogger("host.agent")
    agent = Agent("claude-sonnet-4-5", logger=logger, client=FakeModel([]))
    assert agent.logger is logger and agent.log_file is None
    assert agent.to_config()["unserialisable"]["logger"] == "a logger instance"
