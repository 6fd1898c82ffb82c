"""Structured fleet jobs: a job's ``output_schema`` travels as an import path.

A job payload is stored data (the fleet's database) and may run in another process, so
the schema is stored as ``"module:QualName"`` and imported again by the worker. The
submitter checks that the path imports back to a pydantic model before the job is queued,
so a typo fails at `Fleet.submit`, not on a worker an hour later.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = ["import_schema", "schema_reference", "structured_options"]


def schema_reference(schema: Any) -> str:
    """The import path of ``schema`` (a pydantic model class, or its ``"module:Model"``
    path), checked to import back to that model.

    Raises:
        ConfigurationError: not a model or a path; a class defined inside a function; a
            path that does not import to a pydantic model.
    """
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        if "<locals>" in schema.__qualname__:
            raise ConfigurationError(
                f"output_schema {schema.__qualname__} is defined inside a function: a fleet "
                "worker imports the schema by its path, so define it at module level"
            )
        reference = f"{schema.__module__}:{schema.__qualname__}"
        if import_schema(reference) is not schema:
            raise ConfigurationError(
                f"output_schema {schema.__qualname__} does not import back from {reference!r}"
            )
        return reference
    if isinstance(schema, str) and schema:
        import_schema(schema)
        return schema
    raise ConfigurationError(
        "output_schema must be a pydantic model class or its 'module:Model' import path, "
        f"got {type(schema).__name__}"
    )


@cache
def import_schema(reference: str) -> type[BaseModel]:
    """The pydantic model at ``reference`` (``"module:Qual.Name"`` or ``"module.Model"``).

    Raises:
        ConfigurationError: the module does not import, or the name is no pydantic model.
    """
    module_name, _, name = reference.rpartition(":" if ":" in reference else ".")
    if not module_name or not name:
        raise ConfigurationError(f"output_schema {reference!r} is not 'module:Model'")
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"output_schema {reference!r}: cannot import module {module_name!r} ({exc})"
        ) from exc
    for part in name.split("."):
        found = getattr(found, part, None)
    if not (isinstance(found, type) and issubclass(found, BaseModel)):
        raise ConfigurationError(f"output_schema {reference!r} is not a pydantic model")
    return found


def structured_options(payload: dict[str, Any]) -> dict[str, Any]:
    """The ``run()`` keywords of a stored job: its schema (imported) and evidence flag."""
    reference = payload.get("output_schema")
    if not reference:
        return {}
    options: dict[str, Any] = {"output_schema": import_schema(reference)}
    if payload.get("evidence"):
        options["evidence"] = True
    return options
