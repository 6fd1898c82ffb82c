"""Eval datasets: YAML or JSONL files of cases (documents + prompt + schema + expected fields).

A YAML file holds ``cases:`` (a list; top-level ``prompt`` and ``output_schema`` are the
cases' defaults) or is itself the list; a ``.jsonl`` file holds one case per line. Each case:
``name``, ``files`` (paths relative to the dataset file, or ``{path, pages}``), ``prompt``,
``output_schema`` (an import path ``package.module:Model`` / ``package.module.Model``, the
dataset's folder importable, or an inline JSON schema), ``expected`` and optional ``tags``.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, create_model

from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.domain.errors import DocumentError, EvalDatasetError
from doc_processing_toolkit.domain.evals.fields import resolve_schema, unknown_fields

__all__ = ["EvalCase", "EvalDataset", "model_from_json_schema"]

_KEYS = {"name", "files", "prompt", "output_schema", "expected", "tags"}


@dataclass(slots=True)
class EvalCase:
    """One case: the documents, the prompt, the schema and the fields expected back."""

    name: str
    prompt: str
    output_schema: type[BaseModel]
    expected: dict[str, Any]
    files: list[DocumentSource] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    schema_json: dict[str, Any] = field(default_factory=dict)
    """The JSON schema the fields are compared under (``match``/``ordered`` rules)."""


@dataclass(slots=True)
class EvalDataset:
    """The cases of one dataset file, validated."""

    cases: list[EvalCase]
    path: str | None = None

    @classmethod
    def load(cls, path: str | Path) -> EvalDataset:
        """Read and validate a ``.yaml``/``.yml`` or ``.jsonl`` dataset.

        Raises:
            EvalDatasetError: the file is missing or unreadable, or a case has a missing
                document, an unknown schema path or an expected field its schema lacks; the
                message names the file, the case and the key.
        """
        file = Path(path)
        where = str(file)
        if not file.is_file():
            raise EvalDatasetError(
                f"{where}: no such dataset file", dataset=where, case=None, key=None
            )
        text = file.read_text(encoding="utf-8")
        defaults: dict[str, Any] = {}
        if file.suffix == ".jsonl":
            entries = _jsonl(text, where)
        else:
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise EvalDatasetError(
                    f"{where}: not valid YAML: {exc}", dataset=where, case=None, key=None
                ) from exc
            if isinstance(data, dict):
                defaults = {k: v for k, v in data.items() if k in ("prompt", "output_schema")}
                data = data.get("cases")
            if not isinstance(data, list):
                raise EvalDatasetError(
                    f"{where}: expected a list of cases (or a mapping with 'cases:')",
                    dataset=where,
                    case=None,
                    key="cases",
                )
            entries = data
        loader = _CaseLoader(file, defaults)
        cases = [loader.case(entry, index) for index, entry in enumerate(entries)]
        names = [c.name for c in cases]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise EvalDatasetError(
                f"{where}: case {duplicate!r}: the name is used twice",
                dataset=where,
                case=duplicate,
                key="name",
            )
        if not cases:
            raise EvalDatasetError(f"{where}: holds no cases", dataset=where, case=None, key=None)
        return cls(cases, where)

    def __len__(self) -> int:
        return len(self.cases)


def _jsonl(text: str, where: str) -> list[Any]:
    entries: list[Any] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except ValueError as exc:
            raise EvalDatasetError(
                f"{where}: line {number} is not JSON: {exc}",
                dataset=where,
                case=None,
                key=f"line {number}",
            ) from exc
    return entries


class _CaseLoader:
    def __init__(self, file: Path, defaults: dict[str, Any]) -> None:
        self.file = file
        self.where = str(file)
        self.defaults = defaults
        self.schemas: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {}

    def fail(self, case: str, key: str, problem: str) -> EvalDatasetError:
        return EvalDatasetError(
            f"{self.where}: case {case!r}, key {key!r}: {problem}",
            dataset=self.where,
            case=case,
            key=key,
        )

    def case(self, entry: Any, index: int) -> EvalCase:
        if not isinstance(entry, dict):
            raise self.fail(f"#{index + 1}", "", "a case must be a mapping")
        name = str(entry.get("name") or f"#{index + 1}")
        unknown = sorted(set(entry) - _KEYS)
        if unknown:
            raise self.fail(name, unknown[0], f"unknown key (known: {', '.join(sorted(_KEYS))})")
        merged = {**self.defaults, **entry}
        prompt = merged.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise self.fail(name, "prompt", "a non-empty string is required")
        expected = merged.get("expected")
        if not isinstance(expected, dict):
            raise self.fail(name, "expected", "a mapping of the expected fields is required")
        schema, schema_json = self.schema(name, merged.get("output_schema"))
        extra = unknown_fields(expected, schema_json, schema_json)
        if extra:
            raise self.fail(
                name,
                f"expected.{extra[0]}",
                f"the output schema {schema.__name__} has no such field",
            )
        tags = merged.get("tags") or []
        if not isinstance(tags, list):
            raise self.fail(name, "tags", "a list of strings is expected")
        raw_files = merged.get("files") or []
        if not isinstance(raw_files, list):
            raw_files = [raw_files]
        files = [self.document(name, i, f) for i, f in enumerate(raw_files)]
        return EvalCase(name, prompt, schema, expected, files, [str(t) for t in tags], schema_json)

    def document(self, case: str, index: int, entry: Any) -> DocumentSource:
        key = f"files[{index}]"
        pages = None
        if isinstance(entry, dict):
            pages, entry = entry.get("pages"), entry.get("path")
        if not isinstance(entry, str) or not entry:
            raise self.fail(case, key, "a path, or a mapping with 'path' (and 'pages')")
        if entry.startswith(("http://", "https://")):
            target = entry
        else:
            resolved = (self.file.parent / entry).resolve()
            if not resolved.is_file():
                raise self.fail(case, key, f"no such file: {resolved}")
            target = str(resolved)
        try:
            return DocumentSource(target, pages=pages)
        except (DocumentError, TypeError) as exc:
            raise self.fail(case, f"{key}.pages", str(exc)) from exc

    def schema(self, case: str, value: Any) -> tuple[type[BaseModel], dict[str, Any]]:
        if isinstance(value, dict):
            if value.get("type", "object") != "object" or "properties" not in value:
                raise self.fail(
                    case, "output_schema", "an inline schema must be an object with properties"
                )
            key = json.dumps(value, sort_keys=True)
            if key not in self.schemas:
                self.schemas[key] = (model_from_json_schema(value, "InlineSchema"), value)
            return self.schemas[key]
        if not isinstance(value, str) or not value:
            raise self.fail(
                case, "output_schema", "an import path or an inline JSON schema is required"
            )
        if value not in self.schemas:
            model = self.import_model(case, value)
            self.schemas[value] = (model, model.model_json_schema())
        return self.schemas[value]

    def import_model(self, case: str, dotted: str) -> type[BaseModel]:
        module_name, _, attribute = dotted.rpartition(":" if ":" in dotted else ".")
        if not module_name or not attribute:
            raise self.fail(case, "output_schema", f"{dotted!r} is not module.Model")
        folder = str(self.file.parent.resolve())
        added = folder not in sys.path
        if added:
            sys.path.insert(0, folder)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise self.fail(case, "output_schema", f"cannot import {module_name!r}: {exc}") from exc
        finally:
            if added:
                sys.path.remove(folder)
        model = getattr(module, attribute, None)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise self.fail(
                case,
                "output_schema",
                f"{dotted!r} is not a pydantic model (module {module_name!r})",
            )
        return model


_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


def _annotation(schema: dict[str, Any], root: dict[str, Any], name: str) -> Any:
    sub = resolve_schema(schema, root)
    kind = sub.get("type")
    if kind == "array":
        found = sub.get("items")
        items: dict[str, Any] = found if isinstance(found, dict) else {}
        return list[_annotation(items, root, name + "Item")]  # type: ignore[misc]
    if kind == "object" and isinstance(sub.get("properties"), dict):
        return _model(sub, root, name)
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    return Any


def _model(schema: dict[str, Any], root: dict[str, Any], name: str) -> type[BaseModel]:
    required = set(schema.get("required") or [])
    fields: dict[str, Any] = {}
    for key, sub in schema["properties"].items():
        annotation = _annotation(sub, root, name + str(key).title().replace("_", ""))
        fields[key] = (annotation, ...) if key in required else (annotation | None, None)
    model: type[BaseModel] = create_model(name, __config__=ConfigDict(extra="ignore"), **fields)
    return model


def model_from_json_schema(schema: dict[str, Any], name: str = "Schema") -> type[BaseModel]:
    """A pydantic model for an inline JSON schema (objects, arrays, strings, numbers,
    integers, booleans; ``$ref`` to ``$defs``; a property not ``required`` is optional)."""
    return _model(resolve_schema(schema, schema), schema, name)
