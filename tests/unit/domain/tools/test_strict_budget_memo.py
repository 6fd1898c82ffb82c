"""The strict budget and all_strict are remembered for the same spec objects."""

from __future__ import annotations

from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.domain.tools.strict_budget import all_strict, budget_strict_tools


def _specs(*names: str) -> list[ToolSpec]:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    return [ToolSpec(name, f"{name} tool", dict(schema)) for name in names]


def test_the_strict_budget_is_remembered_for_the_same_spec_objects() -> None:
    specs = _specs("a", "b")
    first = budget_strict_tools(specs)
    assert budget_strict_tools(list(specs)) is first
    again = budget_strict_tools(_specs("a", "b"))  # equal specs, other objects: decided anew
    assert again is not first and again == first
    assert all(t.strict for t in first.tools)
    assert budget_strict_tools(specs, enabled=False) is not first  # the flags are the key too
    assert not any(t.strict for t in budget_strict_tools(specs, enabled=False).tools)


def test_all_strict_is_remembered_and_marks_every_tool() -> None:
    specs = _specs("a", "b", "c")
    marked = all_strict(specs)
    assert all_strict(specs) is marked
    assert [t.name for t in marked] == ["a", "b", "c"] and all(t.strict for t in marked)
    assert not any(t.strict for t in specs)
