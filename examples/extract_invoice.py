"""Extract an invoice into a Pydantic model from a real multi-page PDF, on all four providers.

    python examples/extract_invoice.py

The PDF is generated here (``doc_processing_toolkit.testing.pdf.text_pdf``) and sent with
``files=[...]`` and an ``output_schema``. Each provider's real SDK carries it in that
provider's own shape (an Anthropic document block, an OpenAI ``input_file``, Gemini
``inline_data``); the text-only Fireworks model cannot take a PDF, so the part is dropped
and reported on ``dropped_parts`` (``on_unsupported_part="raise"`` would refuse instead,
before any request).

Runs offline against the loopback ProviderEmulator, which answers with the scripted
extraction below. Leave the emulator out and set the provider keys to run it for real.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from pydantic import BaseModel

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import ProviderEmulator, reply, tool_call
from doc_processing_toolkit.testing.pdf import text_pdf

MODELS = ["claude-sonnet-5-5", "gpt-4o", "gemini-2.5-flash", "kimi-k2p6"]


class LineItem(BaseModel):
    description: str
    quantity: int
    unit_price: float


class Invoice(BaseModel):
    invoice_number: str
    vendor: str
    total: float
    line_items: list[LineItem]


INVOICE_PAGES = [
    [
        "ACME Supplies Ltd. - INVOICE",
        "Invoice number: INV-2026-0042",
        "Date: 2026-11-30",
        "Bill to: Example Corp, 1 Main Street",
        "",
        "Description              Qty   Unit price",
        "Printer paper (box)        3        24.00",
        "Toner cartridge            2        89.50",
    ],
    [
        "ACME Supplies Ltd. - INVOICE INV-2026-0042 (page 2 of 2)",
        "Desk lamp                  1        45.00",
        "",
        "Total due: 296.00",
        "Payment within 30 days.",
    ],
]

EXTRACTION = {
    "invoice_number": "INV-2026-0042",
    "vendor": "ACME Supplies Ltd.",
    "total": 296.0,
    "line_items": [
        {"description": "Printer paper (box)", "quantity": 3, "unit_price": 24.0},
        {"description": "Toner cartridge", "quantity": 2, "unit_price": 89.5},
        {"description": "Desk lamp", "quantity": 1, "unit_price": 45.0},
    ],
}


def extract(model: str, pdf: Path, emulator: ProviderEmulator) -> Invoice:
    probe = Agent(model, api_key="offline-example-key", log_to_file=False)
    # The emulator stands in for the model: models with native structured output answer
    # with JSON; kimi-k2p6 has none, so it calls the toolkit's final_result tool.
    if probe.provider == "fireworks":
        emulator.push(tool_call("final_result", EXTRACTION))
    else:
        emulator.push(reply(json.dumps(EXTRACTION), input_tokens=1_800, output_tokens=120))
    agent = Agent(
        model,
        instructions="Extract the invoice exactly as printed.",
        api_key="offline-example-key",
        base_url=getattr(emulator, f"{probe.provider}_base_url"),
        log_to_file=False,
    )
    result = agent.run_sync("Extract this invoice.", files=[pdf], output_schema=Invoice)
    invoice = Invoice.model_validate(result.output)  # output is the validated dict
    dropped = [f"{d['kind']}: {d['reason']}" for d in result.dropped_parts]
    print(
        f"{model:<20} {agent.provider:<10} total={invoice.total:.2f} "
        f"items={len(invoice.line_items)} cost=${result.cost:.6f}"
        + (f"  dropped={dropped}" if dropped else "")
    )
    return invoice


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, ProviderEmulator() as emulator:
        pdf = Path(folder) / "invoice.pdf"
        pdf.write_bytes(text_pdf(INVOICE_PAGES, title="INV-2026-0042"))
        for model in MODELS:
            invoice = extract(model, pdf, emulator)
            assert invoice == Invoice.model_validate(EXTRACTION)


if __name__ == "__main__":
    main()
