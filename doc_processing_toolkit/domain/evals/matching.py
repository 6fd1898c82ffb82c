"""Matching one expected value against the model's: exact, normalised, fuzzy.

Pure functions. ``normalised`` (the default) compares text after Unicode NFKC, case folding
and whitespace collapsing; two values that both read as numbers (``"$1,234.50"``,
``"1.234,50 EUR"``, ``1234.5``) compare as numbers; two that both read as dates in a common
format (``2026-03-01``, ``01.03.2026``, ``1 March 2026``, ``March 1, 2026``, ``03/01/2026``)
compare as dates (a slashed date matches when one of its two readings does). ``fuzzy``
compares normalised text with rapidfuzz's ``ratio`` (0-100) against a threshold.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime
from typing import Any, Literal

from rapidfuzz import fuzz

__all__ = [
    "DEFAULT_FUZZY_THRESHOLD",
    "MATCH_METHODS",
    "MatchMethod",
    "match_value",
    "normalise_text",
    "parse_dates",
    "parse_number",
]

MatchMethod = Literal["exact", "normalised", "fuzzy"]
MATCH_METHODS: tuple[str, ...] = ("exact", "normalised", "fuzzy")
DEFAULT_FUZZY_THRESHOLD = 90.0
"""rapidfuzz ``ratio`` (0-100) at or above which a fuzzy field counts as correct."""

_SPACE = re.compile(r"\s+")
_CURRENCY = re.compile(r"[$€£¥₹₩¢]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|INR)\b", re.IGNORECASE)
_NUMBER = re.compile(r"^[+-]?(?:\d[\d.,' \u00a0\u202f]*)?\d(?:[.,]\d+)?$|^[+-]?\d+$")
_DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y.%m.%d",
    "%d.%m.%Y",
    "%d-%m-%Y",
    "%d %B %Y",
    "%d %b %Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%B %d %Y",
    "%b %d %Y",
    "%d %B, %Y",
    "%Y%m%d",
)
_SLASHED = ("%m/%d/%Y", "%d/%m/%Y")


def normalise_text(value: Any) -> str:
    """``value`` as text: Unicode NFKC, case-folded, whitespace collapsed and stripped."""
    text = unicodedata.normalize("NFKC", str(value))
    return _SPACE.sub(" ", text.casefold()).strip()


def parse_number(value: Any) -> float | None:
    """The number ``value`` reads as (currency symbols/codes and thousands separators
    dropped; with both ``,`` and ``.`` the last one is the decimal mark), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = _CURRENCY.sub("", unicodedata.normalize("NFKC", value)).strip()
    if not text or not _NUMBER.match(text):
        return None
    text = re.sub(r"['\s]", "", text)
    if "," in text and "." in text:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        text = text.replace(thousands, "").replace(decimal, ".")
    elif "," in text:
        groups = text.lstrip("+-").split(",")
        thousands_only = len(groups) > 1 and all(len(g) == 3 for g in groups[1:])
        text = text.replace(",", "") if thousands_only else text.replace(",", ".")
    elif text.count(".") > 1:
        text = text.replace(".", "")
    try:
        return float(text)
    except ValueError:
        return None


def parse_dates(value: Any) -> frozenset[date]:
    """Every date ``value`` reads as in a common format (two for an ambiguous slashed
    ``03/01/2026``; none when it is not a date)."""
    if isinstance(value, datetime):
        return frozenset({value.date()})
    if isinstance(value, date):
        return frozenset({value})
    if not isinstance(value, str):
        return frozenset()
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", value)).strip()
    if "T" in text and text[:4].isdigit():
        text = text.split("T", 1)[0]
    found: set[date] = set()
    for fmt in (*_DATE_FORMATS, *_SLASHED):
        try:
            found.add(datetime.strptime(text, fmt).date())
        except ValueError:
            continue
    return frozenset(found)


def _numbers_equal(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def match_value(
    expected: Any,
    actual: Any,
    method: MatchMethod = "normalised",
    *,
    threshold: float = DEFAULT_FUZZY_THRESHOLD,
) -> tuple[bool, float]:
    """Whether ``actual`` matches ``expected`` under ``method``, and a score (0-100).

    Scalars only (lists and objects are compared field by field by the caller).
    """
    if method == "exact":
        same = type(expected) is type(actual) or {type(expected), type(actual)} <= {int, float}
        ok = bool(same and expected == actual)
        return ok, 100.0 if ok else 0.0
    if expected is None or actual is None:
        ok = expected is None and actual is None
        return ok, 100.0 if ok else 0.0
    if isinstance(expected, bool) or isinstance(actual, bool):
        ok = normalise_text(expected) == normalise_text(actual)
        return ok, 100.0 if ok else 0.0
    left, right = normalise_text(expected), normalise_text(actual)
    if left == right:
        return True, 100.0
    number_a, number_b = parse_number(expected), parse_number(actual)
    if number_a is not None and number_b is not None:
        ok = _numbers_equal(number_a, number_b)
        return ok, 100.0 if ok else 0.0
    dates_a, dates_b = parse_dates(expected), parse_dates(actual)
    if dates_a and dates_b:
        ok = bool(dates_a & dates_b)
        return ok, 100.0 if ok else 0.0
    score = float(fuzz.ratio(left, right))
    return (method == "fuzzy" and score >= threshold), score
