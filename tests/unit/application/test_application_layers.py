"""No import cycle between the rooms of application/, lazy and TYPE_CHECKING imports included.

The file-level test (test_no_import_cycles.py) finds a cycle of modules; this one collapses
each room of ``application/`` (a sub-package, or a module at its top level such as
``agent.py``) to one node, so ``run.loop -> hooks.runner`` plus ``hooks.control ->
run.events`` is a cycle although no module imports itself back. The import-linter
``layers`` contract in pyproject.toml orders the same rooms; the imports it ignores (none,
once the settings refactor has landed) are left out here too.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

PACKAGE = "doc_processing_toolkit"
APPLICATION = f"{PACKAGE}.application"
PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def room_of(module: str, container: str = APPLICATION) -> str | None:
    """The room of ``module`` inside ``container`` (None: outside it, or the container)."""
    if not module.startswith(container + "."):
        return None
    return module[len(container) + 1 :].split(".")[0]


def room_graph(
    modules: Mapping[str, Iterable[str]],
    container: str = APPLICATION,
    ignored: Iterable[tuple[str, str]] = (),
) -> dict[str, set[str]]:
    """room -> the other rooms its modules import (``ignored``: module pairs left out)."""
    skip = set(ignored)
    graph: dict[str, set[str]] = {}
    for importer, imported in modules.items():
        source = room_of(importer, container)
        if source is None:
            continue
        graph.setdefault(source, set())
        for target_module in imported:
            target = room_of(target_module, container)
            if target is not None and target != source and (importer, target_module) not in skip:
                graph[source].add(target)
    return graph


def room_cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one room (Tarjan, recursive: the
    graph has a dozen nodes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for root in sorted(graph):
        if root not in index:
            visit(root)
    return sorted(found)


def contract_ignores() -> list[tuple[str, str]]:
    """The (importer, imported) pairs the application layers contract ignores."""
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    for contract in config["contracts"]:
        if contract.get("containers") == [APPLICATION]:
            pairs = [line.split(" -> ") for line in contract.get("ignore_imports", [])]
            return [(a.strip(), b.strip()) for a, b in pairs]
    pytest.fail("pyproject.toml has no layers contract over doc_processing_toolkit.application")


def test_the_rooms_of_application_form_no_cycle() -> None:
    graph = grimp.build_graph(PACKAGE)
    modules = {
        module: graph.find_modules_directly_imported_by(module)
        for module in graph.modules
        if module.startswith(APPLICATION)
    }
    cycles = room_cycles(room_graph(modules, ignored=contract_ignores()))
    assert cycles == [], f"rooms of application/ import each other (a cycle): {cycles}"


def test_a_cycle_between_rooms_is_found_though_no_module_cycles() -> None:
    # run.loop -> hooks.runner and hooks.control -> run.events: acyclic as modules, a
    # cycle as rooms.
    app = "pkg.application"
    modules = {
        f"{app}.run.loop": {f"{app}.hooks.runner", f"{app}.run.events"},
        f"{app}.hooks.control": {f"{app}.run.events"},
        f"{app}.hooks.runner": set(),
        f"{app}.run.events": set(),
        f"{app}.config": {f"{app}.deps"},
        f"{app}.deps": set(),
        "pkg.domain.x": {f"{app}.run.loop"},
    }
    assert room_cycles(room_graph(modules, app)) == [["hooks", "run"]]
    ignored = [(f"{app}.hooks.control", f"{app}.run.events")]
    assert room_cycles(room_graph(modules, app, ignored)) == []
    assert room_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_sub_rooms_of_run_form_no_cycle() -> None:
    run = f"{APPLICATION}.run"
    graph = grimp.build_graph(PACKAGE)
    modules = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    subrooms = room_graph(modules, run)
    assert {"stream", "loop", "results", "policy"} <= set(subrooms)
    assert room_cycles(subrooms) == [], f"sub-rooms of run/ import each other: {subrooms}"
