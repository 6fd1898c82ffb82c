"""The evidence schema, the split of an answer, and the matching rules (pure)."""

from __future__ import annotations

import datetime

from pydantic import BaseModel

from doc_processing_toolkit.domain.grounding import (
    Claim,
    DocumentText,
    Evidence,
    check_claims,
    evidence_schema,
    normalise_text,
    split_evidence,
    value_in_quote,
)
from doc_processing_toolkit.domain.grounding.matching import MAX_QUOTE_CHARS, dates_in, numbers_in


class LineItem(BaseModel):
    description: str
    amount: float


class Invoice(BaseModel):
    number: str
    total: float
    due: datetime.date | None = None
    tags: list[str] = []
    line_items: list[LineItem]


def _leaf(value: object, quote: str = "q", page: int = 1) -> dict[str, object]:
    return {"value": value, "quote": quote, "page": page}


def test_every_leaf_asks_for_value_quote_and_page() -> None:
    schema = Invoice.model_json_schema()
    out = evidence_schema(schema)
    assert schema == Invoice.model_json_schema()  # the input is not changed
    number = out["properties"]["number"]
    assert number["required"] == ["value", "quote", "page"]
    assert number["properties"]["value"] == schema["properties"]["number"]
    assert number["additionalProperties"] is False
    assert out["properties"]["due"]["properties"]["value"]["anyOf"]  # Optional: one leaf
    assert out["properties"]["tags"]["items"]["properties"]["quote"]["type"] == "string"
    item = out["$defs"]["LineItem"]["properties"]["amount"]
    assert item["properties"]["page"]["type"] == "integer"
    assert out["properties"]["line_items"]["items"] == {"$ref": "#/$defs/LineItem"}


def test_split_gives_the_plain_output_and_claims_by_path() -> None:
    answer = {
        "number": _leaf("INV-7", "Invoice INV-7", 1),
        "total": _leaf(1234.5, "Total: $1,234.50", 2),
        "due": _leaf(None, "", 1),
        "tags": [_leaf("urgent", "URGENT", 1)],
        "line_items": [
            {"description": _leaf("Bolts"), "amount": _leaf(10)},
            {"description": _leaf("Nuts"), "amount": _leaf(5, "Nuts 5.00", 3)},
        ],
    }
    plain, claims = split_evidence(Invoice.model_json_schema(), answer)
    assert plain == {
        "number": "INV-7",
        "total": 1234.5,
        "due": None,
        "tags": ["urgent"],
        "line_items": [
            {"description": "Bolts", "amount": 10},
            {"description": "Nuts", "amount": 5},
        ],
    }
    Invoice.model_validate(plain)
    assert claims["line_items[1].amount"] == Claim(5, "Nuts 5.00", 3)
    assert claims["tags[0]"] == Claim("urgent", "URGENT", 1)
    assert "due" not in claims  # a null value has nothing to prove
    assert set(claims) == {
        "number",
        "total",
        "tags[0]",
        "line_items[0].description",
        "line_items[0].amount",
        "line_items[1].description",
        "line_items[1].amount",
    }


def test_bare_values_are_kept_with_a_missing_claim() -> None:
    plain, claims = split_evidence(
        Invoice.model_json_schema(), {"number": "X", "total": 3, "line_items": []}
    )
    assert plain == {"number": "X", "total": 3, "line_items": []}
    assert claims["number"] == Claim("X", None, None)


def test_a_schema_without_leaves_is_unchanged_and_splits_to_no_claims() -> None:
    class Empty(BaseModel):
        pass

    schema = Empty.model_json_schema()
    assert evidence_schema(schema) == schema
    assert split_evidence(schema, {}) == ({}, {})
    assert split_evidence({}, {"a": 1}) == ({"a": 1}, {})


def test_normalisation() -> None:
    assert (
        normalise_text("  ACME\u00a0 Corp\u2019s\n“Total” – ﬁnal ")
        == 'acme corp\'s "total" - final'
    )
    assert 1234.5 in numbers_in("Total: $1,234.50")
    assert 1234.5 in numbers_in("Summe: 1.234,50 EUR")
    assert 1234567.0 in numbers_in("1 234 567")
    want = datetime.date(2024, 3, 15)
    for text in (
        "2024-03-15",
        "15/03/2024",
        "03/15/2024",
        "15.03.2024",
        "March 15, 2024",
        "15 Mar 2024",
        "15-Mar-2024",
        "Due: 15th March, 2024",
    ):
        assert want in dates_in(text), text


def test_value_in_quote() -> None:
    assert value_in_quote(1234.5, "Total due: $1,234.50")
    assert value_in_quote("1,234.50", "Total due: USD 1234.50")
    assert value_in_quote("2024-03-15", "Due date: March 15, 2024")
    assert value_in_quote("ACME corp", "Bill from: Acme  Corp.")
    assert not value_in_quote(99.0, "Total due: $1,234.50")
    assert not value_in_quote("Globex", "Bill from: Acme Corp.")
    assert value_in_quote(True, "anything") and value_in_quote(None, "")


PAGES = DocumentText(
    "invoice.pdf",
    ["Cover page", "Invoice INV-7\nBill to: Acme Corp", "", "Total: $1,234.50"],
    [3, 4, 5, 6],
)


def test_check_claims_outcomes() -> None:
    claims = {
        "exact": Claim("INV-7", "Invoice INV-7", 2),
        "neighbour": Claim(1234.5, "Total: $1,234.50", 3),  # on the next page
        "fuzzy": Claim("Acme Corp", "Bill to:  ACME Corp.", 2),
        "invented": Claim("Globex", "Vendor: Globex Industries", 2),
        "wrong_value": Claim(99, "Total: $1,234.50", 4),
        "empty": Claim("x", "   ", 1),
        "huge": Claim("x", "x" * (MAX_QUOTE_CHARS + 1), 1),
        "past_end": Claim("x", "Invoice", 40),
        "scanned": Claim("x", "text", 3),
        "bare": Claim("x", None, None),
        "no_page": Claim("INV-7", "Invoice INV-7", None),
    }
    got = check_claims(claims, [PAGES])
    assert got["exact"] == Evidence("Invoice INV-7", "invoice.pdf", 4, True, 100.0, "exact")
    assert got["neighbour"].verified and got["neighbour"].page == 6
    assert got["fuzzy"].verified and got["fuzzy"].method == "fuzzy" and got["fuzzy"].page == 4
    assert got["fuzzy"].score >= 85
    assert not got["invented"].verified and got["invented"].method == "not_found"
    assert got["invented"].page == 4
    assert got["wrong_value"].method == "value_not_in_quote"
    assert got["empty"].method == "empty_quote"
    assert got["huge"].method == "quote_too_long"
    assert got["past_end"] == Evidence(
        "Invoice", "invoice.pdf", None, False, 0.0, "page_out_of_range"
    )
    assert got["bare"].method == "missing"
    assert got["no_page"].verified and got["no_page"].page == 4
    only_scanned = DocumentText("scan.pdf", ["", ""], [1, 2])
    assert check_claims({"a": Claim("x", "text", 1)}, [only_scanned])["a"].method == "no_text"
    assert check_claims({"a": Claim("x", "text", 1)}, [])["a"].method == "no_document"


def test_the_threshold_decides_fuzzy_matches() -> None:
    claim = {"f": Claim("Acme", "Bill to: Acme Corporation", 2)}
    assert not check_claims(claim, [PAGES], threshold=99)["f"].verified
    assert check_claims(claim, [PAGES], threshold=70)["f"].verified


def test_the_evidence_model_asks_for_quotes_and_validates_the_plain_answer() -> None:
    import pytest
    from pydantic import ValidationError

    from doc_processing_toolkit.domain.grounding import evidence_model, evidence_of

    wrapped = evidence_model(LineItem)
    assert wrapped is evidence_model(LineItem) and wrapped.__name__ == "LineItem"
    assert evidence_of(wrapped) is LineItem and evidence_of(LineItem) is None
    assert wrapped.model_json_schema()["properties"]["amount"]["required"] == [
        "value",
        "quote",
        "page",
    ]
    wrapped.model_validate({"description": _leaf("Bolts"), "amount": _leaf(3)})
    with pytest.raises(ValidationError) as info:
        wrapped.model_validate({"description": _leaf("Bolts")})
    assert info.value.errors()[0]["loc"] == ("amount",)


def test_merged_evidence_follows_each_value_to_its_chunk() -> None:
    from doc_processing_toolkit.domain.grounding import merge_evidence

    def ev(page: int, verified: bool = True) -> Evidence:
        return Evidence("q", "d.pdf", page, verified, 100.0 if verified else 0.0, "exact")

    first = (
        {"number": "A-1", "items": [{"amount": 1}]},
        {"number": ev(2), "items[0].amount": ev(3)},
    )
    second = (
        {"number": "A-1", "items": [{"amount": 1}, {"amount": 2}]},
        {"number": ev(7, False), "items[0].amount": ev(8), "items[1].amount": ev(9)},
    )
    merged = {"number": "A-1", "items": [{"amount": 1}, {"amount": 2}]}
    got = merge_evidence(merged, [first, second])
    assert got["number"].page == 2  # the verified one, first in page order
    assert got["items[0].amount"].page == 3
    assert got["items[1].amount"].page == 9  # its index in the second chunk was also 1
    assert merge_evidence({}, []) == {}
