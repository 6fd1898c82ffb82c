"""The fleet's own step checkpoints end to end (issue 41): a job's steps in
``dpt_fleet_steps``, and a job begun by an older version -- its steps DBOS steps -- that
this version resumes without sending its completed, paid-for requests again."""

from __future__ import annotations

import contextlib
import pickle
import sqlite3
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("dbos")

import dbos
from dbos._serialization import DefaultSerializer

from doc_processing_toolkit.adapters.durable.dbos import (
    APP_VERSION,
    JOB_WORKFLOW,
    StepStarts,
    system_database_url,
)
from doc_processing_toolkit.fleet import Fleet
from doc_processing_toolkit.testing import ProviderEmulator

sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs


def _sent(emulator: ProviderEmulator, job: str) -> list[int]:
    """The iterations of the requests the emulator got for ``job``."""
    return [fs.job_of(r.body)[1] for r in emulator.requests if fs.job_of(r.body)[0] == job]


def test_a_fleet_job_checkpoints_its_steps_in_its_own_table(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    database = tmp_path / "fleet.sqlite"
    fleet = Fleet(fs.make_agent, str(database), concurrency=2)
    for job in ("a", "b"):
        fleet.submit(job, f"Process job {job}.")
    assert all(r.success for r in fleet.run().values())
    fleet.close()
    with contextlib.closing(sqlite3.connect(database)) as db:
        rows = db.execute(
            "SELECT job_id, step, name, starts, failed, outcome IS NOT NULL, done_at >= started_at"
            " FROM dpt_fleet_steps ORDER BY job_id, step"
        ).fetchall()
        dbos_steps = db.execute("SELECT COUNT(*) FROM operation_outputs").fetchone()[0]
    for job in ("a", "b"):
        mine = [r[1:] for r in rows if r[0] == job]
        assert [(step, name.split("#")[0], starts) for step, name, starts, *_ in mine] == [
            (0, "model:generation", 1),
            (1, "tool:lookup", 0),
            (2, "model:tool_followup", 1),
        ]
        assert all(failed == 0 and stored and timed for *_, failed, stored, timed in mine)
    assert dbos_steps == 0  # no step of a job is a DBOS step any more


def test_a_job_begun_with_dbos_steps_resumes_without_sending_its_completed_request(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    """A job an older version submitted and began: its first request answered and
    checkpointed as a DBOS step (function id 1, its start recorded under that id), then
    its worker died and DBOS queued it again. This version keeps its DBOS steps: the
    answer is replayed, only the tool and the follow-up run."""
    database = tmp_path / "fleet.sqlite"
    # The answer the old job got: a job of this version on the same message gets it too.
    fleet = Fleet(fs.make_agent, str(database))
    fleet.submit("seed", "Process job old-1.")
    assert fleet.run()["seed"].success
    with contextlib.closing(sqlite3.connect(database)) as db:
        (outcome,) = db.execute(
            "SELECT outcome FROM dpt_fleet_steps WHERE job_id = 'seed' AND step = 0"
        ).fetchone()
    answer = pickle.loads(outcome)
    assert _sent(emulator, "old-1") == [1, 2]

    # The old job, as an older version left it.
    url = system_database_url(str(database), "dpt-fleet")
    client = dbos.DBOSClient(system_database_url=url, application_name="doc-processing-toolkit")
    options = dbos.EnqueueOptions(
        queue_name="dpt-fleet",
        workflow_name=JOB_WORKFLOW,
        workflow_id="old-1",
        app_version=APP_VERSION,
    )
    client.enqueue(options, {"message": "Process job old-1."})  # no OWN_CHECKPOINTS key
    client.destroy()
    now = int(time.time() * 1000)
    with contextlib.closing(sqlite3.connect(database)) as db, db:
        db.execute(
            "INSERT INTO operation_outputs (workflow_uuid, function_id, function_name, output,"
            " serialization, started_at_epoch_ms, completed_at_epoch_ms)"
            " VALUES ('old-1', 1, 'model:generation', ?, 'py_pickle', ?, ?)",
            (DefaultSerializer().serialize(answer), now, now),
        )
    starts = StepStarts.open(url)
    starts.start("old-1", 1, "model:generation")
    starts.close()

    result = fleet.run()["old-1"]
    fleet.close()
    assert result.success and result.output == "The total of old-1 is 35 EUR."
    assert result.requests == 2 and result.unrecorded_requests == 0  # its ledger is whole
    assert _sent(emulator, "old-1") == [1, 2, 2]  # the checkpointed request was not resent
    with contextlib.closing(sqlite3.connect(database)) as db:
        steps = db.execute(
            "SELECT function_id, function_name FROM operation_outputs"
            " WHERE workflow_uuid = 'old-1' ORDER BY function_id"
        ).fetchall()
        ours = db.execute("SELECT COUNT(*) FROM dpt_fleet_steps WHERE job_id = 'old-1'")
        assert ours.fetchone()[0] == 0
    assert [(i, name.split("#")[0]) for i, name in steps] == [
        (1, "model:generation"),
        (2, "tool:lookup"),
        (3, "model:tool_followup"),
    ]
    assert [line.split()[0] for line in (tmp_path / "tools.log").read_text().splitlines()] == [
        "old-1",
        "old-1",
    ]


def test_a_job_with_rate_permits_resumes_after_a_kill_with_the_same_dbos_calls(
    emulator: ProviderEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rate permit is a DBOS child workflow, numbered by DBOS's function-id counter,
    which the job's steps no longer share. A worker killed while its jobs' tools run
    (each job: a permit, its first request, the tool in flight) is started again: each
    job takes its first permit again as the same DBOS call (replayed, not a second
    permit), replays its first answer from the checkpoint and goes on."""
    import os
    import signal
    import subprocess

    support = Path(__file__).parent / "fleet_support.py"
    starts = tmp_path / "starts.log"
    monkeypatch.setenv("DPT_TEST_TOOL_STARTS", str(starts))
    monkeypatch.setenv("DPT_TEST_TOOL_DELAY_S", "1.0")
    monkeypatch.setenv("DPT_TEST_RATE_LIMIT", "1000/60")
    database = tmp_path / "permits.sqlite"
    ids = [f"inv-{i}" for i in range(4)]
    fleet = Fleet(fs.make_agent, str(database))
    for job in ids:
        fleet.submit(job, f"Process job {job}.")

    def worker() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, str(support), str(database), "w1", "4"],
            stdout=subprocess.DEVNULL,
            stderr=(tmp_path / "worker.log").open("ab"),
            env={**os.environ, "DPT_AGENT_LOG_TO_FILE": "0"},
        )

    first = worker()
    try:
        deadline = time.monotonic() + 120
        while not (starts.exists() and len(starts.read_text().splitlines()) >= 4):
            assert first.poll() is None and time.monotonic() < deadline, "no tool started"
            time.sleep(0.02)
        first.send_signal(signal.SIGKILL)  # every job's tool is running
        first.wait(timeout=30)
        second = worker()
        assert second.wait(timeout=180) == 0, (tmp_path / "worker.log").read_text()[-3000:]
    finally:
        if first.poll() is None:
            first.kill()
    results = fleet.results()
    fleet.close()
    assert all(results[job].success and results[job].requests == 2 for job in ids), results
    for job in ids:
        assert _sent(emulator, job) == [1, 2]  # the first request was not sent again
    with contextlib.closing(sqlite3.connect(database)) as db:
        calls = db.execute(
            "SELECT workflow_uuid, function_id, function_name FROM operation_outputs"
            " ORDER BY workflow_uuid, function_id"
        ).fetchall()
        permits = db.execute(
            "SELECT COUNT(*) FROM workflow_status WHERE name = 'dpt_fleet_permit'"
        ).fetchone()[0]
    for job in ids:
        assert [(i, name) for wf, i, name in calls if wf == job] == [
            (1, "dpt_fleet_permit"),
            (2, "DBOS.getResult"),
            (3, "dpt_fleet_permit"),
            (4, "DBOS.getResult"),
        ]
    assert permits == 2 * len(ids)  # one per request: the resumed jobs took none again


def test_opening_a_fleet_creates_the_checkpoint_table_before_any_worker(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    """The schema is whole once a Fleet has opened its database: a worker killed while it
    starts (before its checkpoint store exists) leaves no database without the table."""
    database = tmp_path / "fresh.sqlite"
    fleet = Fleet(fs.make_agent, str(database))
    fleet.close()
    with contextlib.closing(sqlite3.connect(database)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert "dpt_fleet_steps" in tables
