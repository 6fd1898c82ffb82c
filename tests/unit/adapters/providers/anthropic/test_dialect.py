"""AnthropicHistoryCodec: lossless round trips (hypothesis) and the canonical rendering."""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.adapters.providers.anthropic.dialect import AnthropicHistoryCodec
from doc_processing_toolkit.domain.messages import (
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

CODEC = AnthropicHistoryCodec()

# -- strategies: native blocks -------------------------------------------------------------

_text = st.text(max_size=40)
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_ids = st.text(_ALNUM, min_size=6, max_size=12).map(lambda s: f"toolu_{s}")
_names = st.text(_ALNUM[:26] + "_", min_size=1, max_size=12).map(lambda s: f"t{s}")
_json_scalars = st.none() | st.booleans() | st.integers() | _text
_json = st.recursive(
    _json_scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_json_objects = st.dictionaries(_names, _json, max_size=4)
_b64 = st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii"))
_image_mimes = st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"])

text_block = st.builds(lambda t: {"type": "text", "text": t}, _text)
image_block = st.one_of(
    st.builds(
        lambda m, d: {"type": "image", "source": {"type": "base64", "media_type": m, "data": d}},
        _image_mimes,
        _b64,
    ),
    st.builds(
        lambda n: {"type": "image", "source": {"type": "url", "url": f"https://x.test/{n}.png"}},
        _names,
    ),
    st.builds(
        lambda n: {"type": "image", "source": {"type": "file", "file_id": f"file_{n}"}}, _names
    ),
)


def _document(source: dict[str, Any], title: str | None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "document", "source": source}
    if title is not None:
        block["title"] = title
    return block


document_block = st.builds(
    _document,
    st.one_of(
        st.builds(lambda d: {"type": "base64", "media_type": "application/pdf", "data": d}, _b64),
        st.builds(lambda t: {"type": "text", "media_type": "text/plain", "data": t}, _text),
        st.builds(lambda n: {"type": "url", "url": f"https://x.test/{n}.pdf"}, _names),
    ),
    st.none() | _text,
)
thinking_block = st.builds(
    lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, _text, _b64 | _text
)
redacted_block = st.builds(lambda d: {"type": "redacted_thinking", "data": d}, _b64)


def _tool_use(call_id: str, name: str, args: dict[str, Any], caller: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_use", "id": call_id, "name": name, "input": args}
    if caller:
        block["caller"] = {"type": "direct"}
    return block


tool_use_block = st.builds(_tool_use, _ids, _names, _json_objects, st.booleans())
server_blocks = st.one_of(
    st.builds(
        lambda i, q: {
            "type": "server_tool_use",
            "id": f"srvtoolu_{i}",
            "name": "web_search",
            "input": {"query": q},
        },
        _names,
        _text,
    ),
    st.builds(
        lambda i: {
            "type": "web_search_tool_result",
            "tool_use_id": f"srvtoolu_{i}",
            "content": [{"type": "web_search_result", "url": "https://x.test", "title": "t"}],
        },
        _names,
    ),
    # a text block the IR cannot hold exactly (citations) stays verbatim
    st.builds(
        lambda t: {"type": "text", "text": t, "citations": [{"type": "char_location"}]}, _text
    ),
    # non-canonical base64 stays verbatim too
    st.just(
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA\nAA"}}
    ),
)


def _tool_result(call_id: str, content: list[dict[str, Any]], error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if error:
        block["is_error"] = True
    return block


tool_result_block = st.builds(
    _tool_result, _ids, st.lists(text_block | image_block, max_size=3), st.booleans()
)

assistant_message = st.builds(
    lambda blocks: {"role": "assistant", "content": blocks},
    st.lists(
        thinking_block | redacted_block | text_block | tool_use_block | server_blocks, max_size=5
    ),
)
_user_blocks = st.lists(
    text_block | image_block | document_block | tool_result_block | server_blocks, max_size=4
).filter(
    lambda blocks: (
        not (len(blocks) == 1 and blocks[0] == {"type": "text", "text": blocks[0].get("text")})
    )
)
user_message = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, _text),
    st.builds(lambda blocks: {"role": "user", "content": blocks}, _user_blocks),
    st.builds(
        lambda blocks: {"role": "user", "content": blocks}, st.lists(tool_result_block, min_size=1)
    ),
)
native_history = st.lists(user_message | assistant_message, max_size=6)


@settings(max_examples=200, deadline=None)
@given(native_history)
def test_render_parse_is_lossless_for_native_histories(native: list[dict[str, Any]]) -> None:
    assert CODEC.render(CODEC.parse(native)) == native


# -- strategies: IR --------------------------------------------------------------------------

_media = st.one_of(
    st.builds(lambda m, d: MediaPart(m, data=d), _image_mimes, st.binary(max_size=16)),
    st.builds(
        lambda d, f: MediaPart("application/pdf", data=d, filename=f),
        st.binary(max_size=16),
        st.none() | _text,
    ),
    st.builds(lambda t: MediaPart("text/plain", data=t.encode()), _text),
    st.builds(lambda n: MediaPart("image/png", url=f"https://x.test/{n}.png"), _names),
    st.builds(lambda n: MediaPart("application/pdf", url=f"https://x.test/{n}"), _names),
    st.builds(lambda n: MediaPart("image/*", file_uri=f"file_{n}"), _names),
    st.builds(lambda n: MediaPart("application/pdf", file_uri=f"file_{n}"), _names),
)
_reasoning = st.one_of(
    st.builds(lambda t, s: ReasoningPart(t, "anthropic", {"signature": s}), _text, _text),
    st.builds(lambda d: ReasoningPart("", "anthropic", {"redacted_data": d}), _b64),
)
_provider_part = st.builds(
    lambda n: ProviderPart(
        "anthropic", {"type": "server_tool_use", "id": n, "name": "x", "input": {}}
    ),
    _names,
)


@st.composite
def ir_history(draw: st.DrawFn) -> list[Message]:
    """User, assistant and tool turns the codec supports, tool results naming their calls."""
    messages: list[Message] = []
    for _ in range(draw(st.integers(0, 4))):
        user_parts = draw(st.lists(st.builds(TextPart, _text) | _media, max_size=3))
        messages.append(Message("user", tuple(user_parts)))
        calls = draw(
            st.lists(
                st.builds(
                    lambda i, n, a, extra: ToolCallPart(
                        i, n, a, {"anthropic": {"caller": {"type": "direct"}}} if extra else None
                    ),
                    _ids,
                    _names,
                    _json_objects,
                    st.booleans(),
                ),
                max_size=2,
                unique_by=lambda c: c.id,
            )
        )
        extras: list[Part] = draw(
            st.lists(_reasoning | st.builds(TextPart, _text) | _provider_part, max_size=3)
        )
        messages.append(Message("assistant", (*extras, *calls), provider="anthropic"))
        if calls:
            results = tuple(
                ToolResultPart(
                    c.id,
                    c.name,
                    tuple(draw(st.lists(st.builds(TextPart, _text) | _media, max_size=2))),
                    is_error=draw(st.booleans()),
                )
                for c in calls
            )
            messages.append(Message("tool", results))
    return messages


@settings(max_examples=150, deadline=None)
@given(ir_history())
def test_ir_render_parse_round_trip(history: list[Message]) -> None:
    assert CODEC.parse(CODEC.render(history)) == history


# -- the canonical rendering, example by example -----------------------------------------------


def test_codec_satisfies_the_port() -> None:
    assert isinstance(CODEC, HistoryCodec)
    assert CODEC.provider == "anthropic"


def test_tool_results_render_as_a_user_turn_and_parse_back_as_tool() -> None:
    call = ToolCallPart("toolu_1", "add", {"a": 1})
    history = [
        Message("assistant", (call,), provider="anthropic"),
        Message("tool", (ToolResultPart("toolu_1", "add", (TextPart("2"),), is_error=True),)),
    ]
    native = CODEC.render(history)
    assert native[1] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": [{"type": "text", "text": "2"}],
                "is_error": True,
            }
        ],
    }
    assert CODEC.parse(native) == history


def test_string_content_and_media_blocks() -> None:
    pdf = MediaPart("application/pdf", data=b"%PDF", filename="a.pdf")
    native = CODEC.render([Message("user", (TextPart("look"), pdf))])
    assert native == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {
                    "type": "document",
                    "source": {
                        "type": "base64",
                        "media_type": "application/pdf",
                        "data": "JVBERg==",
                    },
                    "title": "a.pdf",
                },
            ],
        }
    ]
    assert CODEC.parse([{"role": "user", "content": "hi"}]) == [Message("user", (TextPart("hi"),))]


def test_tool_result_with_string_content_parses_to_text() -> None:
    native = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        },
    ]
    parsed = CODEC.parse(native)
    assert parsed[1] == Message("tool", (ToolResultPart("t1", "f", (TextPart("ok"),)),))
    # other spellings of the same result parse alike and render in the canonical form
    native[1]["content"][0]["is_error"] = False
    assert CODEC.parse(native) == parsed
    assert CODEC.render(parsed)[1]["content"][0]["content"] == [{"type": "text", "text": "ok"}]


def test_foreign_reasoning_and_blocks_are_dropped_with_a_warning() -> None:
    message = Message(
        "assistant",
        (
            ReasoningPart("thought", "google", {"thought_signature": "x"}),
            ProviderPart("openai", {"type": "reasoning"}),
            TextPart("answer"),
        ),
        provider="google",
    )
    assert CODEC.render([message]) == [
        {"role": "assistant", "content": [{"type": "text", "text": "answer"}]}
    ]
