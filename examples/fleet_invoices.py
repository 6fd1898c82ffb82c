"""A fleet of 200 invoice PDFs, offline: durable jobs on SQLite, one tool round each.

    python examples/fleet_invoices.py [--mode batch]

Generates 200 small invoice PDFs in a temporary directory, submits one job per PDF
(``files=[pdf]``) and works the queue in this process. The provider is the loopback
ProviderEmulator playing the model: it "reads" each invoice (it knows the totals it
generated), calls ``record_total`` once, then answers. Kill the script half-way and start
it again with the same directory (``--dir``): the finished jobs are not run again and the
unfinished ones resume from their last completed step. Needs the ``fleet`` extra.

A tool that was running when the process died runs again when its job resumes (fleet tool
calls are delivered at least once), so ``record_total`` writes each row with the call's
``ToolContext.idempotency_key`` and skips a key the books already hold: however often the
script is killed, ``books.csv`` has one row per invoice.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.fleet import Fleet, ToolContext
from doc_processing_toolkit.testing import ProviderEmulator, Reply, ToolCall

INVOICES = 200
MODEL = "claude-sonnet-5-5"


def invoice_pdf(number: int, total: str) -> bytes:
    """A minimal one-page PDF saying ``Invoice INV-<number> Total <total> EUR``."""
    text = f"Invoice INV-{number:04d}  Total {total} EUR"
    stream = f"BT /F1 14 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for index, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % index + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def totals() -> dict[str, str]:
    """Invoice id -> its total (what the generated PDFs say)."""
    return {f"INV-{n:04d}": f"{(n * 37) % 900 + 100}.{n % 100:02d}" for n in range(INVOICES)}


_BOOKS_LOCK = threading.Lock()


@tool
def record_total(invoice: str, total: str) -> str:
    """Record an invoice's total in the books."""
    context = ToolContext.current()
    key = context.idempotency_key if context is not None else f"direct/{invoice}"
    books = Path(os.environ["FLEET_EXAMPLE_BOOKS"])
    with _BOOKS_LOCK:  # jobs of this process call the tool at once
        lines = books.read_text(encoding="utf-8").splitlines() if books.exists() else []
        if any(line.split(",", 1)[0] == key for line in lines):
            return f"recorded {invoice}: {total} EUR (already in the books)"
        fd = os.open(books, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:  # one write: the row and its key land together or not at all
            os.write(fd, f"{key},{invoice},{total}\n".encode())
        finally:
            os.close(fd)
    return f"recorded {invoice}: {total} EUR"


def make_agent() -> Agent:
    """One job's agent (the fleet builds one per job)."""
    return Agent(
        MODEL,
        "Read the invoice and record its total with record_total.",
        tools=[record_total],
        base_url=os.environ["FLEET_EXAMPLE_BASE_URL"],
        log_to_file=False,
    )


def model_player(known: dict[str, str]) -> Any:
    """The emulator's part: per request, the reply a model would give for that invoice."""

    def answer(body: dict[str, Any]) -> Reply:
        messages = body.get("messages") or []
        first = str(messages[0].get("content")) if messages else ""
        found = re.search(r"INV-\d{4}", first)
        invoice = found.group(0) if found else "INV-0000"
        last = messages[-1].get("content") if messages else None
        followup = isinstance(last, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in last
        )
        if not followup:
            call = ToolCall("record_total", {"invoice": invoice, "total": known[invoice]})
            return Reply(tool_calls=(call,), input_tokens=1800, output_tokens=40)
        return Reply(f"{invoice}: {known[invoice]} EUR", input_tokens=1900, output_tokens=12)

    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="working directory (default: a temp dir)")
    parser.add_argument("--mode", choices=("interactive", "batch"), default="interactive")
    args = parser.parse_args()
    work = Path(args.dir or tempfile.mkdtemp(prefix="dpt-fleet-invoices-"))
    work.mkdir(parents=True, exist_ok=True)
    known = totals()
    for invoice, total in known.items():
        pdf = work / f"{invoice}.pdf"
        if not pdf.exists():
            pdf.write_bytes(invoice_pdf(int(invoice[4:]), total))

    with ProviderEmulator() as emulator:
        emulator.responder = model_player(known)
        os.environ.setdefault("ANTHROPIC_API_KEY", "offline-example-key")
        os.environ["FLEET_EXAMPLE_BASE_URL"] = emulator.anthropic_base_url
        os.environ["FLEET_EXAMPLE_BOOKS"] = str(work / "books.csv")
        with Fleet(make_agent, str(work / "fleet.sqlite"), mode=args.mode, concurrency=16) as fleet:
            new = sum(
                fleet.submit(
                    invoice, f"Process invoice {invoice}.", files=[str(work / f"{invoice}.pdf")]
                )
                for invoice in known
            )
            started = time.monotonic()
            fleet.run()
            status = fleet.status()
            results = fleet.results()  # read from the database as they are asked for
            wrong = [i for i, r in results.items() if r.output != f"{i}: {known[i]} EUR"]
    rows = (work / "books.csv").read_text(encoding="utf-8").splitlines()
    booked = [row.split(",")[1] for row in rows]
    took = time.monotonic() - started
    print(f"{new} new jobs; {status.done} done, {status.failed} failed in {took:.1f} s")
    print(f"{emulator.request_count} model requests this run, spend ${status.spend:.4f}")
    print(f"books: {work / 'books.csv'}: {len(rows)} rows, {len(set(booked))} invoices")
    print(f"wrong totals: {len(wrong)}")


if __name__ == "__main__":
    main()
