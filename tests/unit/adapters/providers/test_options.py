"""Vendor option rules: the one allowed_tools rule, the table, the profiles' wiring."""

from __future__ import annotations

from typing import Any

import pytest

from doc_processing_toolkit.adapters.mcp.config import validate_allowed_tools
from doc_processing_toolkit.adapters.providers._options import VendorOptions
from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers._wire import WireRequest
from doc_processing_toolkit.adapters.providers.anthropic.options import ANTHROPIC_OPTIONS
from doc_processing_toolkit.adapters.providers.anthropic.profile import AnthropicProfile
from doc_processing_toolkit.adapters.providers.fireworks.mapping import (
    FireworksWireRequest,
    build_request,
)
from doc_processing_toolkit.adapters.providers.fireworks.options import FIREWORKS_OPTIONS
from doc_processing_toolkit.adapters.providers.fireworks.profile import FireworksProfile
from doc_processing_toolkit.adapters.providers.google.options import GOOGLE_OPTIONS
from doc_processing_toolkit.adapters.providers.google.profile import GoogleProfile
from doc_processing_toolkit.adapters.providers.openai.options import OPENAI_OPTIONS
from doc_processing_toolkit.adapters.providers.openai.profile import OpenAIProfile
from doc_processing_toolkit.adapters.providers.options import OPTIONS, check_provider_kwargs
from doc_processing_toolkit.adapters.registry.json_file import detect_provider_by_prefix
from doc_processing_toolkit.application.tools.formats import (
    validate_allowed_tools as entry_allowed_tools,
)
from doc_processing_toolkit.domain.messages import Message, TextPart
from doc_processing_toolkit.domain.registry import PROVIDERS
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.domain.tools.allowed import allowed_tool_names
from doc_processing_toolkit.ports.provider_profile import ProviderOptions

# -- the one allowed_tools rule ------------------------------------------------------------


def test_allowed_tool_names_forms() -> None:
    assert allowed_tool_names(None, "MCP server 'm'") is None
    assert allowed_tool_names(["a", "b"], "MCP server 'm'") == ("a", "b")
    assert allowed_tool_names(("a",), "MCP server 'm'") == ("a",)
    assert allowed_tool_names([], "MCP server 'm'") == ()
    assert allowed_tool_names({"b", "a"}, "MCP server 'm'", sets=True) == ("a", "b")


@pytest.mark.parametrize("bad", ["a", b"a", {"a"}, {"a": 1}, 3, ["a", 1], [""]])
def test_allowed_tool_names_refuses(bad: Any) -> None:
    with pytest.raises(TypeError, match="MCP server 'm'"):
        allowed_tool_names(bad, "MCP server 'm'")


def test_bare_string_names_the_fix() -> None:
    with pytest.raises(TypeError, match=r"list of tool names.*allowed_tools=\['add'\]"):
        allowed_tool_names("add", "MCP server 'm'")


def test_every_caller_shares_the_rule() -> None:
    assert validate_allowed_tools(["a"], "m") == ("a",)
    assert entry_allowed_tools(("a",), "tool server 'm'") == ["a"]
    for check in (lambda v: validate_allowed_tools(v, "m"), lambda v: entry_allowed_tools(v, "m")):
        for bad in ("a", [1], [""], {"a"}):
            with pytest.raises(TypeError):
                check(bad)
    with pytest.raises(TypeError):
        OPENAI_OPTIONS.check_allowed_tools({"server_label": "s", "allowed_tools": [""]})
    with pytest.raises(TypeError):
        ANTHROPIC_OPTIONS.check_allowed_tools({"server_label": "s", "allowed_tools": "a"})


# -- the table and the profiles ------------------------------------------------------------


def test_table_covers_the_providers_in_order() -> None:
    assert tuple(OPTIONS) == PROVIDERS
    assert all(options.name == name for name, options in OPTIONS.items())


def test_each_vendor_profile_wires_its_own_rules() -> None:
    assert AnthropicProfile().options is ANTHROPIC_OPTIONS
    assert OpenAIProfile().options is OPENAI_OPTIONS
    assert GoogleProfile().options is GOOGLE_OPTIONS
    assert FireworksProfile().options is FIREWORKS_OPTIONS
    assert BaseProfile(name="acme").options is None


def test_vendor_profile_checks_as_the_documented_function() -> None:
    kwargs = {"system": "x", "verbosity_config": "low", "top_k": 3}
    report = AnthropicProfile().check_options(ProviderOptions(provider_kwargs=kwargs), None)
    assert list(report.warnings) == check_provider_kwargs("anthropic", kwargs)
    assert "openai keyword" in report.warnings[1]


def test_plug_in_profile_passes_keywords_through() -> None:
    profile = BaseProfile(name="acme")
    report = profile.check_options(
        ProviderOptions(provider_kwargs={"top_k": 1, "system": "x", "base_url": "u"}), None
    )
    assert len(report.warnings) == 1 and "instructions=" in report.warnings[0]
    with pytest.raises(ValueError, match="acme has no built-in"):
        profile.check_options(ProviderOptions(built_in_tools={"web_search": True}), None)
    with pytest.raises(ValueError, match="does not support remote MCP"):
        profile.check_options(
            ProviderOptions(remote_mcp_servers=({"server_label": "s", "server_url": "u"},)),
            None,
        )
    assert repr(VendorOptions("acme")) == "VendorOptions('acme')"


# -- the rest of the move ------------------------------------------------------------------


def test_fireworks_wire_request_extends_the_shared_one() -> None:
    request = ModelRequest(
        model="kimi-k3", messages=(Message(role="user", parts=(TextPart(text="hi"),)),)
    )
    wire = build_request(request)
    assert isinstance(wire, FireworksWireRequest) and isinstance(wire, WireRequest)
    assert wire.dropped == () and wire.unconfirmed_forced_tool is None


def test_prefix_detection_lives_in_the_registry_adapter() -> None:
    assert detect_provider_by_prefix("claude-x") == "anthropic"
    assert detect_provider_by_prefix("accounts/fireworks/models/x") == "fireworks"
    assert detect_provider_by_prefix("mystery") is None
