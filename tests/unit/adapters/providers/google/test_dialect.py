"""GoogleHistoryCodec: lossless round trips (hypothesis) and the canonical rendering."""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.adapters.providers.google.dialect import (
    GoogleHistoryCodec,
    call_id_for,
    native_part_to_parts,
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
    user_text,
)
from doc_processing_toolkit.ports.dialect import HistoryCodec

CODEC = GoogleHistoryCodec()

# -- strategies: native Gemini parts ------------------------------------------------------

_text = st.text(max_size=30)
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_names = st.sampled_from(["lookup", "fetch", "calc"])
_ids = st.text(_ALNUM, min_size=4, max_size=10).map(lambda s: f"call_{s}")
_json_scalars = st.none() | st.booleans() | st.integers() | _text
_json = st.recursive(
    _json_scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_args = st.dictionaries(st.text(_ALNUM, min_size=1, max_size=6), _json, max_size=3)
_b64 = st.binary(max_size=24).map(lambda b: base64.urlsafe_b64encode(b).decode("ascii"))
_signatures = _b64 | st.sampled_from(["not base64!", "AAEC+/8=", "QUJD", "QUJ", "AA=="])
_mimes = st.sampled_from(["image/png", "image/jpeg", "application/pdf", "audio/wav"])


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    return part if signature is None else {**part, "thought_signature": signature}


_maybe_sig = st.none() | _signatures
text_part = st.builds(lambda t, s: _signed({"text": t}, s), _text, _maybe_sig)
thought_part = st.builds(lambda t, s: _signed({"text": t, "thought": True}, s), _text, _maybe_sig)
bare_signature = st.builds(lambda s: {"thought_signature": s}, _signatures)
inline_part = st.builds(
    lambda m, d, s: _signed({"inline_data": {"mime_type": m, "data": d}}, s),
    _mimes,
    _b64,
    _maybe_sig,
)
file_part = st.builds(
    lambda m, n: {"file_data": {"mime_type": m, "file_uri": f"https://x.test/files/{n}"}},
    _mimes,
    st.text(_ALNUM, min_size=1, max_size=8),
)
odd_parts = st.sampled_from(
    [
        {"executable_code": {"language": "PYTHON", "code": "print(1)"}},
        {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {"text": "x", "video_metadata": {"fps": 1.0}},
        {"thought": True, "thought_signature": "QUJD"},
        {"text": "y", "thought": False},
        {"inline_data": {"mime_type": "image/png", "data": "AAEC", "display_name": "a.png"}},
        {"file_data": {"file_uri": "https://www.youtube.com/watch?v=x"}},
        {},
    ]
)


@st.composite
def function_call_part(draw: st.DrawFn) -> dict[str, Any]:
    call: dict[str, Any] = {"name": draw(_names)}
    if draw(st.booleans()):
        call["args"] = draw(_args)
    if draw(st.booleans()):
        call["id"] = draw(_ids)
    return _signed({"function_call": call}, draw(_maybe_sig))


_response_bodies = st.one_of(
    st.builds(lambda t: {"result": t}, _text),
    st.builds(lambda t: {"error": t}, _text),
    st.just({"temperature": 21}),
    st.just({"result": 5}),
)
_response_media = st.lists(
    st.builds(lambda m, d: {"inline_data": {"mime_type": m, "data": d}}, _mimes, _b64) | file_part,
    max_size=2,
)

user_part = text_part | inline_part | file_part
model_part = text_part | thought_part | bare_signature | inline_part | odd_parts


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        contents.append({"role": "user", "parts": draw(st.lists(user_part, max_size=3))})
        calls = draw(st.lists(function_call_part(), max_size=3))
        parts = draw(st.lists(model_part, max_size=4)) + calls
        contents.append({"role": "model", "parts": parts})
        if not calls:
            continue
        responses = []
        for call in calls:
            fc = call["function_call"]
            response: dict[str, Any] = {"name": fc["name"], "response": draw(_response_bodies)}
            if "id" in fc and draw(st.integers(0, 9)) > 0:
                response["id"] = fc["id"]
            media = draw(_response_media)
            if media:
                response["parts"] = media
            responses.append({"function_response": response})
        contents.append({"role": "user", "parts": responses})
    return contents


# -- properties ---------------------------------------------------------------------------


def test_codec_satisfies_the_port() -> None:
    assert isinstance(CODEC, HistoryCodec)
    assert CODEC.provider == "google"


@settings(max_examples=150, deadline=None)
@given(conversations())
def test_native_round_trip_is_lossless(native: list[dict[str, Any]]) -> None:
    parsed = CODEC.parse(native)
    assert CODEC.render(parsed) == native
    assert CODEC.parse(CODEC.render(parsed)) == parsed


@settings(max_examples=80, deadline=None)
@given(conversations())
def test_persisted_ir_renders_the_same_contents(native: list[dict[str, Any]]) -> None:
    parsed = CODEC.parse(native)
    stored = MESSAGES_ADAPTER.dump_json(parsed)
    assert CODEC.render(MESSAGES_ADAPTER.validate_json(stored)) == native


@settings(max_examples=80, deadline=None)
@given(st.lists(model_part | function_call_part(), max_size=6))
def test_every_model_part_round_trips_alone(parts: list[dict[str, Any]]) -> None:
    native = [{"role": "user", "parts": [{"text": "q"}]}, {"role": "model", "parts": parts}]
    assert CODEC.render(CODEC.parse(native)) == native


# -- the canonical mapping ----------------------------------------------------------------


def test_signed_text_keeps_its_text_and_signature() -> None:
    native = [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "Hello", "thought_signature": "c2ln"}]},
    ]
    (_, model) = CODEC.parse(native)
    assert model.text == "Hello"
    assert model.parts == (
        TextPart("Hello"),
        ReasoningPart("", "google", {"thought_signature": "c2ln", "signs": "previous"}),
    )
    assert CODEC.render([user_text("hi"), model]) == native


def test_thought_summary_is_reasoning() -> None:
    native: list[dict[str, Any]] = [{"role": "model", "parts": [{"text": "hmm", "thought": True}]}]
    (model,) = CODEC.parse(native)
    assert model.reasoning == "hmm" and model.text == ""
    assert model.parts == (ReasoningPart("hmm", "google", {"thought": True}),)


def test_idless_calls_get_stable_ids_and_responses_pair_by_name_in_order() -> None:
    native: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"text": "go"}]},
        {
            "role": "model",
            "parts": [
                {"function_call": {"name": "calc", "args": {"x": 1}}, "thought_signature": "QUJD"},
                {"function_call": {"name": "calc", "args": {"x": 2}}},
                {"function_call": {"name": "fetch", "args": {}, "id": "f1"}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"function_response": {"name": "calc", "response": {"result": "1"}}},
                {"function_response": {"name": "calc", "response": {"error": "boom"}}},
                {"function_response": {"name": "fetch", "id": "f1", "response": {"result": ""}}},
            ],
        },
    ]
    first = CODEC.parse(native)
    assert CODEC.parse(native) == first  # stable ids
    calls = first[1].tool_calls
    assert [c.arguments for c in calls] == [{"x": 1}, {"x": 2}, {}]
    assert calls[0].id.startswith("gcall_") and calls[0].id != calls[1].id
    assert calls[0].provider_details == {"google": {"id": None, "thought_signature": "QUJD"}}
    assert calls[1].provider_details == {"google": {"id": None}}
    assert calls[2].id == "f1" and calls[2].provider_details is None
    tool = first[2]
    assert tool.role == "tool"
    results = [p for p in tool.parts if isinstance(p, ToolResultPart)]
    assert [r.call_id for r in results] == [c.id for c in calls]
    assert [r.is_error for r in results] == [False, True, False]
    assert CODEC.render(first) == native


def test_ir_tool_round_renders_ids_and_media() -> None:
    messages = [
        user_text("look"),
        Message(
            "assistant",
            (ToolCallPart("call_1", "snap", {"zoom": 2}),),
            provider="anthropic",
        ),
        Message(
            "tool",
            (
                ToolResultPart(
                    "call_1",
                    "snap",
                    (TextPart("a"), TextPart("b"), MediaPart("image/png", data=b"\x89PNG")),
                ),
            ),
        ),
    ]
    rendered = CODEC.render(messages)
    assert rendered[1] == {
        "role": "model",
        "parts": [{"function_call": {"name": "snap", "args": {"zoom": 2}, "id": "call_1"}}],
    }
    assert rendered[2] == {
        "role": "user",
        "parts": [
            {
                "function_response": {
                    "name": "snap",
                    "id": "call_1",
                    "response": {"result": "a\nb"},
                    "parts": [{"inline_data": {"mime_type": "image/png", "data": "iVBORw=="}}],
                }
            }
        ],
    }


def test_other_providers_reasoning_and_blocks_are_dropped() -> None:
    message = Message(
        "assistant",
        (
            ReasoningPart("thinking", "anthropic", {"signature": "x"}),
            ProviderPart("anthropic", {"type": "server_tool_use"}),
            TextPart("answer"),
        ),
        provider="anthropic",
    )
    assert CODEC.render([message]) == [{"role": "model", "parts": [{"text": "answer"}]}]


def test_media_url_renders_as_file_data() -> None:
    message = Message("user", (MediaPart("image/png", url="https://x.test/a.png"),))
    assert CODEC.render([message])[0]["parts"] == [
        {"file_data": {"mime_type": "image/png", "file_uri": "https://x.test/a.png"}}
    ]


def test_non_canonical_parts_stay_verbatim() -> None:
    part = {"text": "x", "thought_signature": "AAEC+/8_-w=="}  # mixed base64 alphabets
    (only,) = native_part_to_parts(part)
    assert only == ProviderPart("google", part)


def test_native_form_is_the_sdks_json_dump() -> None:
    from google.genai import types

    signature, image = b"\xfb\xff\xfe", b"\xff\xfe\x00"
    content = types.Content(
        role="model",
        parts=[
            types.Part(text="Done.", thought_signature=signature),
            types.Part(inline_data=types.Blob(mime_type="image/png", data=image)),
        ],
    )
    native = [content.model_dump(mode="json", exclude_none=True)]
    (message,) = CODEC.parse(native)
    assert message.parts == (
        TextPart("Done."),
        ReasoningPart("", "google", {"thought_signature": "-__-", "signs": "previous"}),
        MediaPart("image/png", data=image),
    )
    assert CODEC.render([message]) == native
    assert types.Content.model_validate(native[0]) == content
    assert call_id_for("x") == call_id_for("x") != call_id_for("y")
