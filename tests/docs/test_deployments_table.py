"""The model x deployment x features table of docs/guide/deployments.md is generated from
the registry: this test renders it from the rows and fails when the page differs. To
regenerate the page:

    .venv/bin/python tests/docs/test_deployments_table.py --write
"""

from __future__ import annotations

import sys
from pathlib import Path

from doc_processing_toolkit.adapters.registry.json_file import default_registry

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "guide" / "deployments.md"
START, END = "<!-- deployments:start -->", "<!-- deployments:end -->"
FEATURES = ("pdf", "web_search", "code_execution", "files_api", "batch_api", "count_tokens")


def _price(value: float | None) -> str:
    return "—" if value is None else f"${value:g}"


def render_table() -> str:
    """One line per (current row, deployment): the model id there, its prices, and each feature
    the row has on the provider's API marked available (yes) or missing there (no)."""
    lines = [
        "| model | deployment | model id there | input / output per MTok "
        f"| {' | '.join(FEATURES)} |",
        "|---|---|---|---|" + "---|" * len(FEATURES),
    ]
    rows = sorted(default_registry().models(), key=lambda row: (row.provider, row.model))
    for row in rows:
        if row.deprecated or row.retirement_date:  # the current models only
            continue
        for name, info in sorted(row.deployments.items()):
            served = row.for_deployment(name)
            marks = []
            for feature in FEATURES:
                if feature in info.unsupported:
                    marks.append("no")
                elif feature in ("pdf",) and feature not in served.input_types:
                    marks.append("—")
                elif feature in ("web_search", "code_execution"):
                    marks.append("yes" if feature in served.built_in_tools else "—")
                else:
                    marks.append("yes")
            prices = (
                f"{_price(info.pricing.input_per_mtok)} / {_price(info.pricing.output_per_mtok)}"
            )
            lines.append(
                f"| `{row.model}` | {name} | `{info.model_id}` | {prices} | {' | '.join(marks)} |"
            )
    return "\n".join(lines)


def _current() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def test_the_deployments_table_is_the_registry() -> None:
    assert _current() == render_table(), (
        "docs/guide/deployments.md is out of date: run "
        ".venv/bin/python tests/docs/test_deployments_table.py --write"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(f"{head}{START}\n{render_table()}\n{END}{tail}", encoding="utf-8")
