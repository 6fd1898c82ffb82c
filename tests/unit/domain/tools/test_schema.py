"""@tool: metadata, JSON schemas from signatures and docstrings, and the error cases."""

from __future__ import annotations

import inspect
from datetime import date
from enum import Enum, IntEnum, StrEnum
from typing import Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field

from doc_processing_toolkit.domain.tools.schema import (
    build_tool_metadata,
    get_tool_metadata,
    is_tool,
    normalize_schema,
    parse_docstring,
    tool,
    tool_parameters,
    tool_spec_from_function,
)
from doc_processing_toolkit.domain.tools.specs import ToolSpec


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


class Shape(Enum):
    ROUND = "round"
    SQUARE = "square"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str
    zip_code: str | None = None


class Person(BaseModel):
    """Someone."""

    name: str
    title: str = ""
    address: Address


def _props(func: Any) -> dict[str, Any]:
    metadata = get_tool_metadata(func)
    assert metadata is not None
    return metadata["parameters"]["properties"]  # type: ignore[no-any-return]


def test_the_spec_calculate_example_is_exact() -> None:
    @tool
    def calculate(a: float, b: float, operation: str) -> float:
        """Perform a calculation.

        Args:
            a: First number
            b: Second number
            operation: One of 'add', 'subtract', 'multiply', 'divide'
        """
        return 0.0

    assert calculate._tool_metadata == {  # type: ignore[attr-defined]
        "name": "calculate",
        "description": "Perform a calculation.",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "First number"},
                "b": {"type": "number", "description": "Second number"},
                "operation": {
                    "type": "string",
                    "description": "One of 'add', 'subtract', 'multiply', 'divide'",
                },
            },
            "required": ["a", "b", "operation"],
        },
        "function": calculate,
    }


def test_decorator_returns_the_function_unchanged_and_callable() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    decorated = tool(add)
    assert decorated is add
    assert add(2, 3) == 5
    assert is_tool(add)
    assert get_tool_metadata(add) is add._tool_metadata  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_async_function_stays_a_coroutine_function() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        return url.upper()

    assert inspect.iscoroutinefunction(fetch)
    assert await fetch("x") == "X"
    assert get_tool_metadata(fetch)["description"] == "Fetch a page."  # type: ignore[index]


def test_with_parentheses_and_overrides() -> None:
    @tool()
    def plain(x: int) -> int:
        """Plain doc."""
        return x

    @tool(name="custom_name", description="Custom description")
    def other(x: int) -> int:
        """Ignored summary.

        Args:
            x: still documented
        """
        return x

    assert get_tool_metadata(plain)["name"] == "plain"  # type: ignore[index]
    meta = get_tool_metadata(other)
    assert meta is not None
    assert meta["name"] == "custom_name"
    assert meta["description"] == "Custom description"
    assert meta["parameters"]["properties"]["x"]["description"] == "still documented"


def test_not_a_tool() -> None:
    def plain(x: int) -> int:
        return x

    assert get_tool_metadata(plain) is None
    assert not is_tool(plain)
    assert not is_tool(42)


def test_primitive_type_mapping() -> None:
    @tool
    def f(i: int, n: float, s: str, b: bool, anything: Any) -> None:
        """F."""

    assert _props(f) == {
        "i": {"type": "integer"},
        "n": {"type": "number"},
        "s": {"type": "string"},
        "b": {"type": "boolean"},
        "anything": {},
    }


def test_optional_and_defaults_are_not_required() -> None:
    @tool
    def f(
        a: int,
        b: str | None,
        c: Optional[int] = None,  # noqa: UP045 - the typing spelling is supported too
        d: int = 5,
        e: Color = Color.BLUE,
        f: list[str] | None = None,
    ) -> None:
        """F."""

    meta = get_tool_metadata(f)
    assert meta is not None
    assert meta["parameters"]["required"] == ["a"]
    props = meta["parameters"]["properties"]
    assert props["b"] == {"type": ["string", "null"]}
    assert props["c"] == {"type": ["integer", "null"], "default": None}
    assert props["d"] == {"type": "integer", "default": 5}
    assert props["e"] == {"type": "string", "enum": ["red", "blue"], "default": "blue"}
    assert props["f"] == {"type": ["array", "null"], "items": {"type": "string"}, "default": None}
    params = {p.name: p for p in tool_parameters(f)}
    assert params["b"].value_when_omitted() is None
    assert params["d"].value_when_omitted() == 5


def test_literal_enum_list_dict() -> None:
    @tool
    def f(
        mode: Literal["fast", "slow"],
        level: Level,
        shape: Shape,
        tags: list[str],
        grid: list[list[int]],
        meta: dict[str, Any],
        counts: dict[str, int],
        bare: list,  # type: ignore[type-arg]
        unique: set[int],
        pair: tuple[int, str],
        many: tuple[float, ...],
        choice: Literal["a", "b"] | None = None,
        union: int | str = 0,
    ) -> None:
        """F."""

    props = _props(f)
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["level"] == {"type": "integer", "enum": [1, 2]}
    assert props["shape"] == {"type": "string", "enum": ["round", "square"]}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["grid"] == {
        "type": "array",
        "items": {"type": "array", "items": {"type": "integer"}},
    }
    assert props["meta"] == {"type": "object"}
    assert props["counts"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["bare"] == {"type": "array"}
    assert props["unique"] == {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}
    assert props["pair"] == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    }
    assert props["many"] == {"type": "array", "items": {"type": "number"}}
    assert props["choice"] == {
        "type": ["string", "null"],
        "enum": ["a", "b", None],
        "default": None,
    }
    assert props["union"] == {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 0}


def test_nested_pydantic_model_is_inlined_with_defs() -> None:
    @tool
    def register(person: Person, backup: Address | None = None) -> None:
        """Register someone.

        Args:
            person: Who to register.
        """

    meta = get_tool_metadata(register)
    assert meta is not None
    params = meta["parameters"]
    person = params["properties"]["person"]
    assert person["type"] == "object"
    assert person["description"] == "Who to register."
    assert person["required"] == ["name", "address"]
    # a property called "title" survives; pydantic's title keywords do not
    assert set(person["properties"]) == {"name", "title", "address"}
    assert person["properties"]["address"] == {"$ref": "#/$defs/Address"}
    assert "title" not in person
    assert params["$defs"]["Address"]["required"] == ["street", "city"]
    assert "title" not in params["$defs"]["Address"]
    assert params["required"] == ["person"]
    backup = params["properties"]["backup"]
    assert backup["default"] is None
    assert backup["type"] == ["object", "null"]
    assert backup["required"] == ["street", "city"]


def test_pydantic_fallback_types_and_field_defaults() -> None:
    @tool
    def f(day: date, n: int = Field(3, ge=0, description="How many.")) -> None:
        """F."""

    props = _props(f)
    assert props["day"] == {"type": "string", "format": "date"}
    assert props["n"]["type"] == "integer"
    assert props["n"]["minimum"] == 0
    assert props["n"]["description"] == "How many."
    assert props["n"]["default"] == 3
    assert get_tool_metadata(f)["parameters"]["required"] == ["day"]  # type: ignore[index]


def test_untyped_parameter_raises_type_error_naming_it() -> None:
    def f(a: int, b):  # type: ignore[no-untyped-def]
        return a

    with pytest.raises(TypeError, match=r"'b'.*'f'"):
        tool(f)
    assert not is_tool(f)


def test_unresolvable_hint_raises_type_error() -> None:
    def f(a: NotDefinedAnywhere) -> None:  # type: ignore[name-defined]  # noqa: F821
        return None

    with pytest.raises(TypeError, match="'f'"):
        tool(f)


def test_star_args_raise_type_error() -> None:
    def f(*items: int) -> None:
        return None

    with pytest.raises(TypeError, match="items"):
        tool(f)


def test_double_decoration_raises_value_error() -> None:
    @tool
    def f(a: int) -> int:
        return a

    with pytest.raises(ValueError, match="already decorated"):
        tool(f)
    with pytest.raises(ValueError):
        tool(name="again")(f)


def test_docstring_parsing_google_and_sphinx() -> None:
    summary, params = parse_docstring(
        """Search the index
        for documents.

        More detail that is not the summary.

        Args:
            query (str): What to look for,
                continued on a second line.
            limit: How many
            *extra: Ignored.

        Returns:
            The hits.
        """
    )
    assert summary == "Search the index for documents."
    assert params == {
        "query": "What to look for, continued on a second line.",
        "limit": "How many",
        "extra": "Ignored.",
    }
    summary, params = parse_docstring("Do it.\n\n:param x: the x\n:param int y: the y\n")
    assert summary == "Do it."
    assert params == {"x": "the x", "y": "the y"}
    assert parse_docstring(None) == ("", {})
    assert parse_docstring("Args:\n    a: A\n") == ("", {"a": "A"})


def test_no_docstring_gives_empty_description() -> None:
    @tool
    def f(a: int) -> int:
        return a

    assert get_tool_metadata(f)["description"] == ""  # type: ignore[index]


def test_tool_spec_from_function() -> None:
    @tool(name="renamed")
    def f(a: int, b: str = "x") -> str:
        """Does f.

        Args:
            a: The a.
        """
        return b * a

    spec = tool_spec_from_function(f)
    assert spec == ToolSpec(
        name="renamed",
        description="Does f.",
        parameters={
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The a."},
                "b": {"type": "string", "default": "x"},
            },
            "required": ["a"],
        },
    )
    assert not spec.strict


def test_build_tool_metadata_does_not_attach() -> None:
    def g(x: int) -> int:
        return x

    meta = build_tool_metadata(g)
    assert meta["name"] == "g"
    assert not is_tool(g)


def test_normalize_schema_objects_get_type_and_properties() -> None:
    assert normalize_schema(None) == {"type": "object", "properties": {}}
    assert normalize_schema({"type": "object"}) == {"type": "object", "properties": {}}
    source = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "opts": {"type": "object"},
            "items": {"type": "array", "items": {"type": "object"}},
            "properties": {"type": "string"},
        },
        "default": {"type": "object"},
    }
    result = normalize_schema(source)
    assert result == {
        "type": "object",
        "properties": {
            "opts": {"type": "object", "properties": {}},
            "items": {"type": "array", "items": {"type": "object", "properties": {}}},
            "properties": {"type": "string"},
        },
        "default": {"type": "object"},
    }
    assert "$schema" in source  # the input is not modified
    assert source["properties"]["opts"] == {"type": "object"}  # type: ignore[index]
