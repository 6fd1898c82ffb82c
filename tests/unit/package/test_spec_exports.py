"""Every name the API reference documents can be imported from its documented path.

The reference (``agent-api.txt``) is organised in module sections: a title line, then the
module's import path alone on a line (``doc_processing_toolkit.agent.session``), then the
module docstring and one header per documented symbol. A class or function header is its
name alone on a line, optionally followed by a kind (``AgentResult dataclass``); a method is
its signature (``from_dict(data) classmethod``) and a property ``name property``, both
belonging to the class header above them. This test parses those sections, so a symbol the
spec adds is checked without touching the test, and also resolves every dotted
``doc_processing_toolkit.x.Name`` reference and ``from doc_processing_toolkit... import``
line in agent-api.txt and tools.txt.

The spec is read from ``shared/spec`` beside the checkout (or beside any parent of it, as
with a git worktree); the test is skipped when it is not there.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest


def _spec_dir() -> Path | None:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "spec"
        if (candidate / "agent-api.txt").is_file():
            return candidate
    return None


SPEC_DIR = _spec_dir()
pytestmark = pytest.mark.skipif(SPEC_DIR is None, reason="needs shared/spec beside the checkout")

_MODULE = re.compile(r"^doc_processing_toolkit(\.[a-z_][a-z0-9_]*)*$")
_KINDS = frozenset(
    {
        "dataclass",
        "property",
        "classmethod",
        "staticmethod",
        "async",
        "class",
        "attr",
        "module-attribute",
        "class-attribute",
        "instance-attribute",
        "abstractmethod",
        "cached_property",
        "function",
        "exception",
    }
)
_SECTION_WORDS = frozenset({"Notes", "Note", "Example", "Examples", "Package"})
_NAME_HEADER = re.compile(r"^([A-Za-z_]\w*)((?: [a-z_-]+)*)$")
_SIGNATURE_HEADER = re.compile(r"^([A-Za-z_]\w*)\(.*\)((?: [a-z_-]+)*)$")


@dataclass(frozen=True)
class Header:
    """One documented symbol: its name, its kind words, whether it is a signature."""

    module: str
    name: str
    kinds: frozenset[str]
    signature: bool
    line: int


def parse_sections(text: str) -> dict[str, list[Header]]:
    """Module path -> the symbol headers of its section, in order."""
    lines = text.splitlines()
    sections: dict[str, list[Header]] = {}
    current: list[Header] | None = None
    module = ""
    for index, line in enumerate(lines):
        previous = lines[index - 1] if index else ""
        following = lines[index + 1] if index + 1 < len(lines) else ""
        after = lines[index + 2] if index + 2 < len(lines) else ""
        if previous != "":
            continue
        if _MODULE.match(line):
            module = line
            current = sections.setdefault(module, [])
            continue
        if current is None or (following == "" and _MODULE.match(after)):
            continue  # before the first section, or the title of the next one
        name_match = _NAME_HEADER.match(line)
        if name_match and following == "":
            kinds = frozenset(name_match.group(2).split())
            if kinds <= _KINDS and name_match.group(1) not in _SECTION_WORDS:
                current.append(Header(module, name_match.group(1), kinds, False, index + 1))
            continue
        signature_match = _SIGNATURE_HEADER.match(line)
        if signature_match:
            kinds = frozenset(signature_match.group(2).split())
            if kinds <= _KINDS:
                current.append(Header(module, signature_match.group(1), kinds, True, index + 1))
    return sections


def _missing_in(module: ModuleType, headers: list[Header]) -> list[str]:
    missing: list[str] = []
    owner: object | None = None  # the class the following members belong to
    for header in headers:
        member = header.signature or "property" in header.kinds
        if member and owner is not None and hasattr(owner, header.name):
            continue
        if not hasattr(module, header.name):
            missing.append(f"{header.module}.{header.name} (agent-api.txt line {header.line})")
            if not member:
                owner = None
            continue
        if not member:
            owner = getattr(module, header.name)
    return missing


# Import lines of illustrations whose module the package does not ship (yet): tools.txt's
# allowed_tools example imports a "multimedia_server" that stands for any FastMCP server
# (its `speak` tool is not defined either). Reported to the lead rather than invented here.
_ILLUSTRATIONS = frozenset({"doc_processing_toolkit.mcp_servers.multimedia_server"})


def _spec_text(name: str) -> str:
    assert SPEC_DIR is not None
    return (SPEC_DIR / name).read_text(encoding="utf-8")


def _sections() -> dict[str, list[Header]]:
    return parse_sections(_spec_text("agent-api.txt"))


def test_the_parser_finds_every_module_section() -> None:
    """agent-api.txt: "doc_processing_toolkit.agent" and one section per documented
    submodule (core, result, session, cost, tools, config, loader, media, media_policy,
    history_conversion, compaction, hooks, parameter_mapping)."""
    sections = _sections()
    expected = {"doc_processing_toolkit.agent"} | {
        f"doc_processing_toolkit.agent.{name}"
        for name in (
            "core result session cost tools config loader media media_policy "
            "history_conversion compaction hooks parameter_mapping"
        ).split()
    }
    assert expected <= set(sections)
    assert all(sections[name] for name in expected), "a section with no symbol headers"
    package = {header.name for header in sections["doc_processing_toolkit.agent"]}
    assert {"Agent", "AgentSession", "ToolLoader", "RunHandle", "from_json"} <= package


@pytest.mark.parametrize("module_name", sorted(_sections()) if SPEC_DIR else [])
def test_every_documented_name_imports_from_its_documented_path(module_name: str) -> None:
    """agent-api.txt, "Package / doc_processing_toolkit.agent": "Main exports: Agent,
    AgentBuilder, AgentResult, AgentSession, AgentStreamEvent, tool, ToolLoader,
    MediaTransformer, DetailedCostReport, CompactionConfig" — and every symbol each module
    section documents (classes, functions, their documented methods and properties) is
    importable from that module."""
    module = importlib.import_module(module_name)
    missing = _missing_in(module, _sections()[module_name])
    assert not missing, "documented but not importable:\n" + "\n".join(missing)


def test_main_exports_are_in_the_package_all() -> None:
    """agent-api.txt: "Main exports: • Agent ... • CompactionConfig" for
    doc_processing_toolkit.agent; they are in its __all__ too, so a star import has them."""
    text = _spec_text("agent-api.txt")
    block = text[text.index("Main exports:") : text.index("See Also:")]
    names = re.findall(r"^• (\w+):", block, re.M)
    assert len(names) >= 10
    module = importlib.import_module("doc_processing_toolkit.agent")
    assert set(names) <= set(module.__all__)


def test_dotted_references_and_import_lines_resolve() -> None:
    """Cross references such as ":class:~doc_processing_toolkit.utils.TruncatedResultStore"
    and examples' "from doc_processing_toolkit import Agent, tool" (agent-api.txt and
    tools.txt) name importable objects."""
    unresolved: list[str] = []
    for spec_name in ("agent-api.txt", "tools.txt"):
        text = _spec_text(spec_name)
        for dotted in set(re.findall(r"~?(doc_processing_toolkit(?:\.\w+)+)", text)):
            path = dotted.rstrip(".")
            if path in _ILLUSTRATIONS or path.startswith(tuple(f"{i}." for i in _ILLUSTRATIONS)):
                continue
            if any(i.startswith(path + ".") for i in _ILLUSTRATIONS):
                continue
            try:
                importlib.import_module(path)
                continue
            except ModuleNotFoundError:
                pass
            module_path, _, attribute = path.rpartition(".")
            if not hasattr(importlib.import_module(module_path), attribute):
                unresolved.append(f"{spec_name}: {path}")
        for module_path, names in re.findall(
            r"from (doc_processing_toolkit[\w.]*) import ([\w, ]+)", text
        ):
            if module_path in _ILLUSTRATIONS:
                continue
            module = importlib.import_module(module_path)
            for name in (n.strip() for n in names.split(",")):
                if name and not hasattr(module, name):
                    unresolved.append(f"{spec_name}: from {module_path} import {name}")
    assert not unresolved, "\n".join(unresolved)


def test_the_agent_package_docstring_no_longer_defers_exports() -> None:
    """agent-api.txt documents AgentSession, ToolLoader and MediaTransformer as main exports
    of doc_processing_toolkit.agent; its docstring must not say they are not exported."""
    module = importlib.import_module("doc_processing_toolkit.agent")
    assert "not exported" not in (module.__doc__ or "")
    for name in ("AgentSession", "ToolLoader", "MediaTransformer"):
        assert name in (module.__doc__ or "")
