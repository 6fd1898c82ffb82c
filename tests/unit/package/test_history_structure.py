"""The history rooms name no provider, import no adapter or container, and have no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

import doc_processing_toolkit

PACKAGE = Path(doc_processing_toolkit.__file__).parent
PROVIDERS = {"anthropic", "openai", "google", "fireworks"}
NEUTRAL_FILES = [
    *sorted((PACKAGE / "domain" / "history").glob("*.py")),
    PACKAGE / "domain" / "media.py",
    *sorted((PACKAGE / "application" / "history").glob("*.py")),
]


def test_no_provider_name_literals_in_the_neutral_history_code() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}"
        for path in NEUTRAL_FILES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in PROVIDERS
    ]
    assert found == []


def test_history_imports_are_acyclic_and_inward() -> None:
    graph = grimp.build_graph("doc_processing_toolkit")
    crossing = "doc_processing_toolkit.domain.history.crossing"
    filtering = "doc_processing_toolkit.domain.history.filtering"
    assert graph.find_shortest_chain(crossing, filtering) is None
    for module in ("conversion", "turns", "dialects"):
        name = f"doc_processing_toolkit.application.history.{module}"
        for forbidden in (
            "doc_processing_toolkit.adapters",
            "doc_processing_toolkit.application.container",
        ):
            assert not graph.chain_exists(name, forbidden, as_packages=True), (name, forbidden)
