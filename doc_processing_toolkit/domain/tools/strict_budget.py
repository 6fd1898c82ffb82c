"""The Anthropic strict-schema budgeter: which tools go out with ``strict: true``.

Anthropic limits strict mode per request and answers a request over any limit with a
400. The limits (measured 2026-09-28) and what counts against them, on each schema as
it is sent:

* 20 strict tools (the response schema is not a tool);
* 24 optional properties: every property not in its object's ``required`` list, nested
  objects included, in every strict tool and in the response schema;
* 16 union-typed parameters: every ``anyOf`` / ``oneOf`` and every ``type`` list,
  counted the same way. A single-branch ``anyOf`` / ``oneOf`` and a one-element type
  list count too, on the safe side.

A subschema written twice counts twice; a ``$defs`` entry counts once, however often it
is referenced. The response schema's share is reserved first; the tools are then made
strict greedily, fewest optional properties first, then fewest unions, then by name, so
the choice does not depend on the order the tools arrive in. A tool that does not fit is
still offered, without strict mode, and the caller logs one WARNING naming every such
tool (`StrictBudget.non_strict`).

The decision is a pure function of the specs, so it is remembered per tuple of spec
objects (by identity; the loader hands every run of an Agent the same ones): a run does
not walk and re-count every schema again. A spec's ``parameters`` are not to be changed
in place once it is offered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from doc_processing_toolkit.domain.tools.specs import ToolSpec

__all__ = [
    "STRICT_MAX_OPTIONAL_PROPERTIES",
    "STRICT_MAX_TOOLS",
    "STRICT_MAX_UNION_PARAMETERS",
    "SchemaCounts",
    "StrictBudget",
    "all_strict",
    "budget_strict_tools",
    "count_schema",
]

STRICT_MAX_TOOLS = 20
"""Strict tools allowed in one request."""
STRICT_MAX_OPTIONAL_PROPERTIES = 24
"""Optional properties allowed across the strict tools and the response schema."""
STRICT_MAX_UNION_PARAMETERS = 16
"""Union-typed parameters allowed across the strict tools and the response schema."""

_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
_DEFS = ("$defs", "definitions")


@dataclass(frozen=True, slots=True)
class SchemaCounts:
    """What one schema spends of the strict budget."""

    optional: int = 0
    """Properties not in their object's ``required`` list (nested objects included)."""
    unions: int = 0
    """``anyOf`` / ``oneOf`` keywords and ``type`` lists, whatever their length."""

    def __add__(self, other: SchemaCounts) -> SchemaCounts:
        return SchemaCounts(self.optional + other.optional, self.unions + other.unions)


def count_schema(schema: Mapping[str, Any] | None) -> SchemaCounts:
    """Count a schema's optional properties and union-typed parameters, as sent."""
    if not schema:
        return SchemaCounts()
    optional, unions = _walk(schema)
    return SchemaCounts(optional=optional, unions=unions)


def _walk(schema: Any) -> tuple[int, int]:
    if not isinstance(schema, Mapping):
        return 0, 0
    optional = unions = 0

    def add(sub: Any) -> None:
        nonlocal optional, unions
        sub_optional, sub_unions = _walk(sub)
        optional += sub_optional
        unions += sub_unions

    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        required = schema.get("required")
        required_names = set(required) if isinstance(required, list) else set()
        optional += sum(1 for name in properties if name not in required_names)
    unions += sum(1 for key in ("anyOf", "oneOf") if isinstance(schema.get(key), list))
    if isinstance(schema.get("type"), list):
        unions += 1
    for key, value in schema.items():
        if key in _SCHEMA_MAPS or key in _DEFS:
            if isinstance(value, Mapping):
                for sub in value.values():  # each $defs entry is walked once, here
                    add(sub)
        elif key in _SCHEMA_LISTS:
            if isinstance(value, list):
                for sub in value:
                    add(sub)
        elif key in _SCHEMA_VALUES:
            for sub in value if isinstance(value, list) else [value]:
                add(sub)
    return optional, unions


@dataclass(frozen=True, slots=True)
class StrictBudget:
    """The budgeter's decision for one request."""

    tools: tuple[ToolSpec, ...]
    """The tools in their original order, each with ``strict`` set."""
    non_strict: tuple[str, ...] = ()
    """Tools wanted strict that go out without it, in original order (log one WARNING)."""
    oversized: tuple[str, ...] = ()
    """The subset of `non_strict` that exceeds a limit on its own."""
    spent: SchemaCounts = SchemaCounts()
    """What the strict tools and the response schema spend together."""


_MEMO_SIZE = 256
_memo: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}


def _remembered(held: tuple[Any, ...], flags: tuple[Any, ...], compute: Any) -> Any:
    """``compute()``, remembered for these ``held`` objects (by identity) and ``flags``.

    The entry keeps ``held`` alive, so an id in its key cannot be reused by another
    object while the entry exists.
    """
    key = (*map(id, held), *flags)
    hit = _memo.get(key)
    if hit is not None and len(hit[0]) == len(held):
        for kept, given in zip(hit[0], held, strict=True):
            if kept is not given:
                break
        else:
            return hit[1]
    value = compute()
    if len(_memo) >= _MEMO_SIZE:
        _memo.clear()
    _memo[key] = (held, value)
    return value


def all_strict(tools: Sequence[ToolSpec]) -> tuple[ToolSpec, ...]:
    """``tools``, each with ``strict=True`` (a model with no per-request strict limits)."""
    held = tuple(tools)
    return _remembered(  # type: ignore[no-any-return]
        held, ("all",), lambda: tuple(replace(t, strict=True) for t in held)
    )


def budget_strict_tools(
    tools: Sequence[ToolSpec],
    response_schema: Mapping[str, Any] | None = None,
    *,
    enabled: bool = True,
    per_tool_only: bool = False,
) -> StrictBudget:
    """Decide which tools are sent with ``strict: true`` (remembered; see the module).

    Args:
        tools: The client tools of the request, with their schemas as they are sent.
        response_schema: A structured run's response schema, as sent (its share is
            reserved first).
        enabled: ``Agent(strict_tools=...)``; False makes nothing strict.
        per_tool_only: ``DPT_ANTHROPIC_STRICT_BUDGET=off``: only the per-tool check that
            a tool has at most 24 optional properties; no shared budget.
    """
    held = (*tools, response_schema)
    return _remembered(  # type: ignore[no-any-return]
        held,
        ("budget", len(tools), enabled, per_tool_only),
        lambda: _budget(list(tools), response_schema, enabled, per_tool_only),
    )


def _budget(
    tools: Sequence[ToolSpec],
    response_schema: Mapping[str, Any] | None,
    enabled: bool,
    per_tool_only: bool,
) -> StrictBudget:
    if not enabled:
        return StrictBudget(tools=tuple(replace(t, strict=False) for t in tools))
    counts = [count_schema(t.parameters) for t in tools]
    if per_tool_only:
        oversized = {i for i, c in enumerate(counts) if c.optional > STRICT_MAX_OPTIONAL_PROPERTIES}
        chosen = set(range(len(tools))) - oversized
    else:
        oversized = {
            i
            for i, c in enumerate(counts)
            if c.optional > STRICT_MAX_OPTIONAL_PROPERTIES or c.unions > STRICT_MAX_UNION_PARAMETERS
        }
        chosen = _greedy(tools, counts, oversized, count_schema(response_schema))
    spent = sum((counts[i] for i in chosen), SchemaCounts())
    if not per_tool_only:
        spent = spent + count_schema(response_schema)
    return StrictBudget(
        tools=tuple(replace(t, strict=i in chosen) for i, t in enumerate(tools)),
        non_strict=tuple(t.name for i, t in enumerate(tools) if i not in chosen),
        oversized=tuple(tools[i].name for i in sorted(oversized)),
        spent=spent,
    )


def _greedy(
    tools: Sequence[ToolSpec],
    counts: Sequence[SchemaCounts],
    oversized: set[int],
    reserved: SchemaCounts,
) -> set[int]:
    """Fill what ``reserved`` leaves, in rank order, skipping each tool that does not fit."""
    order = sorted(
        (i for i in range(len(tools)) if i not in oversized),
        key=lambda i: _rank(tools[i], counts[i]),
    )
    chosen: set[int] = set()
    spent = reserved
    for index in order:
        total = spent + counts[index]
        if (
            len(chosen) < STRICT_MAX_TOOLS
            and total.optional <= STRICT_MAX_OPTIONAL_PROPERTIES
            and total.unions <= STRICT_MAX_UNION_PARAMETERS
        ):
            chosen.add(index)
            spent = total
    return chosen


def _rank(tool: ToolSpec, counts: SchemaCounts) -> tuple[int, int, str, str]:
    """Fewest optional properties, then fewest unions, then name (then schema, for ties)."""
    schema = json.dumps(tool.parameters, sort_keys=True, default=str)
    return counts.optional, counts.unions, tool.name, schema
