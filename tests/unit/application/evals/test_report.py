"""`EvalReport`: JSON round trip, Markdown, the self-contained HTML page, `compare`."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from doc_processing_toolkit.domain.errors import InvalidInputError, MissingFileError
from doc_processing_toolkit.domain.evals.fields import FieldResult, ListScore
from doc_processing_toolkit.evals import CaseResult, EvalReport


def _report(model_b_total: str = "correct") -> EvalReport:
    cases = [
        CaseResult(
            "inv-1",
            "model-a",
            fields=[
                FieldResult("total", "correct", 10, 10),
                FieldResult("tags", "wrong", ["x"], ["y"]),
            ],
            lists=[ListScore("tags", 0, 1, 1)],
            cost=0.01,
            latency_seconds=1.0,
        ),
        CaseResult(
            "inv-1",
            "model-b",
            fields=[
                FieldResult("total", model_b_total, 10, 10, evidence_page=2),  # type: ignore[arg-type]
                FieldResult("tags", "correct", ["x"], ["x"]),
            ],
            lists=[ListScore("tags", 1, 0, 0)],
            cost=0.03,
            latency_seconds=2.0,
        ),
        CaseResult(
            "inv-2",
            "model-b",
            fields=[FieldResult("total", "missing", 5)],
            error="boom",
            error_type="ServerError",
            cost=0.001,
        ),
    ]
    return EvalReport(cases, ["model-a", "model-b"], dataset="invoices.yaml", concurrency=2)


def test_json_round_trip(tmp_path: Path) -> None:
    report = _report()
    path = report.to_json(tmp_path / "r.json")
    data = json.loads(path.read_text())
    assert data["summaries"]["model-b"]["failed"] == 1
    loaded = EvalReport.load(path)
    assert loaded.to_dict() == report.to_dict()
    assert loaded.cases[1].fields[0].evidence_page == 2


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(MissingFileError, match=r"absent.json"):
        EvalReport.load(tmp_path / "absent.json")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(InvalidInputError, match=r"x.json.*not an eval report"):
        EvalReport.load(tmp_path / "x.json")


def test_markdown_has_the_summary_and_the_fields_that_were_not_correct() -> None:
    text = _report().to_markdown()
    assert "| model-a | 1 | 0 | 50.0% |" in text
    assert '| inv-1 | tags | wrong | ["x"] | ["y"] | - |' in text
    assert "- inv-2: failed (ServerError): boom" in text


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.sections: list[str] = []
        self.rows: dict[str, int] = {}
        self._section: str | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "section":
            self._section = found.get("data-model")
            self.sections.append(self._section or "")
        if tag == "tr" and self._section and found.get("class"):
            self.rows[self._section] = self.rows.get(self._section, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._section = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_one_page_with_a_table_per_model_and_an_svg_chart(tmp_path: Path) -> None:
    path = _report().to_html(tmp_path / "r.html")
    page = _Page()
    page.feed(path.read_text())
    assert page.sections == ["model-a", "model-b"]
    assert page.rows == {"model-a": 2, "model-b": 4}  # field rows, plus one for the failure
    names = [t for t, _ in page.tags]
    assert names.count("table") == 3 and "svg" in names  # summary + one per model
    bars = [a for t, a in page.tags if t == "rect"]
    assert len(bars) == 4  # accuracy and cost, one bar per model
    assert not [a for t, a in page.tags if t in ("script", "link", "img")]
    assert not [
        a
        for _, a in page.tags
        if any(
            str(v).startswith("http")
            for v in a.values()
            if v and not str(v).startswith("http://www.w3")
        )
    ]
    text = " ".join(page.text)
    assert "Field accuracy" in text and "Mean cost per document" in text


def test_compare_lists_regressions_improvements_and_cost() -> None:
    baseline = _report()
    now = _report(model_b_total="wrong")
    comparison = now.compare(baseline)
    assert comparison.regressed
    assert [(c.model, c.case, c.field) for c in comparison.regressions] == [
        ("model-b", "inv-1", None),
        ("model-b", "inv-1", "total"),
    ]
    assert comparison.improvements == []
    assert comparison.cost_change == {"model-a": 0.0, "model-b": 0.0}
    assert comparison.accuracy_change["model-b"] == pytest.approx(-1 / 3)
    assert "[model-b] inv-1 / total: correct -> wrong" in comparison.to_markdown()
    assert not baseline.compare(baseline).regressed
    back = baseline.compare(now)
    assert [(c.case, c.field) for c in back.improvements] == [("inv-1", None), ("inv-1", "total")]


def test_two_single_model_reports_compare_whatever_their_labels() -> None:
    old = EvalReport(
        [CaseResult("c", "old-model", fields=[FieldResult("f", "correct")])], ["old-model"]
    )
    new = EvalReport(
        [CaseResult("c", "new-model", fields=[FieldResult("f", "wrong")])], ["new-model"]
    )
    assert [str(c) for c in new.compare(old).regressions][1] == (
        "[new-model] c / f: correct -> wrong"
    )


def test_an_unknown_model_is_named() -> None:
    from doc_processing_toolkit.domain.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=r"no model 'model-c'.*model-a"):
        _report().summary("model-c")
