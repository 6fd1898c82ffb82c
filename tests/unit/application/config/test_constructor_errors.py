"""Every YAML example of the spec loads; a bad value in each documented key fails at load
naming the key, including the values only the Agent constructor can refuse (a missing tool
file, a built-in tool the provider does not offer): from_config never lets a ValueError,
TypeError or FileNotFoundError of the constructor out, and never builds a half-configured
Agent."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from doc_processing_toolkit import Agent
from doc_processing_toolkit.agent.config import ConfigValidationError, load_config_from_string
from doc_processing_toolkit.application.config.constructor_errors import key_path_of
from doc_processing_toolkit.application.config.schema import CONFIG_FIELDS
from doc_processing_toolkit.testing import FakeModel

ROOT = Path(__file__).resolve().parents[4]
SPEC = ROOT.parent / "shared" / "spec" / "agent-api.txt"
FIXTURE = ROOT / "tests" / "fixtures" / "spec_from_config_example.yaml"
CANARY = "canary-env-value-41c7"

_YAML_LINE = re.compile(r"^(\s|- |#|[A-Za-z_][\w-]*:(\s|$))")


def spec_yaml_examples(text: str) -> list[str]:
    """Every YAML document of the spec: a run of YAML-looking lines opening with
    ``model:`` (the spec prints its examples as plain text, with no fences)."""
    lines = text.splitlines()
    blocks: list[str] = []
    index = 0
    while index < len(lines):
        if not lines[index].startswith("model: "):
            index += 1
            continue
        end = index
        while end < len(lines) and (not lines[end].strip() or _YAML_LINE.match(lines[end])):
            end += 1
        blocks.append("\n".join(lines[index:end]).rstrip() + "\n")
        index = end
    return blocks


@pytest.mark.skipif(not SPEC.exists(), reason="needs ../shared/spec beside the checkout")
def test_every_yaml_example_of_the_spec_loads(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    (tmp_path / "path" / "to").mkdir(parents=True)
    (tmp_path / "path" / "to" / "tools.py").write_text("")
    monkeypatch.chdir(tmp_path)
    blocks = spec_yaml_examples(SPEC.read_text(encoding="utf-8"))
    assert blocks, "the spec's from_config example was not found"
    for block in blocks:
        config = load_config_from_string(block)
        assert config["model"]
        agent = Agent.from_config_string(block, client=FakeModel([]))
        assert CANARY not in yaml.safe_dump(agent.to_config())
    # The checked-in copy (used where the spec is absent) is the spec's example.
    assert yaml.safe_load(FIXTURE.read_text()) == yaml.safe_load(blocks[0])


def test_the_extractor_stops_at_the_first_prose_line() -> None:
    text = "Example\n\nmodel: gpt-4o\ntools:\n  - a.py\n\nfrom_config_string(x) classmethod\n"
    assert spec_yaml_examples(text) == ["model: gpt-4o\ntools:\n  - a.py\n"]


# Values the YAML shape accepts but the constructor refuses: (yaml, key path, line).
CONSTRUCTOR_REFUSALS = [
    (
        "model: gpt-4o\nbuilt_in_tools:\n  frobnicate:\n    enabled: true\n",
        "built_in_tools.frobnicate",
        3,
    ),
    (
        "model: kimi-k2p6\nbuilt_in_tools:\n  web_search: {enabled: true}\n",
        "built_in_tools.web_search",
        3,
    ),
    ("model: gpt-4o\ntools:\n  - a.py\n  - nope/missing.py\n", "tools[0]", 3),
]


@pytest.mark.parametrize(("text", "path", "line"), CONSTRUCTOR_REFUSALS, ids=lambda v: str(v)[:24])
def test_a_constructor_refusal_names_the_key_path_and_line(
    text: str, path: str, line: int, tmp_path: Path
) -> None:
    load_config_from_string(text)  # the YAML shape is fine
    config_file = tmp_path / "agent.yaml"
    config_file.write_text(text)
    with pytest.raises(ConfigValidationError) as info:
        Agent.from_config(str(config_file), client=FakeModel([]))
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert f"({config_file}:{line})" in message
    assert isinstance(info.value.__cause__, ValueError | TypeError | FileNotFoundError)
    with pytest.raises(ConfigValidationError, match=re.escape(f"(<string>:{line})")):
        Agent.from_config_string(text, client=FakeModel([]))


def test_an_environment_value_in_a_refusal_is_never_echoed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DPT_TEST_TOOL", f"{CANARY}/tools.py")
    with pytest.raises(ConfigValidationError) as info:
        Agent.from_config_string(
            "model: gpt-4o\ntools:\n  - ${DPT_TEST_TOOL}\n", client=FakeModel([])
        )
    assert str(info.value).startswith("tools[0]: ") and CANARY not in str(info.value)


def test_key_paths_are_found_from_the_message() -> None:
    config: dict[str, Any] = {
        "model": "gpt-4o",
        "constraints": {"max_tokens": 5},
        "logging": {"level": "INFO"},
        "provider_overrides": {"effort_config": "x"},
        "tools": ["a.py", {"type": "mcp_script", "path": "s.py"}],
    }
    assert key_path_of("max_tokens must be a positive integer", config) == "constraints.max_tokens"
    assert key_path_of("log_level must be a level", config) == "logging.level"
    assert (
        key_path_of("effort_config is not accepted", config) == "provider_overrides.effort_config"
    )
    assert key_path_of("script 's.py' does not exist", config) == "tools[1].path"
    assert key_path_of("something else went wrong", config) is None


BAD_VALUES = [-1, 0, 2.5, "x", "", [], [1], ["x"], {}, {"x": 1}, True, None]


@pytest.mark.parametrize("key", sorted(CONFIG_FIELDS))
def test_from_config_only_ever_raises_configuration_errors_naming_the_key(key: str) -> None:
    """A sweep of wrong values through Agent.from_config_string: each builds an Agent or
    fails with a ConfigValidationError that names ``key`` (or NotImplementedError for a
    feature not built yet) - never a bare ValueError/TypeError of the constructor."""
    for value in BAD_VALUES:
        text = yaml.safe_dump({"model": "claude-sonnet-4-5", key: value})
        try:
            Agent.from_config_string(text, client=FakeModel([]), log_to_file=False)
        except NotImplementedError:
            continue
        except ConfigValidationError as exc:
            assert str(exc).startswith(key), (value, str(exc))


def spec_constructor_calls(text: str) -> list[str]:
    """The source of every ``Agent(model=..., ...)`` call of the spec's examples
    (parentheses balanced; placeholders such as ``media_policy=...`` left out)."""
    calls: list[str] = []
    for match in re.finditer(r"(?<![\w.])Agent\(", text):
        depth, stop = 0, match.start() + len("Agent")
        for index in range(stop, min(len(text), stop + 2_000)):
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            if depth == 0:
                stop = index
                break
        call = text[match.start() : stop + 1]
        if re.match(r"Agent\(\s*model=", call) and not re.search(r"=\s*\.\.\.[,)]", call):
            calls.append(call)
    return list(dict.fromkeys(calls))


def _capture(**kwargs: Any) -> dict[str, Any]:
    return kwargs


@pytest.mark.skipif(not SPEC.exists(), reason="needs ../shared/spec beside the checkout")
def test_the_spec_constructor_examples_round_trip(tmp_path: Path) -> None:
    """from_config(to_config(agent)) rebuilds the same agent for every Agent(model=...)
    example of the spec (live objects - the tool function, an in-process MCP server,
    hooks, a defer predicate - supplied again, as to_config's ``unserialisable`` says)."""
    from fastmcp import FastMCP

    from doc_processing_toolkit import BuiltInToolConfig, tool

    @tool
    def calculate(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    def confirm(event: Any) -> None:
        return None

    namespace = {
        "Agent": _capture,
        "calculate": calculate,
        "confirm": confirm,
        "my_hooks": confirm,
        "big_mcp_server": FastMCP("catalog"),
        "BuiltInToolConfig": BuiltInToolConfig,
    }
    calls = spec_constructor_calls(SPEC.read_text(encoding="utf-8"))
    assert len(calls) >= 8, calls
    for call in calls:
        kwargs = eval(call.replace("[...]", "[calculate]"), dict(namespace))
        kwargs["log_to_file"] = False
        if "cost_output_dir" in kwargs:
            kwargs["cost_output_dir"] = str(tmp_path / "costs")
        agent = Agent(**kwargs)
        live = {k: v for k, v in kwargs.items() if k in ("tools", "hooks", "defer_tools")}
        again = Agent.from_config_string(yaml.safe_dump(agent.to_config()), **live)
        assert again.to_config() == agent.to_config(), call
