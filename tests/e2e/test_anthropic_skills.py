"""Anthropic Agent Skills through the real SDK and the emulator: built-in names, custom
skill directories (uploaded once), the advanced dict, mixed lists, and bad input."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers.anthropic.skills import SKILLS_BETAS
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import reply


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


def _agent(emulator: ProviderEmulator, skills: Any) -> Agent:
    return Agent(
        "claude-sonnet-5",
        api_key="offline-test-key",
        base_url=emulator.anthropic_base_url,
        log_to_file=False,
        skills=skills,
    )


def _skill_dir(root: Path, name: str, body: str = "# Invoice skill\n") -> Path:
    directory = root / name
    (directory / "scripts").mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\nname: {name}\n---\n{body}")
    (directory / "scripts" / "parse.py").write_text("print('parse')\n")
    return directory


def _messages_requests(emulator: ProviderEmulator) -> list[Any]:
    return [r for r in emulator.requests if r.path == "/v1/messages"]


def test_built_in_skills_ride_in_the_container_with_code_execution_and_betas(
    emulator: ProviderEmulator,
) -> None:
    emulator.reset([reply("made the workbook")])
    result = _agent(emulator, ["xlsx", "pptx"]).run_sync("make a workbook")
    request = _messages_requests(emulator)[0]
    assert request.body["container"] == {
        "skills": [
            {"type": "anthropic", "skill_id": "xlsx", "version": "latest"},
            {"type": "anthropic", "skill_id": "pptx", "version": "latest"},
        ]
    }
    assert any(t["type"] == "code_execution_20250825" for t in request.body["tools"])
    sent = request.headers["anthropic-beta"].split(",")
    assert set(SKILLS_BETAS) <= set(sent)
    assert result.skills_used == ["xlsx", "pptx"]


def test_custom_directory_is_uploaded_once_and_sent_as_a_custom_skill(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    directory = _skill_dir(tmp_path, "invoice_skill")
    emulator.reset([reply("one"), reply("two")])
    agent = _agent(emulator, [str(directory), "pdf"])
    agent.run_sync("first")
    result = agent.run_sync("second")
    assert len(emulator.skills) == 1
    ((skill_id, files),) = emulator.skills.items()
    assert sorted(name for name, _ in files) == [
        "invoice_skill/SKILL.md",
        "invoice_skill/scripts/parse.py",
    ]
    for request in _messages_requests(emulator):
        assert request.body["container"]["skills"] == [
            {"type": "custom", "skill_id": skill_id, "version": "latest"},
            {"type": "anthropic", "skill_id": "pdf", "version": "latest"},
        ]
    assert result.skills_used == [skill_id, "pdf"]


def test_advanced_dict_and_container_reuse(emulator: ProviderEmulator) -> None:
    emulator.reset([reply("reused")])
    agent = _agent(emulator, {"type": "anthropic", "skill_id": "docx", "version": "20251013"})
    result = agent.run_sync("continue", anthropic_container_id="container_abc")
    body = _messages_requests(emulator)[0].body
    assert body["container"] == {
        "id": "container_abc",
        "skills": [{"type": "anthropic", "skill_id": "docx", "version": "20251013"}],
    }
    assert result.container_id == "container_abc"


@pytest.mark.parametrize(
    ("skills", "match"),
    [
        ("nonesuch", "nonesuch"),
        ({"type": "anthropic"}, "skill_id"),
        ({"type": "plugin", "skill_id": "x"}, "plugin"),
        (42, "int"),
    ],
)
def test_bad_skills_raise_at_construction(skills: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Agent("claude-sonnet-5", api_key="k", log_to_file=False, skills=skills)


def test_a_directory_without_skill_md_is_named(tmp_path: Path) -> None:
    (tmp_path / "empty_skill").mkdir()
    with pytest.raises(ValueError, match=r"empty_skill.*SKILL\.md"):
        Agent(
            "claude-sonnet-5",
            api_key="k",
            log_to_file=False,
            skills=[str(tmp_path / "empty_skill")],
        )
