"""FireworksHistoryCodec: lossless round trips (hypothesis) and the canonical rendering."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.adapters.providers.fireworks.dialect import (
    DroppedPart,
    FireworksHistoryCodec,
)
from doc_processing_toolkit.domain.messages import (
    MESSAGES_ADAPTER,
    MediaPart,
    Message,
    Part,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from doc_processing_toolkit.ports.dialect import HistoryCodec

CODEC = FireworksHistoryCodec()

# -- strategies: native messages ----------------------------------------------------------

_text = st.text(max_size=30)
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_ids = st.text(_ALNUM, min_size=6, max_size=12).map(lambda s: f"call_{s}")
_names = st.text(_ALNUM[:26] + "_", min_size=1, max_size=12).map(lambda s: f"t{s}")
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _text | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_objects = st.dictionaries(_names, _json, max_size=4)
_strict_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | _text
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_strict_objects = st.dictionaries(_names, _strict_json, max_size=4)
"""Arguments a real call carries: strict JSON (no NaN / Infinity)."""
_image_mimes = st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"])

_data_url = st.builds(
    lambda m, b: f"data:{m};base64,{base64.b64encode(b).decode('ascii')}",
    _image_mimes | st.just("application/pdf"),
    st.binary(max_size=16),
)
_http_url = st.builds(
    lambda n, ext: f"https://img.test/{n}{ext}", _names, st.sampled_from([".png", ".jpg", ""])
)
_image_part = st.builds(
    lambda url: {"type": "image_url", "image_url": {"url": url}}, _data_url | _http_url
)
_odd_user_part = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t, "cache": True}, _text),
    st.builds(lambda u: {"type": "image_url", "image_url": {"url": u, "detail": "low"}}, _http_url),
    st.just({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}),
    st.just({"type": "image_url", "image_url": {"url": "data:image/png;base64,not base64!"}}),
)
_user_part = st.builds(lambda t: {"type": "text", "text": t}, _text) | _image_part | _odd_user_part
user_message = st.builds(
    lambda c: {"role": "user", "content": c}, _text | st.lists(_user_part, max_size=4)
)


def _arguments_text(obj: dict[str, Any], style: str) -> str:
    match style:
        case "canonical":
            return json.dumps(obj)
        case "compact":
            return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        case "empty":
            return ""
        case _:
            return "{not json"


_call = st.builds(
    lambda i, n, o, style, extra: {
        "id": i,
        "type": "function",
        "function": {"name": n, "arguments": _arguments_text(o, style)},
        **extra,
    },
    _ids,
    _names,
    _objects,
    st.sampled_from(["canonical", "canonical", "compact", "empty", "broken"]),
    st.just({}) | st.just({"index": 0}),
)


def _assistant(content: Any, calls: list[Any] | None, reasoning: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls is not None:
        message["tool_calls"] = calls
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return message


assistant_message = st.builds(
    _assistant,
    st.one_of(st.none(), _text, _text, st.just([{"type": "text", "text": "listed"}])),
    st.one_of(st.none(), st.lists(_call, min_size=1, max_size=3), st.just([])),
    st.none() | _text,
)
tool_message = st.builds(
    lambda i, c: {"role": "tool", "tool_call_id": i, "content": c},
    _ids,
    _text | st.lists(st.builds(lambda t: {"type": "text", "text": t}, _text), max_size=3),
)
other_message = st.one_of(
    st.builds(lambda t: {"role": "system", "content": t}, _text),
    st.builds(lambda t: {"role": "tool", "tool_call_id": 7, "content": t}, _text),
    st.builds(lambda t: {"role": "assistant", "content": t, "refusal": None}, _text),
)
native_history = st.lists(
    user_message | assistant_message | tool_message | other_message, max_size=8
)


@settings(max_examples=200, deadline=None)
@given(native_history)
def test_render_parse_is_lossless_for_native_histories(native: list[dict[str, Any]]) -> None:
    parsed = CODEC.parse(native)
    assert CODEC.render(parsed) == native
    # and the IR survives the one persistence adapter unchanged
    restored = MESSAGES_ADAPTER.validate_json(MESSAGES_ADAPTER.dump_json(parsed))
    assert CODEC.render(restored) == native


# -- strategies: canonical IR -------------------------------------------------------------

_ir_media = st.one_of(
    st.builds(lambda m, b: MediaPart(m, data=b), _image_mimes, st.binary(max_size=16)),
    st.builds(lambda n: MediaPart("image/png", url=f"https://img.test/{n}.png"), _names),
)
_ir_user = st.builds(
    lambda parts: Message("user", tuple(parts)),
    st.lists(st.builds(TextPart, _text) | _ir_media, max_size=3),
)


@st.composite
def _ir_round(draw: st.DrawFn) -> list[Message]:
    """A user turn, an assistant turn, and the results of its calls when it made some."""
    messages = [draw(_ir_user)]
    parts: list[Part] = []
    if draw(st.booleans()):
        parts.append(ReasoningPart(draw(_text), "fireworks"))
    if draw(st.booleans()):
        parts.append(TextPart(draw(_text)))
    names = draw(st.lists(_names, max_size=3))
    ids = draw(st.lists(_ids, min_size=len(names), max_size=len(names), unique=True))
    calls = [ToolCallPart(i, n, draw(_strict_objects)) for i, n in zip(ids, names, strict=True)]
    messages.append(Message("assistant", (*parts, *calls), provider="fireworks"))
    if calls:
        results = tuple(
            ToolResultPart(c.id, c.name, tuple(draw(st.lists(st.builds(TextPart, _text)))))
            for c in calls
        )
        messages.append(Message("tool", results))
    return messages


@settings(max_examples=100, deadline=None)
@given(st.lists(_ir_round(), max_size=3))
def test_ir_render_parse_round_trip(rounds: list[list[Message]]) -> None:
    history = [m for r in rounds for m in r]
    assert CODEC.parse(CODEC.render(history)) == history


def test_codec_satisfies_the_port() -> None:
    assert isinstance(CODEC, HistoryCodec)
    assert CODEC.provider == "fireworks"


def test_canonical_rendering_of_a_tool_round() -> None:
    call = ToolCallPart("call_1", "add", {"a": 1})
    history = [
        Message("user", (TextPart("add"),)),
        Message(
            "assistant",
            (ReasoningPart("thinking", "fireworks"), TextPart("Let me add."), call),
            provider="fireworks",
        ),
        Message(
            "tool",
            (
                ToolResultPart("call_1", "add", (TextPart("2"),)),
                ToolResultPart("call_1", "add", (TextPart("a"), TextPart("b"))),
            ),
        ),
    ]
    assert CODEC.render(history) == [
        {"role": "user", "content": "add"},
        {
            "role": "assistant",
            "content": "Let me add.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 1}'},
                }
            ],
            "reasoning_content": "thinking",
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "2"},
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
    ]


def test_tool_names_come_back_from_the_calls() -> None:
    native = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
    ]
    assistant, results = CODEC.parse(native)
    assert [c.name for c in assistant.tool_calls] == ["f", "g"]
    assert results.role == "tool"
    assert [
        (p.call_id, p.name, p.text) for p in results.parts if isinstance(p, ToolResultPart)
    ] == [
        ("c1", "f", "one"),
        ("c2", "g", "two"),
    ]


def test_non_canonical_arguments_replay_byte_identical() -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"city":"Zürich"}'},
    }
    (message,) = CODEC.parse([{"role": "assistant", "content": None, "tool_calls": [call]}])
    (part,) = message.tool_calls
    assert part.arguments == {"city": "Zürich"}
    assert part.provider_details == {"fireworks": {"arguments_json": '{"city":"Zürich"}'}}
    # an edited call renders its new arguments, not the stale text
    edited = ToolCallPart(part.id, part.name, {"city": "Bern"}, part.provider_details)
    rendered = CODEC.render([Message("assistant", (edited,), provider="fireworks")])
    assert rendered[0]["tool_calls"][0]["function"]["arguments"] == '{"city": "Bern"}'


def test_messages_the_ir_cannot_hold_are_kept_whole() -> None:
    system = {"role": "system", "content": "old instructions"}
    listed = {"role": "user", "content": [{"type": "text", "text": "one part"}]}
    (first, second) = CODEC.parse([system, listed])
    assert first.parts == (ProviderPart("fireworks", system),)
    assert second.parts == (ProviderPart("fireworks", listed),)
    assert CODEC.render([first, second]) == [system, listed]


def test_images_only_other_media_and_foreign_blocks_are_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    history = [
        Message(
            "user",
            (
                TextPart("look"),
                MediaPart("application/pdf", data=b"%PDF"),
                MediaPart("video/mp4", url="https://v.test/a.mp4"),
                MediaPart("image/png", file_uri="files/abc"),
                ProviderPart("anthropic", {"type": "document"}),
                MediaPart("image/webp", data=b"img"),
            ),
        ),
        Message(
            "assistant",
            (
                ReasoningPart("signed", "anthropic", {"signature": "sig"}),
                TextPart("Seen."),
            ),
            provider="anthropic",
        ),
        Message(
            "tool",
            (ToolResultPart("c1", "shot", (MediaPart("image/png", data=b"x"),)),),
        ),
    ]
    native, drops = CODEC.render_with_drops(history)
    assert native[0]["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "data:image/webp;base64,aW1n"}},
    ]
    assert native[1] == {"role": "assistant", "content": "Seen."}
    assert native[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "[1 media item(s) omitted: Fireworks tool results are text only]",
    }
    assert drops == [
        DroppedPart(0, 1, "base64-application/pdf", "Fireworks takes images only"),
        DroppedPart(0, 2, "url-video/mp4", "Fireworks takes images only"),
        DroppedPart(0, 3, "file-image/png", "Fireworks takes no file references"),
        DroppedPart(0, 4, "provider-document", "a block of 'anthropic'"),
        DroppedPart(1, 0, "reasoning", "reasoning of 'anthropic' cannot be replayed"),
        DroppedPart(2, 0, "base64-image/png", "a Fireworks tool result is text only"),
    ]
    assert not caplog.records  # render_with_drops leaves the logging to its caller
    CODEC.render(history)
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == len(drops)


def test_anthropic_style_user_turn_with_results_splits_into_tool_then_user() -> None:
    mixed = Message(
        "user",
        (ToolResultPart("c1", "f", (TextPart("r"),)), TextPart("and now?")),
    )
    assert CODEC.render([mixed]) == [
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {"role": "user", "content": "and now?"},
    ]
