"""Field-by-field comparison of a case's expected fields with the model's output.

Paths read as evidence keys do: ``total``, ``vendor.name``, ``line_items`` (a list is one
field, scored as a whole: its items are matched as a set, or in order). Rules
come from the output schema's JSON schema, per property: ``"match"`` (``"exact"``,
``"normalised"`` (default), ``"fuzzy"``), ``"threshold"`` (fuzzy, 0-100) and, on an array,
``"ordered": true`` (compared position by position instead of as a set). A pydantic model
sets them with ``Field(json_schema_extra={"match": "fuzzy", "threshold": 80})``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from doc_processing_toolkit.domain.evals.matching import (
    DEFAULT_FUZZY_THRESHOLD,
    MATCH_METHODS,
    MatchMethod,
    match_value,
)

__all__ = [
    "CaseFields",
    "FieldResult",
    "ListScore",
    "Verdict",
    "compare_fields",
    "resolve_schema",
    "unknown_fields",
]

Verdict = Literal["correct", "wrong", "missing", "extra"]


@dataclass(frozen=True, slots=True)
class FieldResult:
    """One field of one case: its verdict, the expected and the model's value."""

    path: str
    verdict: Verdict
    expected: Any = None
    actual: Any = None
    method: str = "normalised"
    score: float = 0.0
    """0-100: 100 for a match; the fuzzy ratio for text."""
    evidence_page: int | None = None
    """The page the model's evidence names for this field (``run(..., evidence=True)``)."""
    evidence_verified: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON data."""
        return {
            "path": self.path,
            "verdict": self.verdict,
            "expected": self.expected,
            "actual": self.actual,
            "method": self.method,
            "score": self.score,
            "evidence_page": self.evidence_page,
            "evidence_verified": self.evidence_verified,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FieldResult:
        """From `to_dict` data."""
        page, verified = data.get("evidence_page"), data.get("evidence_verified")
        return cls(
            str(data["path"]),
            data["verdict"],
            data.get("expected"),
            data.get("actual"),
            str(data.get("method", "normalised")),
            float(data.get("score", 0.0)),
            page if isinstance(page, int) else None,
            verified if isinstance(verified, bool) else None,
        )


@dataclass(frozen=True, slots=True)
class ListScore:
    """A list field's items matched: true positives, false positives, false negatives."""

    path: str
    tp: int
    fp: int
    fn: int
    ordered: bool = False

    @property
    def precision(self) -> float:
        """tp / (tp + fp); 1.0 when the model listed nothing and nothing was expected."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else float(self.fn == 0)

    @property
    def recall(self) -> float:
        """tp / (tp + fn); 1.0 when nothing was expected."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall (0.0 when both are 0)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON data."""
        return {
            "path": self.path,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "ordered": self.ordered,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ListScore:
        """From `to_dict` data."""
        return cls(
            data["path"],
            int(data["tp"]),
            int(data["fp"]),
            int(data["fn"]),
            bool(data.get("ordered", False)),
        )


@dataclass(slots=True)
class CaseFields:
    """Every field result of one case and the scores of its list fields."""

    fields: list[FieldResult] = field(default_factory=list)
    lists: list[ListScore] = field(default_factory=list)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


def resolve_schema(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$ref`` followed and an ``Optional`` (``anyOf`` with null)
    reduced to its non-null branch."""
    seen = 0
    while seen < 32:
        seen += 1
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = root
            for part in ref[2:].split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **extra}
            continue
        options = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(options, list):
            real = [o for o in options if isinstance(o, dict) and o.get("type") != "null"]
            if len(real) == 1:
                extra = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                schema = {**real[0], **extra}
                continue
        return schema
    return schema


def unknown_fields(
    expected: Any, schema: dict[str, Any], root: dict[str, Any], path: str = ""
) -> list[str]:
    """The paths in ``expected`` the schema has no property for."""
    sub = resolve_schema(schema, root)
    found: list[str] = []
    if isinstance(expected, dict):
        props = sub.get("properties")
        if not isinstance(props, dict):
            return found
        for key, value in expected.items():
            child = f"{path}.{key}" if path else str(key)
            if key not in props:
                found.append(child)
            else:
                found.extend(unknown_fields(value, props[key], root, child))
    elif isinstance(expected, list) and isinstance(sub.get("items"), dict):
        for index, item in enumerate(expected):
            found.extend(unknown_fields(item, sub["items"], root, f"{path}[{index}]"))
    return found


def _absent(value: Any) -> bool:
    return value is _MISSING or value is None or value == [] or value == {}


class _Comparer:
    def __init__(self, root: dict[str, Any], threshold: float) -> None:
        self.root = root
        self.threshold = threshold

    def walk(
        self, expected: Any, actual: Any, schema: dict[str, Any], path: str, out: CaseFields
    ) -> None:
        sub = resolve_schema(schema, self.root)
        if isinstance(expected, dict):
            self._object(expected, actual, sub, path, out)
        elif isinstance(expected, list):
            self._list(expected, actual, sub, path, out)
        else:
            self._scalar(expected, actual, sub, path, out)

    def _object(
        self, expected: dict[str, Any], actual: Any, sub: dict[str, Any], path: str, out: CaseFields
    ) -> None:
        found = sub.get("properties")
        props: dict[str, Any] = found if isinstance(found, dict) else {}
        given = actual if isinstance(actual, dict) else {}
        for key, value in expected.items():
            child = f"{path}.{key}" if path else str(key)
            self.walk(value, given.get(key, _MISSING), props.get(key, {}), child, out)
        for key, value in given.items():
            if key not in expected and not _absent(value):
                child = f"{path}.{key}" if path else str(key)
                out.fields.append(FieldResult(child, "extra", None, value, "-", 0.0))

    def _same(self, expected: Any, actual: Any, schema: dict[str, Any]) -> bool:
        probe = CaseFields()
        self.walk(expected, actual, schema, "", probe)
        return all(f.verdict in ("correct", "extra") for f in probe.fields)

    def _list(
        self, expected: list[Any], actual: Any, sub: dict[str, Any], path: str, out: CaseFields
    ) -> None:
        ordered = bool(sub.get("ordered", False))
        found = sub.get("items")
        items: dict[str, Any] = found if isinstance(found, dict) else {}
        given = actual if isinstance(actual, list) else []
        tp = 0
        if ordered:
            tp = sum(self._same(e, a, items) for e, a in zip(expected, given, strict=False))
        else:
            used: set[int] = set()
            for item in expected:
                for index, candidate in enumerate(given):
                    if index not in used and self._same(item, candidate, items):
                        used.add(index)
                        tp += 1
                        break
        score = ListScore(path, tp, len(given) - tp, len(expected) - tp, ordered)
        out.lists.append(score)
        if not isinstance(actual, list) and expected:
            verdict: Verdict = "missing"
        else:
            verdict = "correct" if score.fp == 0 and score.fn == 0 else "wrong"
        method = "ordered list" if ordered else "set"
        out.fields.append(
            FieldResult(
                path,
                verdict,
                expected,
                None if actual is _MISSING else actual,
                method,
                round(100.0 * score.f1, 2),
            )
        )

    def _scalar(
        self, expected: Any, actual: Any, sub: dict[str, Any], path: str, out: CaseFields
    ) -> None:
        raw_method = sub.get("match", "normalised")
        method: MatchMethod = raw_method if raw_method in MATCH_METHODS else "normalised"
        threshold = float(sub.get("threshold", self.threshold))
        if expected is not None and (actual is _MISSING or actual is None):
            out.fields.append(FieldResult(path, "missing", expected, None, method, 0.0))
            return
        value = None if actual is _MISSING else actual
        ok, score = match_value(expected, value, method, threshold=threshold)
        out.fields.append(
            FieldResult(path, "correct" if ok else "wrong", expected, value, method, score)
        )


def compare_fields(
    expected: dict[str, Any],
    actual: Any,
    schema: dict[str, Any],
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
) -> CaseFields:
    """Compare ``expected`` with the model's ``actual`` output under ``schema`` (a JSON
    schema: its properties' ``match``/``threshold``/``ordered`` choose the rules)."""
    out = CaseFields()
    _Comparer(schema, fuzzy_threshold).walk(expected, actual, schema, "", out)
    return out
