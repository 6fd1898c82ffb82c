"""The README and every page of docs/ are executable: each python block runs offline (the
ProviderEmulator or FakeModel), or is captioned ``*Illustration: <reason>.*`` for readers;
output the docs show is checked against the real output; no page calls a shipped feature
"coming" or says it raises ``NotImplementedError``. Conventions: tests/docs/docs_snippets.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_snippets import ROOT, Block, blocks, pages

RUNNER = Path(__file__).with_name("runner.py")
TALLY: dict[str, int] = {"run": 0, "illustration": 0, "pages": 0}


def _by_page() -> dict[str, list[Block]]:
    return {path.relative_to(ROOT).as_posix(): blocks(path) for path in pages()}


PAGES = _by_page()
RUNNABLE = sorted(page for page, found in PAGES.items() if any(b.kind == "run" for b in found))


def test_the_helper_sees_the_readme_and_the_guides() -> None:
    assert "README.md" in RUNNABLE and "docs/guide/tools.md" in RUNNABLE
    assert sum(b.kind == "run" for found in PAGES.values() for b in found) >= 40


# What a page's comments say its blocks print, checked against what they print.
PRINTS = {
    "README.md": [
        "The sum of 2 and 3 is 5.",
        "['calculate']",
        "→ calculate {'a': 2, 'b': 3}",
        "cost:",
        "{'label': 'positive', 'score': 0.97}",
    ],
    "docs/getting-started.md": ["The sum of 2 and 3 is 5.", "['calculate']", "\n2\n", "0.00014"],
    "docs/guide/structured-output.md": ["{'vendor': 'ACME Corp', 'total': 99.5}"],
    "docs/guide/providers.md": ["fireworks"],
    "docs/guide/documents.md": [
        "pdf 300 300 ()",
        "max_pdf_pages 300 100",
        "['1-100', '101-200', '201-300']",
        "['Acme Corp', 'Beta LLC', 'Gamma SA', 'Delta GmbH']",
        "governing_law [('Delaware', 1, 100), ('New York', 201, 300)]",
        "True",
        "300 3",
        "['max_pdf_pages']",
    ],
}


@pytest.mark.parametrize("page", RUNNABLE)
def test_the_python_blocks_of_the_page_run_offline(page: str, tmp_path: Path) -> None:
    found = PAGES[page]
    chosen = [b for b in found if b.kind in ("setup", "run")]  # in page order
    plan = tmp_path / "blocks.json"
    plan.write_text(json.dumps([b.__dict__ for b in chosen]), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DPT_AGENT_LOG_TO_FILE": "0"}
    for name in list(env):
        if name.endswith("_BASE_URL"):
            env.pop(name)
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(plan)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, f"{page}:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    ran = done.stdout.count("[docs-snippet ok]")
    assert ran == len(chosen), done.stdout
    for shown in PRINTS.get(page, ()):
        assert shown in done.stdout, f"{page} says it prints {shown!r}:\n{done.stdout}"
    TALLY["run"] += sum(b.kind == "run" for b in chosen)
    TALLY["pages"] += 1


def test_every_illustration_says_why_it_is_not_run() -> None:
    illustrations = [b for found in PAGES.values() for b in found if b.kind == "illustration"]
    for block in illustrations:
        assert len(block.note.split()) >= 3, f"{block.page}:{block.line}: give a reason"
    TALLY["illustration"] = len(illustrations)


def test_no_block_uses_top_level_await() -> None:
    # A reader pastes a block into a file and runs it: `await` outside a function fails.
    for found in PAGES.values():
        for block in found:
            if block.kind not in ("run", "setup"):
                continue
            for number, line in enumerate(block.code.splitlines(), block.line):
                assert not re.match(r"(await |async (for|with) )", line), (
                    f"{block.page}:{number}: top-level {line.split()[0]} (use asyncio.run)"
                )


STALE = re.compile(r"(?i:being built|not built yet|not yet built|not in this release)|\bComing\b")


def test_no_page_calls_a_shipped_feature_unbuilt() -> None:
    from doc_processing_toolkit.application.config.validation import NOT_YET_IMPLEMENTED

    stale: list[str] = []
    for path in pages():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
            if STALE.search(line) and not any(name in line for name in NOT_YET_IMPLEMENTED):
                stale.append(where)
            elif "NotImplementedError" in line and not any(
                name in line for name in NOT_YET_IMPLEMENTED
            ):
                stale.append(where)
    assert not stale, "stale claims:\n" + "\n".join(stale)


def _normalised(text: str) -> list[str]:
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    return [line.rstrip() for line in text.strip().splitlines()]


def test_the_output_the_docs_show_is_the_real_output() -> None:
    outputs = [b for found in PAGES.values() for b in found if b.kind == "output"]
    assert outputs, "the getting-started demo transcript is marked docs-output"
    for block in outputs:
        command = block.note.split()
        assert command[0] == "dpt", block
        done = subprocess.run(
            [sys.executable, "-m", "doc_processing_toolkit.cli.main", *command[1:]],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert done.returncode == 0, done.stderr
        assert _normalised(block.code) == _normalised(done.stdout), (
            f"{block.page}:{block.line} shows output that `{block.note}` no longer prints:\n"
            + done.stdout
        )


def test_the_cost_record_the_costs_guide_shows_is_real() -> None:
    import ast

    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.testing import FakeModel, reply

    page = ROOT / "docs" / "guide" / "costs.md"
    text = page.read_text(encoding="utf-8")
    section = text.index("## One record per API request")
    shown = next(b for b in blocks(page) if b.line > text[:section].count("\n") + 1)
    record = ast.literal_eval(shown.code)
    script = [reply("A summary.", input_tokens=412, output_tokens=58)]
    agent = Agent("claude-sonnet-5-5", client=FakeModel(script), log_to_file=False)
    assert agent.run_sync("Summarise this contract: ...").request_cost_records == [record]
