"""Extract the fenced code blocks of the README and docs/ pages, with their markers.

The conventions a page follows (docs/guide/testing.md "Documentation snippets" explains them):

- Every ``python`` block runs, in page order, in one namespace per page, as ``python`` would
  run the page's blocks pasted into one file (no top-level ``await``).
- A block preceded by a caption line ``*Illustration: <reason>.*`` is shown, not run; the
  caption is what the reader sees, and the reason must say why (e.g. a real API key).
- A hidden block is an HTML comment ``<!-- docs-setup`` holding a python fence; it runs in
  its place in the page (before the first block: the page's set-up, e.g. scripting the
  emulator's replies; after a block: e.g. calling the test function it defined).
- A ``text`` block preceded by ``<!-- docs-output: <command> -->`` is the output of that
  command, checked by the test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)\s*$")
ILLUSTRATION = re.compile(r"^\*Illustration: (?P<reason>.+)\*$")
SETUP_OPEN = "<!-- docs-setup"
OUTPUT_MARK = re.compile(r"^<!-- docs-output: (?P<command>.+) -->$")


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository root
    line: int  # 1-based line of the first code line
    lang: str
    code: str
    kind: str  # "run", "illustration", "setup", "output" or "other"
    note: str = ""  # the illustration's reason or the output's command


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _kind(lang: str, before: list[str]) -> tuple[str, str]:
    previous = next((line.strip() for line in reversed(before) if line.strip()), "")
    if lang == "python":
        if previous == SETUP_OPEN:
            return "setup", ""
        found = ILLUSTRATION.match(previous)
        if found:
            return "illustration", found["reason"]
        return "run", ""
    found = OUTPUT_MARK.match(previous)
    if found:
        return "output", found["command"]
    return "other", ""


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening or not opening["lang"]:
            index += 1
            continue
        indent, lang = opening["indent"], opening["lang"]
        end = index + 1
        while end < len(lines) and lines[end].rstrip() != f"{indent}```":
            end += 1
        body = [
            line[len(indent) :] if line.startswith(indent) else line.lstrip()
            for line in lines[index + 1 : end]
        ]
        kind, note = _kind(lang, lines[:index])
        found.append(
            Block(
                page=path.relative_to(ROOT).as_posix(),
                line=index + 2,
                lang=lang,
                code="\n".join(body) + "\n",
                kind=kind,
                note=note,
            )
        )
        index = end + 1
    return found
