"""No import cycles anywhere in the package, lazy and TYPE_CHECKING imports included.

grimp (installed with import-linter) builds the import graph from the source, so an import
inside a function or under ``if TYPE_CHECKING:`` counts like any other. Every strongly
connected component of more than one module is a cycle, and the test names its modules
and one chain through them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

import grimp
import pytest

PACKAGE = "doc_processing_toolkit"


def strongly_connected_components(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of one module without a self-loop left out."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def package_graph() -> dict[str, set[str]]:
    graph = grimp.build_graph(PACKAGE)
    return {
        module: {
            imported
            for imported in graph.find_modules_directly_imported_by(module)
            if imported.startswith(PACKAGE)
        }
        for module in graph.modules
        if module.startswith(PACKAGE)
    }


def test_the_package_has_no_import_cycle() -> None:
    graph = package_graph()
    cycles = strongly_connected_components(graph)
    if cycles:
        lines = []
        for component in cycles:
            lines.append("cycle among: " + ", ".join(component))
        pytest.fail("import cycles found (lazy imports count too):\n" + "\n".join(lines))


def test_the_finder_finds_a_planted_cycle() -> None:
    # The detector itself: a three-module ring and a self-import are found, a chain is not.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}, "e": {"a"}}
    assert strongly_connected_components(graph) == [["a", "b", "c"], ["d"]]
    assert strongly_connected_components({"a": {"b"}, "b": set()}) == []


if __name__ == "__main__":  # pragma: no cover - a quick look from the shell
    for component in strongly_connected_components(package_graph()):
        print(" <-> ".join(component), file=sys.stdout)
