"""The neutral IR: one TypeAdapter round-trips every part, bytes included."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from doc_processing_toolkit.domain.messages import (
    MESSAGES_ADAPTER,
    MediaPart,
    Message,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    user_text,
)

_text = st.text(max_size=40)
_json_scalar = st.none() | st.booleans() | st.integers() | _text
_json = st.recursive(
    _json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_details = st.none() | st.dictionaries(_text, _json, max_size=3)

text_parts = st.builds(TextPart, _text)
media_parts = st.builds(
    MediaPart,
    mime_type=st.sampled_from(["image/png", "image/jpeg", "application/pdf"]),
    data=st.none() | st.binary(max_size=64),
    url=st.none() | st.just("https://example.com/a.png"),
    filename=st.none() | _text,
)
content = st.lists(text_parts | media_parts, max_size=3).map(tuple)
parts = st.one_of(
    text_parts,
    media_parts,
    st.builds(ToolCallPart, _text, _text, st.dictionaries(_text, _json, max_size=3), _details),
    st.builds(ToolResultPart, _text, _text, content, st.booleans()),
    st.builds(ReasoningPart, _text, st.none() | st.just("anthropic"), _details),
    st.builds(ProviderPart, st.just("anthropic"), st.dictionaries(_text, _json, max_size=3)),
)
messages = st.lists(
    st.builds(
        Message,
        st.sampled_from(["user", "assistant", "tool"]),
        st.lists(parts, max_size=4).map(tuple),
        st.none() | st.sampled_from(["anthropic", "openai"]),
    ),
    max_size=5,
)


@given(messages)
def test_json_round_trip_is_identity(history: list[Message]) -> None:
    assert MESSAGES_ADAPTER.validate_json(MESSAGES_ADAPTER.dump_json(history)) == history


@given(messages)
def test_python_round_trip_is_identity(history: list[Message]) -> None:
    dumped = MESSAGES_ADAPTER.dump_python(history, mode="json")
    assert MESSAGES_ADAPTER.validate_python(dumped) == history


def test_parts_are_frozen_values() -> None:
    part = TextPart("hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        part.text = "changed"  # type: ignore[misc]
    assert TextPart("hi") == part


def test_message_helpers() -> None:
    msg = Message(
        "assistant",
        (
            ReasoningPart("think", "anthropic", {"signature": "s"}),
            TextPart("a"),
            ToolCallPart("c1", "f", {}),
            TextPart("b"),
        ),
    )
    assert msg.text == "ab" and msg.reasoning == "think"
    assert [c.id for c in msg.tool_calls] == ["c1"]
    assert user_text("x").parts == (TextPart("x"),)


def test_bytes_travel_as_base64_in_json() -> None:
    dumped = MESSAGES_ADAPTER.dump_json([Message("user", (MediaPart("image/png", b"\x89PNG"),))])
    assert b'"data":"iVBORw=="' in dumped
