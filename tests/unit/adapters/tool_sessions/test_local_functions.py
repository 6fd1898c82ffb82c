"""LocalFunctionSession: registration, argument validation, execution and return conversion."""

from __future__ import annotations

import json
import threading
from datetime import date
from enum import StrEnum
from typing import Any

import pytest
from pydantic import BaseModel

from doc_processing_toolkit.adapters.tool_sessions.local_functions import (
    LocalFunctionSession,
    outcome_from_return,
    sniff_media_type,
)
from doc_processing_toolkit.domain.errors import ToolDefinitionError
from doc_processing_toolkit.domain.messages import MediaPart, TextPart
from doc_processing_toolkit.domain.tools.schema import tool
from doc_processing_toolkit.domain.tools.specs import ToolOutcome
from doc_processing_toolkit.ports.tool_session import ToolSession

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


class Unit(StrEnum):
    C = "celsius"
    F = "fahrenheit"


class Box(BaseModel):
    width: int
    height: int


@tool
def add(a: int, b: int = 2) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@tool
def where_am_i() -> int:
    """The thread this ran on."""
    return threading.get_ident()


@tool
async def shout(text: str, times: int = 1) -> str:
    """Shout."""
    return (text.upper() + "!") * times


@tool
def fails(message: str) -> str:
    """Always raises."""
    raise RuntimeError(message)


@tool
async def fails_async() -> str:
    """Always raises, asynchronously."""
    raise KeyError("missing")


@tool
def convert(
    value: float, unit: Unit, box: Box | None = None, day: date | None = None
) -> dict[str, Any]:
    """Echo the validated arguments with their types."""
    return {
        "value": value,
        "unit": unit.value,
        "unit_is_enum": isinstance(unit, Unit),
        "box_area": box.width * box.height if box else None,
        "day": day.isoformat() if day else None,
    }


@tool
def positional(a: int, /, b: str) -> str:
    """Positional-only a."""
    return f"{a}-{b}"


@tool(name="renamed")
def original(x: int) -> int:
    """Renamed."""
    return x


def session() -> LocalFunctionSession:
    return LocalFunctionSession(
        [add, where_am_i, shout, fails, fails_async, convert, positional, original]
    )


def test_is_a_tool_session() -> None:
    assert isinstance(session(), ToolSession)
    assert session().name == "local-functions"
    assert LocalFunctionSession([add], name="mine").name == "mine"


@pytest.mark.anyio
async def test_list_tools() -> None:
    specs = await session().list_tools()
    assert [s.name for s in specs] == [
        "add",
        "where_am_i",
        "shout",
        "fails",
        "fails_async",
        "convert",
        "positional",
        "renamed",
    ]
    add_spec = specs[0]
    assert add_spec.description == "Add two numbers."
    assert add_spec.parameters == {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The first."},
            "b": {"type": "integer", "description": "The second.", "default": 2},
        },
        "required": ["a"],
    }
    assert add_spec.server_name is None
    assert specs[1].parameters == {"type": "object", "properties": {}, "required": []}


def test_undecorated_function_is_refused() -> None:
    def plain(x: int) -> int:
        return x

    with pytest.raises(ToolDefinitionError, match=r"'plain'.*@tool"):
        LocalFunctionSession([add, plain])


def test_duplicate_names_are_refused() -> None:
    @tool(name="add")
    def another_add(x: int) -> int:
        return x

    with pytest.raises(ToolDefinitionError, match="'add'"):
        LocalFunctionSession([add, another_add])


@pytest.mark.anyio
async def test_sync_tool_runs_on_a_worker_thread() -> None:
    loop_thread = threading.get_ident()
    outcome = await session().call_tool("where_am_i", {})
    assert not outcome.is_error
    assert outcome.data != loop_thread
    assert isinstance(outcome.data, int)


@pytest.mark.anyio
async def test_sync_tool_result_and_coercion() -> None:
    outcome = await session().call_tool("add", {"a": "5"})
    assert outcome == ToolOutcome(content=(TextPart("7"),), data=7)
    outcome = await session().call_tool("add", {"a": 1, "b": 10})
    assert outcome.text == "11"


@pytest.mark.anyio
async def test_async_tool_is_awaited() -> None:
    outcome = await session().call_tool("shout", {"text": "hi", "times": 2})
    assert outcome.content == (TextPart("HI!HI!"),)
    assert not outcome.is_error


@pytest.mark.anyio
async def test_validation_builds_enums_models_and_dates() -> None:
    outcome = await session().call_tool(
        "convert",
        {
            "value": "2.5",
            "unit": "celsius",
            "box": {"width": 2, "height": "3"},
            "day": "2026-01-02",
        },
    )
    assert not outcome.is_error, outcome.text
    assert outcome.data == {
        "value": 2.5,
        "unit": "celsius",
        "unit_is_enum": True,
        "box_area": 6,
        "day": "2026-01-02",
    }
    assert json.loads(outcome.text) == outcome.data
    omitted = await session().call_tool("convert", {"value": 1, "unit": "fahrenheit"})
    assert omitted.data["box_area"] is None


@pytest.mark.anyio
async def test_positional_only_parameters() -> None:
    outcome = await session().call_tool("positional", {"a": 3, "b": "x"})
    assert outcome.text == "3-x"


@pytest.mark.anyio
async def test_renamed_tool_is_called_by_its_tool_name() -> None:
    assert (await session().call_tool("renamed", {"x": 4})).text == "4"
    assert (await session().call_tool("original", {"x": 4})).is_error


@pytest.mark.anyio
async def test_exceptions_become_error_outcomes() -> None:
    outcome = await session().call_tool("fails", {"message": "disk on fire"})
    assert outcome.is_error
    assert outcome.text == "Error executing tool fails: disk on fire"
    outcome = await session().call_tool("fails_async", {})
    assert outcome.is_error
    assert outcome.text == "Error executing tool fails_async: 'missing'"


@pytest.mark.anyio
async def test_bad_arguments_become_error_outcomes() -> None:
    s = session()
    missing = await s.call_tool("add", {})
    assert missing.is_error
    assert "missing required argument 'a'" in missing.text
    wrong = await s.call_tool("add", {"a": "five"})
    assert wrong.is_error
    assert "Invalid arguments for tool 'add'" in wrong.text
    assert "a:" in wrong.text and "'five'" in wrong.text
    extra = await s.call_tool("add", {"a": 1, "c": 3})
    assert extra.is_error
    assert "unexpected argument 'c'" in extra.text
    nested = await s.call_tool("convert", {"value": 1, "unit": "kelvin", "box": {"width": 1}})
    assert nested.is_error
    assert "unit:" in nested.text
    assert "box.height" in nested.text
    not_object = await s.call_tool("add", [1, 2])  # type: ignore[arg-type]
    assert not_object.is_error


@pytest.mark.anyio
async def test_unknown_tool() -> None:
    outcome = await session().call_tool("nope", {})
    assert outcome.is_error
    assert "Unknown tool 'nope'" in outcome.text
    assert "add" in outcome.text


# ------------------------------------------------------------------ return conversion


def test_return_str() -> None:
    assert outcome_from_return("hello") == ToolOutcome(content=(TextPart("hello"),))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"é": [1, 2]}, '{"é": [1, 2]}'),
        ([1, "a"], '[1, "a"]'),
        (3.5, "3.5"),
        (True, "true"),
        (None, "null"),
    ],
)
def test_return_json_values(value: Any, text: str) -> None:
    outcome = outcome_from_return(value)
    assert outcome.content == (TextPart(text),)
    assert outcome.data == value
    assert not outcome.is_error


def test_return_pydantic_model_and_rich_values() -> None:
    outcome = outcome_from_return(Box(width=1, height=2))
    assert outcome.data == {"width": 1, "height": 2}
    assert json.loads(outcome.text) == {"width": 1, "height": 2}
    dated = outcome_from_return({"day": date(2026, 1, 2)})
    assert dated.data == {"day": "2026-01-02"}


def test_return_unserialisable_falls_back_to_str() -> None:
    class Thing:
        def __str__(self) -> str:
            return "a thing"

    outcome = outcome_from_return(Thing())
    assert outcome.content == (TextPart("a thing"),)
    assert outcome.data is None


def test_return_media() -> None:
    media = MediaPart(mime_type="image/jpeg", data=b"\xff\xd8\xff")
    assert outcome_from_return(media).content == (media,)
    from_bytes = outcome_from_return(PNG)
    assert from_bytes.content == (MediaPart(mime_type="image/png", data=PNG),)
    assert outcome_from_return(b"plain text").content == (TextPart("plain text"),)
    garbage = outcome_from_return(b"\xff\xfe\x00\x81")
    assert garbage.is_error


def test_return_part_lists_pass_through() -> None:
    media = MediaPart(mime_type="image/png", data=PNG)
    parts = [TextPart("caption"), media]
    assert outcome_from_return(parts).content == (TextPart("caption"), media)
    assert outcome_from_return(tuple(parts)).content == (TextPart("caption"), media)
    mixed = outcome_from_return(["caption", media, {"k": 1}, PNG])
    assert mixed.content == (
        TextPart("caption"),
        media,
        TextPart('{"k": 1}'),
        MediaPart(mime_type="image/png", data=PNG),
    )


def test_return_tool_outcome_is_kept() -> None:
    outcome = ToolOutcome.error("refused")
    assert outcome_from_return(outcome) is outcome


def test_sniff_media_type() -> None:
    assert sniff_media_type(PNG) == "image/png"
    assert sniff_media_type(b"GIF89a...") == "image/gif"
    assert sniff_media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_media_type(b"%PDF-1.7") == "application/pdf"
    assert sniff_media_type(b"hello") is None
