"""Cross-provider history conversion: every ordered pair, the report, the refusals."""

from __future__ import annotations

import base64
import copy
import itertools
import json
import logging
from datetime import datetime
from typing import Any

import pytest

from doc_processing_toolkit.agent import history_conversion as hc
from doc_processing_toolkit.agent.history_conversion import (
    ConversionReport,
    SessionCompatibilityError,
    convert_history,
    decode_media_bytes,
    google_part_kind,
    iter_google_parts,
    read_history,
    summarize_report,
    write_history,
)
from doc_processing_toolkit.application.container import build_history_codec, default_container
from doc_processing_toolkit.domain import errors
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

PROVIDERS = ("anthropic", "openai", "google", "fireworks")
PAIRS = list(itertools.permutations(PROVIDERS, 2))

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(16))
PNG_B64 = base64.b64encode(PNG).decode()
PNG_URLSAFE = base64.urlsafe_b64encode(PNG).decode()
SIG = base64.urlsafe_b64encode(b"gemini-signature-1").decode()
SIG2 = base64.urlsafe_b64encode(b"gemini-signature-2").decode()
QUESTION = "Weather in Paris and Rome? See the map."
CHECK = "Let me check."
ANSWER = "Paris 18C, Rome 24C."

# -- one native history per provider: text, image, reasoning, 2 parallel calls, a
#    provider-run block, a final answer ---------------------------------------------------

ANTHROPIC: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": QUESTION},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
            },
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Two cities.", "signature": "sig-abc"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": CHECK},
            {
                "type": "tool_use",
                "id": "toolu_01A",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
            {
                "type": "tool_use",
                "id": "toolu_01B",
                "name": "get_weather",
                "input": {"city": "Rome"},
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01A",
                "content": [{"type": "text", "text": "18C"}],
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01B",
                "content": [{"type": "text", "text": "24C"}],
            },
        ],
    },
    {
        "role": "assistant",
        "content": [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "Rome forecast"},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [{"type": "web_search_result", "url": "https://w.test", "title": "t"}],
            },
            {"type": "text", "text": ANSWER},
        ],
    },
]

OPENAI: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "input_text", "text": QUESTION},
            {
                "type": "input_image",
                "image_url": "data:image/png;base64," + PNG_B64,
                "detail": "auto",
            },
        ],
    },
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Two cities."}],
        "encrypted_content": "gAAAAencrypted",
    },
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": CHECK, "annotations": []}],
    },
    {
        "type": "function_call",
        "call_id": "call_A",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
    },
    {
        "type": "function_call",
        "call_id": "call_B",
        "name": "get_weather",
        "arguments": '{"city":"Rome"}',
    },
    {"type": "function_call_output", "call_id": "call_A", "output": "18C"},
    {"type": "function_call_output", "call_id": "call_B", "output": "24C"},
    {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "Rome forecast"},
    },
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_2",
        "status": "completed",
        "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
    },
]

GOOGLE: list[dict[str, Any]] = [
    {
        "role": "user",
        "parts": [
            {"text": QUESTION},
            {"inline_data": {"mime_type": "image/png", "data": PNG_URLSAFE}},
        ],
    },
    {
        "role": "model",
        "parts": [
            {"text": "Two cities.", "thought": True},
            {"text": CHECK},
            {
                "function_call": {"name": "get_weather", "args": {"city": "Paris"}, "id": "fc_1"},
                "thought_signature": SIG,
            },
            {"function_call": {"name": "get_weather", "args": {"city": "Rome"}, "id": "fc_2"}},
        ],
    },
    {
        "role": "user",
        "parts": [
            {
                "function_response": {
                    "name": "get_weather",
                    "response": {"result": "18C"},
                    "id": "fc_1",
                }
            },
            {
                "function_response": {
                    "name": "get_weather",
                    "response": {"result": "24C"},
                    "id": "fc_2",
                }
            },
        ],
    },
    {
        "role": "model",
        "parts": [
            {"executable_code": {"language": "PYTHON", "code": "print(18 + 24)"}},
            {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "42\n"}},
            {"text": ANSWER, "thought_signature": SIG2},
        ],
    },
]

FIREWORKS: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": QUESTION},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG_B64}},
        ],
    },
    {
        "role": "assistant",
        "content": CHECK,
        "reasoning_content": "Two cities.",
        "tool_calls": [
            {
                "id": "functions.get_weather:0",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {
                "id": "functions.get_weather:1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "18C"},
    {"role": "tool", "tool_call_id": "functions.get_weather:1", "content": "24C"},
    # Fireworks runs no tools of its own; its verbatim artefact is a message with extra keys
    {"role": "assistant", "content": ANSWER, "name": "weather-bot"},
]

NATIVE = {"anthropic": ANTHROPIC, "openai": OPENAI, "google": GOOGLE, "fireworks": FIREWORKS}

# (artefact, stored index) every conversion out of each dialect must report
EXPECTED_DROPS: dict[str, list[tuple[str, int]]] = {
    "anthropic": [("thinking", 1), ("thinking", 1), ("provider_block", 3), ("provider_block", 3)],
    "openai": [("reasoning", 1), ("provider_item", 7)],
    "google": [
        ("thought", 1),
        ("thought_signature", 1),
        ("provider_part", 3),
        ("provider_part", 3),
        ("thought_signature", 3),
    ],
    "fireworks": [("reasoning_content", 1), ("provider_part", 4)],
}
SOURCE_IDS = {
    "anthropic": ["toolu_01A", "toolu_01B"],
    "openai": ["call_A", "call_B"],
    "google": ["fc_1", "fc_2"],
    "fireworks": ["functions.get_weather:0", "functions.get_weather:1"],
}
ID_PATTERNS = {"anthropic": r"^toolu_[A-Za-z0-9_-]+$", "openai": r"^call_[A-Za-z0-9_-]+$"}
ID_PATTERNS["fireworks"] = ID_PATTERNS["openai"]


def codec(provider: str) -> Any:
    found = build_history_codec(default_container(), provider)
    assert found is not None
    return found


def _wipe(value: Any) -> None:
    """Empty every dict and list inside ``value``, depth first."""
    children = value.values() if isinstance(value, dict) else value
    for child in list(children):
        if isinstance(child, dict | list):
            _wipe(child)
    value.clear()


def rounds(messages: list[Message]) -> list[tuple[list[ToolCallPart], list[ToolResultPart]]]:
    """Each assistant message's calls with the results of the messages that follow it."""
    out: list[tuple[list[ToolCallPart], list[ToolResultPart]]] = []
    for message in messages:
        if message.role == "assistant":
            out.append((list(message.tool_calls), []))
        elif out:
            out[-1][1].extend(p for p in message.parts if isinstance(p, ToolResultPart))
    return [(calls, results) for calls, results in out if calls or results]


# -- every ordered pair --------------------------------------------------------------------


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_native_history_converts_for_every_pair(source: str, target: str) -> None:
    native = copy.deepcopy(NATIVE[source])
    converted, report = convert_history(native, source=source, target=target, model="m-1")
    assert native == NATIVE[source]  # the input is not mutated
    _wipe(converted)  # ... and the output shares nothing with it
    assert native == NATIVE[source]
    converted, report = convert_history(native, source=source, target=target, model="m-1")

    # the result is native to the target: its codec reads it and renders it back unchanged
    parsed = codec(target).parse(converted)
    assert codec(target).render(parsed) == converted
    json.dumps(converted)  # JSON-clean

    # nothing of another provider is left
    for message in parsed:
        for part in message.parts:
            if isinstance(part, ReasoningPart | ProviderPart):
                assert part.provider == target
            if isinstance(part, ToolCallPart):
                assert not part.provider_details or set(part.provider_details) <= {target}

    # the text, the image and the tool round crossed
    texts = [m.text for m in parsed]
    assert QUESTION in texts[0]
    assert any(CHECK in t for t in texts)
    assert ANSWER in texts[-1]
    images = [p for p in parsed[0].parts if isinstance(p, MediaPart)]
    assert [(i.mime_type, i.data) for i in images] == [("image/png", PNG)]
    [(calls, results)] = rounds(parsed)
    assert [c.arguments for c in calls] == [{"city": "Paris"}, {"city": "Rome"}]
    assert [r.call_id for r in results] == [c.id for c in calls]
    assert [r.text for r in results] == ["18C", "24C"]
    assert {r.name for r in results} == {"get_weather"}

    # every drop is reported, with the right artefact and stored index
    drops = sorted((e["artefact"], e["index"]) for e in report.drops)
    assert drops == sorted(EXPECTED_DROPS[source])
    for entry in report.entries:
        assert entry["from"] == source and entry["to"] == target
        assert datetime.fromisoformat(entry["at"]).utcoffset() is not None

    # every re-key is reported, and the ids follow the target's convention
    rekeys = {e["from_id"]: e["to_id"] for e in report.rekeys}
    final_ids = [c.id for c in calls]
    assert [rekeys.get(i, i) for i in SOURCE_IDS[source]] == final_ids
    call_index = {"openai": [3, 4]}.get(source, [1, 1])  # OpenAI: one item per call
    for entry in report.rekeys:
        assert entry["name"] == "get_weather"
        assert entry["index"] == call_index[SOURCE_IDS[source].index(entry["from_id"])]
    if target in ID_PATTERNS:
        import re

        assert all(re.match(ID_PATTERNS[target], i) for i in final_ids)
    if target == "google":
        assert not rekeys  # Gemini takes any id
    assert len(set(final_ids)) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_same_provider_conversion_is_identity(provider: str) -> None:
    converted, report = convert_history(NATIVE[provider], source=provider, target=provider)
    assert converted == NATIVE[provider]
    assert converted is not NATIVE[provider] and converted[0] is not NATIVE[provider][0]
    assert report.entries == []


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_converted_history_converts_back_without_loss_of_the_neutral_content(
    source: str, target: str
) -> None:
    there, _ = convert_history(NATIVE[source], source=source, target=target)
    back, report = convert_history(there, source=target, target=source)
    assert report.drops == []  # nothing non-neutral was left to drop
    parsed = codec(source).parse(back)
    assert next(m.text for m in parsed if m.text) == QUESTION


PLAIN = {
    "anthropic": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        {"role": "user", "content": "bye"},
    ],
    "openai": [
        {"role": "user", "content": "hi"},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [{"type": "output_text", "text": "hello", "annotations": []}],
        },
        {"role": "user", "content": "bye"},
    ],
    "google": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "hello"}]},
        {"role": "user", "parts": [{"text": "bye"}]},
    ],
    "fireworks": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "bye"},
    ],
}


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_plain_text_history_converts_with_an_empty_report(source: str, target: str) -> None:
    converted, report = convert_history(PLAIN[source], source=source, target=target)
    assert report.entries == []
    parsed = codec(target).parse(converted)
    assert [(m.role, m.text) for m in parsed] == [
        ("user", "hi"),
        ("assistant", "hello"),
        ("user", "bye"),
    ]


# -- refusals ------------------------------------------------------------------------------

OPEN_ROUND = {
    "anthropic": ANTHROPIC[:2],
    "openai": OPENAI[:5],
    "google": GOOGLE[:2],
    "fireworks": FIREWORKS[:2],
}
HALF_ANSWERED = {
    "anthropic": [
        *ANTHROPIC[:2],
        {"role": "user", "content": [ANTHROPIC[2]["content"][0]]},
        ANTHROPIC[3],
    ],
    "openai": [*OPENAI[:6], *OPENAI[7:]],
    "google": [*GOOGLE[:2], {"role": "user", "parts": [GOOGLE[2]["parts"][0]]}, GOOGLE[3]],
    "fireworks": [*FIREWORKS[:3], FIREWORKS[4]],
}
NAMELESS = {
    "anthropic": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "input": {}}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
        },
    ],
    "openai": [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "call_1", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
    ],
    "google": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"function_call": {"args": {}, "id": "c1"}}]},
        {
            "role": "user",
            "parts": [
                {"function_response": {"name": "x", "response": {"result": "ok"}, "id": "c1"}}
            ],
        },
    ],
    "fireworks": [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ],
}
ORPHAN = {
    "anthropic": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}],
        },
    ],
    "openai": [
        {"role": "user", "content": "go"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok", "annotations": []}],
        },
        {"type": "function_call_output", "call_id": "call_9", "output": "x"},
    ],
    "google": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"text": "ok"}]},
        {
            "role": "user",
            "parts": [{"function_response": {"name": "lookup", "response": {"result": "x"}}}],
        },
    ],
    "fireworks": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "ok"},
        {"role": "tool", "tool_call_id": "call_9", "content": "x"},
    ],
}


@pytest.mark.parametrize(
    ("case", "histories", "turns", "words"),
    [
        # OpenAI stores one item per call: the turn is the unanswered call's item
        ("open", OPEN_ROUND, {"openai": 3}, "ends inside a tool round"),
        ("half", HALF_ANSWERED, {"openai": 4}, "ends inside a tool round"),
        ("nameless", NAMELESS, {}, "tool call with no name"),
        ("orphan", ORPHAN, {}, "matches no call"),
    ],
)
@pytest.mark.parametrize("source", PROVIDERS)
def test_unconvertible_histories_are_refused_naming_the_turn(
    source: str,
    case: str,
    histories: dict[str, list[dict[str, Any]]],
    turns: dict[str, int],
    words: str,
) -> None:
    turn = turns.get(source, 2 if case == "orphan" else 1)
    target = "anthropic" if source != "anthropic" else "openai"
    with pytest.raises(SessionCompatibilityError) as info:
        convert_history(histories[source], source=source, target=target)
    message = str(info.value)
    assert words in message
    assert f"message {turn}" in message
    assert source in message and target in message
    assert (info.value.source, info.value.target, info.value.index) == (source, target, turn)
    assert isinstance(info.value, ValueError)

    report = ConversionReport()
    with pytest.raises(SessionCompatibilityError):
        read_history(histories[source], source, report)
    assert report.entries == []  # nothing partial


def test_session_compatibility_error_is_one_class_in_both_places() -> None:
    assert hc.SessionCompatibilityError is errors.SessionCompatibilityError
    assert issubclass(errors.SessionCompatibilityError, ValueError)


def test_unknown_dialects_raise_value_error() -> None:
    with pytest.raises(ValueError, match="not a known dialect"):
        convert_history([], source="nope", target="openai")
    with pytest.raises(ValueError, match="not a known dialect"):
        read_history([], "nope", ConversionReport())
    with pytest.raises(ValueError, match="not a known dialect"):
        write_history([], "nope", ConversionReport())


def test_malformed_stored_messages_are_refused() -> None:
    with pytest.raises(SessionCompatibilityError, match="cannot read the stored history"):
        convert_history([{"role": "system", "content": "x"}], source="anthropic", target="openai")


# -- media ---------------------------------------------------------------------------------


def test_media_a_row_does_not_list_becomes_a_placeholder_and_an_entry() -> None:
    converted, report = convert_history(
        ANTHROPIC, source="anthropic", target="fireworks", model="glm-5", input_types=["text"]
    )
    [entry] = [e for e in report.drops if e["artefact"] == "media"]
    assert entry["index"] == 0
    assert entry["mime_type"] == "image/png" and entry["model"] == "glm-5"
    assert "glm-5 does not take image input" in entry["detail"]
    user = converted[0]["content"]
    assert [p["type"] for p in user] == ["text", "text"]
    assert user[1]["text"].startswith("[image/png omitted: glm-5 does not take image input")
    # a registry row's input_types (a tuple) work the same
    again, _ = convert_history(
        ANTHROPIC, source="anthropic", target="fireworks", model="glm-5", input_types=("text",)
    )
    assert again == converted


def test_tool_result_media_fireworks_cannot_carry_is_reported() -> None:
    history = [
        {"role": "user", "content": "shot?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [
                        {"type": "text", "text": "here"},
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": PNG_B64,
                            },
                        },
                    ],
                }
            ],
        },
    ]
    converted, report = convert_history(history, source="anthropic", target="fireworks")
    [entry] = report.drops
    assert (entry["artefact"], entry["index"]) == ("tool_result_media", 2)
    tool = converted[2]
    assert tool["role"] == "tool" and tool["tool_call_id"] == converted[1]["tool_calls"][0]["id"]
    assert tool["content"][0]["text"] == "here"
    assert "omitted" in tool["content"][1]["text"]
    # OpenAI and Google take it
    for target in ("openai", "google"):
        _, other = convert_history(history, source="anthropic", target=target)
        assert other.drops == []


def test_media_whose_bytes_are_not_available_is_dropped() -> None:
    history = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "read this"},
                {"type": "document", "source": {"type": "file", "file_id": "file_011"}},
            ],
        }
    ]
    converted, report = convert_history(history, source="anthropic", target="openai")
    [entry] = report.drops
    assert entry["artefact"] == "media" and "no bytes available" in entry["detail"]
    assert "file_011" not in json.dumps(converted)


def test_google_files_api_media_resolves_through_the_lookup() -> None:
    uri = "https://generativelanguage.googleapis.com/v1beta/files/abc123"
    history = [
        {
            "role": "user",
            "parts": [{"text": "look"}, {"file_data": {"mime_type": "image/png", "file_uri": uri}}],
        }
    ]
    converted, report = convert_history(
        history, source="google", target="anthropic", google_media={uri: ("image/png", PNG_B64)}
    )
    assert report.entries == []
    assert converted[0]["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": PNG_B64,
    }

    seen: list[str] = []

    def lookup(value: str) -> tuple[str, str] | None:
        seen.append(value)
        return None

    converted, report = convert_history(
        history, source="google", target="anthropic", google_media=lookup
    )
    assert seen == [uri]
    assert [e["artefact"] for e in report.drops] == ["media"]
    assert "omitted" in converted[0]["content"][1]["text"]


def test_a_web_url_in_a_gemini_file_part_crosses_as_a_url() -> None:
    history = [
        {
            "role": "user",
            "parts": [
                {"file_data": {"mime_type": "image/png", "file_uri": "https://img.test/a.png"}},
                {
                    "file_data": {
                        "mime_type": "video/mp4",
                        "file_uri": "https://www.youtube.com/watch?v=x",
                    }
                },
            ],
        }
    ]
    converted, report = convert_history(history, source="google", target="anthropic")
    assert converted[0]["content"][0] == {
        "type": "image",
        "source": {"type": "url", "url": "https://img.test/a.png"},
    }
    [entry] = report.drops
    assert entry["artefact"] == "media" and "video/mp4" in entry["detail"]


def test_a_generic_image_type_is_made_exact_from_the_bytes() -> None:
    history = [
        {
            "role": "user",
            "content": [{"type": "input_image", "image_url": "data:image/*;base64," + PNG_B64}],
        }
    ]
    converted, report = convert_history(history, source="openai", target="anthropic")
    assert report.entries == []
    assert converted[0]["content"][0]["source"]["media_type"] == "image/png"


# -- salvage of verbatim payloads ----------------------------------------------------------


def test_cited_text_crosses_with_its_citations_as_text_and_the_report_says_so() -> None:
    citation = {
        "type": "page_location",
        "cited_text": "Rates held at 5%.",
        "document_index": 0,
        "document_title": "minutes.pdf",
        "start_page_number": 3,
        "end_page_number": 4,
    }
    history = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "The board "},
                {"type": "text", "text": "held rates", "citations": [citation]},
                {"type": "text", "text": ".", "citations": [{"type": "x", "extra": 1}]},
            ],
        },
    ]
    converted, report = convert_history(history, source="anthropic", target="google")
    sources = '\n\nSources:\n[1] minutes.pdf (p. 3): "Rates held at 5%."'
    assert converted[1] == {
        "role": "model",
        "parts": [{"text": "The board "}, {"text": "held rates"}, {"text": "."}, {"text": sources}],
    }
    [entry] = report.drops
    assert (entry["artefact"], entry["detail"], entry["as_text"]) == (
        "provider_block",
        "2 citations on the text, kept as text",
        True,
    )
    # back on Anthropic (same provider) nothing is added: the blocks replay as they were
    same, same_report = convert_history(history, source="anthropic", target="anthropic")
    assert same == history and same_report.entries == []


def test_an_openai_envelope_keeps_its_texts_and_media() -> None:
    history = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "see"},
                {
                    "type": "input_image",
                    "image_url": "data:image/png;base64," + PNG_B64,
                    "detail": "high",
                },
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "id": "m",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "a cat", "annotations": [{"type": "url_citation"}]}
            ],
        },
    ]
    converted, report = convert_history(history, source="openai", target="anthropic")
    parsed = codec("anthropic").parse(converted)
    assert parsed[0].text == "see"
    assert [p.data for p in parsed[0].parts if isinstance(p, MediaPart)] == [PNG]
    assert parsed[1].text == "a cat"
    assert [(e["artefact"], e["index"]) for e in report.drops] == [("provider_item", 1)]


def test_idless_gemini_calls_pair_by_name_and_get_ids() -> None:
    history = [
        {"role": "user", "parts": [{"text": "go"}]},
        {
            "role": "model",
            "parts": [
                {"function_call": {"name": "a", "args": {}}},
                {"function_call": {"name": "b", "args": {"x": 1}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"function_response": {"name": "b", "response": {"result": "B"}}},
                {"function_response": {"name": "a", "response": {"result": "A"}}},
            ],
        },
    ]
    converted, report = convert_history(history, source="google", target="openai")
    calls = {i["name"]: i["call_id"] for i in converted if i.get("type") == "function_call"}
    outputs = {
        i["output"]: i["call_id"] for i in converted if i.get("type") == "function_call_output"
    }
    assert outputs == {"A": calls["a"], "B": calls["b"]}
    assert len(report.rekeys) == 2


def test_ids_reused_across_rounds_are_made_unique() -> None:
    def round_(text: str) -> list[dict[str, Any]]:
        return [
            {"role": "user", "content": text},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_0",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_0", "content": text},
        ]

    converted, report = convert_history(
        round_("one") + round_("two"), source="fireworks", target="anthropic"
    )
    ids = [
        b["id"]
        for m in converted
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    answers = [
        b["tool_use_id"]
        for m in converted
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    assert ids == answers and len(set(ids)) == 2
    assert [e["from_id"] for e in report.rekeys] == ["call_0", "call_0"]  # not toolu_
    _, to_openai = convert_history(
        round_("one") + round_("two"), source="fireworks", target="openai"
    )
    assert [e["from_id"] for e in to_openai.rekeys] == ["call_0"]  # the second use only


# -- neutral turns -------------------------------------------------------------------------


def test_read_history_gives_neutral_turns() -> None:
    report = ConversionReport()
    turns = read_history(OPENAI, "openai", report)
    assert report.source == "openai" and report.target is None
    assert [t["role"] for t in turns] == ["user", "assistant", "tool", "assistant"]
    assert [t["index"] for t in turns] == [0, 1, 5, 7]
    user = turns[0]["parts"]
    assert user[0] == {"type": "text", "text": QUESTION}
    assert decode_media_bytes(user[1]) == PNG and user[1]["mime_type"] == "image/png"
    assert turns[1]["text"] == CHECK
    assert turns[1]["tool_calls"] == [
        {"id": "call_A", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"id": "call_B", "name": "get_weather", "arguments": {"city": "Rome"}},
    ]
    assert turns[2]["results"] == [
        {"id": "call_A", "name": "get_weather", "output": "18C", "is_error": False},
        {"id": "call_B", "name": "get_weather", "output": "24C", "is_error": False},
    ]
    assert turns[3] == {"role": "assistant", "index": 7, "text": ANSWER, "tool_calls": []}
    assert sorted(e["artefact"] for e in report.drops) == ["provider_item", "reasoning"]
    json.dumps(turns)


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_write_history_renders_neutral_turns_for_the_target(source: str, target: str) -> None:
    report = ConversionReport()
    turns = read_history(NATIVE[source], source, report)
    written = write_history(turns, target, report, model="m")
    assert report.target == target
    assert all(e["to"] == target for e in report.entries)
    direct, _ = convert_history(NATIVE[source], source=source, target=target)
    parse = codec(target).parse
    assert [m.text for m in parse(written)] == [m.text for m in parse(direct)]
    assert rounds(parse(written))[0][0][0].arguments == {"city": "Paris"}


def test_write_history_applies_input_types_and_rejects_bad_turns() -> None:
    turns = [
        {
            "role": "user",
            "parts": [
                {"type": "text", "text": "x"},
                {"type": "media", "mime_type": "application/pdf", "data": PNG_B64},
            ],
        },
    ]
    report = ConversionReport("anthropic")
    written = write_history(turns, "openai", report, input_types=["text", "image"], model="gpt-x")
    assert written[0]["content"][1]["text"].startswith(
        "[application/pdf omitted: gpt-x does not take pdf"
    )
    assert [e["artefact"] for e in report.entries] == ["media"]
    with pytest.raises(ValueError, match="unknown role"):
        write_history([{"role": "system"}], "openai", ConversionReport())
    with pytest.raises(ValueError, match="data or a url"):
        write_history(
            [{"role": "user", "parts": [{"type": "media", "mime_type": "image/png"}]}],
            "openai",
            ConversionReport(),
        )
    with pytest.raises(SessionCompatibilityError, match="matches no call"):
        write_history(
            [{"role": "tool", "results": [{"id": "x", "name": "f", "output": "o"}]}],
            "openai",
            ConversionReport(),
        )


def test_decode_media_bytes() -> None:
    assert decode_media_bytes({"type": "media", "data": PNG_B64}) == PNG
    assert (
        decode_media_bytes({"type": "media", "url": "data:image/png;base64," + PNG_URLSAFE}) == PNG
    )
    with pytest.raises(ValueError, match="no bytes"):
        decode_media_bytes({"type": "media", "url": "https://x.test/a.png"})
    with pytest.raises(ValueError, match="not base64"):
        decode_media_bytes({"type": "media", "data": "***"})


# -- the report ----------------------------------------------------------------------------


def test_report_entries_and_summary() -> None:
    report = ConversionReport("google", "openai")
    for index in (1, 4, 7):
        report.dropped(index, "reasoning", "r")
    report.dropped(4, "media", "m", mime_type="image/png")
    report.rekeyed(2, "f", "a", "call_a")
    report.rekeyed(5, "f", "b", "call_b")
    assert summarize_report(report.entries) == [
        "dropped 3 reasoning (messages 1, 4, 7)",
        "dropped 1 media (message 4)",
        "re-keyed 2 tool-call ids",
    ]
    media = report.entries[3]
    assert set(media) == {"kind", "index", "from", "to", "at", "artefact", "detail", "mime_type"}
    rekey = report.entries[4]
    assert set(rekey) == {"kind", "index", "from", "to", "at", "name", "from_id", "to_id"}
    assert len(report) == 6 and len(report.drops) == 4 and len(report.rekeys) == 2
    json.dumps(report.entries)
    with pytest.raises(ValueError, match="unknown artefact"):
        report.dropped(0, "citations", "x")
    assert summarize_report([]) == []
    assert summarize_report([{"kind": "rekeyed", "index": 0}]) == ["re-keyed 1 tool-call id"]


def test_one_warning_summarises_the_drops(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="doc_processing_toolkit"):
        convert_history(ANTHROPIC, source="anthropic", target="openai")
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    text = warnings[0].getMessage()
    assert "dropped 2 thinking (message 1)" in text and "re-keyed 2 tool-call ids" in text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="doc_processing_toolkit"):
        convert_history(PLAIN["anthropic"], source="anthropic", target="openai")
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_the_codecs_safety_nets_never_fire(
    source: str, target: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The conversion filters before it renders: no codec drops anything on its own."""
    with caplog.at_level(logging.WARNING, logger="doc_processing_toolkit"):
        convert_history(NATIVE[source], source=source, target=target, input_types=["text"])
    assert {r.name for r in caplog.records} == {
        "doc_processing_toolkit.application.history.conversion"
    }
    assert len(caplog.records) == 1


# -- Gemini helpers ------------------------------------------------------------------------


def test_google_part_kind_and_iter_google_parts() -> None:
    kinds = [kind for kind, _ in iter_google_parts(GOOGLE[1])]
    assert kinds == ["thought", "text", "function_call", "function_call"]
    assert [k for k, _ in iter_google_parts(GOOGLE[3])] == ["provider", "provider", "text"]
    assert google_part_kind({"function_response": {"name": "f"}}) == "function_response"
    assert google_part_kind({"inline_data": {"data": "AA=="}}) == "inline_data"
    assert google_part_kind({"file_data": {"file_uri": "u"}}) == "file_data"
    assert google_part_kind({"thought_signature": SIG}) == "unknown"
    assert google_part_kind({"functionCall": {"name": "f"}}) == "function_call"
    # a Part.model_dump() carries every field, None included
    dumped = {"text": None, "thought": None, "function_call": None, "inline_data": {"data": b""}}
    assert google_part_kind(dumped) == "inline_data"

    from google.genai import types

    part = types.Part(function_call=types.FunctionCall(name="f", args={}))
    assert google_part_kind(part.model_dump()) == "function_call"
    assert google_part_kind(part) == "function_call"


def test_domain_filter_without_salvage_drops_provider_parts_whole() -> None:
    from doc_processing_toolkit.domain.history.filtering import DialectRules, cross_provider

    messages = [
        Message("user", (TextPart("q"),)),
        Message(
            "assistant",
            (
                ProviderPart("anthropic", {"type": "text", "text": "t", "citations": []}),
                TextPart("a"),
            ),
            "anthropic",
        ),
    ]
    report = ConversionReport("anthropic", "openai")
    rules = DialectRules(payload_artefact="provider_block")  # an Anthropic source, no salvage
    out = cross_provider(
        messages, source="anthropic", target="openai", report=report, source_rules=rules
    )
    assert out == [messages[0], Message("assistant", (TextPart("a"),), "openai")]
    assert [(e["artefact"], e["detail"]) for e in report.entries] == [("provider_block", "text")]


def test_openai_annotations_cross_as_text_and_the_report_says_so() -> None:
    note = {
        "type": "url_citation",
        "start_index": 0,
        "end_index": 11,
        "url": "https://example.com/fed",
        "title": "Fed minutes",
    }
    history = [
        {"role": "user", "content": "q"},
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Rates held.", "annotations": [note]}],
        },
    ]
    converted, report = convert_history(history, source="openai", target="anthropic")
    assert converted[1]["content"] == [
        {"type": "text", "text": "Rates held."},
        {"type": "text", "text": "\n\nSources:\n[1] Fed minutes (https://example.com/fed)"},
    ]
    [entry] = report.drops
    assert (entry["detail"], entry["as_text"]) == ("1 citation on the text, kept as text", True)
