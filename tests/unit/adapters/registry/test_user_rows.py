"""Unknown model names are refused; users add rows without editing the installed package.

Spec (agent-api.txt): ``detect_provider(model_name)`` "Raises: ValueError — If model not
found in configuration"; ``validate_config`` "Checks for: ... Valid model name (exists in
model_information.json)"; ``Agent.__init__`` "Raises: ValueError — If model is invalid or
parameters are out of range." A name that only shares a provider's prefix
(``claude-imaginary-9``) is not in the registry. New models ship before the registry
does, so a user adds rows: a file named by ``DPT_REGISTRY_FILE`` or ``Agent(registry=...)``,
merged over the packaged rows and checked against the same JSON schema.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.registry.json_file import (
    REGISTRY_FILE_ENV,
    JsonFileRegistry,
    overlay_registry,
)
from doc_processing_toolkit.agent.config import validate_config
from doc_processing_toolkit.agent.parameter_mapping import detect_provider
from doc_processing_toolkit.application.container import default_deps
from doc_processing_toolkit.domain.errors import ConfigValidationError
from doc_processing_toolkit.domain.registry import ModelInfo, Pricing
from doc_processing_toolkit.testing import FakeModel, StaticRegistry, reply

UNKNOWN = "claude-imaginary-9"
ROW: dict[str, Any] = {
    "context_window_tokens": 400_000,
    "max_output_tokens": 64_000,
    "input_types": ["text", "image"],
    "pricing": {"input_per_mtok": 4.0, "output_per_mtok": 20.0},
}
USER_ROWS = {"anthropic": {UNKNOWN: ROW}}


def _agent(model: str = UNKNOWN, **kwargs: Any) -> Agent:
    fake = FakeModel([reply("hi", input_tokens=1_000_000, output_tokens=0)])
    return Agent(model, client=fake, log_to_file=False, **kwargs)


def test_detect_provider_refuses_a_name_that_only_has_a_known_prefix() -> None:
    """detect_provider: "ValueError — If model not found in configuration"."""
    with pytest.raises(ValueError, match=rf"Unknown model '{UNKNOWN}'.*Did you mean claude-"):
        detect_provider(UNKNOWN)


def test_the_agent_refuses_it_with_a_did_you_mean() -> None:
    """Agent.__init__: "ValueError — If model is invalid"."""
    with pytest.raises(ValueError, match=r"Did you mean claude-.*DPT_REGISTRY_FILE"):
        _agent()
    with pytest.raises(ValueError, match="Did you mean claude-sonnet-5-5"):
        _agent("claude-sonet-5-5")


def test_validate_config_checks_the_name_exists() -> None:
    """validate_config: "Valid model name (exists in model_information.json)"."""
    with pytest.raises(ConfigValidationError, match=rf"model.*{UNKNOWN}"):
        validate_config({"model": UNKNOWN})
    assert validate_config({"model": "claude-sonnet-5-5"})["model"] == "claude-sonnet-5-5"


@pytest.mark.parametrize("form", ["mapping", "path", "rows", "model_info"])
def test_agent_registry_adds_a_row(form: str, tmp_path: Path) -> None:
    """Agent(registry=...) (a path, a mapping or rows) makes the model known, priced and
    limited by its row, for this Agent only."""
    source: Any
    if form == "mapping":
        source = USER_ROWS
    elif form == "path":
        source = tmp_path / "rows.json"
        source.write_text(json.dumps(USER_ROWS), encoding="utf-8")
    elif form == "rows":
        source = [{"model": UNKNOWN, "provider": "anthropic", **ROW}]
    else:
        source = [
            ModelInfo(
                model=UNKNOWN,
                provider="anthropic",
                context_window_tokens=400_000,
                pricing=Pricing(input_per_mtok=4.0, output_per_mtok=20.0),
            )
        ]
    agent = _agent(registry=source)
    assert agent.provider == "anthropic"
    result = agent.run_sync("hello")
    assert result.cost == pytest.approx(4.0)
    assert not result.cost_estimated
    with pytest.raises(ValueError, match="Unknown model"):
        _agent()  # another Agent does not see the rows


def test_a_user_row_replaces_the_packaged_one() -> None:
    """Merged over the shipped registry: the same provider and key take the user's row."""
    rows = {"anthropic": {"claude-sonnet-5-5": {"pricing": {"input_per_mtok": 7.0}}}}
    registry = JsonFileRegistry().with_rows(rows)
    row = registry.row("claude-sonnet-5-5")
    assert row is not None and row.pricing.input_per_mtok == 7.0
    assert registry.row("claude-haiku-5-5") is not None  # the rest is kept
    packaged = JsonFileRegistry().row("claude-sonnet-5-5")
    assert packaged is not None and packaged.pricing.input_per_mtok != 7.0


@pytest.mark.parametrize(
    ("rows", "named"),
    [
        ({"anthropic": {"claude-x": {"pricng": {}}}}, r"anthropic\.claude-x.*pricng"),
        (
            {"anthropic": {"claude-x": {"pricing": {"input_per_mtok": -1}}}},
            r"anthropic\.claude-x\.pricing\.input_per_mtok.*-1",
        ),
        ({"anthropic": {"claude-x": {"context_window_tokens": "big"}}}, r"claude-x"),
        ({"anthropic": ["claude-x"]}, r"anthropic"),
        ([{"model": "claude-x"}], r"\[0\].*provider"),
    ],
)
def test_bad_rows_are_named_at_construction(rows: Any, named: str) -> None:
    """The user rows pass the registry's JSON schema (registry/model_information.schema.json)
    or the Agent is refused, naming the bad row."""
    with pytest.raises(ValueError, match=r"registry.*" + named):
        _agent("claude-sonnet-5-5", registry=rows)


def test_a_registry_of_no_accepted_form_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="registry"):
        _agent("claude-sonnet-5-5", registry=42)


def test_the_environment_file_is_merged_over_the_packaged_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DPT_REGISTRY_FILE names a user registry file, read by the default registry."""
    path = tmp_path / "my_models.json"
    path.write_text(json.dumps(USER_ROWS), encoding="utf-8")
    monkeypatch.setenv(REGISTRY_FILE_ENV, str(path))
    registry = JsonFileRegistry()
    assert registry.detect_provider(UNKNOWN) == "anthropic"
    assert registry.row("claude-sonnet-5-5") is not None
    deps = dataclasses.replace(default_deps(), registry=registry)
    fake = FakeModel([reply("hi")])
    agent = Agent(UNKNOWN, client=fake, log_to_file=False, deps=deps)
    assert agent.run_sync("hi").output == "hi"
    # An explicit file does not read the variable unless asked to.
    assert JsonFileRegistry(registry.path).row(UNKNOWN) is None


def test_a_bad_environment_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "my_models.json"
    path.write_text(json.dumps({"openai": {"gpt-x": {"input_types": "text"}}}), encoding="utf-8")
    monkeypatch.setenv(REGISTRY_FILE_ENV, str(path))
    with pytest.raises(ValueError, match=rf"{path.name}.*openai\.gpt-x"):
        JsonFileRegistry().detect_provider("gpt-x")


def test_rows_merge_over_a_host_registry_too() -> None:
    """A plug-in's or host's own registry (StaticRegistry) keeps its rows under the user's."""
    echo = ModelInfo(model="echo-1", provider="echo")
    merged = overlay_registry(StaticRegistry([echo]), USER_ROWS)
    assert merged.detect_provider("echo-1") == "echo"
    assert merged.detect_provider(UNKNOWN) == "anthropic"
    assert {r.model for r in merged.models()} == {"echo-1", UNKNOWN}


def test_yaml_takes_a_registry_file(tmp_path: Path) -> None:
    """The YAML key ``registry:`` is the same file path as Agent(registry=...)."""
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(USER_ROWS), encoding="utf-8")
    text = yaml.safe_dump({"model": UNKNOWN, "registry": str(path)})
    agent = Agent.from_config_string(text, client=FakeModel([reply("hi")]), log_to_file=False)
    assert agent.provider == "anthropic"


def test_to_config_exports_a_registry_file_and_names_rows_given_in_code(tmp_path: Path) -> None:
    """to_config() "exports the Agent's configuration": a registry file travels with the
    recipe (it loads back to the same rows); rows given in code are listed as unserialisable,
    never silently dropped."""
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(USER_ROWS), encoding="utf-8")
    recipe = _agent(registry=path).to_config()
    assert recipe["registry"] == str(path)
    again = Agent.from_config_string(
        yaml.safe_dump(recipe), client=FakeModel([reply("hi")]), log_to_file=False
    )
    assert again.provider == "anthropic"
    in_code = _agent(registry=USER_ROWS).to_config()
    assert "registry" not in in_code and "registry" in in_code["unserialisable"]
