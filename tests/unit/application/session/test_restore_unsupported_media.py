"""A cross-provider restore honours on_unsupported_part for stored media.

Spec (agent-api.txt, AgentSession attributes): "dropped_parts — Media parts of a restored
history that the target model's input_types do not list, each {"kind", "index", "reason",
"provider", "model"}; replaced by placeholders under on_unsupported_part="drop"." The same
holds when the restore converts the history to another provider (``from_dict`` /
``from_json`` with an Agent of another provider, ``rebind``): under
``on_unsupported_part="raise"`` the restore raises UnsupportedPartError, under "drop" the
part is replaced and recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, AgentSession
from doc_processing_toolkit.domain.errors import UnsupportedPartError
from doc_processing_toolkit.testing import FakeModel, reply

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
TEXT_ONLY = "kimi-k2p6"  # a Fireworks row whose input_types are ("text",)


def _saved_with_an_image(tmp_path: Path) -> dict[str, Any]:
    image = tmp_path / "scan.png"
    image.write_bytes(PNG)
    agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("A scan.")]), log_to_file=False)
    session = agent.session()
    session.run_sync("Describe this.", files=[str(image)])
    return session.to_dict()


def _target(policy: str) -> Agent:
    return Agent(
        TEXT_ONLY,
        client=FakeModel([reply("ok")], provider="fireworks"),
        on_unsupported_part=policy,
        log_to_file=False,
    )


def test_from_dict_into_another_provider_raises_under_raise(tmp_path: Path) -> None:
    """on_unsupported_part="raise": a stored image a text-only target cannot take."""
    envelope = _saved_with_an_image(tmp_path)
    with pytest.raises(UnsupportedPartError, match=rf"image.*{TEXT_ONLY}"):
        AgentSession.from_dict(envelope, _target("raise"))


def test_from_json_into_another_provider_raises_under_raise(tmp_path: Path) -> None:
    import json

    path = tmp_path / "session.json"
    path.write_text(json.dumps(_saved_with_an_image(tmp_path)), encoding="utf-8")
    with pytest.raises(UnsupportedPartError):
        AgentSession.from_json(path, agent=_target("raise"))


def test_from_dict_into_another_provider_records_the_drop(tmp_path: Path) -> None:
    """dropped_parts: "each {"kind", "index", "reason", "provider", "model"}; replaced by
    placeholders under on_unsupported_part="drop"."""
    restored = AgentSession.from_dict(_saved_with_an_image(tmp_path), _target("drop"))
    assert restored.converted_from == "anthropic"
    (record,) = restored.dropped_parts
    assert record["index"] == 0
    assert record["provider"] == "fireworks" and record["model"] == TEXT_ONLY
    assert "image" in record["reason"]
    assert set(record) == {"kind", "index", "reason", "provider", "model"}
    assert "omitted" in str(restored.messages[0])


def test_rebind_raises_under_raise_and_changes_nothing(tmp_path: Path) -> None:
    """rebind converts like a restore: the same refusal, before anything changes."""
    image = tmp_path / "scan.png"
    image.write_bytes(PNG)
    agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("A scan.")]), log_to_file=False)
    session = agent.session()
    session.run_sync("Describe this.", files=[str(image)])
    before = list(session.messages)
    with pytest.raises(UnsupportedPartError):
        session.rebind(_target("raise"))
    assert session.agent is agent and session.messages == before


def test_rebind_records_the_drop(tmp_path: Path) -> None:
    image = tmp_path / "scan.png"
    image.write_bytes(PNG)
    agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("A scan.")]), log_to_file=False)
    session = agent.session()
    session.run_sync("Describe this.", files=[str(image)])
    session.rebind(_target("drop"))
    assert [r["model"] for r in session.dropped_parts] == [TEXT_ONLY]


def test_a_target_that_takes_the_media_drops_nothing(tmp_path: Path) -> None:
    """An image restored into a model whose input_types list image is kept."""
    target = Agent(
        "gpt-5",
        client=FakeModel([reply("ok")], provider="openai"),
        on_unsupported_part="raise",
        log_to_file=False,
    )
    restored = AgentSession.from_dict(_saved_with_an_image(tmp_path), target)
    assert restored.dropped_parts == []
