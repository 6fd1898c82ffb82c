"""The README's Quickstart, Streaming and Structured-output snippets, verbatim: they run
offline against the ProviderEmulator (through the real Anthropic SDK, pointed there by
ANTHROPIC_BASE_URL) and pass ``mypy --strict``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from doc_processing_toolkit.testing import ProviderEmulator, Reply, ToolCall

ROOT = Path(__file__).resolve().parents[2]


def _blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def _program() -> str:
    quickstart, streaming, structured = _blocks()[:3]
    body = textwrap.indent(streaming, "    ")
    return (
        f"{quickstart}\n\nimport asyncio\n\n\nasync def streamed() -> None:\n{body}\n\n"
        f"asyncio.run(streamed())\n\n{structured}\n"
        "print('STRUCTURED', result.output)\n"
    )


def test_the_readme_has_the_three_snippets() -> None:
    blocks = _blocks()
    assert len(blocks) >= 3
    assert "run_sync" in blocks[0] and "agent.stream" in blocks[1] and "output_schema" in blocks[2]


def test_the_snippets_run_offline(tmp_path: Path) -> None:
    script = tmp_path / "readme_snippets.py"
    script.write_text(_program(), encoding="utf-8")
    steps = [
        Reply(text="Let me add.", tool_calls=(ToolCall("calculate", {"a": 2, "b": 3}),)),
        Reply(text="The sum of 2 and 3 is 5."),
        Reply(text="Adding.", tool_calls=(ToolCall("calculate", {"a": 2, "b": 3}),)),
        Reply(text="It is 5."),
        Reply(text='{"label": "positive", "score": 0.97}'),
    ]
    with ProviderEmulator(steps) as emulator:
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": emulator.anthropic_base_url,
            "ANTHROPIC_API_KEY": "readme-offline-key",
            "DPT_AGENT_LOG_TO_FILE": "0",
        }
        env.pop("DPT_ANTHROPIC_BASE_URL", None)
        done = subprocess.run(
            [sys.executable, str(script)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "The sum of 2 and 3 is 5." in out
    assert "['calculate']" in out
    assert "→ calculate {'a': 2, 'b': 3}" in out
    assert "cost:" in out
    assert "STRUCTURED {'label': 'positive', 'score': 0.97}" in out


@pytest.mark.slow
def test_the_snippets_pass_mypy_strict(tmp_path: Path) -> None:
    script = tmp_path / "readme_snippets.py"
    script.write_text(_program(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
