"""parameter_mapping: thinking, provider-run MCP / allowed_tools, built-in tools, kwargs, tiers."""

from __future__ import annotations

from typing import Any

import pytest

from doc_processing_toolkit.adapters.providers.options import (
    ANTHROPIC_MCP_BETA,
    INTERLEAVED_THINKING_BETA,
    BuiltInToolConfig,
    BuiltInToolsWire,
    ParameterMapper,
    ParameterValidator,
    anthropic_mcp_connector,
    apply_anthropic_allowed_tools,
    check_built_in_tools,
    check_provider_kwargs,
    check_provider_run_allowed_tools,
    get_default_value,
    map_built_in_tools,
    openai_allowed_tools,
    refuse_provider_ignored_allowed_tools,
    transform_mcp_remote_servers,
    transform_thinking_param,
    validate_service_tier,
)
from doc_processing_toolkit.domain.registry import ModelInfo


def _row(model: str, provider: str, **flags: Any) -> ModelInfo:
    return ModelInfo(model=model, provider=provider, supports_thinking=True, **flags)


CLAUDE_OFF = _row("claude-a", "anthropic", thinking_off_type="disabled")
CLAUDE_BETWEEN = _row("claude-b", "anthropic", thinking_off_type="between_tools")
CLAUDE_NO_OFF = _row("claude-c", "anthropic", thinking_off_type=None)
CLAUDE_CAPPED = _row(
    "claude-d",
    "anthropic",
    thinking_off_type="disabled",
    thinking_off_max_effort="high",
    default_reasoning_effort="high",
)
GPT_PRO = _row(
    "gpt-p",
    "openai",
    supported_reasoning_values=("none", "low", "medium", "high", "xhigh", "max"),
    supported_reasoning_modes=("standard", "pro"),
    supported_reasoning_values_pro_mode=("medium", "high", "xhigh", "max"),
)
GPT_OLD = _row("gpt-o", "openai", supported_reasoning_values=("minimal", "low", "medium", "high"))


# -- thinking: Anthropic --------------------------------------------------------------------


def test_anthropic_budget_becomes_enabled() -> None:
    out = transform_thinking_param({"budget_tokens": 4096}, "anthropic", CLAUDE_OFF)
    assert out.value == {"type": "enabled", "budget_tokens": 4096}
    assert out.as_params() == {"thinking": {"type": "enabled", "budget_tokens": 4096}}
    assert out.thinking_on and not out.interleaved and out.betas == () and out.warnings == ()


@pytest.mark.parametrize("key", ["interleaved", "interleaved_thinking"])
def test_anthropic_interleaved_flag_is_surfaced_not_sent(key: str) -> None:
    out = transform_thinking_param({"budget_tokens": 2048, key: True}, "anthropic")
    assert out.value == {"type": "enabled", "budget_tokens": 2048}
    assert out.interleaved is True
    assert out.betas == (INTERLEAVED_THINKING_BETA,)


def test_anthropic_interleaved_false_sends_no_beta() -> None:
    out = transform_thinking_param({"budget_tokens": 2048, "interleaved": False}, "anthropic")
    assert out.value == {"type": "enabled", "budget_tokens": 2048}
    assert not out.interleaved and out.betas == ()


def test_anthropic_adaptive_and_unknown_keys_verbatim() -> None:
    assert transform_thinking_param({"type": "adaptive"}, "anthropic").value == {"type": "adaptive"}
    out = transform_thinking_param(
        {"type": "adaptive", "display": "omitted", "future_field": {"x": 1}}, "anthropic"
    )
    assert out.value == {"type": "adaptive", "display": "omitted", "future_field": {"x": 1}}
    assert out.thinking_on
    assert transform_thinking_param({"type": "enabled", "budget_tokens": 1}, "anthropic").value == {
        "type": "enabled",
        "budget_tokens": 1,
    }


def test_anthropic_input_is_not_mutated() -> None:
    given = {"budget_tokens": 2048, "interleaved": True}
    transform_thinking_param(given, "anthropic")
    assert given == {"budget_tokens": 2048, "interleaved": True}


@pytest.mark.parametrize("spelling", ["disabled", "between_tools"])
@pytest.mark.parametrize(
    ("row", "wire"), [(CLAUDE_OFF, "disabled"), (CLAUDE_BETWEEN, "between_tools")]
)
def test_anthropic_off_value_comes_from_the_row(spelling: str, row: ModelInfo, wire: str) -> None:
    out = transform_thinking_param(
        {"type": spelling, "budget_tokens": 3000, "interleaved": True, "display": "x"},
        "anthropic",
        row,
    )
    assert out.value == {"type": wire}
    assert not out.thinking_on and out.warnings == ()


def test_anthropic_off_without_row_forwards_the_type() -> None:
    out = transform_thinking_param({"type": "between_tools"}, "anthropic")
    assert out.value == {"type": "between_tools"}
    assert not out.thinking_on


def test_anthropic_model_that_cannot_turn_off_runs_adaptive_with_a_warning() -> None:
    out = transform_thinking_param(
        {"type": "disabled", "budget_tokens": 9, "display": "omitted"}, "anthropic", CLAUDE_NO_OFF
    )
    assert out.value == {"type": "adaptive", "display": "omitted"}
    assert out.thinking_on
    assert len(out.warnings) == 1 and "claude-c cannot turn thinking off" in out.warnings[0]


def test_anthropic_off_above_the_max_effort_runs_adaptive() -> None:
    assert transform_thinking_param({"type": "disabled"}, "anthropic", CLAUDE_CAPPED).value == {
        "type": "disabled"
    }
    ok = transform_thinking_param({"type": "disabled"}, "anthropic", CLAUDE_CAPPED, effort="low")
    assert ok.value == {"type": "disabled"} and ok.warnings == ()
    out = transform_thinking_param({"type": "disabled"}, "anthropic", CLAUDE_CAPPED, effort="max")
    assert out.value == {"type": "adaptive"}
    assert "effort 'high' or lower" in out.warnings[0]


def test_anthropic_none_and_empty_send_nothing() -> None:
    assert transform_thinking_param(None, "anthropic").as_params() == {}
    assert transform_thinking_param({}, "anthropic").value is None


def test_non_thinking_row_sends_nothing() -> None:
    row = ModelInfo(model="gpt-4o", provider="openai")
    out = transform_thinking_param({"effort": "high"}, "openai", row)
    assert out.value is None and "does not support thinking" in out.warnings[0]
    off = transform_thinking_param({"type": "disabled"}, "openai", row)
    assert off.value is None and off.warnings == ()


def test_thinking_type_and_provider_errors() -> None:
    with pytest.raises(TypeError):
        transform_thinking_param("high", "openai")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown provider"):
        transform_thinking_param({}, "acme")


# -- thinking: OpenAI -----------------------------------------------------------------------


def test_openai_effort_and_default_summary() -> None:
    out = transform_thinking_param({"effort": "high"}, "openai", GPT_OLD)
    assert out.value == {"effort": "high", "summary": "auto"}
    assert out.as_params() == {"reasoning": {"effort": "high", "summary": "auto"}}
    assert transform_thinking_param(
        {"effort": "low", "summary": "detailed"}, "openai", GPT_OLD
    ).value == {"effort": "low", "summary": "detailed"}


def test_openai_mode_only_when_set() -> None:
    assert "mode" not in transform_thinking_param({"effort": "high"}, "openai", GPT_PRO).value
    out = transform_thinking_param({"effort": "high", "mode": "pro"}, "openai", GPT_PRO)
    assert out.value == {"effort": "high", "summary": "auto", "mode": "pro"}
    std = transform_thinking_param({"effort": "low", "mode": "standard"}, "openai", GPT_PRO)
    assert std.value == {"effort": "low", "summary": "auto", "mode": "standard"}


def test_openai_mode_the_row_does_not_list_is_dropped() -> None:
    out = transform_thinking_param({"effort": "high", "mode": "pro"}, "openai", GPT_OLD)
    assert out.value == {"effort": "high", "summary": "auto"}
    assert "mode 'pro'" in out.warnings[0]


def test_openai_pro_mode_drops_an_unsupported_effort() -> None:
    out = transform_thinking_param({"effort": "low", "mode": "pro"}, "openai", GPT_PRO)
    assert out.value == {"summary": "auto", "mode": "pro"}
    assert "pro mode" in out.warnings[0]


def test_openai_pro_mode_without_a_pro_list_requires_medium() -> None:
    row = _row("gpt-q", "openai", supported_reasoning_modes=("standard", "pro"))
    assert (
        "effort"
        not in transform_thinking_param({"effort": "low", "mode": "pro"}, "openai", row).value
    )
    assert transform_thinking_param({"effort": "high", "mode": "pro"}, "openai", row).value[
        "effort"
    ] == ("high")


def test_openai_effort_the_row_does_not_list_is_dropped() -> None:
    out = transform_thinking_param({"effort": "xhigh"}, "openai", GPT_OLD)
    assert out.value == {"summary": "auto"}
    assert "'xhigh'" in out.warnings[0]


@pytest.mark.parametrize("spelling", ["disabled", "between_tools"])
def test_openai_disabled_is_not_an_off_value(spelling: str) -> None:
    out = transform_thinking_param({"type": spelling}, "openai", GPT_OLD)
    assert out.value == {"effort": "medium", "summary": "auto"}
    assert out.thinking_on and len(out.warnings) == 1 and "not an off value" in out.warnings[0]
    given = transform_thinking_param({"type": spelling, "effort": "low"}, "openai", GPT_OLD)
    assert given.value == {"effort": "low", "summary": "auto"} and given.warnings == ()


def test_openai_effort_none_is_thinking_off() -> None:
    out = transform_thinking_param({"effort": "none"}, "openai", GPT_PRO)
    assert out.value == {"effort": "none", "summary": "auto"} and not out.thinking_on


def test_openai_ignored_keys_warn_and_summary_none_is_omitted() -> None:
    out = transform_thinking_param({"effort": "low", "budget_tokens": 5, "summary": None}, "openai")
    assert out.value == {"effort": "low"}
    assert "budget_tokens" in out.warnings[0]


# -- thinking: Google and Fireworks ---------------------------------------------------------


def test_google_budget_and_level() -> None:
    budget = transform_thinking_param({"budget_tokens": 1024}, "google")
    assert budget.as_params() == {
        "thinking_config": {"thinking_budget": 1024, "include_thoughts": True}
    }
    level = transform_thinking_param({"level": "low"}, "google")
    assert level.value == {"thinking_level": "low", "include_thoughts": True}
    assert not transform_thinking_param({"budget_tokens": 0}, "google").thinking_on
    with pytest.raises(ValueError, match="not both"):
        transform_thinking_param({"budget_tokens": 1, "level": "low"}, "google")


def test_google_disabled_type_warns() -> None:
    out = transform_thinking_param({"type": "disabled"}, "google")
    assert out.value is None and "not read on Google" in out.warnings[0]


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_fireworks_effort(effort: str) -> None:
    out = transform_thinking_param({"effort": effort}, "fireworks")
    assert out.as_params() == {"reasoning_effort": effort}


def test_fireworks_disabled_is_not_an_off_value() -> None:
    out = transform_thinking_param({"type": "disabled"}, "fireworks")
    assert out.value == "medium" and "not an off value" in out.warnings[0]
    row = _row("fw", "fireworks", supported_reasoning_values=("low", "high"))
    dropped = transform_thinking_param({"effort": "medium"}, "fireworks", row)
    assert dropped.value is None and dropped.warnings


# -- provider-run MCP: allowed_tools --------------------------------------------------------


def test_openai_allowed_tools_spec_examples() -> None:
    assert openai_allowed_tools({"allowed_tools": ("search",)}, "docs") == ["search"]
    assert openai_allowed_tools({"allowed_tools": []}, "docs") == []
    assert openai_allowed_tools({}, "docs") is None
    assert openai_allowed_tools({"allowed_tools": None}, "docs") is None
    assert openai_allowed_tools({"allowed_tools": {"b", "a"}}, "docs") == ["a", "b"]


def test_openai_allowed_tools_filter_object_sent_as_given() -> None:
    value = {"tool_names": ["a"], "read_only": True}
    assert openai_allowed_tools({"allowed_tools": value}, "docs") == value
    assert openai_allowed_tools({"allowed_tools": {}}, "docs") == {}
    assert openai_allowed_tools({"allowed_tools": {"tool_names": []}}, "docs") == {"tool_names": []}


@pytest.mark.parametrize(
    "bad",
    ["search", 3, [1], {"tool_names": "a"}, {"tool_names": [1]}, {"read_only": "yes"}],
)
def test_openai_allowed_tools_bad_forms(bad: Any) -> None:
    with pytest.raises(TypeError, match="docs"):
        openai_allowed_tools({"allowed_tools": bad}, "docs")


def test_refuse_fireworks_allowed_tools() -> None:
    with pytest.raises(ValueError, match="mcp_remote_client"):
        refuse_provider_ignored_allowed_tools({"allowed_tools": ["a"]}, "fireworks")
    with pytest.raises(ValueError, match="mcp_remote_client"):
        refuse_provider_ignored_allowed_tools({"allowed_tools": []}, "fireworks")
    refuse_provider_ignored_allowed_tools({}, "fireworks")
    refuse_provider_ignored_allowed_tools({"allowed_tools": ["a"]}, "openai")


def test_check_provider_run_allowed_tools() -> None:
    check_provider_run_allowed_tools({"allowed_tools": ["a"]}, "anthropic")
    check_provider_run_allowed_tools({"allowed_tools": {"tool_names": ["a"]}}, "openai")
    check_provider_run_allowed_tools({}, "fireworks")
    with pytest.raises(TypeError):
        check_provider_run_allowed_tools({"allowed_tools": {"tool_names": ["a"]}}, "anthropic")
    with pytest.raises(TypeError):
        check_provider_run_allowed_tools({"allowed_tools": "a"}, "anthropic")
    with pytest.raises(TypeError):
        check_provider_run_allowed_tools({"allowed_tools": "a"}, "openai")
    with pytest.raises(ValueError):
        check_provider_run_allowed_tools({"allowed_tools": ["a"]}, "fireworks")


def test_apply_anthropic_allowed_tools() -> None:
    toolset: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": "s"}
    apply_anthropic_allowed_tools({"allowed_tools": ["a", "b"]}, toolset, "s")
    assert toolset == {
        "type": "mcp_toolset",
        "mcp_server_name": "s",
        "default_config": {"enabled": False},
        "configs": {"a": {"enabled": True}, "b": {"enabled": True}},
    }
    untouched: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": "s"}
    apply_anthropic_allowed_tools({}, untouched, "s")
    assert untouched == {"type": "mcp_toolset", "mcp_server_name": "s"}
    with pytest.raises(TypeError, match="'s'"):
        apply_anthropic_allowed_tools({"allowed_tools": "ab"}, {}, "s")


def test_apply_anthropic_allowed_tools_keeps_user_configs() -> None:
    toolset: dict[str, Any] = {
        "default_config": {"defer_loading": True, "enabled": True},
        "configs": {"a": {"defer_loading": False}, "c": {"enabled": True}},
    }
    apply_anthropic_allowed_tools({"allowed_tools": ["a"]}, toolset, "s")
    assert toolset["default_config"] == {"defer_loading": True, "enabled": False}
    assert toolset["configs"] == {
        "a": {"defer_loading": False, "enabled": True},
        "c": {"enabled": False},
    }
    empty: dict[str, Any] = {}
    apply_anthropic_allowed_tools({"allowed_tools": []}, empty, "s")
    assert empty == {"default_config": {"enabled": False}, "configs": {}}


SERVER = {
    "type": "mcp",
    "server_label": "deepwiki",
    "server_url": "https://mcp.deepwiki.com/mcp",
}


def test_transform_for_anthropic() -> None:
    server = {**SERVER, "authorization_token": "tok", "allowed_tools": ["read"]}
    assert transform_mcp_remote_servers([server], "anthropic") == [
        {
            "type": "url",
            "url": "https://mcp.deepwiki.com/mcp",
            "name": "deepwiki",
            "authorization_token": "tok",
        }
    ]
    _entries, toolsets = anthropic_mcp_connector([server])
    assert toolsets == [
        {
            "type": "mcp_toolset",
            "mcp_server_name": "deepwiki",
            "default_config": {"enabled": False},
            "configs": {"read": {"enabled": True}},
        }
    ]
    assert ANTHROPIC_MCP_BETA.startswith("mcp-client-")


def test_anthropic_bearer_header_and_aliases() -> None:
    server = {"name": "s", "url": "https://x/mcp", "headers": {"Authorization": "Bearer abc"}}
    entries, toolsets = anthropic_mcp_connector([server])
    assert entries == [
        {"type": "url", "url": "https://x/mcp", "name": "s", "authorization_token": "abc"}
    ]
    assert toolsets == [{"type": "mcp_toolset", "mcp_server_name": "s"}]
    with pytest.raises(ValueError, match="X-Key") as info:
        anthropic_mcp_connector([{**server, "headers": {"X-Key": "secret-value"}}])
    assert "secret-value" not in str(info.value)


def test_transform_for_openai() -> None:
    server = {**SERVER, "headers": {"X": "1"}, "allowed_tools": ("read",)}
    assert transform_mcp_remote_servers([server], "openai") == [
        {
            "type": "mcp",
            "server_label": "deepwiki",
            "server_url": "https://mcp.deepwiki.com/mcp",
            "require_approval": "never",
            "headers": {"X": "1"},
            "allowed_tools": ["read"],
        }
    ]
    empty = transform_mcp_remote_servers([{**SERVER, "allowed_tools": []}], "openai")
    assert empty[0]["allowed_tools"] == []
    token = transform_mcp_remote_servers(
        [{**SERVER, "authorization_token": "t", "require_approval": "always"}], "openai"
    )
    assert token[0]["headers"] == {"Authorization": "Bearer t"}
    assert token[0]["require_approval"] == "always"


def test_transform_for_fireworks_and_google() -> None:
    assert transform_mcp_remote_servers([SERVER], "fireworks") == [
        {
            "type": "mcp",
            "server_label": "deepwiki",
            "server_url": "https://mcp.deepwiki.com/mcp",
            "require_approval": "never",
        }
    ]
    with pytest.raises(ValueError, match="mcp_remote_client"):
        transform_mcp_remote_servers([{**SERVER, "allowed_tools": ["a"]}], "fireworks")
    with pytest.raises(ValueError, match="mcp_remote_client"):
        transform_mcp_remote_servers([SERVER], "google")
    with pytest.raises(ValueError, match="server_url"):
        transform_mcp_remote_servers([{"server_label": "x"}], "openai")
    with pytest.raises(ValueError, match="server_label"):
        transform_mcp_remote_servers([{"server_url": "https://x"}], "openai")


# -- built-in tools -------------------------------------------------------------------------

CLAUDE_TOOLS = ModelInfo(
    model="claude-t",
    provider="anthropic",
    built_in_tools=("web_search", "code_execution", "tool_search"),
)
GEMINI_SOLO = ModelInfo(
    model="gemini-s",
    provider="google",
    built_in_tools=("web_search", "code_execution"),
    supports_concurrent_built_in_and_custom_tools=False,
)


def test_built_in_config_forms_are_equivalent() -> None:
    as_dataclass = map_built_in_tools(
        "anthropic", {"web_search": BuiltInToolConfig(enabled=True, config={"max_uses": 10})}
    )
    as_dict = map_built_in_tools(
        "anthropic", {"web_search": {"enabled": True, "config": {"max_uses": 10}}}
    )
    assert as_dataclass == as_dict
    assert as_dict.tools == ({"type": "web_search_20250305", "name": "web_search", "max_uses": 10},)
    assert as_dict.names == ("web_search",)
    assert map_built_in_tools("anthropic", {"web_search": True}).names == ("web_search",)
    assert map_built_in_tools("anthropic", {"web_search": {"enabled": False}}).tools == ()
    assert map_built_in_tools("anthropic", None) == BuiltInToolsWire()


def test_built_in_bad_forms() -> None:
    with pytest.raises(ValueError, match="under 'config'"):
        map_built_in_tools("anthropic", {"web_search": {"max_uses": 3}})
    with pytest.raises(TypeError):
        map_built_in_tools("anthropic", {"web_search": "yes"})
    with pytest.raises(ValueError, match="unknown built-in tool"):
        map_built_in_tools("anthropic", {"web_fetch": True})


def test_anthropic_built_ins_and_container_reuse() -> None:
    wire = map_built_in_tools(
        "anthropic",
        {
            "code_execution": BuiltInToolConfig(config={"container_id": "container_01"}),
            "tool_search": BuiltInToolConfig(),
        },
        CLAUDE_TOOLS,
    )
    assert wire.tools == (
        {"type": "code_execution_20250825", "name": "code_execution"},
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
    )
    assert wire.params == {"container": "container_01"}
    assert wire.tool_search
    bm25 = map_built_in_tools("anthropic", {"tool_search": {"config": {"variant": "bm25"}}})
    assert bm25.tools == (
        {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    )
    newer = map_built_in_tools(
        "anthropic", {"web_search": {"config": {"type": "web_search_20260209"}}}
    )
    assert newer.tools[0]["type"] == "web_search_20260209"


def test_openai_built_ins() -> None:
    wire = map_built_in_tools(
        "openai",
        {
            "web_search": BuiltInToolConfig(config={"max_uses": 3, "allowed_domains": ["a.com"]}),
            "code_execution": BuiltInToolConfig(config={"container_id": "c"}),
            "tool_search": BuiltInToolConfig(),
        },
    )
    assert wire.tools == (
        {"type": "web_search", "filters": {"allowed_domains": ["a.com"]}},
        {"type": "code_interpreter", "container": {"type": "auto"}},
        {"type": "tool_search"},
    )
    assert len(wire.warnings) == 2  # max_uses and container_id are not OpenAI options
    assert wire.params == {}


def test_google_built_ins_and_tool_search_warning() -> None:
    wire = map_built_in_tools(
        "google",
        {"web_search": True, "code_execution": True, "tool_search": True},
        GEMINI_SOLO,
    )
    assert wire.tools == ({"google_search": {}}, {"code_execution": {}})
    assert not wire.tool_search
    assert "no native tool search" in wire.warnings[0]


def test_fireworks_has_no_built_ins() -> None:
    with pytest.raises(ValueError, match="fireworks"):
        map_built_in_tools("fireworks", {"web_search": True})
    assert map_built_in_tools("fireworks", {"web_search": False}).tools == ()
    wire = map_built_in_tools("fireworks", {"tool_search": True})
    assert wire.tools == () and wire.warnings


def test_row_gates_built_ins() -> None:
    row = ModelInfo(model="claude-h", provider="anthropic", built_in_tools=("web_search",))
    with pytest.raises(ValueError, match="claude-h does not offer"):
        map_built_in_tools("anthropic", {"code_execution": True}, row)
    wire = map_built_in_tools("anthropic", {"tool_search": True}, row)
    assert wire.tools == () and "claude-h has no native tool search" in wire.warnings[0]


def test_check_built_in_tools_concurrency_gate() -> None:
    assert check_built_in_tools("google", {"web_search": True}, GEMINI_SOLO, False) == []
    with pytest.raises(ValueError, match="cannot combine"):
        check_built_in_tools("google", {"web_search": True}, GEMINI_SOLO, True)
    assert check_built_in_tools("google", {"web_search": False}, GEMINI_SOLO, True) == []
    assert check_built_in_tools("anthropic", {"web_search": True}, CLAUDE_TOOLS, True) == []


# -- provider kwargs, service tiers, defaults ----------------------------------------------


@pytest.mark.parametrize(
    ("provider", "kwargs"),
    [
        ("anthropic", {"effort_config": "high", "skills": ["pdf"], "max_pause_turn_iterations": 3}),
        (
            "openai",
            {
                "verbosity_config": "low",
                "parallel_tool_calls": False,
                "image_detail": "high",
                "openai_transport": "websocket",
            },
        ),
        (
            "google",
            {
                "video_metadata": {"start_offset": "1s", "end_offset": "9s", "fps": 1.0},
                "media_resolution": "MEDIA_RESOLUTION_HIGH",
                "file_active_timeout_s": 600,
                "file_poll_interval_s": 0.5,
                "file_poll_backoff": 1.5,
            },
        ),
        ("fireworks", {"base_url": "http://127.0.0.1:1/v1"}),
    ],
)
def test_documented_provider_kwargs_pass_quietly(provider: str, kwargs: dict[str, Any]) -> None:
    assert check_provider_kwargs(provider, {**kwargs, "base_url": "http://127.0.0.1"}) == []


def test_agent_owned_kwargs_name_the_agent_parameter() -> None:
    warnings = check_provider_kwargs("anthropic", {"system_prompt": "x", "client": object()})
    assert len(warnings) == 2
    assert "'system_prompt'" in warnings[0] and "instructions=" in warnings[0]
    assert "'client'" in warnings[1]


def test_unknown_and_foreign_kwargs_warn_once_each() -> None:
    warnings = check_provider_kwargs("anthropic", {"verbosity_config": "low", "top_k": 3})
    assert len(warnings) == 2
    assert "openai keyword" in warnings[0]
    assert "'top_k'" in warnings[1] and "passed through" in warnings[1]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("file_active_timeout_s", 0.5),
        ("file_active_timeout_s", 3601),
        ("file_poll_interval_s", 0.01),
        ("file_poll_interval_s", 61),
        ("file_poll_backoff", 0.9),
        ("file_poll_backoff", 11),
        ("file_poll_backoff", "2"),
        ("file_poll_backoff", True),
        ("video_metadata", "fps=1"),
        ("video_metadata", {"frames": 3}),
        ("video_metadata", {"fps": 0}),
    ],
)
def test_google_kwargs_out_of_bounds_raise_naming_the_key(key: str, value: Any) -> None:
    with pytest.raises(ValueError, match=key.split("_s")[0]):
        check_provider_kwargs("google", {key: value})


def test_google_poll_interval_must_not_exceed_timeout() -> None:
    with pytest.raises(ValueError, match="must not exceed"):
        check_provider_kwargs("google", {"file_active_timeout_s": 5, "file_poll_interval_s": 10})


def test_other_kwarg_values() -> None:
    assert "ignored" in check_provider_kwargs("openai", {"openai_transport": "grpc"})[0]
    with pytest.raises(ValueError, match="max_pause_turn_iterations"):
        check_provider_kwargs("anthropic", {"max_pause_turn_iterations": 0})


TIERED = ModelInfo(
    model="gpt-t",
    provider="openai",
    service_tiers={"priority": {}, "flex": {}, "ultrafast": {}},
    built_in_tools=("web_search",),
    supports_thinking=True,
)


@pytest.mark.parametrize("tier", ["priority", "flex", "ultrafast", "Priority"])
def test_service_tier_listed_by_the_row(tier: str) -> None:
    assert validate_service_tier(tier, TIERED) == (tier.lower(), None)


def test_service_tier_not_listed_is_ignored_with_a_warning() -> None:
    row = ModelInfo(model="gpt-u", provider="openai", service_tiers={"priority": {}})
    tier, warning = validate_service_tier("ultrafast", row)
    assert tier is None and warning is not None and "gpt-u" in warning
    assert validate_service_tier("priority", None)[0] is None
    assert validate_service_tier(None, row) == (None, None)
    assert validate_service_tier("standard", row) == (None, None)
    with pytest.raises(ValueError):
        validate_service_tier(3, row)  # type: ignore[arg-type]


def test_service_tiers_from_the_registry() -> None:
    from doc_processing_toolkit.application.container import registry

    reg = registry()
    astra, luna, claude = reg.row("gpt-6-astra"), reg.row("gpt-6-luna"), reg.row("claude-sonnet-5")
    assert validate_service_tier("ultrafast", astra)[0] == "ultrafast"
    assert validate_service_tier("ultrafast", luna)[0] is None
    assert validate_service_tier("priority", claude)[0] is None


def test_defaults() -> None:
    assert get_default_value("parallel_tool_calls", "openai") is True
    assert get_default_value("max_pause_turn_iterations", "anthropic") == 10
    assert get_default_value("nothing", "openai") is None
    assert get_default_value("tool_choice", "acme") is None
    mapper = ParameterMapper()
    assert mapper.get_provider_defaults("openai")["openai_transport"] == "http"
    mapper.get_provider_defaults("openai")["tool_choice"] = "x"
    assert get_default_value("tool_choice", "openai") == "auto"


# -- ParameterMapper / ParameterValidator ---------------------------------------------------


def test_mapper_methods() -> None:
    mapper = ParameterMapper()
    assert mapper.map_thinking("openai", {"effort": "low"}) == {
        "reasoning": {"effort": "low", "summary": "auto"}
    }
    assert mapper.map_thinking("fireworks", {"effort": "high"}) == {"reasoning_effort": "high"}
    for provider in ("anthropic", "openai", "google", "fireworks"):
        for choice in ("auto", "required", "none", "my_tool"):
            assert mapper.map_tool_choice(provider, choice) == {"tool_choice": choice}
    with pytest.raises(ValueError):
        mapper.map_tool_choice("acme", "auto")
    assert mapper.map_built_in_tools("google", {"web_search": True}) == {
        "tools": [{"google_search": {}}]
    }
    assert ParameterMapper(CLAUDE_TOOLS).map_built_in_tools(
        "anthropic", {"code_execution": {"config": {"container_id": "c1"}}}
    ) == {
        "container": "c1",
        "tools": [{"type": "code_execution_20250825", "name": "code_execution"}],
    }
    assert mapper.map_built_in_tools("anthropic", {}) == {}


def test_validator_maps_names_and_values() -> None:
    valid, warnings = ParameterValidator(TIERED).validate(
        "openai",
        {
            "max_tokens": 100,
            "temperature": 0.2,
            "thinking": {"effort": "high"},
            "service_tier": "flex",
            "verbosity_config": "low",
            "built_in_tools": {"web_search": True},
            "mcp_remote_servers": [SERVER],
            "tool_choice": "auto",
            "unset": None,
        },
    )
    assert valid == {
        "max_output_tokens": 100,
        "temperature": 0.2,
        "reasoning": {"effort": "high", "summary": "auto"},
        "service_tier": "flex",
        "verbosity_config": "low",
        "tool_choice": "auto",
        "tools": [
            {"type": "web_search"},
            {
                "type": "mcp",
                "server_label": "deepwiki",
                "server_url": "https://mcp.deepwiki.com/mcp",
                "require_approval": "never",
            },
        ],
    }
    assert warnings == []


def test_validator_anthropic_betas_and_mcp() -> None:
    valid, warnings = ParameterMapper().validate_provider_params(
        "anthropic",
        {
            "thinking": {"budget_tokens": 2048, "interleaved": True},
            "mcp_remote_servers": [{**SERVER, "allowed_tools": ["a"]}],
            "service_tier": "priority",
            "max_tokens": 10,
        },
    )
    assert valid["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert valid["mcp_servers"] == [
        {"type": "url", "url": "https://mcp.deepwiki.com/mcp", "name": "deepwiki"}
    ]
    assert valid["tools"][0]["type"] == "mcp_toolset"
    assert valid["betas"] == [INTERLEAVED_THINKING_BETA, ANTHROPIC_MCP_BETA]
    assert valid["max_tokens"] == 10
    assert "service_tier" not in valid and "no registry row" in warnings[0]


def test_validator_refusals() -> None:
    validator = ParameterValidator()
    with pytest.raises(ValueError, match="openai parameter"):
        validator.validate("anthropic", {"verbosity_config": "low"})
    with pytest.raises(ValueError, match="conflicts"):
        validator.validate("openai", {"thinking": {"effort": "low"}, "reasoning": {}})
    with pytest.raises(ValueError, match="mcp_remote_client"):
        validator.validate("google", {"mcp_remote_servers": [SERVER]})
    with pytest.raises(ValueError, match="mcp_remote_client"):
        validator.validate("fireworks", {"mcp_remote_servers": [{**SERVER, "allowed_tools": []}]})
    with pytest.raises(TypeError):
        validator.validate("openai", {"mcp_remote_servers": [{**SERVER, "allowed_tools": "a"}]})
    with pytest.raises(ValueError, match="unknown provider"):
        validator.validate("acme", {})
    _valid, warnings = validator.validate("anthropic", {"system_prompt": "x", "top_k": 1})
    assert len(warnings) == 2 and "instructions=" in warnings[0]


def test_validator_passes_the_effort_to_the_off_check() -> None:
    valid, warnings = ParameterValidator(CLAUDE_CAPPED).validate(
        "anthropic", {"thinking": {"type": "disabled"}, "effort_config": "max"}
    )
    assert valid["thinking"] == {"type": "adaptive"} and valid["effort_config"] == "max"
    assert len(warnings) == 1


# -- the documented import path -------------------------------------------------------------


def test_documented_import_path_reexports_everything() -> None:
    import doc_processing_toolkit.adapters.providers.options as domain
    import doc_processing_toolkit.agent.parameter_mapping as documented

    for name in domain.__all__:
        assert getattr(documented, name) is getattr(domain, name)
    assert set(documented.__all__) == {*domain.__all__, "detect_provider"}


def test_detect_provider() -> None:
    from doc_processing_toolkit.agent.parameter_mapping import detect_provider

    assert detect_provider("claude-sonnet-4-5") == "anthropic"
    assert detect_provider("claude-sonnet-4-5-20250929") == "anthropic"
    assert detect_provider("gpt-4o") == "openai"
    assert detect_provider("gemini-2.5-flash") == "google"
    assert detect_provider("kimi-k3") == "fireworks"
    with pytest.raises(TypeError):
        detect_provider(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        detect_provider("_meta")
    with pytest.raises(ValueError):
        detect_provider("_comment")
    with pytest.raises(ValueError):
        detect_provider("no-such-model")


# -- the shipped registry rows --------------------------------------------------------------


def _registry_row(model: str) -> ModelInfo:
    from doc_processing_toolkit.application.container import registry

    row = registry().row(model)
    assert row is not None
    return row


@pytest.mark.parametrize(
    ("model", "wire", "warns"),
    [
        ("claude-sonnet-4-5", {"type": "disabled"}, False),
        ("claude-sonnet-5-5", {"type": "between_tools"}, False),
        ("claude-fable-5-1", {"type": "adaptive"}, True),
        ("claude-opus-5-5", {"type": "adaptive"}, True),
        ("claude-opus-5", {"type": "disabled"}, False),
        ("claude-haiku-5-5", {"type": "disabled"}, False),
    ],
)
def test_registry_thinking_off_rows(model: str, wire: dict[str, Any], warns: bool) -> None:
    for spelling in ("disabled", "between_tools"):
        out = transform_thinking_param({"type": spelling}, "anthropic", _registry_row(model))
        assert out.value == wire
        assert bool(out.warnings) is warns


def test_registry_off_max_effort_rows() -> None:
    row = _registry_row("claude-opus-5")
    assert transform_thinking_param({"type": "disabled"}, "anthropic", row, effort="max").value == {
        "type": "adaptive"
    }
    assert transform_thinking_param(
        {"type": "disabled"}, "anthropic", row, effort="medium"
    ).value == {"type": "disabled"}


def test_registry_openai_pro_mode_rows() -> None:
    luna = _registry_row("gpt-5.6-luna")
    pro = transform_thinking_param({"effort": "low", "mode": "pro"}, "openai", luna)
    assert pro.value == {"summary": "auto", "mode": "pro"} and pro.warnings
    assert transform_thinking_param({"effort": "xhigh", "mode": "pro"}, "openai", luna).value == {
        "effort": "xhigh",
        "summary": "auto",
        "mode": "pro",
    }
    gpt5 = _registry_row("gpt-5")
    assert transform_thinking_param({"effort": "minimal"}, "openai", gpt5).value == {
        "effort": "minimal",
        "summary": "auto",
    }
    dropped = transform_thinking_param({"effort": "high", "mode": "pro"}, "openai", gpt5)
    assert dropped.value == {"effort": "high", "summary": "auto"} and dropped.warnings
    assert (
        transform_thinking_param({"effort": "high"}, "openai", _registry_row("gpt-4o")).value
        is None
    )


def test_registry_built_in_tool_rows() -> None:
    with pytest.raises(ValueError, match="cannot combine"):
        check_built_in_tools(
            "google", {"web_search": True}, _registry_row("gemini-2.5-flash"), True
        )
    assert (
        check_built_in_tools(
            "google", {"web_search": True}, _registry_row("gemini-3.5-flash"), True
        )
        == []
    )
    with pytest.raises(ValueError):
        check_built_in_tools("fireworks", {"web_search": True}, _registry_row("kimi-k3"), False)
    haiku = map_built_in_tools(
        "anthropic", {"tool_search": True}, _registry_row("claude-haiku-4-5")
    )
    assert haiku.tools == () and "claude-haiku-4-5" in haiku.warnings[0]
