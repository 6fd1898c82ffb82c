"""A structured run's output model as JSON schema, built once per model class.

pydantic builds the schema anew on every ``model_json_schema()`` call: ~0.2 ms of CPU for
a five-field model, more for nested ones, and a structured run asked for it on every run
(twice when it had tools too). It is now built once per class (the last 256 classes are
kept): `output_json_schema` hands out a copy the caller may change,
`read_only_output_schema` the shared one, and
`final_result_spec` the one ``final_result`` tool spec of a class, so the strict
budget of its requests is remembered too.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.domain.tools.specs import ToolSpec

__all__ = [
    "FINAL_RESULT_DESCRIPTION",
    "FINAL_RESULT_TOOL",
    "final_result_spec",
    "final_result_tool_name",
    "output_json_schema",
    "read_only_output_schema",
]

FINAL_RESULT_DESCRIPTION = (
    "Return the final answer. Call this exactly once, with the answer as its arguments, "
    "when the task is complete."
)


FINAL_RESULT_TOOL = "final_result"
"""The synthetic tool of tool-based structured output (Path B), unless a tool of the
run already has that name (see `final_result_tool_name`)."""


def final_result_tool_name(taken: Iterable[str]) -> str:
    """The name of a run's synthetic Path B tool: ``final_result``, or ``final_result_2``,
    ``_3``, ... when the run's own tools already use it (a user tool may have any name)."""
    names = set(taken)
    candidate, suffix = FINAL_RESULT_TOOL, 1
    while candidate in names:
        suffix += 1
        candidate = f"{FINAL_RESULT_TOOL}_{suffix}"
    return candidate


@functools.lru_cache(maxsize=256)
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def read_only_output_schema(model: type[BaseModel]) -> Mapping[str, Any]:
    """The one cached schema of ``model``, for a caller that only reads it (one object
    per class, so what is worked out from it can be remembered by identity)."""
    return _schema(model)


def output_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, built once per class; a fresh copy each call."""
    return copy.deepcopy(_schema(model))


@functools.lru_cache(maxsize=256)
def final_result_spec(model: type[BaseModel], name: str) -> ToolSpec:
    """The tool a Path-B structured run offers for its answer (one object per class)."""
    return ToolSpec(name=name, description=FINAL_RESULT_DESCRIPTION, parameters=_schema(model))
