"""The document figures of the bench: splitting a long PDF, reading its text layers, and
MarkItDown converting a .docx, in pages per second (absolute: there is no SDK baseline).

    python tests/bench/documents.py            # these rows alone
    python tests/bench/documents.py --smoke    # one short round

The documents are generated (tests/document_samples.py): a 1,000-page text PDF, split into
ten 100-page chunks by a fresh ``PypdfPages`` each round (parsing included), and a .docx of
50 and of 100 pages (40 paragraphs a page, page breaks between them) converted by MarkItDown after
one warm-up conversion (MarkItDown loads its file-type model once per process). Medians of
the rounds; measurements, never assertions.

And one memory figure (`upload_memory_row`, goal < 100 MB): the peak RSS of a child process
that sends ``Document(path)`` of a 500 MB PDF (50 MB with ``--smoke``: still over Gemini's
20 MB inline limit) to a Gemini row on the emulator, which uploads it through the Files
API, minus the peak RSS of a baseline child that does the same with a one-page PDF (sent
inline). Both children import the same modules and build the same Agent, so the
difference is what the upload costs in memory: a file read whole would add its size. The
500 MB file is written to disk in 1 MiB blocks (never held in memory) and deleted after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: document_samples

from document_samples import docx_bytes, numbered_pdf, text_pdf, write_large_pdf

from doc_processing_toolkit.adapters.documents import PypdfPages
from doc_processing_toolkit.domain.documents.kinds import DOCX_MIME as DOCX

Row = tuple[str, str, float, str]
"""(figure, unit, value, note)."""

PARAGRAPHS_PER_PAGE = 40
UPLOAD_MB, SMOKE_UPLOAD_MB = 500, 50
UPLOAD_GOAL_MB = 100
"""The issue's goal: peak memory no more than this above the baseline."""

_UPLOAD_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.documents import Document

    def peak_rss():
        # VmHWM: this process's own peak (ru_maxrss survives exec: on Linux a child
        # started by a larger parent reports at least the parent's size).
        try:
            with open("/proc/self/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    base_url, path = sys.argv[1], sys.argv[2]
    agent = Agent(
        "gemini-2.5-flash", api_key="offline-bench-key", base_url=base_url, log_to_file=False
    )
    result = agent.run_sync("Summarise the contract.", files=[Document(path)])
    print(json.dumps({
        "peak_rss": peak_rss(),
        "uploads": len(result.media_uploads),
    }))
    """
)


def _median_seconds(fn: Callable[[], Any], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _docx(pages: int) -> bytes:
    paragraphs: list[str] = []
    for page in range(1, pages + 1):
        if page > 1:
            paragraphs.append("\f")
        paragraphs += [
            f"Page {page}, clause {n}: the tenant pays the rent on the first day of the month."
            for n in range(1, PARAGRAPHS_PER_PAGE + 1)
        ]
    return docx_bytes(paragraphs)


def document_rows(*, smoke: bool = False) -> list[Row]:
    """The document figures: PDF split, PDF text layers, MarkItDown .docx conversion."""
    rounds = 1 if smoke else 5
    total, chunk = (100, 10) if smoke else (1000, 100)
    pdf = numbered_pdf(total)

    def split() -> None:
        pages = PypdfPages()  # a fresh adapter: the parse is part of the figure
        for start in range(1, total + 1, chunk):
            pages.cut(pdf, range(start, start + chunk), "bench.pdf")

    def text_layers() -> None:
        PypdfPages().info(pdf, "bench.pdf")

    rows: list[Row] = [
        (
            f"split a {total:,}-page PDF into {chunk}-page chunks (pypdf)",
            "pages/s",
            total / _median_seconds(split, rounds),
            f"{len(pdf) / 1e6:.1f} MB, parsed once",
        ),
        (
            f"page count + text layers of a {total:,}-page PDF (info)",
            "pages/s",
            total / _median_seconds(text_layers, rounds),
            "pypdf extract_text per page",
        ),
    ]
    try:
        from doc_processing_toolkit.adapters.documents.markitdown import MarkItDownConverter
    except ImportError:  # pragma: no cover - without the documents extra
        return rows
    converter = MarkItDownConverter()
    converter.convert(_docx(1), DOCX, "warm-up.docx")
    for doc_pages in (10,) if smoke else (50, 100):  # 50: the size issue 41 names
        data = _docx(doc_pages)
        seconds = _median_seconds(lambda d=data: converter.convert(d, DOCX, "bench.docx"), rounds)
        rows.append(
            (
                f"MarkItDown .docx -> Markdown, {doc_pages} pages",
                "pages/s",
                doc_pages / seconds,
                f"{PARAGRAPHS_PER_PAGE} paragraphs a page, {len(data) / 1e3:.0f} kB",
            )
        )
    return rows


def _child_peak(base_url: str, path: Path) -> dict[str, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPT_")}
    done = subprocess.run(
        [sys.executable, "-c", _UPLOAD_CHILD, base_url, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the upload child failed: {done.stderr[-2000:]}")
    report: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def upload_memory_row(base_url: str, *, smoke: bool = False) -> tuple[str, str, float, str, bool]:
    """(figure, unit, MB above the baseline, note, goal met) for a large ``Document``
    uploaded through the Gemini Files API of the emulator at ``base_url``."""
    megabytes = SMOKE_UPLOAD_MB if smoke else UPLOAD_MB
    with tempfile.TemporaryDirectory(prefix="dpt-bench-upload-") as folder:
        small, big = Path(folder) / "one-page.pdf", Path(folder) / "contract.pdf"
        small.write_bytes(text_pdf(["Master Services Agreement"]))
        write_large_pdf(big, megabytes)
        baseline = _child_peak(base_url, small)
        uploaded = _child_peak(base_url, big)
    if uploaded["uploads"] != 1 or baseline["uploads"] != 0:
        raise RuntimeError(f"expected one upload and none: {uploaded}, {baseline}")
    above = (uploaded["peak_rss"] - baseline["peak_rss"]) / 1e6
    return (
        f"peak RSS above the baseline, a {megabytes} MiB PDF uploaded through the Gemini "
        "Files API (Document(path), streamed)",
        "MB",
        above,
        f"baseline child {baseline['peak_rss'] / 1e6:.0f} MB, uploading child "
        f"{uploaded['peak_rss'] / 1e6:.0f} MB",
        above < UPLOAD_GOAL_MB,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="one short round")
    args = parser.parse_args()
    for figure, unit, value, note in document_rows(smoke=args.smoke):
        print(f"| {figure} | {value:,.0f} {unit} | {note} |")
    from doc_processing_toolkit.testing import ProviderEmulator, Reply

    with ProviderEmulator(default=Reply("read")) as emulator:  # the children measure
        figure, unit, value, note, met = upload_memory_row(emulator.url, smoke=args.smoke)
    goal = f"< {UPLOAD_GOAL_MB} MB: {'met' if met else 'NOT MET'}"
    print(f"| {figure} | {value:,.1f} {unit} | {note}; {goal} |")


if __name__ == "__main__":
    main()
