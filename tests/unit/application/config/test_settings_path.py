"""One typed settings path (issue 34): every environment switch of application/ is read in
config/environment.py at its read point, the config room imports nothing above it, and
``compaction_config`` is checked once per Agent."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import FakeModel

PACKAGE = Path(__file__).resolve().parents[4] / "doc_processing_toolkit"
ENVIRONMENT_MODULE = PACKAGE / "application" / "config" / "environment.py"
ABOVE_CONFIG = (
    "agent",
    "builder",
    "compaction",
    "construction",
    "container",
    "costs",
    "fleet",
    "from_config",
    "history",
    "hooks",
    "media",
    "resources",
    "result",
    "run",
    "session",
    "tools",
)
"""The application rooms and modules the config room must not import."""


def _sources(*rooms: str) -> Iterator[Path]:
    for room in rooms:
        yield from sorted((PACKAGE / room).rglob("*.py"))


def test_only_the_environment_module_reads_the_environment() -> None:
    readers = [
        str(path.relative_to(PACKAGE))
        for path in _sources("application", "domain")
        if any(
            reader in path.read_text(encoding="utf-8")
            for reader in ("os.environ", "getenv(", "expanduser(")  # expanduser reads HOME
        )
    ]
    assert readers == [str(ENVIRONMENT_MODULE.relative_to(PACKAGE))]


def _imported_modules(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_the_config_room_imports_nothing_above_it() -> None:
    """TYPE_CHECKING and function-level imports count too (ast.walk sees them all)."""
    upward = sorted(
        f"{path.name}: {module}"
        for path in _sources("application/config")
        for module in _imported_modules(path)
        if module.startswith("doc_processing_toolkit.application.")
        and module.split(".")[2] in ABOVE_CONFIG
    )
    assert upward == []


def test_a_run_switch_is_read_at_each_run_and_a_construction_switch_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DPT_ANTHROPIC_STRICT_BUDGET", raising=False)
    monkeypatch.delenv("DPT_PREFIX_AUDIT", raising=False)
    agent = Agent("claude-sonnet-5-5", client=FakeModel([]), log_to_file=False)
    assert agent._run_settings.for_run(system="s").strict_per_tool_only is False
    monkeypatch.setenv("DPT_ANTHROPIC_STRICT_BUDGET", "off")
    monkeypatch.setenv("DPT_PREFIX_AUDIT", "1")
    run = agent._run_settings.for_run(system="s")
    assert run.strict_per_tool_only is True  # read per run
    assert run.prefix_auditor is None  # read at construction
    later = Agent("claude-sonnet-5-5", client=FakeModel([]), log_to_file=False)
    assert later._run_settings.for_run(system="s").prefix_auditor is not None


_OPENED: list[str] = []


def _count_opens(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and args and isinstance(args[0], str) and args[0].endswith("dpt-prompt.txt"):
        _OPENED.append(args[0])


sys.addaudithook(_count_opens)


def test_compaction_config_is_checked_once_per_agent(tmp_path: Path) -> None:
    prompt = tmp_path / "dpt-prompt.txt"
    prompt.write_text("Summarise.", encoding="utf-8")
    _OPENED.clear()
    agent = Agent(
        "claude-sonnet-5-5",
        client=FakeModel([]),
        log_to_file=False,
        compaction=True,
        compaction_config={"summary_prompt_file": str(prompt)},
    )
    assert _OPENED == [str(prompt)]
    assert agent._resolution.compaction is not None
    assert agent._resolution.compaction.prompt == "Summarise."
