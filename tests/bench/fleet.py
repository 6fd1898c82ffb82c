"""The fleet bench: what a worker spends per job and per model request, on the emulator.

    make bench-fleet                      # 5 rounds of 60 two-request jobs, 8 at once
    python tests/bench/fleet.py --smoke   # one short round: proves it runs

Each round is a fresh process (DBOS is one per process) with a fresh SQLite fleet: it
submits the jobs, then times ``Fleet.run()`` until the queue is empty. A job is one
``lookup`` tool round (two model requests, one tool step) against the in-process
ProviderEmulator's Anthropic dialect. Printed: the median over the rounds of the drain's
wall time per job and of the worker's CPU per job, then (where the engine has it) the
median time of the one write a model request adds before it goes out (the
``dpt_fleet_step_starts`` upsert, issue 31). Measurements, never assertions: run it
before and after a change on the same machine and compare the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUPPORT = HERE.parent / "integration"


def one_round(jobs: int, concurrency: int) -> dict[str, float]:
    """One fleet drained in this process (call it in a fresh one)."""
    sys.path.insert(0, str(SUPPORT))
    import fleet_support as fs

    from doc_processing_toolkit.fleet import Fleet
    from doc_processing_toolkit.testing import ProviderEmulator

    with tempfile.TemporaryDirectory() as tmp, ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        os.environ["DPT_TEST_EMULATOR_URL"] = emu.anthropic_base_url
        fleet = Fleet(fs.make_agent, str(Path(tmp) / "bench.sqlite"), concurrency=concurrency)
        for i in range(jobs):
            fleet.submit(f"job-{i:04d}", f"Process job job-{i:04d}.")
        wall, cpu = time.perf_counter(), time.process_time()
        fleet.run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        done = fleet.status().done
        fleet.close()
    if done != jobs:
        raise SystemExit(f"fleet bench: {done} of {jobs} jobs done")
    return {"wall_per_job_ms": 1000 * wall / jobs, "cpu_per_job_ms": 1000 * cpu / jobs}


def marker_write_us(writes: int) -> float | None:
    """The median time of one start upsert on a SQLite system database (None: the engine
    has no such write)."""
    try:
        from doc_processing_toolkit.adapters.durable.checkpoints import CheckpointStore
        from doc_processing_toolkit.adapters.durable.dbos import system_database_url
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        # The checkpoint table's start upsert, through its writer thread (as a step does).
        store = CheckpointStore(system_database_url(str(Path(tmp) / "m.sqlite"), "m"))
        times = []
        for i in range(writes):
            began = time.perf_counter()
            store.call_sync(store.start, f"job-{i % 500}", i // 500, "model:generation", began)
            times.append(time.perf_counter() - began)
        store.close()
    return 1e6 * statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="one round of 6 jobs")
    parser.add_argument("--one-round", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_round:
        print(json.dumps(one_round(args.jobs, args.concurrency)))
        return 0
    if args.smoke:
        args.jobs, args.rounds = 6, 1
    rows = []
    command = [sys.executable, __file__, "--one-round", "--jobs", str(args.jobs)]
    command += ["--concurrency", str(args.concurrency)]
    for _ in range(args.rounds):
        out = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "DPT_AGENT_LOG_TO_FILE": "0", "ANTHROPIC_API_KEY": "bench-not-real"},
        )
        if out.returncode != 0:
            raise SystemExit(f"fleet bench round failed:\n{out.stderr[-3000:]}")
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    wall = statistics.median(r["wall_per_job_ms"] for r in rows)
    cpu = statistics.median(r["cpu_per_job_ms"] for r in rows)
    print(
        f"fleet: {args.jobs} jobs x 2 requests, concurrency {args.concurrency}, "
        f"{args.rounds} rounds (medians)"
    )
    print(
        f"  drain wall per job   {wall:8.2f} ms   (rounds: "
        + ", ".join(f"{r['wall_per_job_ms']:.2f}" for r in rows)
        + ")"
    )
    print(
        f"  worker CPU per job   {cpu:8.2f} ms   (rounds: "
        + ", ".join(f"{r['cpu_per_job_ms']:.2f}" for r in rows)
        + ")"
    )
    marker = marker_write_us(200 if args.smoke else 3000)
    if marker is not None:
        print(f"  start record (SQLite upsert) per request   {marker:8.1f} us (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
