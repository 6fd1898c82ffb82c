"""The JSON schema of a Python type hint, and the normalisation every provider accepts.

Simple types map by hand so the schema reads the way a person would write it
(``int`` -> ``integer``, ``Literal``/``Enum`` -> ``enum`` of values, ``X | None`` ->
a ``[X, "null"]`` type list, ``list[X]`` -> ``array`` with ``items``); anything richer
(pydantic models, dataclasses, dates, ``Annotated`` constraints) goes through pydantic,
without its ``title`` keywords and with its ``$defs`` merged into the caller's.
"""

from __future__ import annotations

import collections.abc as cabc
import enum
import json
import types
from collections.abc import Mapping
from copy import deepcopy
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter
from pydantic_core import to_jsonable_python

from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError

__all__ = ["MISSING", "json_default", "normalize_schema", "schema_for_type", "strip_titles"]

MISSING: Any = object()
"""Returned by `json_default` for a value JSON cannot show."""

_NONE_TYPE = type(None)
_PRIMITIVES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    _NONE_TYPE: "null",
}
_ARRAYS = (list, tuple, set, frozenset, cabc.Sequence, cabc.MutableSequence, cabc.Set)
_OBJECTS = (dict, cabc.Mapping, cabc.MutableMapping)
_VERBATIM = ("default", "enum", "const", "examples", "required")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


def _json_type(value: Any) -> str | None:
    for python_type, json_type in _PRIMITIVES.items():
        if type(value) is python_type:
            return json_type
    return None


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    kinds = {_json_type(v) for v in values}
    if len(kinds) == 1 and None not in kinds:
        return {"type": kinds.pop(), "enum": values}
    return {"enum": values}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if not schema:  # Any already admits null
        return schema
    if isinstance(schema.get("type"), str) and not {"$ref", "anyOf", "oneOf"} & schema.keys():
        result = {**schema, "type": [schema["type"], "null"]}
        if "enum" in result and None not in result["enum"]:
            result["enum"] = [*result["enum"], None]
        return result
    if schema.get("type") == ["null"] or schema.get("type") == "null":
        return schema
    return {"anyOf": [schema, {"type": "null"}]}


def schema_for_type(tp: Any, defs: dict[str, Any], where: str) -> dict[str, Any]:
    """The JSON schema of one type hint; pydantic's ``$defs`` are merged into ``defs``."""
    if tp is Any or tp is object:
        return {}
    primitive = _PRIMITIVES.get(tp) if isinstance(tp, type) else None
    if primitive is not None:
        return {"type": primitive}
    if tp is None:
        return {"type": "null"}
    origin, args = get_origin(tp), get_args(tp)
    if origin is Union or origin is types.UnionType:
        members = [a for a in args if a is not _NONE_TYPE]
        schemas = [schema_for_type(m, defs, where) for m in members]
        single = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
        return _nullable(single) if len(members) < len(args) else single
    if origin is Literal:
        return _enum_schema([a.value if isinstance(a, enum.Enum) else a for a in args])
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_schema([member.value for member in tp])
    if tp in _ARRAYS or origin in _ARRAYS:
        return _array_schema(tp, origin, args, defs, where)
    if tp in _OBJECTS or origin in _OBJECTS:
        schema: dict[str, Any] = {"type": "object"}
        if len(args) == 2 and args[1] not in (Any, object):
            schema["additionalProperties"] = schema_for_type(args[1], defs, where)
        return schema
    return _pydantic_schema(tp, defs, where)


def _array_schema(
    tp: Any, origin: Any, args: tuple[Any, ...], defs: dict[str, Any], where: str
) -> dict[str, Any]:
    container = origin or tp
    schema: dict[str, Any] = {"type": "array"}
    if container is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        if args == ((),):
            return {"type": "array", "maxItems": 0}
        schema["prefixItems"] = [schema_for_type(a, defs, where) for a in args]
        schema["minItems"] = schema["maxItems"] = len(args)
        return schema
    if args and args[0] not in (Any, object):
        schema["items"] = schema_for_type(args[0], defs, where)
    if container in (set, frozenset, cabc.Set):
        schema["uniqueItems"] = True
    return schema


def _pydantic_schema(tp: Any, defs: dict[str, Any], where: str) -> dict[str, Any]:
    try:
        schema = TypeAdapter(tp).json_schema(ref_template="#/$defs/{model}")
    except Exception as exc:  # pydantic raises several kinds; all mean "not describable"
        message = f"the type {tp!r} of {where} cannot be described as JSON schema: {exc}"
        raise InvalidArgumentTypeError(message) from exc
    for key, definition in schema.pop("$defs", {}).items():
        clean = strip_titles(definition)
        if key in defs and defs[key] != clean:
            raise InvalidArgumentTypeError(f"{where}: two different types are both named {key!r}")
        defs[key] = clean
    stripped: dict[str, Any] = strip_titles(schema)
    return stripped


def strip_titles(schema: Any) -> Any:
    """Drop pydantic's ``title`` keywords (never a property called ``title``)."""
    if isinstance(schema, list):
        return [strip_titles(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            result[key] = {name: strip_titles(sub) for name, sub in value.items()}
        elif key in _VERBATIM:
            result[key] = value
        else:
            result[key] = strip_titles(value)
    return result


def json_default(value: Any) -> Any:
    """``value`` as JSON data for a schema's ``default``, or `MISSING`."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    try:
        data = to_jsonable_python(value)
        json.dumps(data)
    except Exception:  # a default JSON cannot show is simply not advertised
        return MISSING
    return data


def normalize_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of a tool's input schema that every provider accepts.

    The root is an object schema, and every object schema (root or nested) carries both
    ``"type": "object"`` and ``"properties"``; a root ``$schema`` keyword is dropped.
    """
    result: dict[str, Any] = deepcopy(dict(schema)) if schema else {}
    result.pop("$schema", None)
    if "type" not in result and not {"anyOf", "oneOf", "allOf", "$ref"} & result.keys():
        result["type"] = "object"
    normalized: dict[str, Any] = _normalize_objects(result)
    return normalized


def _normalize_objects(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_normalize_objects(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    for key, value in list(schema.items()):
        if key in _SCHEMA_MAPS:
            if isinstance(value, dict):
                schema[key] = {n: _normalize_objects(s) for n, s in value.items()}
        elif key not in _VERBATIM:
            schema[key] = _normalize_objects(value)
    if schema.get("type") == "object" or ("properties" in schema and "type" not in schema):
        schema["type"] = "object"
        schema.setdefault("properties", {})
    return schema
