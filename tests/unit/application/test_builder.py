"""AgentBuilder: every documented method, validated as the constructor validates."""

from __future__ import annotations

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.domain.tools.built_in import BuiltInToolConfig

DOCUMENTED = [
    "add_tool",
    "anthropic_block_binding",
    "auto_inject_skills",
    "build",
    "instructions",
    "max_iterations",
    "max_tokens",
    "media_max_inline_bytes",
    "media_policy",
    "media_store",
    "model",
    "prefix_audit",
    "prefix_strip_fallback",
    "prompt_caching",
    "service_tier",
    "strict_prefix_binding",
    "temperature",
    "with_built_in_tools",
    "with_compaction",
    "with_thinking",
]


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def test_every_documented_method_exists() -> None:
    builder = Agent.builder()
    for name in DOCUMENTED:
        assert callable(getattr(builder, name)), name


def test_build_equals_the_direct_constructor_call() -> None:
    built = (
        Agent.builder()
        .model("claude-sonnet-4-5")
        .instructions("Be brief.")
        .add_tool(add)
        .max_iterations(4)
        .max_tokens(2048)
        .temperature(0.3)
        .with_thinking(budget_tokens=2000)
        .with_built_in_tools(web_search=BuiltInToolConfig(enabled=True))
        .auto_inject_skills(False)
        .prompt_caching({"ttl": "1h"})
        .with_compaction(False)
        .build()
    )
    direct = Agent(
        "claude-sonnet-4-5",
        "Be brief.",
        tools=[add],
        max_iterations=4,
        max_tokens=2048,
        temperature=0.3,
        thinking={"budget_tokens": 2000},
        built_in_tools={"web_search": BuiltInToolConfig(enabled=True)},
        auto_inject_skills=False,
        prompt_caching={"ttl": "1h"},
        compaction=False,
    )
    assert built.settings == direct.settings
    assert built.to_config() == direct.to_config()


@pytest.mark.parametrize(
    ("method", "args", "error", "constructor"),
    [
        ("max_iterations", (0,), ValueError, {"max_iterations": 0}),
        ("max_tokens", (-1,), ValueError, {"max_tokens": -1}),
        ("temperature", (2.5,), ValueError, {"temperature": 2.5}),
        ("prompt_caching", ({"ttl": "2h"},), ValueError, {"prompt_caching": {"ttl": "2h"}}),
        ("instructions", (5,), ValueError, {"instructions": 5}),
        ("model", ("  ",), ValueError, None),
        ("media_policy", ("sometimes",), ValueError, {"media_policy": "sometimes"}),
        ("media_max_inline_bytes", (-1,), ValueError, {"media_max_inline_bytes": -1}),
        (
            "anthropic_block_binding",
            ("keep",),
            ValueError,
            {"anthropic_block_binding": "keep"},
        ),
        ("with_compaction", (2,), ValueError, {"compaction": 2}),
    ],
)
def test_each_method_fails_where_the_constructor_fails(
    method: str, args: tuple[object, ...], error: type[Exception], constructor: dict[str, object]
) -> None:
    builder = Agent.builder().model("claude-sonnet-4-5")
    with pytest.raises(error) as from_builder:
        getattr(builder, method)(*args)
    if constructor is not None:
        with pytest.raises(error) as from_constructor:
            Agent("claude-sonnet-4-5", **constructor)  # type: ignore[arg-type]
        assert str(from_builder.value) == str(from_constructor.value)


def test_add_tool_checks_the_format() -> None:
    def plain(a: int) -> int:
        return a

    with pytest.raises(ValueError, match="decorate it with @tool"):
        Agent.builder().add_tool(plain)
    with pytest.raises(FileNotFoundError):
        Agent.builder().add_tool("/no/such/dir")
