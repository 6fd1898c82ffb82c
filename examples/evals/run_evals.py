"""Invoice extraction evals, offline: two emulated models side by side.

    python examples/evals/run_evals.py [--dir DIR] [--baseline OLD_REPORT.json]

Copies ``invoices.yaml`` and ``invoice_schema.py`` into DIR (default: a temporary
directory), makes one invoice PDF per case from the case's expected fields (the fields sit
beside the documents they describe), then runs every case on ``claude-sonnet-5-5`` and
``gpt-4o`` played by the loopback ProviderEmulator: it "reads" the invoice number from the
PDF it is sent and answers with that invoice's fields, the second model with a few
mistakes. Prints the Markdown report and writes ``report.json`` and ``report.html`` to DIR.
No key and no network are needed.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml

from doc_processing_toolkit import Agent
from doc_processing_toolkit.evals import EvalDataset, EvalReport, evaluate
from doc_processing_toolkit.testing import ProviderEmulator, ScriptStep, reply
from doc_processing_toolkit.testing.pdf import text_pdf

HERE = Path(__file__).resolve().parent
MODELS = ("claude-sonnet-5-5", "gpt-4o")
_NUMBER = re.compile(rb"Invoice (INV-\d{4}-\d{3})")


def make_pdfs(folder: Path, cases: list[dict[str, Any]]) -> None:
    """One two-page invoice PDF per case, written from its expected fields."""
    (folder / "pdfs").mkdir(exist_ok=True)
    for case in cases:
        fields = case["expected"]
        first = [
            f"Invoice {fields['number']}",
            f"Date {fields['date']}",
            f"From {fields['vendor']}",
        ]
        second = [
            f"{item['description']}  {item['amount']:.2f}" for item in fields.get("line_items", [])
        ]
        second.append(f"Total {fields['total']:.2f} EUR")
        if fields.get("notes"):
            second.append(str(fields["notes"]))
        (folder / "pdfs" / f"{fields['number']}.pdf").write_bytes(text_pdf([first, second]))


def _documents(value: Any) -> list[bytes]:
    """Every base64 payload in a request body, decoded (the PDFs the SDK sent)."""
    if isinstance(value, dict):
        return [d for v in value.values() for d in _documents(v)]
    if isinstance(value, list):
        return [d for v in value for d in _documents(v)]
    if isinstance(value, str) and len(value) > 200:
        try:
            return [base64.b64decode(value.split(",", 1)[-1], validate=True)]
        except (binascii.Error, ValueError):
            return []
    return []


def _mistakes(fields: dict[str, Any]) -> dict[str, Any]:
    """The second model's reading: a vendor cut short, a lost sign, a dropped line."""
    fields = json.loads(json.dumps(fields))
    number = fields["number"]
    if number == "INV-2026-002":
        fields["vendor"] = "Borealis Consulting"
    if number == "INV-2026-004":
        fields["total"] = abs(fields["total"])
    if number == "INV-2026-005":
        fields["line_items"] = fields["line_items"][:2]
    if number == "INV-2026-001":
        fields["notes"] = "Payment due within 30 days by bank transfer."  # fuzzy: still right
    return fields


def responder(truth: dict[str, dict[str, Any]]) -> Any:
    """Answers each request with the fields of the invoice in its PDF."""

    def answer(body: dict[str, Any]) -> ScriptStep | None:
        for document in _documents(body):
            found = _NUMBER.search(document)
            if found is None:
                continue
            fields = dict(truth[found.group(1).decode()])
            fields["date"] = fields["date"].replace("-", "/")  # 2026/03/02: the same day
            if body.get("model") == MODELS[1]:
                fields = _mistakes(fields)
            return reply(json.dumps(fields), input_tokens=1800, output_tokens=120)
        return None

    return answer


def main(argv: list[str] | None = None) -> EvalReport:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="where to write (default: a temp dir)")
    parser.add_argument("--baseline", default=None, help="an earlier report.json to compare")
    args = parser.parse_args(argv)
    folder = Path(args.dir or tempfile.mkdtemp(prefix="dpt-evals-"))
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("invoices.yaml", "invoice_schema.py"):
        shutil.copy(HERE / name, folder / name)
    cases = yaml.safe_load((folder / "invoices.yaml").read_text())["cases"]
    make_pdfs(folder, cases)
    dataset = EvalDataset.load(folder / "invoices.yaml")
    truth = {case["expected"]["number"]: case["expected"] for case in cases}

    with ProviderEmulator() as emulator:
        emulator.responder = responder(truth)
        agents = [
            Agent(
                MODELS[0],
                api_key="offline",
                base_url=emulator.anthropic_base_url,
                log_to_file=False,
            ),
            Agent(
                MODELS[1], api_key="offline", base_url=emulator.openai_base_url, log_to_file=False
            ),
        ]
        report = evaluate(agents, dataset, concurrency=4)

    print(report.to_markdown())
    report.to_json(folder / "report.json")
    report.to_html(folder / "report.html")
    print(f"reports: {folder / 'report.json'}, {folder / 'report.html'}")
    if args.baseline:
        print(report.compare(EvalReport.load(args.baseline)).to_markdown())
    return report


if __name__ == "__main__":
    main()
