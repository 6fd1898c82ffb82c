"""OpenAIHistoryCodec: lossless round trips (hypothesis), grouping, envelopes, rendering."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.adapters.providers.openai.dialect import (
    ENVELOPE_TYPE,
    OpenAIHistoryCodec,
)
from doc_processing_toolkit.domain.messages import (
    MESSAGES_ADAPTER,
    MediaPart,
    Message,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    assistant_text,
    user_text,
)
from doc_processing_toolkit.ports.dialect import HistoryCodec

CODEC = OpenAIHistoryCodec()

# -- strategies: native items ----------------------------------------------------------------

_text = st.text(max_size=30)
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_ids = st.text(_ALNUM, min_size=4, max_size=10)
_names = st.text(_ALNUM[:26] + "_", min_size=1, max_size=10).map(lambda s: f"t{s}")
_json_scalars = st.none() | st.booleans() | st.integers() | _text
_json = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_json_objects = st.dictionaries(_names, _json, max_size=3)
_b64 = st.binary(max_size=16).map(lambda b: base64.b64encode(b).decode("ascii"))
_image_mimes = st.sampled_from(["image/png", "image/jpeg", "image/webp"])
_details = st.sampled_from(["auto", "auto", "low", "high"])

input_text = st.builds(lambda t: {"type": "input_text", "text": t}, _text)
input_image = st.one_of(
    st.builds(
        lambda m, d, det: {
            "type": "input_image",
            "image_url": f"data:{m};base64,{d}",
            "detail": det,
        },
        _image_mimes,
        _b64,
        _details,
    ),
    st.builds(
        lambda n, det: {
            "type": "input_image",
            "image_url": f"https://x.test/{n}.png",
            "detail": det,
        },
        _names,
        _details,
    ),
    st.builds(lambda n: {"type": "input_image", "file_id": f"file-{n}", "detail": "auto"}, _names),
)
input_file = st.one_of(
    st.builds(
        lambda d, f: {
            "type": "input_file",
            "filename": f,
            "file_data": f"data:application/pdf;base64,{d}",
        },
        _b64,
        _names.map(lambda n: f"{n}.pdf"),
    ),
    st.builds(lambda n: {"type": "input_file", "file_url": f"https://x.test/{n}.pdf"}, _names),
    st.builds(lambda n: {"type": "input_file", "file_id": f"file-{n}"}, _names),
)
input_entry = st.one_of(input_text, input_text, input_image, input_file)


def _user(content: Any, typed: bool) -> dict[str, Any]:
    item: dict[str, Any] = {"role": "user", "content": content}
    if typed:
        item = {"type": "message", **item}
    return item


user_message = st.builds(
    _user, _text | st.lists(input_entry, min_size=1, max_size=3), st.booleans()
)
developer_message = st.builds(
    lambda r, t: {"role": r, "content": t}, st.sampled_from(["developer", "system"]), _text
)


def _output_text(text: str, extra: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "output_text", "text": text, "annotations": []}
    if extra:
        entry = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    return entry


def _assistant(entries: list[dict[str, Any]], msg_id: str | None, phase: bool) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "message", "role": "assistant", "content": entries}
    if msg_id is not None:
        item = {"id": f"msg_{msg_id}", **item, "status": "completed"}
    if phase:
        item["phase"] = "final_answer"
    return item


assistant_message = st.builds(
    _assistant,
    st.lists(
        st.builds(_output_text, _text, st.booleans())
        | st.builds(lambda r: {"type": "refusal", "refusal": r}, _text),
        min_size=1,
        max_size=2,
    ),
    st.none() | _ids,
    st.booleans(),
)


def _reasoning(rs_id: str, summaries: list[str], blob: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": f"rs_{rs_id}",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": s} for s in summaries],
    }
    if blob is not None:
        item["encrypted_content"] = blob
    return item


reasoning_item = st.builds(_reasoning, _ids, st.lists(_text, max_size=2), st.none() | _b64)


def _function_call(call_id: str, name: str, args: dict[str, Any], style: int) -> dict[str, Any]:
    if style == 0:  # the codec's own compact rendering
        arguments = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
    arguments = json.dumps(args)  # spaced, ASCII-escaped: kept verbatim
    return {
        "id": f"fc_{call_id}",
        "type": "function_call",
        "status": "completed",
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


function_call = st.builds(
    _function_call, _ids.map(lambda s: f"call_{s}"), _names, _json_objects, st.integers(0, 1)
)
function_call_output = st.builds(
    lambda c, o: {"type": "function_call_output", "call_id": c, "output": o},
    _ids.map(lambda s: f"call_{s}"),
    _text | st.lists(st.one_of(input_text, input_image), max_size=3),
)
other_items = st.one_of(
    st.builds(
        lambda i, q: {
            "type": "web_search_call",
            "id": f"ws_{i}",
            "status": "completed",
            "action": {"type": "search", "query": q},
        },
        _ids,
        _text,
    ),
    st.builds(
        lambda i, n: {
            "type": "mcp_call",
            "id": f"mcp_{i}",
            "server_label": "docs",
            "name": n,
            "arguments": "{}",
            "output": "ok",
        },
        _ids,
        _names,
    ),
    st.builds(lambda i: {"type": "item_reference", "id": f"msg_{i}"}, _ids),
    # a function_call whose arguments are not a JSON object stays verbatim
    st.builds(
        lambda c: {"type": "function_call", "call_id": c, "name": "f", "arguments": "[1]"}, _ids
    ),
)
any_item = st.one_of(
    user_message,
    developer_message,
    assistant_message,
    reasoning_item,
    function_call,
    function_call_output,
    other_items,
)


# -- round trips ---------------------------------------------------------------------------------


def test_codec_satisfies_the_port() -> None:
    assert isinstance(CODEC, HistoryCodec)
    assert CODEC.provider == "openai"


@settings(max_examples=300, deadline=None)
@given(st.lists(any_item, max_size=8))
def test_render_parse_round_trip_is_lossless(items: list[dict[str, Any]]) -> None:
    messages = CODEC.parse(items)
    assert CODEC.render(messages) == items


@settings(max_examples=150, deadline=None)
@given(st.lists(any_item, max_size=8))
def test_parse_is_stable_and_persists(items: list[dict[str, Any]]) -> None:
    messages = CODEC.parse(items)
    assert CODEC.parse(CODEC.render(messages)) == messages
    restored = MESSAGES_ADAPTER.validate_json(MESSAGES_ADAPTER.dump_json(messages))
    assert CODEC.render(restored) == items


@settings(max_examples=100, deadline=None)
@given(st.lists(_text, min_size=1, max_size=3), _ids)
def test_envelope_keeps_text_visible(texts: list[str], msg_id: str) -> None:
    item = _assistant([_output_text(t, True) for t in texts], msg_id, True)
    (message,) = CODEC.parse([item])
    assert message.role == "assistant" and message.provider == "openai"
    assert message.text == "".join(texts)
    envelope = message.parts[0]
    assert isinstance(envelope, ProviderPart) and envelope.payload["type"] == ENVELOPE_TYPE
    assert CODEC.render([message]) == [item]


# -- grouping ----------------------------------------------------------------------------------


def test_items_group_into_turns() -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "blob"},
        {"type": "message", "role": "assistant", "content": [_output_text("let me", False)]},
        _function_call("call_1", "f", {"a": 1}, 0),
        _function_call("call_2", "g", {}, 0),
        {"type": "function_call_output", "call_id": "call_1", "output": "one"},
        {"type": "function_call_output", "call_id": "call_2", "output": "two"},
        {"type": "message", "role": "assistant", "content": [_output_text("done", False)]},
        {"role": "user", "content": "next"},
        {"role": "user", "content": "and more"},
    ]
    messages = CODEC.parse(items)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant", "user", "user"]
    assistant = messages[1]
    assert [type(p) for p in assistant.parts] == [
        ReasoningPart,
        TextPart,
        ToolCallPart,
        ToolCallPart,
    ]
    assert assistant.text == "let me"
    assert [c.id for c in assistant.tool_calls] == ["call_1", "call_2"]
    assert assistant.tool_calls[0].arguments == {"a": 1}
    tool = messages[2]
    assert [p.name for p in tool.parts if isinstance(p, ToolResultPart)] == ["f", "g"]
    assert [p.text for p in tool.parts if isinstance(p, ToolResultPart)] == ["one", "two"]
    assert CODEC.render(messages) == items


def test_adjacent_assistant_messages_stay_separate_items() -> None:
    items = [
        {"type": "message", "role": "assistant", "content": [_output_text("a", False)]},
        {"type": "message", "role": "assistant", "content": [_output_text("b", False)]},
    ]
    messages = CODEC.parse(items)
    assert len(messages) == 2
    assert CODEC.render(messages) == items


def test_reasoning_item_is_kept_whole() -> None:
    item = _reasoning("abc", ["first", "second"], "gAAAA-opaque")
    (message,) = CODEC.parse([item])
    (part,) = message.parts
    assert isinstance(part, ReasoningPart)
    assert part.text == "first\n\nsecond" and part.provider == "openai"
    assert part.provider_details == {"item": item}
    assert CODEC.render([message]) == [item]


def test_developer_messages_stay_verbatim() -> None:
    item = {"role": "developer", "content": "Be terse."}
    (message,) = CODEC.parse([item])
    assert message.role == "user" and message.parts == (ProviderPart("openai", item),)


# -- IR -> items ---------------------------------------------------------------------------------


def test_render_ir_conversation() -> None:
    png = b"\x89PNG"
    messages = [
        Message(
            "user",
            (
                TextPart("look"),
                MediaPart("image/png", data=png),
                MediaPart("application/pdf", data=b"%PDF", filename="a.pdf"),
                MediaPart("application/pdf", url="https://x.test/b.pdf"),
            ),
        ),
        Message(
            "assistant",
            (
                ReasoningPart("thought", "anthropic", {"signature": "sig"}),
                TextPart("calling"),
                ToolCallPart("call_9", "lookup", {"q": "é"}),
            ),
            provider="anthropic",
        ),
        Message(
            "tool",
            (ToolResultPart("call_9", "lookup", (TextPart("found"),), is_error=True),),
        ),
    ]
    b64 = base64.b64encode(png).decode()
    assert CODEC.render(messages) == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "look"},
                {
                    "type": "input_image",
                    "image_url": f"data:image/png;base64,{b64}",
                    "detail": "auto",
                },
                {
                    "type": "input_file",
                    "filename": "a.pdf",
                    "file_data": "data:application/pdf;base64,JVBERg==",
                },
                {"type": "input_file", "file_url": "https://x.test/b.pdf"},
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "calling", "annotations": []}],
        },
        {"type": "function_call", "call_id": "call_9", "name": "lookup", "arguments": '{"q":"é"}'},
        {"type": "function_call_output", "call_id": "call_9", "output": "found"},
    ]


def test_single_text_user_message_is_a_string() -> None:
    assert CODEC.render([user_text("hi")]) == [{"role": "user", "content": "hi"}]
    assert CODEC.parse([{"role": "user", "content": "hi"}]) == [user_text("hi")]
    assert CODEC.parse(CODEC.render([assistant_text("yo", "openai")])) == [
        assistant_text("yo", "openai")
    ]


def test_tool_call_with_edited_arguments_renders_fresh() -> None:
    item = _function_call("call_1", "f", {"a": 1}, 1)
    (message,) = CODEC.parse([item])
    call = message.tool_calls[0]
    assert call.provider_details == {"openai": {"item": item}}
    edited = ToolCallPart(call.id, call.name, {"a": 2}, call.provider_details)
    assert CODEC.render([Message("assistant", (edited,))]) == [
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": '{"a":2}'}
    ]


def test_tool_result_with_media_renders_a_list() -> None:
    result = ToolResultPart(
        "call_1", "shot", (TextPart("here"), MediaPart("image/png", url="https://x.test/s.png"))
    )
    assert CODEC.render([Message("tool", (result,))]) == [
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "here"},
                {"type": "input_image", "image_url": "https://x.test/s.png", "detail": "auto"},
            ],
        }
    ]


def test_other_providers_blocks_are_dropped_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    message = Message(
        "assistant",
        (
            ProviderPart("anthropic", {"type": "server_tool_use", "id": "srvtoolu_1"}),
            ReasoningPart("", "google", {"thought_signature": "x"}),
            MediaPart("image/png", data=b"x"),
            TextPart("kept"),
        ),
    )
    with caplog.at_level(logging.WARNING):
        rendered = CODEC.render([message])
    assert rendered == [
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "kept", "annotations": []}],
        }
    ]


def test_non_object_items_are_refused() -> None:
    with pytest.raises(ValueError, match="must be an object"):
        CODEC.parse(["not an item"])  # type: ignore[list-item]
