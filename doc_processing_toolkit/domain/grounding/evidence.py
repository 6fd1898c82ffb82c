"""Evidence for structured output: the `Evidence` type and the schema rules.

``run(..., output_schema=Model, evidence=True)`` asks the model, through the schema it is
given, for each leaf field's supporting quote and page: `evidence_schema` turns the
model's JSON schema into one where every leaf ``L`` becomes
``{"value": L, "quote": string, "page": integer}``; `split_evidence` turns the model's
answer back into the plain output (what validates against ``Model``) and one `Claim` per
leaf, keyed by its field path (``"line_items[2].amount"``). Pure: JSON schema in, JSON
schema out; no document is read here (the checking rules are in `matching`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

__all__ = [
    "DEFAULT_EVIDENCE_THRESHOLD",
    "EVIDENCE_KEYS",
    "Claim",
    "Evidence",
    "EvidenceMethod",
    "evidence_model",
    "evidence_of",
    "evidence_schema",
    "split_evidence",
]

DEFAULT_EVIDENCE_THRESHOLD = 85.0
"""The rapidfuzz score (0-100) at or above which a quote counts as found on its page."""

EVIDENCE_KEYS = ("value", "quote", "page")
"""The keys of one leaf's answer under the evidence schema."""

EvidenceMethod = Literal[
    "exact",
    "fuzzy",
    "not_found",
    "value_not_in_quote",
    "empty_quote",
    "quote_too_long",
    "page_out_of_range",
    "no_text",
    "no_document",
    "missing",
]
"""How a field's evidence was judged: ``exact`` (the normalised quote is in the page's
text), ``fuzzy`` (found by rapidfuzz at ``score``; verified when at or above the
threshold), ``not_found`` (below the threshold), ``value_not_in_quote`` (the quote is on
the page but the field's value is not in it), ``empty_quote``, ``quote_too_long`` (over
`matching.MAX_QUOTE_CHARS`), ``page_out_of_range`` (a page the document does not have),
``no_text`` (the page has no text layer: a scanned page), ``no_document`` (the run had no
document with text), ``missing`` (the model gave the value without quote and page)."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One extracted field's supporting quote, checked against the document.

    Attributes:
        quote: The source text the model gave for the field ("" when it gave none).
        document: The name of the document the quote was checked against (None: none).
        page: The ORIGINAL 1-based page where the quote was found (or that the model
            named, mapped back, when it was not found); None when unknown.
        verified: The quote is on that page (score at or above ``evidence_threshold``)
            and the field's value occurs in the quote (numbers and dates normalised).
        score: The rapidfuzz match of the quote on the page, 0-100.
        method: How it was judged (see `EvidenceMethod`).
    """

    quote: str
    document: str | None
    page: int | None
    verified: bool
    score: float
    method: EvidenceMethod


@dataclass(frozen=True, slots=True)
class Claim:
    """What the model said about one leaf: its value, quote and page (as it numbered the
    pages it was sent). ``quote`` is None when the model gave the bare value."""

    value: Any
    quote: str | None
    page: int | None


def _resolve(node: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = defs.get(ref.removeprefix("#/$defs/"))
        if isinstance(target, Mapping):
            return target
    return node


def _alternatives(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    for key in ("anyOf", "oneOf"):
        value = node.get(key)
        if isinstance(value, list):
            return [v for v in value if isinstance(v, Mapping)]
    return []


def _is_container(node: Mapping[str, Any], defs: Mapping[str, Any], depth: int = 0) -> bool:
    node = _resolve(node, defs)
    if isinstance(node.get("properties"), Mapping) or node.get("type") == "array":
        return True
    if depth > 20:
        return False
    return any(_is_container(alt, defs, depth + 1) for alt in _alternatives(node))


def _wrap(leaf: Mapping[str, Any]) -> dict[str, Any]:
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {
            "value": dict(leaf),
            "quote": {
                "type": "string",
                "description": "The exact text in the document that states this value.",
            },
            "page": {
                "type": "integer",
                "description": "The 1-based page of the document the quote is on.",
            },
        },
        "required": list(EVIDENCE_KEYS),
        "additionalProperties": False,
    }
    if "description" in leaf:
        wrapped["description"] = leaf["description"]
    return wrapped


def _transform(node: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    if not _is_container(node, defs):
        return _wrap(node)
    if "$ref" in node:  # a container definition: transformed once, in $defs
        return dict(node)
    out = dict(node)
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        out["properties"] = {
            name: _transform(child, defs) if isinstance(child, Mapping) else child
            for name, child in properties.items()
        }
    items = node.get("items")
    if isinstance(items, Mapping):
        out["items"] = _transform(items, defs)
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            out[key] = [
                alt if alt.get("type") == "null" else _transform(alt, defs)
                for alt in _alternatives(node)
            ]
    return out


def evidence_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with every leaf field asking for its value, quote and page.

    A leaf is anything that is neither an object with ``properties`` nor an array (a
    string, number, integer, boolean, enum, date, an ``Optional`` of one, a free-form
    dict). A schema with no leaf (``{}`` or an object without properties) comes back
    unchanged. The input is not changed.
    """
    defs = schema.get("$defs") if isinstance(schema.get("$defs"), Mapping) else {}
    assert isinstance(defs, Mapping)
    out = _transform(schema, defs) if _is_container(schema, defs) else dict(schema)
    if defs:
        out["$defs"] = {
            name: _transform(d, defs) if isinstance(d, Mapping) and _is_container(d, defs) else d
            for name, d in defs.items()
        }
    return out


def _is_wrapped(data: Any) -> bool:
    return isinstance(data, Mapping) and "value" in data and set(data) <= set(EVIDENCE_KEYS)


def _claim(data: Mapping[str, Any]) -> Claim:
    quote = data.get("quote")
    page = data.get("page")
    return Claim(
        value=data.get("value"),
        quote=quote if isinstance(quote, str) else ("" if quote is None else str(quote)),
        page=page if isinstance(page, int) and not isinstance(page, bool) else None,
    )


def _split(
    node: Mapping[str, Any], data: Any, path: str, defs: Mapping[str, Any], out: dict[str, Claim]
) -> Any:
    node = _resolve(node, defs)
    if not _is_container(node, defs) or _is_wrapped(data):
        if _is_wrapped(data):
            claim = _claim(data)
        else:
            claim = Claim(value=data, quote=None, page=None)
        if claim.value is not None:
            out[path] = claim
        return claim.value
    properties = node.get("properties")
    if isinstance(data, Mapping) and isinstance(properties, Mapping):
        return {
            key: _split(properties[key], value, f"{path}.{key}" if path else key, defs, out)
            if isinstance(properties.get(key), Mapping)
            else value
            for key, value in data.items()
        }
    items = node.get("items")
    if isinstance(data, list) and isinstance(items, Mapping):
        return [_split(items, v, f"{path}[{i}]", defs, out) for i, v in enumerate(data)]
    for alt in _alternatives(node):  # an Optional / Union of containers
        resolved = _resolve(alt, defs)
        if (isinstance(data, Mapping) and "properties" in resolved) or (
            isinstance(data, list) and resolved.get("type") == "array"
        ):
            return _split(resolved, data, path, defs, out)
    return data


def split_evidence(schema: Mapping[str, Any], data: Any) -> tuple[Any, dict[str, Claim]]:
    """The model's answer under `evidence_schema` (``schema`` is the ORIGINAL schema) as
    the plain output and the claims of its leaves, keyed by field path.

    A leaf the model answered with a bare value (no quote and page) is kept as it is,
    with a claim whose ``quote`` is None; a leaf whose value is null has no claim.
    Never raises: data that does not fit the schema is returned as it is.
    """
    defs = schema.get("$defs") if isinstance(schema.get("$defs"), Mapping) else {}
    assert isinstance(defs, Mapping)
    claims: dict[str, Claim] = {}
    if not _is_container(schema, defs):
        return data, claims
    return _split(schema, data, "", defs, claims), claims


@functools.lru_cache(maxsize=256)
def evidence_model(model: type[BaseModel]) -> type[BaseModel]:
    """The output schema a run with ``evidence=True`` hands its loop in place of ``model``
    (one class per model): its JSON schema is `evidence_schema` of ``model``'s, and it
    validates an answer by validating the plain output of `split_evidence` against
    ``model`` (so the run loop, its validation and its errors are unchanged)."""
    plain_schema = model.model_json_schema()

    class EvidenceOutput(BaseModel):
        evidence_of: ClassVar[type[BaseModel]] = model

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return evidence_schema(model.model_json_schema(*args, **kwargs))

        @classmethod
        def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Any:
            return model.model_validate(split_evidence(plain_schema, obj)[0], *args, **kwargs)

    EvidenceOutput.__name__ = model.__name__
    EvidenceOutput.__qualname__ = model.__qualname__
    return EvidenceOutput


def evidence_of(schema: type[BaseModel] | None) -> type[BaseModel] | None:
    """The user's model behind an `evidence_model` class (None for any other schema)."""
    original = getattr(schema, "evidence_of", None) if schema is not None else None
    return original if isinstance(original, type) and issubclass(original, BaseModel) else None
