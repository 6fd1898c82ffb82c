"""A 300-page contract on every provider: page limits before sending, a page selection,
an estimate, and run_document's chunks merged into one structured answer.

    python examples/long_contract.py

The contract is generated here (``doc_processing_toolkit.testing.pdf.text_pdf``). For each
provider the example

1. sends the whole PDF with ``run()``: on a model whose page limit is under 300 pages it is
   refused with ``DocumentLimitError`` before any request;
2. sends pages 41-60 only (``Document(pages="41-60")``: a 20-page PDF is cut and sent);
3. estimates what ``run_document`` will send and cost (no request);
4. runs ``run_document`` with an output schema: one request per chunk of the model's page
   limit, the lists merged in page order, a clause the chunks disagree on reported with its
   original pages, and a cost that is the sum of its request records.

The text-only Fireworks model takes no PDF: with ``on_unsupported_part="convert"`` each
chunk is sent as its text layer.

Runs offline against the loopback ProviderEmulator, which answers each chunk from the
pages it was sent. Leave the emulator out and set the provider keys to run it for real.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit import Agent, DocumentLimitError
from doc_processing_toolkit.agent.parameter_mapping import detect_provider
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply
from doc_processing_toolkit.testing.pdf import text_pdf

MODELS = ["claude-haiku-4-5", "gpt-5.4", "gemini-2.5-flash", "glm-5"]
PAGES = 300


class Contract(BaseModel):
    parties: list[str]
    governing_law: str


def contract_pdf() -> bytes:
    """300 pages; the parties are named on pages 1, 150 and 260, the governing law on pages
    2 and 280 (differently: a conflict to report)."""
    pages: list[list[str]] = []
    for n in range(1, PAGES + 1):
        lines = [f"MASTER SERVICES AGREEMENT - page {n} of {PAGES}"]
        if n == 1:
            lines.append("Between Acme Corp and Beta LLC.")
        if n == 150:
            lines.append("Schedule B adds Gamma SA as a party.")
        if n == 260:
            lines.append("Amendment 3 adds Delta GmbH as a party.")
        if n == 2:
            lines.append("This agreement is governed by the laws of Delaware.")
        if n == 280:
            lines.append("Amendment 4: governed by the laws of New York.")
        pages.append(lines)
    return text_pdf(pages, title="Master Services Agreement")


def answer(body: dict[str, Any]) -> Reply | None:
    """The emulated model: answers a structured request from the text it was sent."""
    text = json.dumps(body)
    if "Extract" not in text:
        return None  # a plain request: the default reply
    match = re.search(r"its pages (\d+)-(\d+)", text)
    first, last = (int(match.group(1)), int(match.group(2))) if match else (1, PAGES)
    facts = {
        1: ("Acme Corp", "Delaware"),
        150: ("Gamma SA", None),
        260: ("Delta GmbH", "New York"),
    }
    parties = [p for page, (p, _) in facts.items() if first <= page <= last]
    if first <= 1 <= last:
        parties.insert(1, "Beta LLC")
    laws = [law for page, (_, law) in facts.items() if first <= page <= last and law]
    data = {"parties": parties, "governing_law": laws[0] if laws else ""}
    return Reply(json.dumps(data), input_tokens=40_000, output_tokens=60)


def run(model: str, emulator: ProviderEmulator, path: Path) -> None:
    agent = Agent(
        model,
        api_key="offline-example-key",
        base_url=getattr(emulator, f"{detect_provider(model)}_base_url"),
        on_unsupported_part="convert",
        log_to_file=False,
    )
    emulator.reset()
    try:
        agent.run_sync("Summarise the contract.", files=[path])
        refused = "sent whole"
    except DocumentLimitError as error:
        refused = f"refused before sending ({error.actual} pages > {error.limit})"
    agent.run_sync("Summarise these pages.", files=[Document(path, pages="41-60")])
    estimate = agent.estimate("Extract the parties.", files=[path], output_schema=Contract)
    before = emulator.request_count
    result = agent.run_document_sync(
        Document(path), "Extract the parties and the governing law.", output_schema=Contract
    )
    sent = emulator.request_count - before
    assert sent == estimate.requests == len(result.chunks)
    assert result.cost == round(sum(r["cost"] for r in result.request_records), 9)
    conflicts = [
        f"{c.path}: "
        + " vs ".join(f"{v.value!r} (pages {v.pages[0]}-{v.pages[-1]})" for v in c.values)
        for c in result.conflicts
    ]
    print(
        f"{model:<18} whole PDF {refused}; estimate {estimate.requests} request(s), "
        f"${estimate.cost_usd or 0:.4f} input; run_document chunks="
        f"{[c.page_range for c in result.chunks]} parties={result.output.parties} "
        f"law={result.output.governing_law!r} conflicts={conflicts} cost=${result.cost:.6f}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, ProviderEmulator(default=Reply("Read.")) as emu:
        path = Path(tmp) / "contract.pdf"
        path.write_bytes(contract_pdf())
        emu.responder = answer
        for model in MODELS:
            run(model, emu, path)


if __name__ == "__main__":
    main()
