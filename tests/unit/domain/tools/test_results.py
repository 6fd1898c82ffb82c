"""The tool-result cap, its marker, the default cap and the event preview."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.domain.messages import ContentPart, MediaPart, TextPart
from doc_processing_toolkit.domain.tools.results import (
    DEFAULT_TOOL_RESULT_PREVIEW_CHARS,
    TOOL_RESULT_CAP_CHARS_PER_TOKEN,
    TOOL_RESULT_CAP_CONTEXT_FRACTION,
    TOOL_RESULT_CAP_FLOOR_CHARS,
    cap_tool_result,
    default_cap,
    preview,
    resolve_cap,
    truncation_marker,
)

IMAGE = MediaPart(mime_type="image/png", data=b"\x89PNG\r\n\x1a\nfake")


def marker(shown: int, total: int) -> str:
    return (
        f"… [truncated: {shown} of {total} characters shown; "
        "raise max_tool_result_chars to keep more]"
    )


def test_constants() -> None:
    assert TOOL_RESULT_CAP_CHARS_PER_TOKEN == 4
    assert TOOL_RESULT_CAP_CONTEXT_FRACTION == 0.25
    assert TOOL_RESULT_CAP_FLOOR_CHARS == 128_000
    assert DEFAULT_TOOL_RESULT_PREVIEW_CHARS == 500


def test_default_cap_from_window() -> None:
    assert default_cap(200_000) == 200_000
    assert default_cap(1_000_000) == 1_000_000
    assert default_cap(None) == 128_000
    assert default_cap(0) == 128_000


def test_resolve_cap() -> None:
    assert resolve_cap(None, 200_000) == 200_000
    assert resolve_cap(None, None) == 128_000
    assert resolve_cap(0, 200_000) == 0
    assert resolve_cap(50_000, 200_000) == 50_000
    with pytest.raises(ValueError, match="non-negative"):
        resolve_cap(-1, 200_000)
    with pytest.raises(TypeError):
        resolve_cap(True, 200_000)
    with pytest.raises(TypeError):
        resolve_cap("100", 200_000)  # type: ignore[arg-type]


def test_marker_text_is_exact() -> None:
    assert truncation_marker(10, 25) == (
        "… [truncated: 10 of 25 characters shown; raise max_tool_result_chars to keep more]"
    )


def test_single_item_is_cut_with_the_marker() -> None:
    outcome = cap_tool_result((TextPart("abcdefghij"),), 4)
    assert outcome.truncated
    assert outcome.content == (TextPart("abcd" + marker(4, 10)),)
    assert (outcome.shown_chars, outcome.total_chars, outcome.cap) == (4, 10, 4)
    assert outcome.full_text == "abcdefghij"
    assert outcome.full_text[outcome.resume_offset :] == "efghij"


def test_text_items_are_counted_together_and_later_ones_dropped() -> None:
    content: tuple[ContentPart, ...] = (
        TextPart("aaaa"),
        IMAGE,
        TextPart("bbbb"),
        TextPart("cccc"),
        IMAGE,
        TextPart("dddd"),
    )
    outcome = cap_tool_result(content, 6)
    assert outcome.truncated
    assert outcome.content == (
        TextPart("aaaa"),
        IMAGE,
        TextPart("bb" + marker(6, 16)),
        IMAGE,
    )
    assert outcome.dropped_items == 2
    assert outcome.full_text == "aaaa\nbbbb\ncccc\ndddd"
    assert outcome.full_text[outcome.resume_offset :].startswith("bb\ncccc")


def test_result_at_the_cap_is_unchanged() -> None:
    content = (TextPart("abc"), TextPart("de"))
    outcome = cap_tool_result(content, 5)
    assert not outcome.truncated
    assert outcome.content is content
    assert outcome.full_text == ""


def test_crossing_item_may_keep_no_text() -> None:
    outcome = cap_tool_result((TextPart("abc"), TextPart("def")), 3)
    assert outcome.content == (TextPart("abc"), TextPart(marker(3, 6)))


def test_media_only_results_pass() -> None:
    content: tuple[ContentPart, ...] = (IMAGE, IMAGE)
    outcome = cap_tool_result(content, 1)
    assert not outcome.truncated
    assert outcome.content == content


def test_cap_zero_is_off() -> None:
    content = (TextPart("x" * 1_000_000),)
    outcome = cap_tool_result(content, 0)
    assert not outcome.truncated
    assert outcome.content is content
    assert outcome.total_chars == 1_000_000


def test_custom_marker_function() -> None:
    def read_back(shown: int, total: int) -> str:
        return f"… [cut at {shown}/{total}]"

    outcome = cap_tool_result((TextPart("0123456789"),), 3, marker=read_back)
    assert outcome.content == (TextPart("012… [cut at 3/10]"),)


def test_preview() -> None:
    assert preview("abcdef", 3) == ("abc", True)
    assert preview("abc", 3) == ("abc", False)
    assert preview("x" * 10_000, 0) == ("x" * 10_000, False)
    with pytest.raises(ValueError):
        preview("abc", -1)


_items = st.lists(
    st.one_of(st.text(max_size=40).map(TextPart), st.just(IMAGE)),
    max_size=8,
).map(tuple)


@settings(deadline=None)
@given(content=_items, cap=st.integers(min_value=1, max_value=120))
def test_shown_text_never_exceeds_the_cap(content: tuple[ContentPart, ...], cap: int) -> None:
    outcome = cap_tool_result(content, cap)
    total = sum(len(p.text) for p in content if isinstance(p, TextPart))
    assert outcome.total_chars == total
    media_in = [p for p in content if isinstance(p, MediaPart)]
    media_out = [p for p in outcome.content if isinstance(p, MediaPart)]
    assert media_out == media_in
    if total <= cap:
        assert not outcome.truncated
        assert outcome.content == content
        return
    assert outcome.truncated
    texts = [p.text for p in outcome.content if isinstance(p, TextPart)]
    suffix = marker(cap, total)
    assert texts[-1].endswith(suffix)
    shown = "".join(texts[:-1]) + texts[-1][: -len(suffix)]
    assert len(shown) == outcome.shown_chars == cap
    original = "".join(p.text for p in content if isinstance(p, TextPart))
    assert original.startswith(shown)
    assert outcome.full_text[outcome.resume_offset :].replace("\n", "") == original[cap:].replace(
        "\n", ""
    )
