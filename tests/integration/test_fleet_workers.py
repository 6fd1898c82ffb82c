"""Fleet workers as separate processes: SIGKILL and restart on SQLite, two workers on Postgres.

Workers are ``python tests/integration/fleet_support.py ...`` subprocesses running against
the ProviderEmulator in this process, on loopback.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

from starlette.background import BackgroundTask
from starlette.responses import Response

from doc_processing_toolkit.fleet import Fleet
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.emulator import DIALECT_ROUTES, DialectRoute, EmulatorCall

sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs

SUPPORT = Path(__file__).parent / "fleet_support.py"
REPO = Path(__file__).parents[2]


class Gate:
    """Wraps the emulator's Messages route: records each request it answers, in order,
    and can run ``after_answer(n)`` once the n-th answer has been sent in full (a test
    kills the worker there: between a provider's answer and its checkpoint)."""

    def __init__(self) -> None:
        self.served: list[tuple[str, int]] = []
        self.after_answer: Callable[[int], None] | None = None
        self._lock = threading.Lock()

    def wrap(self, handler: Callable[[EmulatorCall], Any]) -> Callable[[EmulatorCall], Any]:
        async def gated(call: EmulatorCall) -> Response:
            with self._lock:
                self.served.append(fs.job_of(call.body))
                count = len(self.served)
            response: Response = await handler(call)
            hook = self.after_answer
            if hook is not None:
                response.background = BackgroundTask(hook, count)
            return response

        return gated


def _routes(gate: Gate) -> dict[str, DialectRoute]:
    routes = dict(DIALECT_ROUTES)
    messages = routes["/v1/messages"]
    routes["/v1/messages"] = DialectRoute(messages.dialect, gate.wrap(messages.handler))
    return routes


def _worker(url: str, worker_id: str, concurrency: int, log: Path, *extra: str) -> Any:
    return subprocess.Popen(
        [sys.executable, str(SUPPORT), url, worker_id, str(concurrency), *extra],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
        env={**os.environ, "DPT_AGENT_LOG_TO_FILE": "0"},
    )


def _wait(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _uninterrupted_ledgers(ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The reference ledgers: one job of each usage profile run by a plain Agent, nothing
    killed, against an emulator of its own (jobs of one profile bill the same tokens)."""
    first = {fs.profile_of(i): i for i in reversed(ids)}

    async def one(job_id: str) -> list[dict[str, Any]]:
        agent = fs.make_agent()
        try:
            result = await agent.run(f"Process job {job_id}.")
        finally:
            await agent.close()
        return result.request_cost_records

    async def every() -> dict[int, list[dict[str, Any]]]:
        return {p: await one(job_id) for p, job_id in first.items()}

    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        previous = os.environ["DPT_TEST_EMULATOR_URL"]
        os.environ["DPT_TEST_EMULATOR_URL"] = emu.anthropic_base_url
        try:
            by_profile = asyncio.run(every())
        finally:
            os.environ["DPT_TEST_EMULATOR_URL"] = previous
    return {job_id: by_profile[fs.profile_of(job_id)] for job_id in ids}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DPT_TEST_TOOL_LOG", str(tmp_path / "tools.log"))
    return tmp_path


def _checkpointed_requests(database: Path) -> set[tuple[str, int]]:
    """(job, iteration) of every model request checkpointed in the system database."""
    with contextlib.closing(sqlite3.connect(database, timeout=30)) as db:
        rows = db.execute(
            "SELECT job_id, name FROM dpt_fleet_steps"
            " WHERE name LIKE 'model:%' AND outcome IS NOT NULL ORDER BY job_id, step"
        ).fetchall()
    seen: collections.Counter[str] = collections.Counter()
    done = set()
    for job, _ in rows:
        seen[job] += 1
        done.add((job, seen[job]))
    return done


def _tool_starts(path: Path) -> list[tuple[str, str, str]]:
    """(start|end, job, idempotency key) per line of the tool's start log."""
    if not path.exists():
        return []
    return [tuple(line.split()[:3]) for line in path.read_text().splitlines()]  # type: ignore[misc]


KILL_KINDS = ("after_answer", "mid_tool", "anytime")


def test_a_worker_killed_at_random_points_resends_no_completed_request(env: Path) -> None:
    """60 jobs of one tool round each (a slow tool), 8 at a time; the worker is SIGKILLed
    three times, once at each kind of point, each at a random moment of the run, and
    restarted with the same worker id:

    * ``after_answer``: right after the provider finished an answer (before the worker
      could checkpoint it);
    * ``mid_tool``: while a tool is running (its effect may or may not be made);
    * ``anytime``: a random delay after the worker started.

    Every job completes with an uninterrupted run's ledger. No model request that was
    checkpointed before a kill is ever sent again (a request in flight at a kill, its
    answer lost, is: at most one per running job per kill). The tool is delivered at
    least once, and its ToolContext.idempotency_key is the same on a re-execution, so a
    tool that uses it leaves exactly one effect per job.
    """
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    gate = Gate()
    concurrency = 8
    starts_log, effects = env / "starts.log", env / "effects"
    effects.mkdir()
    worker: Any = None
    try:
        with ProviderEmulator(routes=_routes(gate)) as emu:
            emu.responder = fs.invoice_responder
            os.environ["DPT_TEST_EMULATOR_URL"] = emu.anthropic_base_url
            ids = [f"inv-{i:03d}" for i in range(60)]
            reference = _uninterrupted_ledgers(ids)
            os.environ["DPT_TEST_TOOL_STARTS"] = str(starts_log)
            os.environ["DPT_TEST_TOOL_EFFECTS"] = str(effects)
            os.environ["DPT_TEST_TOOL_DELAY_S"] = "0.15"
            database = env / "fleet.sqlite"
            fleet = Fleet(fs.make_agent, str(database))
            for job_id in ids:
                fleet.submit(job_id, f"Process job {job_id}.")

            log = env / "worker.log"
            kills: list[tuple[str, int, set[tuple[str, int]]]] = []
            """(kind, requests served at the kill, requests checkpointed at the kill)."""
            kinds = rng.sample(KILL_KINDS, len(KILL_KINDS))
            worker = _worker(str(database), "w1", concurrency, log)
            for kind in kinds:
                killed = threading.Event()
                current = worker

                def kill(_count: int = 0, proc: Any = current, done: Any = killed) -> None:
                    if not done.is_set():
                        proc.send_signal(signal.SIGKILL)
                        done.set()

                base = len(gate.served)
                if kind == "after_answer":
                    at = base + rng.randrange(1, 40)
                    gate.after_answer = lambda n, at=at: kill() if n >= at else None
                elif kind == "mid_tool":
                    begun = len([s for s in _tool_starts(starts_log) if s[0] == "start"])
                    target = begun + rng.randrange(1, 20)

                    def tool_running(target: int = target) -> bool:
                        lines = _tool_starts(starts_log)
                        started = [s for s in lines if s[0] == "start"]
                        ended = {(job, key) for what, job, key in lines if what == "end"}
                        return len(started) >= target and any(
                            (job, key) not in ended for _, job, key in started[target - 1 :]
                        )

                    _wait(
                        lambda proc=current: tool_running() or proc.poll() is not None,  # type: ignore[misc]
                        120,
                        "a tool to be running",
                    )
                    kill()
                timer = threading.Timer(rng.uniform(0.5, 4.0), kill)
                if kind == "anytime":
                    timer.start()
                _wait(
                    lambda proc=current, done=killed: done.is_set() or proc.poll() is not None,  # type: ignore[misc]
                    120,
                    f"the {kind} kill",
                )
                timer.cancel()
                gate.after_answer = None
                if current.poll() is None and not killed.is_set():
                    kill()  # the worker finished before the kill point: end it anyway
                current.wait(timeout=30)
                kills.append((kind, len(gate.served), _checkpointed_requests(database)))
                worker = _worker(str(database), "w1", concurrency, log)
            assert worker.wait(timeout=240) == 0, log.read_text()[-3000:]

            results = fleet.results()
            fleet.close()
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
        for name in ("DPT_TEST_TOOL_STARTS", "DPT_TEST_TOOL_EFFECTS", "DPT_TEST_TOOL_DELAY_S"):
            os.environ.pop(name, None)

    context = f"seed {seed}, kills {[(k, n) for k, n, _ in kills]}"
    failures = {k: (r.state, r.error) for k, r in results.items() if not r.success}
    assert len(results) == 60 and not failures, (context, failures)
    # No request checkpointed before a kill was sent after it.
    for index, request in enumerate(gate.served):
        before = [done for _, served, done in kills if served <= index]
        if before:
            assert request not in before[-1], (request, index, context)
    resent = len(gate.served) - len(set(gate.served))
    assert sorted(set(gate.served)) == sorted((i, n) for i in ids for n in (1, 2))
    assert resent <= concurrency * len(kills), context
    # Each ledger is an uninterrupted run's (the checkpointed answers, each once).
    for job_id in ids:
        assert list(results[job_id].records) == reference[job_id], (job_id, context)
    # The tool: at least once, the same key on a re-execution, exactly one effect per job.
    started = [(job, key) for what, job, key in _tool_starts(starts_log) if what == "start"]
    assert {job for job, _ in started} == set(ids)
    keys = collections.defaultdict(set)
    for job, key in started:
        keys[job].add(key)
    unstable = {job: k for job, k in keys.items() if len(k) != 1}
    assert not unstable, (context, unstable)  # stable across re-executions
    made = sorted(p.read_text() for p in effects.iterdir() if not p.name.startswith(".draft-"))
    assert made == ids, context  # exactly one effect per job
    if any(kind == "mid_tool" for kind, _, _ in kills):
        assert len(started) > len(ids), context  # a tool cut mid-way ran again


@pytest.fixture
def postgres_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh database on the CI's throwaway Postgres (DPT_TEST_POSTGRES_URL), else on
    one this fixture starts with scripts/throwaway-postgres.sh."""
    psycopg = pytest.importorskip("psycopg")
    url = os.environ.get("DPT_TEST_POSTGRES_URL")
    cluster = None
    if not url:
        cluster = Path(f"/tmp/dpt-test-pg-{uuid.uuid4().hex[:8]}")
        started = subprocess.run(
            [str(REPO / "scripts" / "throwaway-postgres.sh"), "start", str(cluster)],
            capture_output=True,
            text=True,
        )
        if started.returncode != 0:
            pytest.skip(
                "no Postgres reachable: set DPT_TEST_POSTGRES_URL (CI's .ci/run starts one; "
                f"`make postgres` for developers); starting one failed: {started.stderr[-300:]}"
            )
        url = started.stdout.strip()
    name = f"dpt_fleet_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    base, _ = url.rsplit("/", 1)
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if cluster is not None:
            subprocess.run(
                [str(REPO / "scripts" / "throwaway-postgres.sh"), "stop", str(cluster)],
                check=False,
            )


def test_two_workers_on_postgres_run_each_job_exactly_once(env: Path, postgres_url: str) -> None:
    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        os.environ["DPT_TEST_EMULATOR_URL"] = emu.anthropic_base_url
        # 200 x 0.1 s of tool time over 8 slots: no worker can drain the queue alone
        # before the other's first poll, however the two are scheduled.
        os.environ["DPT_TEST_TOOL_DELAY_S"] = "0.1"
        fleet = Fleet(fs.make_agent, postgres_url)
        ids = [f"inv-{i:03d}" for i in range(200)]
        for job_id in ids:
            fleet.submit(job_id, f"Process job {job_id}.")
        log = env / "workers.log"
        go = env / "go"
        workers = [
            _worker(postgres_url, f"w{n}", 8, log, str(env / f"ready{n}"), str(go)) for n in (1, 2)
        ]
        try:
            _wait(lambda: all((env / f"ready{n}").exists() for n in (1, 2)), 120, "workers")
            go.touch()
            for worker in workers:
                assert worker.wait(timeout=180) == 0, log.read_text()[-3000:]
        finally:
            for worker in workers:
                if worker.poll() is None:
                    worker.kill()
            os.environ.pop("DPT_TEST_TOOL_DELAY_S", None)

        records = {r.job_id: r for r in fleet.jobs()}
        assert sorted(records) == ids
        assert all(r.state == "done" for r in records.values()), log.read_text()[-3000:]
        assert emu.request_count == 400
        tools = fs.tool_log(env / "tools.log")
        assert sorted(job for job, _ in tools) == ids  # each job's tool ran once, on one worker
        by_worker = collections.Counter(r.worker for r in records.values())
        # Which worker dequeues what is DBOS's choice: usually both share the queue, but
        # one may drain it before the other's first poll, so that is not asserted.
        assert set(by_worker) <= {"w1", "w2"}, by_worker
        pid_of_worker: dict[str, set[int]] = collections.defaultdict(set)
        for job_id, pid in tools:
            pid_of_worker[str(records[job_id].worker)].add(pid)
        assert all(len(pids) == 1 for pids in pid_of_worker.values())
        if len(pid_of_worker) == 2:
            assert pid_of_worker["w1"] != pid_of_worker["w2"]
        fleet.close()
