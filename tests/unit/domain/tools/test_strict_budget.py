"""The Anthropic strict-schema budgeter: counting rules, the three limits, ordering."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.domain.tools.strict_budget import (
    STRICT_MAX_OPTIONAL_PROPERTIES,
    STRICT_MAX_TOOLS,
    STRICT_MAX_UNION_PARAMETERS,
    SchemaCounts,
    budget_strict_tools,
    count_schema,
)


def schema(optional: int = 0, unions: int = 0) -> dict[str, Any]:
    """An object schema with ``optional`` optional strings and ``unions`` required unions."""
    properties: dict[str, Any] = {f"o{i}": {"type": "string"} for i in range(optional)}
    union_names = [f"u{i}" for i in range(unions)]
    for name in union_names:
        properties[name] = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    return {"type": "object", "properties": properties, "required": union_names}


def make_tool(name: str, optional: int = 0, unions: int = 0) -> ToolSpec:
    return ToolSpec(name=name, description="", parameters=schema(optional, unions))


def strict_names(tools: tuple[ToolSpec, ...]) -> set[str]:
    return {t.name for t in tools if t.strict}


# ------------------------------------------------------------------ counting


def test_count_optional_properties_including_nested_objects() -> None:
    counted = count_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "string"},
                "nested": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                    "required": ["x"],
                },
                "list": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"z": {"type": "string"}}},
                },
            },
            "required": ["a", "nested"],
        }
    )
    # b, list (top level) + y (nested) + z (inside items)
    assert counted == SchemaCounts(optional=4, unions=0)


def test_union_counting_includes_single_branch_and_one_element_type_lists() -> None:
    counted = count_schema(
        {
            "type": "object",
            "properties": {
                "two": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "one": {"anyOf": [{"type": "string"}]},
                "one_of": {"oneOf": [{"type": "string"}]},
                "type_list": {"type": ["string", "null"]},
                "single_type_list": {"type": ["string"]},
                "plain": {"type": "string"},
            },
            "required": ["two", "one", "one_of", "type_list", "single_type_list", "plain"],
        }
    )
    assert counted == SchemaCounts(optional=0, unions=5)


def test_nested_unions_count_inside_branches() -> None:
    counted = count_schema(
        {"anyOf": [{"type": ["string", "null"]}, {"oneOf": [{"type": "integer"}]}]}
    )
    assert counted.unions == 3


def test_defs_entry_counts_once_and_duplicates_count_twice() -> None:
    shared = {
        "type": "object",
        "properties": {"p": {"type": ["string", "null"]}, "q": {"type": "string"}},
    }
    via_refs = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Shared"},
            "b": {"$ref": "#/$defs/Shared"},
            "c": {"$ref": "#/$defs/Shared"},
        },
        "required": ["a", "b", "c"],
        "$defs": {"Shared": shared},
    }
    assert count_schema(via_refs) == SchemaCounts(optional=2, unions=1)
    written_twice = {
        "type": "object",
        "properties": {"a": shared, "b": shared},
        "required": ["a", "b"],
    }
    assert count_schema(written_twice) == SchemaCounts(optional=4, unions=2)


def test_keyword_values_are_not_counted_as_schemas() -> None:
    counted = count_schema(
        {
            "type": "object",
            "properties": {
                "anyOf": {"type": "string", "default": {"properties": {"x": {}}}},
            },
            "required": ["anyOf"],
            "examples": [{"type": ["a", "b"]}],
        }
    )
    assert counted == SchemaCounts()


def test_empty_schema_counts_nothing() -> None:
    assert count_schema(None) == SchemaCounts()
    assert count_schema({}) == SchemaCounts()


# ------------------------------------------------------------------ the three limits


def test_at_most_twenty_strict_tools() -> None:
    tools = [make_tool(f"t{i:02d}") for i in range(25)]
    budget = budget_strict_tools(tools)
    assert len(strict_names(budget.tools)) == STRICT_MAX_TOOLS
    assert strict_names(budget.tools) == {f"t{i:02d}" for i in range(20)}
    assert budget.non_strict == tuple(f"t{i:02d}" for i in range(20, 25))
    assert budget.oversized == ()


def test_optional_property_budget() -> None:
    tools = [make_tool("a", optional=10), make_tool("b", optional=10), make_tool("c", optional=10)]
    budget = budget_strict_tools(tools)
    assert strict_names(budget.tools) == {"a", "b"}
    assert budget.non_strict == ("c",)
    assert budget.spent.optional <= STRICT_MAX_OPTIONAL_PROPERTIES


def test_union_budget() -> None:
    tools = [make_tool("a", unions=9), make_tool("b", unions=8), make_tool("c", unions=1)]
    budget = budget_strict_tools(tools)
    # ordered by unions (all have 0 optional): c (1), b (8) -> 9; a (9) would make 18
    assert strict_names(budget.tools) == {"b", "c"}
    assert budget.non_strict == ("a",)
    assert budget.spent.unions <= STRICT_MAX_UNION_PARAMETERS


def test_greedy_fill_continues_past_a_tool_that_does_not_fit() -> None:
    tools = [make_tool("big", optional=20), make_tool("mid", optional=5), make_tool("small")]
    budget = budget_strict_tools(tools)
    # small (0) and mid (5) go first; big (20) would make 25 > 24
    assert strict_names(budget.tools) == {"small", "mid"}
    tools = [make_tool("few", optional=3, unions=16), make_tool("many", optional=4)]
    budget = budget_strict_tools(tools)
    assert strict_names(budget.tools) == {"few", "many"}


def test_a_tool_over_a_limit_alone_is_not_strict() -> None:
    tools = [make_tool("huge", optional=25), make_tool("fine", optional=2)]
    budget = budget_strict_tools(tools)
    assert strict_names(budget.tools) == {"fine"}
    assert budget.non_strict == ("huge",)
    assert budget.oversized == ("huge",)
    tools = [make_tool("unions", unions=17)]
    assert budget_strict_tools(tools).oversized == ("unions",)


def test_response_schema_is_reserved_first() -> None:
    tools = [make_tool("a", optional=10), make_tool("b", optional=10)]
    assert strict_names(budget_strict_tools(tools).tools) == {"a", "b"}
    budget = budget_strict_tools(tools, schema(optional=10))
    assert strict_names(budget.tools) == {"a"}
    assert budget.non_strict == ("b",)
    assert budget.spent == SchemaCounts(optional=20, unions=0)
    budget = budget_strict_tools(tools, schema(optional=20))
    assert strict_names(budget.tools) == set()
    budget = budget_strict_tools([make_tool("u", unions=2)], schema(unions=15))
    assert budget.non_strict == ("u",)


def test_original_order_is_kept_and_strict_flags_are_replaced() -> None:
    tools = [
        make_tool("z", optional=24),
        ToolSpec(name="y", description="", parameters=schema(optional=25), strict=True),
        make_tool("x"),
    ]
    budget = budget_strict_tools(tools)
    assert [t.name for t in budget.tools] == ["z", "y", "x"]
    assert [t.strict for t in budget.tools] == [True, False, True]
    assert [t.parameters for t in budget.tools] == [t.parameters for t in tools]


def test_ties_are_broken_by_name() -> None:
    tools = [make_tool("b", optional=13), make_tool("a", optional=13)]
    budget = budget_strict_tools(tools)
    assert strict_names(budget.tools) == {"a"}
    assert budget.non_strict == ("b",)


def test_disabled_makes_nothing_strict() -> None:
    tools = [make_tool("a"), ToolSpec(name="b", description="", parameters={}, strict=True)]
    budget = budget_strict_tools(tools, enabled=False)
    assert strict_names(budget.tools) == set()
    assert budget.non_strict == ()


def test_per_tool_only_checks_each_tool_alone() -> None:
    tools = [make_tool(f"t{i:02d}", optional=10, unions=10) for i in range(25)]
    tools.append(make_tool("huge", optional=25))
    budget = budget_strict_tools(tools, schema(optional=24), per_tool_only=True)
    assert len(strict_names(budget.tools)) == 25
    assert budget.non_strict == ("huge",)
    assert budget.oversized == ("huge",)


# ------------------------------------------------------------------ order independence

_tool_sets = st.lists(
    st.tuples(st.integers(0, 14), st.integers(0, 9)),
    min_size=1,
    max_size=26,
).map(lambda specs: [make_tool(f"tool{i}", o, u) for i, (o, u) in enumerate(specs)])


@settings(max_examples=60, deadline=None)
@given(tools=_tool_sets, data=st.data(), reserved=st.integers(0, 12))
def test_choice_does_not_depend_on_arrival_order(
    tools: list[ToolSpec], data: st.DataObject, reserved: int
) -> None:
    response = schema(optional=reserved) if reserved else None
    first = budget_strict_tools(tools, response)
    shuffled = data.draw(st.permutations(tools))
    second = budget_strict_tools(shuffled, response)
    assert strict_names(first.tools) == strict_names(second.tools)
    assert set(first.non_strict) == set(second.non_strict)
    chosen = [t for t in first.tools if t.strict]
    assert len(chosen) <= STRICT_MAX_TOOLS
    spent = sum((count_schema(t.parameters) for t in chosen), count_schema(response))
    assert spent == first.spent
    assert spent.optional <= STRICT_MAX_OPTIONAL_PROPERTIES
    assert spent.unions <= STRICT_MAX_UNION_PARAMETERS
