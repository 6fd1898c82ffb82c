"""The evidence matching rules: text and value normalisation, "the value occurs in its
quote", and a quote checked against a page's text (and the pages on either side) with
rapidfuzz. Pure: the page texts are handed in (`DocumentText`)."""

from __future__ import annotations

import datetime
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.grounding.evidence import (
    DEFAULT_EVIDENCE_THRESHOLD,
    Claim,
    Evidence,
    split_evidence,
)

__all__ = [
    "MAX_QUOTE_CHARS",
    "DocumentText",
    "check_claims",
    "dates_in",
    "normalise_text",
    "numbers_in",
    "value_errors",
    "value_in_quote",
]

MAX_QUOTE_CHARS = 2000
"""A quote longer than this is not checked (``method="quote_too_long"``, unverified)."""

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u202f": " ",
    }
)
_SPACE = re.compile(r"\s+")


def normalise_text(text: str) -> str:
    """NFKC, case folded, typographic quotes and dashes made plain, whitespace runs made
    one space, trimmed."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE).casefold()
    return _SPACE.sub(" ", text).strip()


_NUMBER = re.compile(r"-?\d(?:[\d.,' ]*\d)?")


def _parse_number(token: str) -> list[float]:
    """The readings of one numeric token: ``1,234.50`` / ``1.234,50`` / ``1 234,50`` /
    ``1'234.50``; an ambiguous ``1,234`` or ``1.234`` gives both readings."""
    token = token.replace(" ", "").replace("'", "")
    readings: list[str] = []
    last_dot, last_comma = token.rfind("."), token.rfind(",")
    if last_dot >= 0 and last_comma >= 0:
        decimal = "." if last_dot > last_comma else ","
        thousands = "," if decimal == "." else "."
        readings.append(token.replace(thousands, "").replace(decimal, "."))
    elif last_dot >= 0 or last_comma >= 0:
        sep = "." if last_dot >= 0 else ","
        if token.count(sep) == 1:
            readings.append(token.replace(sep, "."))  # decimal
        if all(len(group) == 3 for group in token.split(sep)[1:]):
            readings.append(token.replace(sep, ""))  # thousands
    else:
        readings.append(token)
    out: list[float] = []
    for reading in readings:
        try:
            out.append(float(reading))
        except ValueError:
            continue
    return out


def numbers_in(text: str) -> list[float]:
    """Every number in ``text`` (currency signs and thousands separators ignored)."""
    found: list[float] = []
    for match in _NUMBER.finditer(text):
        found.extend(_parse_number(match.group().strip(" ,.'")))
    return found


_MONTHS = {
    name: index
    for index, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})")
_NUMERIC = re.compile(r"\b(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})\b")
_MONTH_FIRST = re.compile(r"\b([a-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b")
_DAY_FIRST = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?[ -]([a-z]{3,9})\.?[ ,-]+(\d{4})\b")


def _date(year: int, month: int, day: int) -> datetime.date | None:
    if year < 100:
        year += 2000
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def dates_in(text: str) -> set[datetime.date]:
    """Every date in ``text`` in a common format: ISO ``2024-03-15``, ``15/03/2024``
    (and the US reading ``03/15/2024``), ``15.03.2024``, ``March 15, 2024``,
    ``15 Mar 2024``, ``15-Mar-2024``."""
    text = normalise_text(text)
    found: set[datetime.date | None] = set()
    for y, m, d in _ISO.findall(text):
        found.add(_date(int(y), int(m), int(d)))
    for a, b, y in _NUMERIC.findall(text):
        found.add(_date(int(y), int(b), int(a)))
        found.add(_date(int(y), int(a), int(b)))
    for month, d, y in _MONTH_FIRST.findall(text):
        if month in _MONTHS:
            found.add(_date(int(y), _MONTHS[month], int(d)))
    for d, month, y in _DAY_FIRST.findall(text):
        if month in _MONTHS:
            found.add(_date(int(y), _MONTHS[month], int(d)))
    return {d for d in found if d is not None}


def _number_in(number: float, quote: str) -> bool:
    return any(math.isclose(number, n, rel_tol=1e-9, abs_tol=1e-6) for n in numbers_in(quote))


def value_in_quote(value: object, quote: str) -> bool:
    """Whether ``value`` occurs in ``quote``: text compared normalised (case, whitespace,
    Unicode), numbers as numbers (``1234.5`` is in ``"$1,234.50"``), dates as dates
    (``"2024-03-15"`` is in ``"March 15, 2024"``). A boolean, a null or a container has
    nothing to find and counts as occurring."""
    if value is None or isinstance(value, bool) or isinstance(value, list | dict):
        return True
    if isinstance(value, int | float):
        return _number_in(float(value), quote)
    text = normalise_text(str(value)).strip(" .,;:")  # "Ltd." is in "... Ltd"
    if not text or text in normalise_text(quote):
        return True
    readings = numbers_in(text)
    if len(readings) >= 1 and _NUMBER.fullmatch(text.lstrip("$€£¥ ").rstrip(" ")):
        return any(_number_in(n, quote) for n in readings)
    wanted = dates_in(text)
    return bool(wanted) and bool(wanted & dates_in(quote))


@dataclass(frozen=True, slots=True)
class DocumentText:
    """One document's text, page by page, as the model was sent it.

    Attributes:
        name: The document's name (``Evidence.document``).
        pages: The text of each page sent, in sent order (sent page ``i`` is
            ``pages[i - 1]``); "" for a page with no text layer.
        original_pages: The ORIGINAL page number of each sent page (same length).
    """

    name: str
    pages: Sequence[str]
    original_pages: Sequence[int]
    numbered_by_original: bool = False
    """The model saw the original page numbers (a converted PDF's ``## Page N``
    headings), so a claim's page is an original one; else it is the sent position."""
    _normalised: list[str | None] = field(default_factory=list, repr=False, compare=False)

    def index_of(self, page: int) -> int | None:
        """The 0-based index of the page a claim names (None: not one of this text's)."""
        if self.numbered_by_original:
            return self.original_pages.index(page) if page in self.original_pages else None
        return page - 1 if 1 <= page <= len(self.pages) else None

    def normalised(self, index: int) -> str:
        """The normalised text of sent page ``index + 1`` (worked out once)."""
        if not self._normalised:
            self._normalised.extend([None] * len(self.pages))
        cached = self._normalised[index]
        if cached is None:
            cached = self._normalised[index] = normalise_text(self.pages[index])
        return cached


def _score(quote: str, text: str, threshold: float) -> tuple[float, bool]:
    if quote in text:
        return 100.0, True
    from rapidfuzz import fuzz  # imported on first use: `import doc_processing_toolkit` stays lean

    return float(fuzz.partial_ratio(quote, text, score_cutoff=threshold * 0.5)), False


def _check_one(claim: Claim, documents: Sequence[DocumentText], threshold: float) -> Evidence:
    quote = claim.quote
    if quote is None:
        return Evidence("", None, None, False, 0.0, "missing")
    first = documents[0].name if documents else None
    if not documents:
        return Evidence(quote, None, claim.page, False, 0.0, "no_document")
    wanted = normalise_text(quote)
    if not wanted:
        return Evidence(quote, first, None, False, 0.0, "empty_quote")
    if len(wanted) > MAX_QUOTE_CHARS:
        return Evidence(quote, first, None, False, 0.0, "quote_too_long")
    best: tuple[float, bool, DocumentText, int] | None = None
    in_range = False
    has_text = False
    for document in documents:
        count = len(document.pages)
        sent = None if claim.page is None else document.index_of(claim.page)
        if claim.page is None:
            candidates = range(count)
        elif sent is not None:
            candidates = range(max(0, sent - 1), min(count, sent + 2))
        else:
            continue
        in_range = True
        # The page the model named first: it wins a tie with its neighbours.
        ordered = sorted(candidates, key=lambda i: (sent is not None and i != sent, i))
        for index in ordered:
            text = document.normalised(index)
            if not text:
                continue
            has_text = True
            score, exact = _score(wanted, text, threshold)
            if best is None or score > best[0]:
                best = (score, exact, document, index)
            if exact:
                break
        if best is not None and best[1]:
            break
    if not in_range:
        return Evidence(quote, first, None, False, 0.0, "page_out_of_range")
    if best is None or not has_text:
        page = _named_page(claim, documents)
        return Evidence(quote, first, page, False, 0.0, "no_text")
    score, exact, document, index = best
    page = document.original_pages[index]
    if score < threshold:
        named = _named_page(claim, documents)
        return Evidence(quote, document.name, named or page, False, score, "not_found")
    if not value_in_quote(claim.value, quote):
        return Evidence(quote, document.name, page, False, score, "value_not_in_quote")
    return Evidence(quote, document.name, page, True, score, "exact" if exact else "fuzzy")


def _named_page(claim: Claim, documents: Sequence[DocumentText]) -> int | None:
    if claim.page is None or not documents:
        return None
    index = documents[0].index_of(claim.page)
    return None if index is None else documents[0].original_pages[index]


def check_claims(
    claims: Mapping[str, Claim],
    documents: Sequence[DocumentText],
    threshold: float = DEFAULT_EVIDENCE_THRESHOLD,
) -> dict[str, Evidence]:
    """Each claim checked against the documents' text: its quote on the page it names
    (sent numbering) or the page before or after (or on any page when it names none),
    then its value in its quote. Never raises; see `EvidenceMethod` for every outcome."""
    return {path: _check_one(claim, documents, threshold) for path, claim in claims.items()}


def value_errors(schema: Mapping[str, Any], data: Any) -> list[dict[str, str]]:
    """The fields of an answer under the evidence schema (``schema``: the ORIGINAL one)
    whose value does not occur in their own quote, as ``{"path", "message"}`` errors (what
    a re-ask sends back). A field without a quote is not one of them."""
    _, claims = split_evidence(schema, data)
    return [
        {
            "path": path,
            "message": f"the value {claim.value!r} does not occur in its quote {claim.quote!r}",
        }
        for path, claim in claims.items()
        if claim.quote and not value_in_quote(claim.value, claim.quote)
    ]
