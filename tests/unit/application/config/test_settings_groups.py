"""The settings are grouped by concern, and the YAML schema reads the groups' fields."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.application.config.schema import CONFIG_FIELDS, config_json_schema
from doc_processing_toolkit.application.config.settings import (
    SETTING_GROUPS,
    SETTING_NAMES,
    AgentSettings,
    setting_field,
)
from doc_processing_toolkit.testing import FakeModel


def test_each_setting_sits_in_one_group_and_reads_back_by_its_parameter_name() -> None:
    agent = Agent(
        "claude-sonnet-5-5",
        client=FakeModel(),
        log_to_file=False,
        compaction=True,
        max_tool_result_chars=9000,
        tool_timeout=2.5,
        media_policy="strip",
    )
    s = agent.settings
    assert s.compaction.enabled is True and s.tool_results.max_tool_result_chars == 9000
    assert s.timeouts.tool_timeout == 2.5 and s.media.media_policy == "strip"
    arguments = s.arguments()
    assert set(arguments) == set(SETTING_NAMES)
    assert arguments["compaction"] is True and arguments["media_policy"] == "strip"
    assert len(SETTING_GROUPS) + 6 == len(SETTING_NAMES)


def test_replace_rebuilds_only_the_changed_group() -> None:
    s = AgentSettings.of(model="m", max_tokens=5, log_level="INFO")
    t = s.replace(max_tokens=7)
    assert t.generation.max_tokens == 7 and s.generation.max_tokens == 5
    assert t.logging is s.logging and t.media is s.media
    assert s.replace(max_tokens=s.generation.max_tokens) is s
    with pytest.raises(TypeError, match="not Agent settings"):
        s.replace(no_such_setting=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.generation.max_tokens = 1


@pytest.mark.parametrize(
    "key", ["strict_tools", "max_tool_result_chars", "media_policy", "tool_timeout", "model"]
)
def test_the_yaml_schema_of_a_scalar_setting_comes_from_its_field(key: str) -> None:
    field = setting_field(key)
    prop = config_json_schema()["properties"][key]
    assert field.description and prop["description"] == field.description
    assert CONFIG_FIELDS[key].description == field.description


def test_a_setting_not_exported_by_hand_is_exported_by_its_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from doc_processing_toolkit.application.config import export

    agent = Agent("claude-sonnet-5-5", client=FakeModel(), log_to_file=False, service_tier="flex")
    by_hand = agent.to_config()
    by_hand_section = export._settings_section

    def without_service_tier(s: AgentSettings) -> dict[str, object]:
        section = by_hand_section(s)
        del section["service_tier"]
        return section

    # As if service_tier were a setting added after the hand-written export.
    monkeypatch.setattr(export, "_settings_section", without_service_tier)
    monkeypatch.setattr(export, "_BY_HAND", export._BY_HAND - {"service_tier"})
    derived = agent.to_config()
    assert derived == by_hand and derived["service_tier"] == "flex"
    plain = Agent("claude-sonnet-5-5", client=FakeModel(), log_to_file=False).to_config()
    assert "service_tier" not in plain


def _bounded_settings() -> list[tuple[str, object]]:
    """(parameter, a value just outside its field's ge/le bound) for each bounded setting."""
    import annotated_types

    cases: list[tuple[str, object]] = []
    for name in SETTING_NAMES:
        field = setting_field(name)
        for rule in field.metadata:
            if isinstance(rule, annotated_types.Ge):
                cases.append((name, rule.ge - 1))  # type: ignore[operator]
            elif isinstance(rule, annotated_types.Le):
                cases.append((name, rule.le + 1))  # type: ignore[operator]
    return cases


@pytest.mark.parametrize(("name", "value"), _bounded_settings())
def test_the_validation_path_enforces_each_fields_bound(name: str, value: object) -> None:
    from doc_processing_toolkit.application.construction import validate_settings

    with pytest.raises(ValueError, match=name):
        validate_settings(AgentSettings.of(model="m", **{name: value}))


def _signature_parameters() -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(Agent.__init__).parameters)


@pytest.mark.parametrize("name", sorted(SETTING_GROUPS))
def test_every_group_field_is_reachable_from_each_entry_point(name: str) -> None:
    """A field added to a group must be a constructor parameter (or a consumed provider
    keyword), documented in ``help(Agent)``; the builder, YAML and to_config() then take
    it from the field."""
    from doc_processing_toolkit.application.config import export
    from doc_processing_toolkit.application.config.schema import NOT_TOP_LEVEL_KEYS
    from doc_processing_toolkit.application.config.validation import CONSUMED_PROVIDER_KWARGS

    field = setting_field(name)
    default = field.get_default(call_default_factory=True)
    parameters = _signature_parameters()
    if name in CONSUMED_PROVIDER_KWARGS:
        assert name not in parameters  # spelled as a provider keyword
    else:
        assert name in parameters, f"{name} is a field but no Agent parameter"
        if name not in ("tools", "provider_kwargs"):  # None for (); the **keywords
            assert parameters[name].default == default, name
        assert re.search(rf"^    (\*\*)?{name} \(", Agent.__init__.__doc__ or "", re.M), name
    Agent.builder().with_settings(**{name: default})  # the builder takes it by name
    assert name in CONFIG_FIELDS or name in NOT_TOP_LEVEL_KEYS  # a YAML key or a section's
    assert name in export._BY_HAND or name in CONFIG_FIELDS  # to_config() writes it


def test_the_builder_sets_a_setting_without_a_method_of_its_own() -> None:
    agent = (
        Agent.builder()
        .model("claude-sonnet-5-5")
        .with_settings(client=FakeModel(), log_to_file=False, tool_timeout=2.5)
        .build()
    )
    assert agent.settings.timeouts.tool_timeout == 2.5
    with pytest.raises(ValueError, match="tool_timeout"):
        Agent.builder().with_settings(tool_timeout=-1)
    with pytest.raises(TypeError, match="not Agent settings"):
        Agent.builder().with_settings(no_such_setting=1)


def test_a_group_left_at_its_defaults_is_shared_and_a_mutable_default_is_not() -> None:
    one = Agent("claude-sonnet-5-5", client=FakeModel(), log_to_file=False)
    two = Agent("claude-sonnet-5-5", client=FakeModel(), log_to_file=False, tool_timeout=1.0)
    assert one.settings.media is two.settings.media
    assert one.settings.timeouts is not two.settings.timeouts
    assert two.settings.timeouts.stream_idle_timeout == one.settings.timeouts.stream_idle_timeout
    assert one.settings.provider.provider_kwargs is not two.settings.provider.provider_kwargs
    assert AgentSettings.of(model="m").provider.provider_kwargs is not (
        AgentSettings.of(model="m").provider.provider_kwargs
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.settings.media.media_policy = "strip"
    keyed = Agent("claude-sonnet-5-5", client=FakeModel(), log_to_file=False, api_key="sk-x")
    assert "sk-x" not in repr(keyed.settings) and "api_key" not in repr(keyed.settings)


def test_a_groups_repr_and_str_never_show_a_credential() -> None:
    secret, token = "SECRETCANARY987654321xyz", "TOKCANARY123456789abc"
    cloud = Agent(
        "claude-sonnet-4-5",
        deployment="bedrock",
        deployment_options={
            "region": "us-east-1",
            "aws_access_key": "AKIACANARY123456",
            "aws_secret_key": secret,
        },
        log_to_file=False,
    )
    remote = Agent(
        "claude-sonnet-5-5",
        tools=[
            {
                "type": "mcp",
                "server_url": "https://mcp.example/mcp",
                "authorization_token": token,
                "name": "srv",
            }
        ],
        log_to_file=False,
    )
    shown = [repr(cloud.settings.deployment), str(cloud.settings.deployment)]
    shown += [repr(remote.settings.tools), str(remote.settings.tools)]
    assert "us-east-1" in shown[0] and "srv" in shown[2]  # the rest is still shown
    assert not [text for text in shown if secret in text or token in text]
