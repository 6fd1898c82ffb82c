"""The README's first screen: the two set-up commands first, what the toolkit does today,
and where the default log file goes and how to turn it off; its snippets pass mypy --strict.
(Running them is test_docs_snippets.py's job.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from docs_snippets import ROOT, blocks

README = ROOT / "README.md"
FIRST_SCREEN = 40  # lines


def _first_screen() -> str:
    return "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN])


def test_the_two_setup_commands_come_first() -> None:
    head = README.read_text(encoding="utf-8").splitlines()[:6]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)


def test_the_first_screen_says_what_the_toolkit_does_today() -> None:
    screen = _first_screen()
    for feature in ("Anthropic", "OpenAI", "Gemini", "Fireworks", "tools", "sessions", "YAML"):
        assert feature in screen


def test_the_first_screen_states_the_default_log_file_and_how_to_turn_it_off() -> None:
    import inspect

    from doc_processing_toolkit import Agent

    screen = _first_screen()
    assert "./logs/Agent-{model}_{timestamp}.log" in screen
    assert "log_to_file=False" in screen and "DPT_AGENT_LOG_TO_FILE=0" in screen
    # The names the README gives are the real ones.
    assert inspect.signature(Agent).parameters["log_to_file"].default is True


def test_the_quickstart_says_how_to_run_offline_and_with_a_key() -> None:
    text = README.read_text(encoding="utf-8")
    quickstart = text[text.index("## Quickstart") : text.index("## Command line")]
    assert "ANTHROPIC_API_KEY" in quickstart
    assert "Offline" in quickstart and "examples/quickstart.py" in quickstart
    assert (ROOT / "examples" / "quickstart.py").is_file()


@pytest.mark.slow
def test_the_readme_snippets_pass_mypy_strict(tmp_path: Path) -> None:
    program = "\n\n".join(b.code for b in blocks(README) if b.kind == "run")
    script = tmp_path / "readme_snippets.py"
    script.write_text(program, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        timeout=270,  # under pytest-timeout's 300 s
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
