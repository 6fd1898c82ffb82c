"""Fleet workers as separate processes: SIGKILL and restart on SQLite, two workers on Postgres.

Workers are ``python tests/integration/fleet_support.py ...`` subprocesses running against
the ProviderEmulator in this process, on loopback.
"""

from __future__ import annotations

import asyncio
import collections
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

import anyio
import pytest

pytest.importorskip("dbos")

from starlette.responses import Response

from doc_processing_toolkit.fleet import Fleet
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.emulator import DIALECT_ROUTES, DialectRoute, EmulatorCall

sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs

SUPPORT = Path(__file__).parent / "fleet_support.py"
REPO = Path(__file__).parents[2]


class Gate:
    """Wraps the emulator's Messages route: counts the requests it answers and can hold
    new ones (a held request is never answered; its worker is killed meanwhile)."""

    def __init__(self) -> None:
        self.paused = False
        self.held = 0
        self.served: list[tuple[str, int]] = []
        self._lock = threading.Lock()

    def wrap(self, handler: Callable[[EmulatorCall], Any]) -> Callable[[EmulatorCall], Any]:
        async def gated(call: EmulatorCall) -> Response:
            if self.paused:
                with self._lock:
                    self.held += 1
                try:
                    while self.paused:
                        if await call.request.is_disconnected():
                            return Response(status_code=499)
                        await anyio.sleep(0.005)
                finally:
                    with self._lock:
                        self.held -= 1
            with self._lock:
                self.served.append(fs.job_of(call.body))
            response: Response = await handler(call)
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


def test_a_worker_killed_three_times_resumes_every_job_from_its_checkpoints(env: Path) -> None:
    """200 jobs of one tool round each; the worker is SIGKILLed at three random points
    and restarted (same worker id). Every job completes; the emulator answered exactly
    400 requests (none completed twice); each job's ledger equals an uninterrupted run's;
    no tool ran twice.

    A kill lands between steps: before it, the emulator holds new requests (they are never
    answered, so they were never completed) until every answered request and the tool calls
    after it are checkpointed — what an answered-then-killed request would cost is the one
    re-send no engine can avoid, and is not what this test measures.
    """
    gate = Gate()
    with ProviderEmulator(routes=_routes(gate)) as emu:
        emu.responder = fs.invoice_responder
        os.environ["DPT_TEST_EMULATOR_URL"] = emu.anthropic_base_url
        ids = [f"inv-{i:03d}" for i in range(200)]
        reference = _uninterrupted_ledgers(ids)
        (env / "tools.log").unlink(missing_ok=True)

        database = env / "fleet.sqlite"
        fleet = Fleet(fs.make_agent, str(database))
        for job_id in ids:
            fleet.submit(job_id, f"Process job {job_id}.")

        def checkpointed() -> bool:
            with sqlite3.connect(database, timeout=30) as db:
                models, tools = db.execute(
                    "SELECT SUM(function_name LIKE 'model:%'), SUM(function_name LIKE 'tool:%')"
                    " FROM operation_outputs"
                ).fetchone()
            firsts = sum(1 for _, iteration in gate.served if iteration == 1)
            return (models or 0) == len(gate.served) and (tools or 0) == firsts

        log = env / "worker.log"
        worker = _worker(str(database), "w1", 16, log)
        kills = sorted(random.sample(range(20, 380), 3))
        try:
            for at in kills:
                _wait(lambda at=at: len(gate.served) >= at, 120, f"{at} requests")  # type: ignore[misc]
                gate.paused = True
                _wait(checkpointed, 60, "the answered requests to be checkpointed")
                worker.send_signal(signal.SIGKILL)
                worker.wait(timeout=30)
                _wait(lambda: gate.held == 0, 30, "held requests to see their worker gone")
                gate.paused = False
                worker = _worker(str(database), "w1", 16, log)
            assert worker.wait(timeout=180) == 0, log.read_text()[-3000:]
        finally:
            if worker.poll() is None:
                worker.kill()

        results = fleet.results()
        assert len(results) == 200 and all(r.success for r in results.values()), log.read_text()
        assert len(gate.served) == 400
        assert set(collections.Counter(gate.served).values()) == {1}
        tools = fs.tool_log(env / "tools.log")
        assert sorted(job for job, _ in tools) == ids  # every tool exactly once
        assert len({pid for _, pid in tools}) >= 2  # the kills really cut the run
        for job_id in ids:
            assert list(results[job_id].records) == reference[job_id], job_id
        assert sum(r.cost for r in results.values()) == pytest.approx(
            sum(rec["cost"] for recs in reference.values() for rec in recs)
        )
        fleet.close()


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
