"""Thinking-binding rules: precedence, the request fields, the report counts, validation,
the frozen session tool surface (pure or in-process; the wire tests are in
tests/integration/test_thinking_binding.py)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers.anthropic.binding import (
    THINKING_BINDING_BETA,
    is_prefix_binding_refusal,
    strip_bound_blocks,
)
from doc_processing_toolkit.adapters.providers.anthropic.mapping import build_request
from doc_processing_toolkit.adapters.registry.json_file import default_registry
from doc_processing_toolkit.application.run.policy.prefix_audit import PrefixAuditor
from doc_processing_toolkit.application.run.policy.tool_surface import (
    ToolSurfaceGuard,
    guarding,
)
from doc_processing_toolkit.domain.binding import (
    caller_behaviour,
    count_mismatches,
    resolve_behaviour,
)
from doc_processing_toolkit.domain.errors import ConfigurationError, StateError
from doc_processing_toolkit.domain.messages import Message, ReasoningPart, TextPart, user_text
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.testing import FakeModel, reply
from doc_processing_toolkit.testing.script import Reply, ThinkingBlock

REGISTRY = default_registry()


@pytest.mark.parametrize(
    ("thinking", "setting", "strict", "env", "row", "expected"),
    [
        ({"block_binding": "off"}, "error", True, "drop_block", True, "off"),
        (
            {"block_binding": {"prefix_mismatch_behavior": "error"}},
            "off",
            False,
            None,
            True,
            "error",
        ),
        ({"type": "adaptive"}, "off", False, "error", True, "off"),
        ({"type": "adaptive"}, None, True, "drop_block", False, "error"),
        ({"type": "adaptive"}, None, False, "error", True, "error"),
        ({"type": "adaptive"}, None, False, None, True, "drop_block"),
        ({"type": "adaptive"}, None, False, None, False, None),
        (None, None, False, None, False, None),
    ],
)
def test_the_documented_precedence(
    thinking: Any, setting: Any, strict: bool, env: Any, row: bool, expected: Any
) -> None:
    assert (
        resolve_behaviour(thinking, setting, strict=strict, environment=env, row_enforces=row)
        == expected
    )


def test_caller_block_binding_forms_and_errors() -> None:
    assert caller_behaviour({"block_binding": {}}) is None  # empty object: every default
    assert caller_behaviour({"block_binding": "drop_block"}) == "drop_block"
    with pytest.raises(ConfigurationError, match="'maybe'"):
        caller_behaviour({"block_binding": "maybe"})


def test_counts_are_dropped_blocks_only() -> None:
    entries = [
        {"type": "thinking_dropped", "reason": "prefix_binding_mismatch"},
        {"type": "thinking_dropped", "reason": "prefix_binding_mismatch"},
        {"type": "thinking_mismatch_allowed", "reason": "prefix_binding_mismatch"},
        {"type": "thinking_dropped", "reason": "model_binding_mismatch"},
        {"type": "thinking_dropped", "reason": "organization_binding_mismatch"},
        {"type": "brand_new", "reason": "model_binding_mismatch"},
    ]
    assert count_mismatches(entries) == (2, 1)


def _history() -> tuple[Message, ...]:
    signed = ReasoningPart("earlier", "anthropic", {"signature": "sig-1"})
    return (
        user_text("q1"),
        Message("assistant", (signed, TextPart("a1")), provider="anthropic"),
        user_text("q2"),
    )


def _wire(**kwargs: Any) -> tuple[dict[str, Any], dict[str, str]]:
    row = REGISTRY.row(kwargs.pop("model", "claude-opus-5-5"))
    request = ModelRequest(model="m", messages=_history(), **kwargs)
    wire = build_request(request, max_tokens=1024, row=row)
    return wire.params, wire.extra_headers


def test_request_fields_and_beta_exactly_as_documented() -> None:
    params, headers = _wire(thinking={"type": "adaptive"}, block_binding="drop_block")
    assert params["thinking"] == {
        "type": "adaptive",
        "block_binding": {"prefix_mismatch_behavior": "drop_block"},
    }
    assert headers["anthropic-beta"] == THINKING_BINDING_BETA
    params, headers = _wire(thinking={"type": "adaptive"}, block_binding="error")
    assert params["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "error"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"thinking": {"type": "adaptive"}, "block_binding": "off"},
        {"thinking": {"type": "adaptive"}, "block_binding": None},
        {
            "thinking": {"type": "disabled"},
            "block_binding": "drop_block",
            "model": "claude-haiku-5-5",
        },
        {"thinking": None, "block_binding": "drop_block"},
    ],
)
def test_nothing_is_sent_when_off_or_when_the_request_cannot_carry_it(kwargs: Any) -> None:
    params, headers = _wire(**kwargs)
    assert "block_binding" not in (params.get("thinking") or {})
    assert "anthropic-beta" not in headers
    assert params["messages"][1]["content"][0]["type"] == "thinking"  # history untouched


def test_a_callers_block_binding_key_is_never_forwarded_verbatim() -> None:
    params, _ = _wire(thinking={"type": "adaptive", "block_binding": "off"}, block_binding="off")
    assert params["thinking"] == {"type": "adaptive"}


def test_rebind_without_thinking_strips_every_replayed_block() -> None:
    params, headers = _wire(thinking={"type": "disabled"}, rebind=True, model="claude-haiku-5-5")
    assert params["messages"][1]["content"] == [{"type": "text", "text": "a1"}]
    assert "anthropic-beta" not in headers
    params, headers = _wire(thinking={"type": "adaptive"}, rebind=True, block_binding="off")
    assert params["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"}
    assert params["messages"][1]["content"][0]["type"] == "thinking"


def test_strip_before_touches_only_the_completed_turns() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]},
    ]
    assert strip_bound_blocks(messages, 3) == 1
    assert [m["role"] for m in messages] == ["user", "user", "assistant"]  # emptied: removed
    assert messages[-1]["content"][0]["type"] == "thinking"


def test_only_the_bound_to_another_conversation_400_is_recognised() -> None:
    bound = (
        "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound "
        "to a different conversation."
    )
    assert is_prefix_binding_refusal(400, bound)
    assert not is_prefix_binding_refusal(
        400, "messages.1.content.0: Invalid `signature` in `thinking` block."
    )
    assert not is_prefix_binding_refusal(500, bound)


@pytest.mark.anyio
async def test_environment_value_and_its_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeModel([reply("ok"), reply("ok")])
    monkeypatch.setenv("DPT_ANTHROPIC_BLOCK_BINDING", "error")
    await Agent("claude-opus-5-5", thinking={"type": "adaptive"}, client=fake).run("hi")
    assert fake.requests[-1].block_binding == "error"  # the env var beats the row
    await Agent(
        "claude-opus-5-5", thinking={"type": "adaptive"}, anthropic_block_binding="off", client=fake
    ).run("hi")
    assert fake.requests[-1].block_binding == "off"  # the Agent's setting beats the env var
    monkeypatch.setenv("DPT_ANTHROPIC_BLOCK_BINDING", "sometimes")
    with pytest.raises(ConfigurationError, match=r"DPT_ANTHROPIC_BLOCK_BINDING.*'sometimes'"):
        await Agent("claude-opus-5-5", client=FakeModel([reply("x")])).run("hi")


def test_the_four_parameters_are_validated_and_exported() -> None:
    with pytest.raises(ValueError, match=r"anthropic_block_binding.*'keep'"):
        Agent("claude-opus-5-5", anthropic_block_binding="keep")
    with pytest.raises(ValueError, match="strict_prefix_binding must be True or False, got 2"):
        Agent("claude-opus-5-5", strict_prefix_binding=2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="contradicts anthropic_block_binding='drop_block'"):
        Agent("claude-opus-5-5", strict_prefix_binding=True, anthropic_block_binding="drop_block")
    with pytest.raises(ValueError, match="prefix_strip_fallback"):
        Agent("claude-opus-5-5", prefix_strip_fallback=True, anthropic_block_binding="error")
    agent = Agent(
        "claude-opus-5-5",
        strict_prefix_binding=True,
        prefix_audit=True,
    )
    config = agent.to_config()
    assert config["strict_prefix_binding"] is True and config["prefix_audit"] is True
    again = Agent.from_config_string(
        "model: claude-opus-5-5\nanthropic_block_binding: drop_block\nprefix_strip_fallback: true\n"
    )
    assert again.settings.binding.anthropic_block_binding == "drop_block"
    assert again.settings.binding.prefix_strip_fallback is True
    built = Agent.builder().model("claude-opus-5-5").anthropic_block_binding().build()
    assert built.settings.binding.anthropic_block_binding == "drop_block"


def test_the_audit_only_reads_and_names_each_part() -> None:
    auditor = PrefixAuditor()
    events: list[str] = []

    class Log:
        def warning(self, message: str, **_: Any) -> None:
            events.append(message)

    base = ModelRequest(model="m", messages=(user_text("q"),), system="s")
    assert auditor.observe(base, Log()) is None
    grown = base.with_messages((user_text("q"), Message("assistant", (TextPart("a"),))))
    assert auditor.observe(grown, Log()) is None  # append-only: nothing moved
    moved = ModelRequest(model="m", messages=(user_text("Q!"),), system="s2")
    text = auditor.observe(moved, Log())
    assert text is not None and "system prompt changed" in text and "messages.0 changed" in text
    assert len(events) == 1


def _spec(name: str, description: str = "d") -> ToolSpec:
    return ToolSpec(name=name, description=description, parameters={"type": "object"})


@pytest.mark.anyio
async def test_a_moved_tool_surface_is_frozen_or_fatal() -> None:
    from doc_processing_toolkit.application.run.policy.settings import RunSettings
    from doc_processing_toolkit.application.run.policy.tool_surface import frozen_surface

    drift: list[dict[str, Any]] = []
    guard = ToolSurfaceGuard(drift.append)
    tolerant = RunSettings(model="m", provider="anthropic", row=None, bound_reasoning=True)
    with guarding(guard):
        assert frozen_surface([_spec("a"), _spec("b")], tolerant) == [_spec("a"), _spec("b")]
        sent = frozen_surface([_spec("a", "new words"), _spec("c")], tolerant)
    assert sent == [_spec("a"), _spec("b")]  # the array the session started with
    assert drift == [
        {
            "event": "frozen",
            "failed_servers": [],
            "added": ["c"],
            "removed": ["b"],
            "redefined": ["a"],
        }
    ]
    assert frozen_surface([_spec("z")], tolerant) == [_spec("z")]  # no session: untouched
    strict = RunSettings(
        model="m", provider="anthropic", row=None, bound_reasoning=True, strict_prefix_binding=True
    )
    with guarding(guard), pytest.raises(StateError, match=r"added \['c'\]"):
        frozen_surface([_spec("a"), _spec("b"), _spec("c")], strict)
    assert drift[-1]["event"] == "refused"
    other = RunSettings(model="m", provider="openai", row=None)
    with guarding(guard):
        assert frozen_surface([_spec("q")], other) == [_spec("q")]  # binds nothing: untouched


@pytest.mark.anyio
async def test_session_records_drift_and_keeps_sending_the_frozen_tools() -> None:
    from doc_processing_toolkit import tool

    @tool
    def a() -> str:
        """A."""
        return "a"

    fake = FakeModel([Reply("one", thinking=(ThinkingBlock("t", signature="s"),)), reply("two")])
    agent = Agent("claude-opus-5-5", tools=[a], client=fake)
    session = agent.session()
    await session.run("first")
    assert session.tool_surface_drift == []
    guard = session._tool_surface
    assert guard.snapshot is not None
    guard.snapshot = [*guard.snapshot, _spec("vanished")]  # as if a server had served it
    await session.run("second")
    assert [t.name for t in fake.requests[-1].tools] == ["a", "vanished"]
    assert session.tool_surface_drift == [
        {
            "event": "frozen",
            "failed_servers": [],
            "added": [],
            "removed": ["vanished"],
            "redefined": [],
        }
    ]
    restored = type(session).from_dict(session.to_dict(), agent)
    assert restored.tool_surface_drift == session.tool_surface_drift  # survives the envelope
    session.rebind(Agent("claude-sonnet-5-5", tools=[a], client=FakeModel([])))
    assert session._tool_surface.snapshot is None  # the frozen array does not cross agents


def test_other_providers_warn_that_the_settings_are_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("tests.binding_rules")
    with caplog.at_level("WARNING", logger="tests.binding_rules"):
        agent = Agent("gpt-4o", strict_prefix_binding=True, client=FakeModel([]), logger=logger)
    assert agent.provider == "openai"
    assert any(
        "strict_prefix_binding is Anthropic-only: ignored for provider 'openai'" in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.anyio
async def test_a_streamed_session_turn_is_frozen_too() -> None:
    from doc_processing_toolkit import tool

    @tool
    def a() -> str:
        """A."""
        return "a"

    fake = FakeModel([reply("one"), reply("two")])
    session = Agent("claude-opus-5-5", tools=[a], client=fake).session()
    async for _ in session.stream("first"):
        pass
    guard = session._tool_surface
    assert guard.snapshot is not None
    guard.snapshot = [*guard.snapshot, _spec("gone")]
    async for _ in session.stream("second"):
        pass
    assert [t.name for t in fake.requests[-1].tools] == ["a", "gone"]
    assert session.tool_surface_drift[0]["removed"] == ["gone"]
    plain = Agent("claude-opus-5-5", tools=[a], client=FakeModel([reply("x")]))
    await plain.run("outside any session")  # the guard did not leak into this context
    assert [t.name for t in plain.settings.client.requests[-1].tools] == ["a"]  # type: ignore[union-attr]
