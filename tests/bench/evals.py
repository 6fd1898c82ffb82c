"""Evals throughput: 200 cases at concurrency 8 against the emulator with a fixed 50 ms
latency per request (issue 37). The ideal is latency-bound: 200 x 50 ms / 8 = 1.25 s; the
target is to finish within 1.5x of it. Prints the measured wall time and the ratio (no
assertion on time: it measures this machine). The emulator runs in a process of its own
(``--serve``), so its CPU is not the client's, as in tests/bench/bench.py.

    .venv/bin/python tests/bench/evals.py [--cases 200] [--concurrency 8] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from doc_processing_toolkit import Agent  # noqa: E402
from doc_processing_toolkit.evals import EvalDataset, evaluate  # noqa: E402
from doc_processing_toolkit.testing import ProviderEmulator, reply  # noqa: E402
from tests.integration.evals_support import truth, write_dataset  # noqa: E402

MODEL = "claude-sonnet-5-5"


def serve(latency: float) -> None:
    """The emulator, answering each case with its true fields after ``latency``."""

    def answer(body: dict[str, Any]) -> Any:
        text = json.dumps(body)
        case = int(text.split("invoice case ", 1)[1].split(".", 1)[0])
        data = json.dumps(truth(case))
        # One text chunk, one pause before it: the request takes `latency` on the server.
        return reply(data, chunk_size=len(data), delay_between_chunks=latency)

    with ProviderEmulator() as emulator:
        emulator.responder = answer
        print(f"URL {emulator.anthropic_base_url}", flush=True)
        sys.stdin.read()  # serve until the parent closes our stdin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency)
        return
    folder = Path(tempfile.mkdtemp(prefix="dpt-bench-evals-"))
    dataset = EvalDataset.load(write_dataset(folder, args.cases, with_files=False))
    ideal = args.cases * args.latency / args.concurrency
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--latency", str(args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("URL "):
            raise RuntimeError(f"the bench emulator did not start: {line!r}")
        agent = Agent(MODEL, api_key="bench", base_url=line.split()[1], log_to_file=False)
        evaluate(agent, EvalDataset(dataset.cases[: args.concurrency]), concurrency=8)  # warm
        for round_ in range(1, args.rounds + 1):
            started, cpu = time.perf_counter(), time.process_time()
            report = evaluate(agent, dataset, concurrency=args.concurrency)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            summary = report.summary()
            print(
                f"round {round_}: {args.cases} cases at concurrency {args.concurrency}, "
                f"{args.latency * 1000:.0f} ms per request: {wall:.2f} s "
                f"(ideal {ideal:.2f} s, {wall / ideal:.2f}x; target <= 1.5x) "
                f"client CPU {cpu * 1000 / args.cases:.1f} ms per case, "
                f"accuracy {summary.field_accuracy:.0%} failed {summary.failed}"
            )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
