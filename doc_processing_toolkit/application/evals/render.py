"""An `EvalReport` as Markdown and as one self-contained HTML page (inline CSS and SVG)."""

from __future__ import annotations

import json
from html import escape
from typing import Any, Protocol

from doc_processing_toolkit.domain.evals.results import CaseResult, ModelSummary

__all__ = ["RenderedReport", "chart", "html", "markdown"]


class RenderedReport(Protocol):
    """What rendering reads of an `EvalReport`."""

    cases: list[CaseResult]
    models: list[str]
    dataset: str | None
    created_at: str
    concurrency: int
    repeat: int
    wall_seconds: float

    @property
    def summaries(self) -> dict[str, ModelSummary]: ...

    def cases_of(self, model: str) -> list[CaseResult]: ...


def _value(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _summary_rows(report: RenderedReport) -> list[list[str]]:
    rows = []
    for model, s in report.summaries.items():
        f1 = ", ".join(f"{p} {v['f1']:.2f}" for p, v in s.list_scores.items()) or "-"
        rows.append(
            [
                model,
                str(s.cases),
                str(s.failed),
                f"{s.field_accuracy:.1%}",
                f"{s.exact_match_rate:.1%}",
                f1,
                f"{s.missing}/{s.extra}",
                f"${s.total_cost:.6f}",
                f"${s.mean_cost_per_document:.6f}",
                f"{s.p50_latency_seconds:.2f}s",
                f"{s.p95_latency_seconds:.2f}s",
            ]
        )
    return rows


_HEADERS = [
    "model",
    "cases",
    "failed",
    "field accuracy",
    "exact match",
    "list F1",
    "missing/extra",
    "total cost",
    "cost/doc",
    "p50",
    "p95",
]


def markdown(report: RenderedReport) -> str:
    """The summary table, then per model the fields that were not correct and the errors."""
    lines = [f"# Eval report: {report.dataset or 'dataset'}", ""]
    lines.append("| " + " | ".join(_HEADERS) + " |")
    lines.append("|" + "---|" * len(_HEADERS))
    lines.extend("| " + " | ".join(row) + " |" for row in _summary_rows(report))
    for model in report.models:
        lines += ["", f"## {model}", ""]
        bad = [(c, f) for c in report.cases_of(model) for f in c.fields if f.verdict != "correct"]
        failed = [c for c in report.cases_of(model) if c.error]
        if not bad and not failed:
            lines.append("Every field correct.")
            continue
        if bad:
            lines.append("| case | field | verdict | expected | model | page |")
            lines.append("|---|---|---|---|---|---|")
            for case, f in bad:
                page = "-" if f.evidence_page is None else str(f.evidence_page)
                cells = [case.case, f.path, f.verdict, _value(f.expected), _value(f.actual), page]
                lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        for case in failed:
            lines.append(f"- {case.case}: failed ({case.error_type}): {_value(case.error, 200)}")
    return "\n".join(lines) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328}
table{border-collapse:collapse;margin:1rem 0;font-size:14px}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}.correct{background:#dafbe1}.wrong{background:#ffebe9}
.missing{background:#fff8c5}.extra{background:#ddf4ff}.failed{background:#ffebe9}
h2{margin-top:2rem}figure{margin:1rem 0}
"""


def _bars(title: str, values: list[tuple[str, float]], fmt: str, colour: str, y: int) -> str:
    top = max((v for _, v in values), default=0.0) or 1.0
    parts = [f'<text x="0" y="{y}" font-weight="bold">{escape(title)}</text>']
    for i, (label, value) in enumerate(values):
        row = y + 14 + i * 26
        width = 320 * value / top
        parts.append(f'<text x="0" y="{row + 14}">{escape(label)}</text>')
        parts.append(
            f'<rect x="200" y="{row}" width="{width:.1f}" height="18" fill="{colour}">'
            f"<title>{escape(label)}: {format(value, fmt)}</title></rect>"
        )
        parts.append(f'<text x="{206 + width:.1f}" y="{row + 14}">{format(value, fmt)}</text>')
    return "".join(parts)


def chart(summaries: dict[str, ModelSummary]) -> str:
    """An inline SVG: field accuracy and mean cost per document, one bar per model."""
    models = list(summaries)
    accuracy = [(m, summaries[m].field_accuracy) for m in models]
    cost = [(m, summaries[m].mean_cost_per_document) for m in models]
    block = 30 + 26 * len(models)
    height = 2 * block + 10
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" id="chart" width="640" height="{height}" '
        f'font-family="system-ui,sans-serif" font-size="13" role="img" '
        f'aria-label="Field accuracy and cost per document by model">'
        + _bars("Field accuracy", accuracy, ".1%", "#2da44e", 16)
        + _bars("Mean cost per document (USD)", cost, ".6f", "#0969da", 16 + block)
        + "</svg>"
    )


def _table(headers: list[str], rows: list[tuple[str, list[str]]], css: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        f'<tr class="{escape(cls)}">' + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"
        for cls, cells in rows
    )
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def html(report: RenderedReport) -> str:
    """One self-contained page: the summary, the chart, then a table per model."""
    title = f"Eval report: {report.dataset or 'dataset'}"
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p>{len(report.models)} model(s), {len(report.cases)} case runs, "
        f"concurrency {report.concurrency}, repeat {report.repeat}, "
        f"{report.wall_seconds:.2f}s wall clock. {escape(report.created_at)}</p>",
        _table(_HEADERS, [("", r) for r in _summary_rows(report)], "summary"),
        f"<figure>{chart(report.summaries)}</figure>",
    ]
    headers = ["case", "field", "verdict", "expected", "model value", "page", "cost", "latency"]
    for model in report.models:
        rows: list[tuple[str, list[str]]] = []
        for case in report.cases_of(model):
            name = case.case if not case.repeat else f"{case.case} (repeat {case.repeat + 1})"
            cost, latency = f"${case.cost:.6f}", f"{case.latency_seconds:.2f}s"
            if case.error:
                rows.append(
                    (
                        "failed",
                        [
                            name,
                            "-",
                            f"failed: {case.error_type}",
                            "-",
                            _value(case.error, 120),
                            "-",
                            cost,
                            latency,
                        ],
                    )
                )
            for f in case.fields:
                page = "-" if f.evidence_page is None else str(f.evidence_page)
                rows.append(
                    (
                        f.verdict,
                        [
                            name,
                            f.path,
                            f.verdict,
                            _value(f.expected),
                            _value(f.actual),
                            page,
                            cost,
                            latency,
                        ],
                    )
                )
        parts.append(f'<section class="model" data-model="{escape(model)}">')
        parts.append(f"<h2>{escape(model)}</h2>{_table(headers, rows, 'cases')}</section>")
    parts.append("</body></html>")
    return "\n".join(parts)
