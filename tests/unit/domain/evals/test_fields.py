"""Per-field comparison under a schema: nested fields, lists as sets or in order, missing
and extra fields counted apart (issue 37)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from doc_processing_toolkit.domain.evals.fields import compare_fields, unknown_fields


class Vendor(BaseModel):
    name: str
    vat: str | None = None


class Invoice(BaseModel):
    number: str
    total: float
    vendor: Vendor
    notes: str | None = Field(None, json_schema_extra={"match": "fuzzy", "threshold": 80})
    tags: list[str] = []
    steps: list[str] = Field([], json_schema_extra={"ordered": True})
    code: str = Field("", json_schema_extra={"match": "exact"})


SCHEMA = Invoice.model_json_schema()


def _verdicts(expected: dict[str, Any], actual: Any) -> dict[str, str]:
    return {f.path: f.verdict for f in compare_fields(expected, actual, SCHEMA).fields}


def test_nested_fields_and_rules_from_the_schema() -> None:
    expected = {
        "number": "INV-1",
        "total": 10,
        "vendor": {"name": "ACME"},
        "notes": "Paid by wire",
        "code": "AB",
    }
    actual = {
        "number": "inv-1",
        "total": "$10.00",
        "vendor": {"name": "Acme", "vat": "X1"},
        "notes": "paid by wire.",
        "code": "ab",
    }
    assert _verdicts(expected, actual) == {
        "number": "correct",
        "total": "correct",
        "vendor.name": "correct",
        "vendor.vat": "extra",
        "notes": "correct",  # fuzzy, threshold 80 from the schema
        "code": "wrong",  # exact from the schema
    }


def test_missing_and_extra_are_counted_apart() -> None:
    found = _verdicts({"number": "INV-1", "vendor": {"name": "A"}}, {"total": 3})
    assert found == {"number": "missing", "vendor.name": "missing", "total": "extra"}
    assert _verdicts({"number": "INV-1"}, None) == {"number": "missing"}
    # A null the model gives for a field the case does not expect is not an extra.
    assert _verdicts({"number": "X"}, {"number": "X", "notes": None, "tags": []}) == {
        "number": "correct"
    }


def test_lists_score_as_sets_by_default_and_in_order_when_marked() -> None:
    out = compare_fields(
        {"tags": ["a", "b", "c"], "steps": ["x", "y", "z"]},
        {"tags": ["C", "a", "d"], "steps": ["y", "x", "z"]},
        SCHEMA,
    )
    tags, steps = out.lists
    assert (tags.tp, tags.fp, tags.fn, tags.ordered) == (2, 1, 1, False)
    assert round(tags.precision, 4) == round(2 / 3, 4) and round(tags.f1, 4) == round(2 / 3, 4)
    assert (steps.tp, steps.fp, steps.fn, steps.ordered) == (1, 2, 2, True)
    assert {f.path: f.verdict for f in out.fields} == {"tags": "wrong", "steps": "wrong"}


def test_list_of_objects_matches_whole_items() -> None:
    class Line(BaseModel):
        sku: str
        amount: float

    class Order(BaseModel):
        lines: list[Line]

    schema = Order.model_json_schema()
    out = compare_fields(
        {"lines": [{"sku": "A", "amount": 1}, {"sku": "B", "amount": 2}]},
        {"lines": [{"sku": "b", "amount": "2.00"}, {"sku": "A", "amount": 9}]},
        schema,
    )
    assert (out.lists[0].tp, out.lists[0].fp, out.lists[0].fn) == (1, 1, 1)


def test_empty_lists_score_perfectly() -> None:
    out = compare_fields({"tags": []}, {"tags": []}, SCHEMA)
    assert out.lists[0].f1 == 1.0 and out.fields[0].verdict == "correct"


def test_unknown_fields_are_named_by_path() -> None:
    expected = {"number": "1", "vendor": {"name": "A", "iban": "X"}, "totl": 3}
    assert unknown_fields(expected, SCHEMA, SCHEMA) == ["vendor.iban", "totl"]
