"""Property: any well-formed native history converts for any other provider.

Histories are generated as IR (text, images, reasoning of the source provider with its
signatures, provider-run blocks, rounds of parallel tool calls answered in any order) and
rendered with the source codec, so the conversion reads exactly what a session stores.
"""

from __future__ import annotations

import base64
import itertools
import re
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.agent.history_conversion import convert_history
from doc_processing_toolkit.application.container import build_history_codec, default_container
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

PROVIDERS = ("anthropic", "openai", "google", "fireworks")
PAIRS = list(itertools.permutations(PROVIDERS, 2))
ID_PATTERNS = {
    "anthropic": re.compile(r"^toolu_[A-Za-z0-9_-]+$"),
    "openai": re.compile(r"^call_[A-Za-z0-9_-]+$"),
    "fireworks": re.compile(r"^call_[A-Za-z0-9_-]+$"),
}
PLACEHOLDER = re.compile(r"^\[.+ omitted: ")
PNG = b"\x89PNG\r\n\x1a\n"

_text = st.text(st.characters(blacklist_characters="[", blacklist_categories=("Cs",)), max_size=12)
_names = st.sampled_from(["lookup", "fetch", "calc"])
_args = st.dictionaries(st.sampled_from(["q", "n", "flag"]), st.integers() | _text, max_size=2)
_signature = st.binary(min_size=1, max_size=12).map(
    lambda b: base64.urlsafe_b64encode(b).decode("ascii")
)
_image = st.binary(max_size=12).map(lambda b: MediaPart(mime_type="image/png", data=PNG + b))


def codec(provider: str) -> Any:
    found = build_history_codec(default_container(), provider)
    assert found is not None
    return found


def _reasoning(provider: str, text: str, signature: str) -> list[Part]:
    match provider:
        case "anthropic":
            return [ReasoningPart(text, "anthropic", {"signature": signature})]
        case "openai":
            item = {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": text}],
            }
            return [ReasoningPart(text, "openai", {"item": item})]
        case "google":
            return [
                ReasoningPart(text, "google", {"thought": True, "thought_signature": signature})
            ]
        case _:
            return [ReasoningPart(text, "fireworks")]


def _provider_part(provider: str) -> list[Part]:
    payload = {
        "anthropic": {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {},
        },
        "openai": {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        "google": {"executable_code": {"language": "PYTHON", "code": "print(1)"}},
    }.get(provider)
    return [ProviderPart(provider, payload)] if payload is not None else []


def _call(
    provider: str, round_: int, position: int, name: str, args: dict[str, Any], sig: str | None
) -> ToolCallPart:
    match provider:
        case "anthropic":
            return ToolCallPart(f"toolu_{round_}{position}", name, args)
        case "openai":
            return ToolCallPart(f"call_{round_}{position}", name, args)
        case "google":
            details: dict[str, Any] = {"id": None}  # Gemini 2.5: no ids on the wire
            if sig is not None:
                details["thought_signature"] = sig
            return ToolCallPart(f"gcall_{round_}{position}", name, args, {"google": details})
        case _:  # Kimi-style ids, reused in every round
            return ToolCallPart(f"functions.{name}:{position}", name, args)


@st.composite
def native_histories(draw: st.DrawFn, provider: str) -> list[dict[str, Any]]:
    messages: list[Message] = []
    for round_ in range(draw(st.integers(1, 3))):
        user: list[Part] = [TextPart(draw(_text))]
        user.extend(draw(st.lists(_image, max_size=1)))
        messages.append(Message("user", tuple(user)))
        assistant: list[Part] = []
        if draw(st.booleans()):
            assistant.extend(_reasoning(provider, draw(_text), draw(_signature)))
        if draw(st.booleans()):
            assistant.extend(_provider_part(provider))
        if draw(st.booleans()):
            assistant.append(TextPart(draw(_text)))
            if provider == "google" and draw(st.booleans()):  # Gemini signs the last part
                assistant.append(
                    ReasoningPart(
                        "", "google", {"thought_signature": draw(_signature), "signs": "previous"}
                    )
                )
        calls = [
            _call(provider, round_, i, draw(_names), draw(_args), draw(st.none() | _signature))
            for i in range(draw(st.integers(0, 2)))
        ]
        assistant.extend(calls)
        messages.append(Message("assistant", tuple(assistant) or (TextPart("ok"),), provider))
        if calls:
            order = list(calls) if provider == "google" else draw(st.permutations(calls))
            results = [ToolResultPart(c.id, c.name, (TextPart(draw(_text)),)) for c in order]
            messages.append(Message("tool", tuple(results)))
            messages.append(Message("assistant", (TextPart(draw(_text)),), provider))
    return list(codec(provider).render(messages))


def _expected_drops(parsed: list[Message], text_only: bool) -> Counter[str]:
    expected: Counter[str] = Counter()
    family = {
        "anthropic": "thinking",
        "openai": "reasoning",
        "fireworks": "reasoning_content",
    }
    for message in parsed:
        for part in message.parts:
            if isinstance(part, ReasoningPart):
                details = part.provider_details or {}
                if part.provider == "google":
                    expected["thought" if details.get("thought") else "thought_signature"] += 1
                else:
                    expected[family[str(part.provider)]] += 1
            elif isinstance(part, ProviderPart):
                artefact = {"anthropic": "provider_block", "openai": "provider_item"}
                expected[artefact.get(part.provider, "provider_part")] += 1
            elif isinstance(part, ToolCallPart):
                if ((part.provider_details or {}).get("google") or {}).get("thought_signature"):
                    expected["thought_signature"] += 1
            elif isinstance(part, MediaPart) and text_only:
                expected["media"] += 1
    return expected


def _texts(messages: list[Message]) -> str:
    out: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart) and not PLACEHOLDER.match(part.text):
                out.append(part.text)
            elif isinstance(part, ToolResultPart):
                out.append(part.text)
    return "".join(out)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, list[dict[str, Any]], list[str] | None]:
    source, target = draw(st.sampled_from(PAIRS))
    input_types = draw(st.sampled_from([None, ["text"], ["text", "image"]]))
    return source, target, draw(native_histories(source)), input_types


@settings(max_examples=150, deadline=None)
@given(cases())
def test_any_native_history_converts_for_any_other_provider(
    case: tuple[str, str, list[dict[str, Any]], list[str] | None],
) -> None:
    source, target, native, input_types = case
    source_ir = codec(source).parse(native)
    converted, report = convert_history(
        native, source=source, target=target, input_types=input_types
    )

    # native to the target: its codec reads it and gives it back unchanged
    parsed = codec(target).parse(converted)
    assert codec(target).render(parsed) == converted

    # nothing foreign left; the neutral text all crossed
    for message in parsed:
        for part in message.parts:
            if isinstance(part, ReasoningPart | ProviderPart):
                raise AssertionError(f"{part!r} crossed from {source} to {target}")
    assert _texts(parsed) == _texts(source_ir)

    # every drop reported with its artefact
    drops = Counter(e["artefact"] for e in report.drops)
    assert drops == _expected_drops(source_ir, input_types == ["text"])

    # tool rounds stay paired, ids follow the target's convention and are unique
    source_calls = [c for m in source_ir for c in m.tool_calls]
    target_calls = [c for m in parsed for c in m.tool_calls]
    assert [(c.name, c.arguments) for c in target_calls] == [
        (c.name, c.arguments) for c in source_calls
    ]
    open_ids: set[str] = set()
    for message in parsed:
        if message.role == "assistant":
            assert not open_ids
            open_ids = {c.id for c in message.tool_calls}
        for part in message.parts:
            if isinstance(part, ToolResultPart):
                open_ids.remove(part.call_id)
    assert not open_ids
    if target in ID_PATTERNS:
        assert all(ID_PATTERNS[target].match(c.id) for c in target_calls)
        assert len({c.id for c in target_calls}) == len(target_calls)

    # every re-key reported, and only re-keys
    changed = [
        (s.id, t.id) for s, t in zip(source_calls, target_calls, strict=True) if s.id != t.id
    ]
    assert [(e["from_id"], e["to_id"]) for e in report.rekeys] == changed

    # what is left is neutral: going back drops nothing more
    _, back = convert_history(converted, source=target, target=source)
    assert back.drops == []


# ---------------------------------------------------------------- A -> B -> A (issue 9)
def _results(messages: list[Message]) -> list[tuple[str, str]]:
    return [
        (part.name, part.text)
        for message in messages
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]


@settings(max_examples=100, deadline=None)
@given(cases())
def test_a_to_b_to_a_keeps_every_text_tool_call_and_result(
    case: tuple[str, str, list[dict[str, Any]], list[str] | None],
) -> None:
    source, target, native, _ = case
    source_ir = codec(source).parse(native)
    there, report_there = convert_history(native, source=source, target=target)
    back, report_back = convert_history(there, source=target, target=source)
    back_ir = codec(source).parse(back)

    assert codec(source).render(back_ir) == back  # native for the source again
    assert _texts(back_ir) == _texts(source_ir)
    assert [(c.name, c.arguments) for m in back_ir for c in m.tool_calls] == [
        (c.name, c.arguments) for m in source_ir for c in m.tool_calls
    ]
    assert _results(back_ir) == _results(source_ir)
    # every drop happened, and was reported, on the way out; the way back drops nothing
    assert Counter(e["artefact"] for e in report_there.drops) == _expected_drops(source_ir, False)
    assert report_back.drops == []


# ---------------------------------------------------------------- truncation (issue 9)
@st.composite
def provider_histories(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]]]:
    provider = draw(st.sampled_from(PROVIDERS))
    return provider, draw(native_histories(provider))


def _is_legal(messages: list[Message]) -> bool:
    """No tool call left unanswered, no result answering no earlier call."""
    seen: set[str] = set()
    open_ids: set[str] = set()
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                seen.add(part.id)
                open_ids.add(part.id)
            elif isinstance(part, ToolResultPart):
                if part.call_id not in seen:
                    return False
                open_ids.discard(part.call_id)
    return not open_ids


@settings(max_examples=100, deadline=None)
@given(provider_histories())
def test_truncation_at_every_point_is_a_legal_prefix_the_provider_accepts(
    case: tuple[str, list[dict[str, Any]]],
) -> None:
    from doc_processing_toolkit.application.session.native import NativeHistory, legal_cut
    from doc_processing_toolkit.testing.emulator.anthropic_wire import validate_request

    provider, native = case
    history = NativeHistory(codec(provider))
    for count in range(len(native) + 1):
        cut = legal_cut(history, native, count)
        assert 0 <= cut <= count
        prefix = native[:cut]  # a pure prefix cut: what stays is never rewritten
        parsed = codec(provider).parse(prefix)
        assert codec(provider).render(parsed) == prefix
        assert _is_legal(parsed)
        if provider == "anthropic" and prefix:
            body = {"model": "m", "max_tokens": 1, "messages": prefix}
            assert validate_request(body) is None
        # the cut is the longest legal prefix within count that ends on a whole message
        # (one IR message may span several native items: OpenAI's reasoning + its output)
        _, starts = history.spans(native)
        for longer in (k for k in starts if cut < k <= count):
            candidate = codec(provider).parse(native[:longer])
            assert not _is_legal(candidate), (provider, count, longer)
