"""The fleet at scale (issue 41): durable jobs against a latency-bound emulator.

    python tests/bench/fleet_scale.py                 # the make bench section (~1-2 min)
    python tests/bench/fleet_scale.py --smoke         # a few jobs per row: proves it runs
    python tests/bench/fleet_scale.py --backlog [--jobs 50000] [--workers 4]   # make bench-backlog

The emulator runs in a process of its own and answers every model request after a fixed
latency (``--latency``, 50 ms): the work is latency-bound, as with a real provider. A job
is one ``lookup`` tool round (two model requests, one tool call: three checkpointed
steps), as ``tests/integration/fleet_support.py`` defines it. Side by side, in one run:

* baseline: the same jobs through ``asyncio.gather`` of ``Agent.run`` (one Agent, a
  semaphore of the same concurrency, no durability): the physical limit here;
* the fleet on SQLite, one worker (every feature at its default);
* the fleet on Postgres, one worker and two worker processes (skipped, with a printed
  note, when no Postgres is reachable: ``DPT_TEST_POSTGRES_URL`` or a throwaway cluster
  from ``scripts/throwaway-postgres.sh``);
* the fleet in ``mode="batch"`` on SQLite (each batch ends on its first status check).

Every worker is a fresh process (DBOS is one per process) on a fresh database. Printed
per row: jobs/s, requests/s, the ratio to the baseline of the same concurrency, the
durable overhead per checkpointed step (the worker's CPU and the job's wall time beyond
the baseline's, over 3 steps a job), checkpoint bytes per job (what the system database
holds for it: inputs, outputs, step outputs), the worker's peak RSS and the database's
size after the run. Measurements, never assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SUPPORT = ROOT / "tests" / "integration"
STEPS_PER_JOB = 3
REQUESTS_PER_JOB = 2


# --------------------------------------------------------------------------- emulator
def serve(latency: float) -> None:
    """The emulator: the invoice job's replies, each model request answered after
    ``latency`` seconds (an ``asyncio.sleep`` on the server: no CPU)."""
    sys.path.insert(0, str(SUPPORT))
    import fleet_support as fs

    from doc_processing_toolkit.testing import ProviderEmulator
    from doc_processing_toolkit.testing.emulator.common import DialectRoute, EmulatorCall
    from doc_processing_toolkit.testing.emulator.routes import DIALECT_ROUTES

    def slowed(route: DialectRoute) -> DialectRoute:
        handler = route.handler

        async def later(call: EmulatorCall) -> Any:
            await asyncio.sleep(latency)
            return await handler(call)

        return DialectRoute(route.dialect, later, route.methods, route.dialect_of)

    routes = dict(DIALECT_ROUTES)
    routes["/v1/messages"] = slowed(DIALECT_ROUTES["/v1/messages"])
    with ProviderEmulator(routes=routes) as emulator:
        emulator.responder = fs.invoice_responder
        emulator._server.config.timeout_keep_alive = 3600  # as emulator_server.py
        print(f"URL {emulator.anthropic_base_url}", flush=True)
        sys.stdin.read()  # serve until the parent closes our stdin (or dies)


@contextlib.contextmanager
def emulator_process(latency: float) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--latency", str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("URL "):
            raise RuntimeError(f"the bench emulator did not start: {line!r}")
        yield line.split()[1]
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def child_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "DPT_AGENT_LOG_TO_FILE": "0", "ANTHROPIC_API_KEY": "bench-not-real"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(SUPPORT), env.get("PYTHONPATH", "")])
    env.pop("AGENT_LOG_LEVEL", None)
    return {**env, **extra}


# --------------------------------------------------------------------------- children
class RssSampler:
    """This process's RSS every ``every`` seconds (a daemon thread)."""

    def __init__(self, every: float) -> None:
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._every = every
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self.samples.append((time.time(), rss_bytes()))

    def stop(self) -> list[tuple[float, int]]:
        self._stop.set()
        self._thread.join(timeout=5)
        return self.samples


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def peak_rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def baseline_child(jobs: int, concurrency: int) -> dict[str, Any]:
    """The jobs through asyncio.gather of one Agent's run, ``concurrency`` at once."""
    import fleet_support as fs

    async def main() -> tuple[float, float, int]:
        agent = fs.make_agent()
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> bool:
            async with gate:
                result = await agent.run(f"Process job job-{i:06d}.")
                return result.tools_used == ["lookup"]

        await asyncio.gather(*(one(i) for i in range(min(concurrency, jobs))))  # warm
        wall, cpu = time.perf_counter(), time.process_time()
        ok = sum(await asyncio.gather(*(one(i) for i in range(jobs))))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        await agent.close()
        return wall, cpu, ok

    wall, cpu, ok = asyncio.run(main())
    if ok != jobs:
        raise SystemExit(f"baseline: {ok} of {jobs} jobs ran their tool round")
    return {"wall": wall, "cpu": cpu, "rss": peak_rss_bytes(), "start": 0.0, "end": wall}


def worker_child(
    url: str,
    worker: str,
    concurrency: int,
    mode: str,
    go: str | None,
    sample: float,
    shared: bool = False,
) -> dict[str, Any]:
    """One fleet worker draining the queue; waits for the file ``go`` first (if given)."""
    import fleet_support as fs

    from doc_processing_toolkit.fleet import Fleet

    factory = fs.make_agent
    if shared:  # one Agent for every job of this worker (the factory returns it)
        agent = fs.make_agent()
        factory = lambda: agent  # noqa: E731
    fleet = Fleet(factory, url, concurrency=concurrency, worker_id=worker, mode=mode)  # type: ignore[arg-type]
    _ = fleet.runner  # built before the clock starts, as a long-lived worker has it
    import anthropic  # noqa: F401  (imported once by a long-lived worker: not per job)

    print("READY", flush=True)
    if go:
        limit = time.monotonic() + 600
        while not os.path.exists(go) and time.monotonic() < limit:
            time.sleep(0.01)
    sampler = RssSampler(sample) if sample else None
    start, cpu = time.time(), time.process_time()
    fleet.run()
    end, cpu = time.time(), time.process_time() - cpu
    fleet.close()
    samples = sampler.stop() if sampler else []
    return {
        "wall": end - start,
        "cpu": cpu,
        "rss": peak_rss_bytes(),
        "start": start,
        "end": end,
        "samples": samples,
    }


def profile_child(url: str, concurrency: int, out: str) -> None:
    """One worker under cProfile (the stats dumped to ``out``)."""
    import cProfile
    import pstats

    import fleet_support as fs

    from doc_processing_toolkit.fleet import Fleet

    fleet = Fleet(fs.make_agent, url, concurrency=concurrency, worker_id="profiled")
    _ = fleet.runner
    import anthropic  # noqa: F401

    profiles: list[cProfile.Profile] = []

    def per_thread(*_: Any) -> None:  # each thread started from now on gets a profiler
        profiler = cProfile.Profile(time.thread_time)
        profiles.append(profiler)
        profiler.enable()

    threading.setprofile(per_thread)
    main = cProfile.Profile(time.thread_time)
    profiles.append(main)
    main.enable()
    fleet.run()
    main.disable()
    threading.setprofile(None)  # type: ignore[arg-type]
    fleet.close()
    stats = pstats.Stats(profiles[0])
    for other in profiles[1:]:
        with contextlib.suppress(TypeError):  # a thread that profiled nothing
            stats.add(other)
    stats.dump_stats(out)


# --------------------------------------------------------------------------- parent side
def run_child(args: list[str], env: dict[str, str], timeout: float = 3600) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if out.returncode != 0:
        raise SystemExit(f"fleet bench child {args[:2]} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def submit(url: str, jobs: int, mode: str = "interactive") -> float:
    """Queue the jobs (this process); returns the submit rate (jobs/s)."""
    sys.path.insert(0, str(SUPPORT))
    os.environ.setdefault("ANTHROPIC_API_KEY", "bench-not-real")
    from doc_processing_toolkit.fleet import Fleet

    with Fleet(None, url, mode=mode) as fleet:  # type: ignore[arg-type]
        began = time.perf_counter()
        for i in range(jobs):
            fleet.submit(f"job-{i:06d}", f"Process job job-{i:06d}.")
        return jobs / (time.perf_counter() - began)


def drain(
    url: str,
    workers: int,
    concurrency: int,
    env: dict[str, str],
    *,
    mode: str = "interactive",
    sample: float = 0.0,
    shared: bool = False,
) -> list[dict[str, Any]]:
    """``workers`` worker processes started together (a go file), their reports."""
    go = Path(tempfile.mkdtemp(prefix="dpt-fleet-go-")) / "go"
    procs = []
    for w in range(workers):
        command = [sys.executable, __file__, "--worker", url, "--worker-id", f"w{w}"]
        command += ["--concurrency", str(concurrency), "--mode", mode, "--go", str(go)]
        command += ["--sample", str(sample)] + (["--shared"] if shared else [])
        procs.append(
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        )
    for proc in procs:  # every worker has launched its engine's client and factory
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != b"READY":
            _, err = proc.communicate(timeout=60)
            raise SystemExit(f"fleet worker did not start:\n{err.decode()[-3000:]}")
    go.touch()
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=7200)
        if proc.returncode != 0:
            raise SystemExit(f"fleet worker failed:\n{err.decode()[-3000:]}")
        reports.append(json.loads(out.decode().strip().splitlines()[-1]))
    shutil.rmtree(go.parent, ignore_errors=True)
    return reports


def database_figures(url: str) -> tuple[int, int, int, float, float]:
    """(database bytes, checkpoint bytes, finished job workflows, the drain's seconds:
    first step started to last step finished) after a run."""
    import sqlalchemy as sa

    from doc_processing_toolkit.adapters.durable.dbos import JOB_WORKFLOW, system_database_url

    system = system_database_url(url, "dpt-fleet")
    sqlite = system.startswith("sqlite")
    prefix = "" if sqlite else "dbos."
    queries = [
        f"SELECT COALESCE(SUM(LENGTH(COALESCE(inputs, '')) + LENGTH(COALESCE(output, ''))), 0), "
        f"COUNT(*) FROM {prefix}workflow_status WHERE name = '{JOB_WORKFLOW}'",
        # The drain: the first step's start to the last step's end (Python's clock, in
        # the toolkit's checkpoint table, and in DBOS's for a permit or an old-scheme
        # step; DBOS's workflow timestamps are whole seconds on SQLite).
        f"SELECT COALESCE(SUM(LENGTH(COALESCE(output, ''))), 0), MIN(started_at_epoch_ms), "
        f"MAX(completed_at_epoch_ms) FROM {prefix}operation_outputs",
        "SELECT COALESCE(SUM(LENGTH(outcome)), 0), MIN(started_at) * 1000, MAX(done_at) * 1000"
        " FROM dpt_fleet_steps",
    ]
    if sqlite:
        engine = sa.create_engine(system)
    else:
        engine = sa.create_engine(sa.make_url(system).set(drivername="postgresql+psycopg"))
    with engine.connect() as conn:
        status_bytes, count = conn.execute(sa.text(queries[0])).one()
        step_bytes, first, last = conn.execute(sa.text(queries[1])).one()
        own_bytes, own_first, own_last = conn.execute(sa.text(queries[2])).one()
        step_bytes += own_bytes or 0
        first = min((t for t in (first, own_first) if t is not None), default=None)
        last = max((t for t in (last, own_last) if t is not None), default=None)
        for extra in ("workflow_input", "workflow_output"):  # newer DBOS: their own tables
            with contextlib.suppress(Exception), conn.begin_nested():
                step_bytes += (
                    conn.execute(
                        sa.text(
                            f"SELECT COALESCE(SUM(LENGTH(COALESCE("
                            f"{'inputs' if extra == 'workflow_input' else 'output'}, ''))), 0) "
                            f"FROM {prefix}{extra}"
                        )
                    ).scalar()
                    or 0
                )
        if sqlite:
            size = sum(
                os.path.getsize(p)
                for p in (system[len("sqlite:///") :] + s for s in ("", "-wal"))
                if os.path.exists(p)
            )
        else:
            size = int(
                conn.execute(sa.text("SELECT pg_database_size(current_database())")).one()[0]
            )
    engine.dispose()
    window = (int(last) - int(first)) / 1000 if first and last else float("nan")
    ended = int(last) / 1000 if last else float("nan")
    return size, int(status_bytes) + int(step_bytes), int(count), window, ended


class Postgres:
    """A Postgres for the bench: ``DPT_TEST_POSTGRES_URL``, or a throwaway cluster."""

    def __init__(self) -> None:
        self.url: str | None = os.environ.get("DPT_TEST_POSTGRES_URL")
        self.note = ""
        self._dir: str | None = None
        if self.url is None:
            folder = tempfile.mkdtemp(prefix="dpt-bench-postgres-")
            out = subprocess.run(
                [str(ROOT / "scripts" / "throwaway-postgres.sh"), "start", folder],
                capture_output=True,
                text=True,
            )
            if out.returncode == 0 and out.stdout.strip():
                self.url, self._dir = out.stdout.strip().splitlines()[-1], folder
            else:
                self.note = (out.stderr.strip() or out.stdout.strip())[-300:]
                shutil.rmtree(folder, ignore_errors=True)

    def fresh(self) -> str:
        """A new empty database on the server; its URL."""
        import sqlalchemy as sa

        assert self.url is not None
        base = sa.make_url(self.url)
        name = f"dpt_bench_{uuid.uuid4().hex[:10]}"
        engine = sa.create_engine(
            base.set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT"
        )
        with engine.connect() as conn:
            conn.execute(sa.text(f"CREATE DATABASE {name}"))
        engine.dispose()
        return base.set(database=name).render_as_string(hide_password=False)

    def close(self) -> None:
        if self._dir is not None:
            subprocess.run(
                [str(ROOT / "scripts" / "throwaway-postgres.sh"), "stop", self._dir],
                capture_output=True,
            )
            shutil.rmtree(self._dir, ignore_errors=True)
            Path(self._dir + ".initdb.log").unlink(missing_ok=True)


@dataclass
class FleetRow:
    name: str
    jobs: int
    concurrency: int
    wall: float
    cpu: float
    rss: int
    baseline: FleetRow | None = None
    checkpoint_bytes: float | None = None
    db_bytes: int | None = None
    workers: int = 1
    run_wall: float | None = None
    """``Fleet.run()`` from call to return (DBOS launch and shutdown included)."""

    def cells(self) -> list[str]:
        rate = self.jobs / self.wall
        b = self.baseline
        ratio = f"{rate / (b.jobs / b.wall):.2f}x" if b else "1.00x"
        steps = self.jobs * STEPS_PER_JOB
        cpu_step = f"{1000 * (self.cpu - b.cpu) / steps:.2f}" if b else "-"
        # A job's wall time is about wall * concurrency * workers / jobs: beyond the
        # baseline's, over its steps.
        per_job = self.wall * self.concurrency * self.workers / self.jobs
        wall_step = (
            f"{1000 * (per_job - b.wall * b.concurrency / b.jobs) / STEPS_PER_JOB:.2f}"
            if b
            else "-"
        )
        return [
            self.name,
            f"{self.jobs}",
            f"{self.workers}x{self.concurrency}",
            f"{self.wall:.2f}",
            f"{self.run_wall:.2f}" if self.run_wall is not None else "-",
            f"{rate:.1f}",
            f"{rate * REQUESTS_PER_JOB:.1f}",
            ratio,
            f"{1000 * self.cpu / self.jobs:.2f}",
            cpu_step,
            wall_step,
            f"{self.checkpoint_bytes:.0f}" if self.checkpoint_bytes is not None else "-",
            f"{self.rss / 2**20:.0f}",
            f"{self.db_bytes / 2**20:.1f}" if self.db_bytes is not None else "-",
        ]


HEADER = [
    "contender",
    "jobs",
    "workers x conc.",
    "drain s",
    "run() s",
    "jobs/s",
    "requests/s",
    "vs baseline",
    "CPU ms/job",
    "overhead CPU ms/step",
    "overhead wall ms/step",
    "checkpoint B/job",
    "peak RSS MB",
    "DB MB",
]


def print_table(rows: list[list[str]], header: list[str], title: str) -> None:
    cells = [header, *rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    print(f"\n{title}\n", flush=True)
    for j, line in enumerate(cells):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |")
        if j == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def fleet_row(
    name: str,
    url: str,
    jobs: int,
    workers: int,
    concurrency: int,
    env: dict[str, str],
    baseline: FleetRow,
    mode: str = "interactive",
    shared: bool = False,
) -> FleetRow:
    submit(url, jobs, mode)
    reports = drain(url, workers, concurrency, env, mode=mode, shared=shared)
    run_wall = max(r["end"] for r in reports) - min(r["start"] for r in reports)
    size, checkpoint, count, wall, _ = database_figures(url)
    if count != jobs:
        raise SystemExit(f"{name}: {count} of {jobs} jobs in the database")
    return FleetRow(
        name,
        jobs,
        concurrency,
        wall,
        max(r["cpu"] for r in reports) if workers == 1 else sum(r["cpu"] for r in reports),
        max(r["rss"] for r in reports),
        baseline,
        checkpoint / jobs,
        size,
        workers,
        run_wall,
    )


def bench_section(args: argparse.Namespace) -> list[list[str]]:
    """The make bench fleet table (rows as cells)."""
    load = os.getloadavg()
    rows: list[FleetRow] = []
    with emulator_process(args.latency) as emu, tempfile.TemporaryDirectory() as tmp:
        env = child_env(DPT_TEST_EMULATOR_URL=emu)
        os.environ["DPT_TEST_EMULATOR_URL"] = emu
        c, n = args.concurrency, args.jobs

        def baseline(conc: int, jobs: int) -> FleetRow:
            r = run_child(["--baseline", "--jobs", str(jobs), "--concurrency", str(conc)], env)
            return FleetRow(
                f"baseline asyncio.gather c={conc}", jobs, conc, r["wall"], r["cpu"], r["rss"]
            )

        base = baseline(c, n)
        rows.append(base)
        if "sqlite" in args.rows:
            url = str(Path(tmp) / "s.sqlite")
            rows.append(fleet_row("fleet SQLite, 1 worker", url, n, 1, c, env, base))
            url = str(Path(tmp) / "shared.sqlite")
            name = "fleet SQLite, 1 worker, one shared Agent"
            rows.append(fleet_row(name, url, n, 1, c, env, base, shared=True))
        pg = Postgres() if "postgres" in args.rows else None
        try:
            if pg is None:
                print("fleet: Postgres rows skipped (--smoke, or not in --rows)", flush=True)
            elif pg.url is None:
                print(f"fleet: no Postgres reachable, its rows skipped ({pg.note})", flush=True)
            else:
                one = fleet_row("fleet Postgres, 1 worker", pg.fresh(), n, 1, c, env, base)
                rows.append(one)
                base2 = baseline(2 * c, 2 * n)
                rows.append(base2)
                two = fleet_row("fleet Postgres, 2 workers", pg.fresh(), 2 * n, 2, c, env, base2)
                rows.append(two)
                scale = (two.jobs / two.wall) / (one.jobs / one.wall)
                print(f"fleet: 2 Postgres workers vs 1: {scale:.2f}x jobs/s (goal >= 1.7x)")
        finally:
            if pg is not None:
                pg.close()
        batch = None
        if "batch" in args.rows:
            # One round of every job (batch concurrency: the round's size), each batch
            # checked 0.5 s after it is created (the default first check is at 10 s).
            url = str(Path(tmp) / "b.sqlite")
            name = f"fleet SQLite, mode=batch (1 worker, rounds of {n})"
            polls = {"DPT_BATCH_POLL_INITIAL_S": "0.5", "DPT_BATCH_POLL_MAX_S": "0.5"}
            batch = fleet_row(name, url, n, 1, n, {**env, **polls}, base, mode="batch")
    cells = [r.cells() for r in rows]
    title = (
        f"Fleet vs asyncio.gather: one tool round per job (2 requests, 3 checkpointed steps), "
        f"emulator in its own process at {args.latency * 1000:.0f} ms per request; "
        f"load average at start {load[0]:.2f}, {os.cpu_count()} CPUs. Goals: SQLite 1 worker "
        f">= 0.90x baseline, overhead < 2 ms CPU per step; Postgres 2 workers >= 1.7x 1 worker"
    )
    print_table(cells, HEADER, title)
    if batch is None:
        return cells
    print_table(
        [batch.cells()],
        HEADER,
        "Fleet in mode='batch' (each provider batch ends on its first status check, 0.5 s "
        "after it is created; batch_settle_seconds at its default 0.2 s): turnaround of two "
        "batch rounds, not throughput (its baseline: the interactive one above)",
    )
    return cells


def backlog(args: argparse.Namespace) -> None:
    """make bench-backlog: ``--jobs`` jobs drained by ``--workers`` workers on Postgres."""
    load = os.getloadavg()
    pg = Postgres()
    if pg.url is None:
        raise SystemExit(f"bench-backlog needs Postgres: {pg.note}")
    try:
        with emulator_process(args.latency) as emu, tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "tools.log"
            env = child_env(DPT_TEST_EMULATOR_URL=emu, DPT_TEST_TOOL_LOG=str(log))
            os.environ["DPT_TEST_EMULATOR_URL"] = emu
            total = args.workers * args.concurrency
            b = run_child(
                ["--baseline", "--jobs", str(args.jobs), "--concurrency", str(total)],
                child_env(DPT_TEST_EMULATOR_URL=emu),
            )
            url = pg.fresh()
            rate = submit(url, args.jobs)
            reports = drain(url, args.workers, args.concurrency, env, sample=1.0)
            size, checkpoint, count, wall, ended = database_figures(url)
            lines = log.read_text().splitlines() if log.exists() else []
            calls: dict[str, int] = {}
            for line in lines:
                job = line.split()[0]
                calls[job] = calls.get(job, 0) + 1
            twice = sum(1 for v in calls.values() if v > 1)
            lost = args.jobs - len(calls)
    finally:
        pg.close()
    # RSS growth over the drain: from the first sample after job 1,000 (at the drain's
    # mean rate) to the last sample before the last job ended. run() then reads every
    # job's result for its return value: that read shows in the peak, not in the growth.
    start = ended - wall
    at_1000 = start + wall * min(1.0, 1000 / args.jobs)
    growth = []
    for r in reports:
        samples = r["samples"]
        if not samples:
            continue
        during = [rss for t, rss in samples if at_1000 <= t <= ended] or [samples[-1][1]]
        growth.append((during[-1] - during[0], max(rss for _, rss in samples)))
    rows = [
        [
            f"baseline asyncio.gather c={total}",
            f"{args.jobs}",
            f"{b['wall']:.1f}",
            f"{args.jobs / b['wall']:.1f}",
            "1.00x",
            "-",
            f"{b['rss'] / 2**20:.0f}",
            "-",
            "-",
        ],
        [
            f"fleet Postgres {args.workers} workers x {args.concurrency}",
            f"{count}",
            f"{wall:.1f}",
            f"{args.jobs / wall:.1f}",
            f"{wall / b['wall']:.2f}x",
            f"{rate:.0f}",
            f"{max(g[1] for g in growth) / 2**20:.0f}" if growth else "-",
            f"{max(g[0] for g in growth) / 2**20:+.1f}" if growth else "-",
            f"{lost} lost, {twice} twice",
        ],
    ]
    header = [
        "contender",
        "jobs",
        "drain s",
        "jobs/s",
        "time vs baseline",
        "submit jobs/s",
        "peak RSS MB (with run()'s results)",
        "RSS growth, job 1,000 to the last MB",
        "tool calls",
    ]
    print_table(
        rows,
        header,
        f"Backlog: {args.jobs} jobs (one tool round each), {args.latency * 1000:.0f} ms per "
        f"request, DB {size / 2**20:.0f} MB, checkpoint {checkpoint / max(count, 1):.0f} B/job; "
        f"load average at start {load[0]:.2f}, {os.cpu_count()} CPUs. Goals: <= 1.15x the "
        f"baseline's time, RSS growth < 50 MB, none lost or twice",
    )
    for i, r in enumerate(reports):
        trace = ", ".join(
            f"{rss / 2**20:.0f}" for _, rss in r["samples"][:: max(1, len(r["samples"]) // 12)]
        )
        print(f"  worker {i} RSS MB over the run: {trace}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--smoke", action="store_true", help="a few jobs, SQLite rows only")
    parser.add_argument(
        "--rows", default="sqlite,postgres,batch", help="which fleet rows (comma-separated)"
    )
    parser.add_argument("--backlog", action="store_true")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--worker-id", default="w0", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="interactive", help=argparse.SUPPRESS)
    parser.add_argument("--go", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--sample", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--shared", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile", default=None, help="cProfile one SQLite worker into FILE")
    args = parser.parse_args()
    if args.serve:
        serve(args.latency)
    elif args.baseline:
        print(json.dumps(baseline_child(args.jobs, args.concurrency)))
    elif args.worker:
        report = worker_child(
            args.worker,
            args.worker_id,
            args.concurrency,
            args.mode,
            args.go,
            args.sample,
            args.shared,
        )
        print(json.dumps(report))
    elif args.profile:
        jobs = args.jobs or 200
        with emulator_process(args.latency) as emu, tempfile.TemporaryDirectory() as tmp:
            os.environ["DPT_TEST_EMULATOR_URL"] = emu
            url = str(Path(tmp) / "p.sqlite")
            submit(url, jobs)
            env = child_env(DPT_TEST_EMULATOR_URL=emu)
            code = (
                f"import sys; sys.path[:0] = [{str(HERE)!r}, {str(SUPPORT)!r}]; "
                f"import fleet_scale as f; "
                f"f.profile_child({url!r}, {args.concurrency}, {args.profile!r})"
            )
            subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=1800)
        print(f"profile of one worker draining {jobs} jobs: {args.profile}")
    elif args.backlog:
        args.jobs = args.jobs or (200 if args.smoke else 50_000)
        backlog(args)
    else:
        args.jobs = args.jobs or (6 if args.smoke else 200)
        if args.smoke:
            args.rows = "sqlite"
        bench_section(args)


if __name__ == "__main__":
    main()
