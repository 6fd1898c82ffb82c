"""Field matching: exact, normalised (text, numbers, dates), fuzzy (issue 37)."""

from __future__ import annotations

from datetime import date

import pytest

from doc_processing_toolkit.evals import match_value, normalise_text, parse_dates, parse_number


def test_exact_compares_values_and_types() -> None:
    assert match_value("INV-1", "INV-1", "exact")[0]
    assert not match_value("INV-1", "inv-1", "exact")[0]
    assert match_value(100, 100.0, "exact")[0]
    assert not match_value(100, "100", "exact")[0]


def test_normalised_text_ignores_case_whitespace_and_unicode_forms() -> None:
    assert normalise_text("  ACME\u00a0 Corp\n") == "acme corp"
    assert match_value("ACME Corp", "acme   corp", "normalised")[0]
    assert match_value("ﬁle Nº 1", "file No 1", "normalised")[0]  # NFKC: ligature, numero
    assert not match_value("ACME Corp", "ACME Ltd", "normalised")[0]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("$1,234.50", 1234.5),
        ("1.234,50 EUR", 1234.5),
        ("€ 1 234,50", 1234.5),
        ("1,234", 1234.0),
        ("12,5", 12.5),
        ("USD 99", 99.0),
        (42, 42.0),
        ("-3.25", -3.25),
    ],
)
def test_numbers_read_with_separators_and_currencies(text: object, number: float) -> None:
    assert parse_number(text) == number


def test_non_numbers_are_not_numbers() -> None:
    assert parse_number("INV-1234") is None
    assert parse_number(True) is None
    assert parse_number("12 apples") is None


def test_numbers_match_across_formats() -> None:
    assert match_value(1234.5, "$1,234.50", "normalised")[0]
    assert match_value("1.234,50 €", "1234.5", "normalised")[0]
    assert not match_value(1234.5, "1,234.51", "normalised")[0]


def test_dates_in_common_formats() -> None:
    day = date(2026, 3, 1)
    for text in ("2026-03-01", "01.03.2026", "1 March 2026", "March 1, 2026", "Mar 1 2026"):
        assert day in parse_dates(text), text
    assert parse_dates("03/01/2026") == {date(2026, 3, 1), date(2026, 1, 3)}
    assert match_value("2026-03-01", "1 March 2026", "normalised")[0]
    assert match_value("2026-03-01", "03/01/2026", "normalised")[0]
    assert not match_value("2026-03-01", "2026-03-02", "normalised")[0]
    assert parse_dates("not a date") == frozenset()


def test_fuzzy_uses_the_threshold() -> None:
    ok, score = match_value("Paid in full by wire", "paid in full by wire.", "fuzzy")
    assert ok and 90 <= score < 100
    assert not match_value("Paid in full", "Payment pending", "fuzzy")[0]
    assert match_value("Paid in full", "Paid in ful", "fuzzy", threshold=80)[0]
    assert not match_value("Paid in full", "Paid", "fuzzy", threshold=80)[0]


def test_normalised_does_not_accept_near_text() -> None:
    ok, score = match_value("Paid in full by wire", "paid in full by wire.", "normalised")
    assert not ok and score > 90  # the score tells how near it was
