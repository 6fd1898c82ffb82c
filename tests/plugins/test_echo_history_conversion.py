"""A plug-in's profile takes part in cross-provider conversion like a built-in one: the
echo distribution registers its codec and profile, and an echo history converted to
Anthropic goes through the echo salvage rules."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from echo_provider import EchoProfile

from doc_processing_toolkit.agent.history_conversion import convert_history, read_history
from doc_processing_toolkit.application.container import (
    PROFILE_ENTRY_POINT_GROUP,
    build_provider_profile,
    default_container,
)
from doc_processing_toolkit.domain.history.report import ConversionReport, Salvage
from doc_processing_toolkit.domain.messages import ProviderPart, TextPart

QUOTE = {"quote": {"text": "To be, or not to be.", "source": "hamlet-3-1"}}

ECHO_HISTORY: list[dict[str, Any]] = [
    {"role": "user", "items": [{"text": "Who wrote this line?"}]},
    {
        "role": "assistant",
        "items": [
            {"thought": "Look it up.", "seal": "seal-1"},
            QUOTE,
            {"call": {"id": "e1", "name": "lookup", "args": {"q": "to be"}}},
        ],
    },
    {
        "role": "tool",
        "items": [{"result": {"call_id": "e1", "name": "lookup", "output": [{"text": "WS"}]}}],
    },
    {"role": "assistant", "items": [{"text": "Shakespeare."}, {"sparkle": 3}]},
]


def test_the_echo_profile_is_found_through_its_entry_point(echo_plugin_installed: Path) -> None:
    (ep,) = [e for e in entry_points(group=PROFILE_ENTRY_POINT_GROUP) if e.name == "echo"]
    assert ep.load() is EchoProfile
    profile = build_provider_profile(default_container(), "echo")
    assert isinstance(profile, EchoProfile)
    salvaged = profile.salvage(ProviderPart("echo", QUOTE))
    assert salvaged == Salvage(
        (TextPart("To be, or not to be."),),
        (("provider_part", "the source of a quote (hamlet-3-1)"),),
    )
    assert profile.salvage(ProviderPart("echo", {"sparkle": 3})) is None


def test_an_echo_history_crosses_to_anthropic_through_the_echo_salvage_rules(
    echo_plugin_installed: Path,
) -> None:
    converted, report = convert_history(ECHO_HISTORY, source="echo", target="anthropic")

    assistant = converted[1]
    assert assistant["role"] == "assistant"
    kinds = [block["type"] for block in assistant["content"]]
    assert kinds == ["text", "tool_use"]  # the sealed thought is gone, the quote is text
    assert assistant["content"][0]["text"] == "To be, or not to be."
    call_id = assistant["content"][1]["id"]
    assert call_id.startswith("toolu_") and assistant["content"][1]["name"] == "lookup"
    assert converted[2]["content"][0]["tool_use_id"] == call_id
    assert converted[3]["content"] == [{"type": "text", "text": "Shakespeare."}]

    drops = [(e["index"], e["artefact"], e["detail"]) for e in report.drops]
    assert drops == [
        (1, "reasoning", "a sealed echo thought (11 chars)"),
        (1, "provider_part", "the source of a quote (hamlet-3-1)"),
        (3, "provider_part", "sparkle"),  # no rule for it: dropped whole
    ]
    assert [(e["from_id"], e["name"]) for e in report.rekeys] == [("e1", "lookup")]
    assert {(e["from"], e["to"]) for e in report.entries} == {("echo", "anthropic")}


def test_neutral_turns_of_an_echo_history_keep_the_salvaged_text(
    echo_plugin_installed: Path,
) -> None:
    report = ConversionReport()
    turns = read_history(ECHO_HISTORY, "echo", report)
    assert turns[1]["text"] == "To be, or not to be."
    assert [c["id"] for c in turns[1]["tool_calls"]] == ["e1"]
    assert ("provider_part", "the source of a quote (hamlet-3-1)") in [
        (e["artefact"], e["detail"]) for e in report.drops
    ]
