"""Issue 40, fleets: a deferring job parks without a worker; answers given while no worker
runs are applied when one starts; no tool runs twice. Workers are
``tests/integration/fleet_approvals_support.py`` processes against the emulator here.

The full 50-job / 10-deferring run is ``tests/bench/fleet_approvals.py``; this one keeps
the numbers small so it stays quick on a loaded machine.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

from doc_processing_toolkit import ApprovalError
from doc_processing_toolkit.domain.approvals import TIMED_OUT_TEXT
from doc_processing_toolkit.fleet import Fleet
from doc_processing_toolkit.testing import ProviderEmulator

sys.path.insert(0, str(Path(__file__).parent))
import fleet_approvals_support as fa

SUPPORT = Path(__file__).parent / "fleet_approvals_support.py"
REPO = Path(__file__).parents[2]
WORKER_TIMEOUT_S = 180


@pytest.fixture
def emulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        emu.responder = fa.responder
        monkeypatch.setenv("DPT_TEST_EMULATOR_URL", emu.anthropic_base_url)
        monkeypatch.setenv("DPT_TEST_TOOL_LOG", str(tmp_path / "tools.log"))
        yield emu


def _worker(db: str, worker_id: str, log: Path, *extra: str) -> Any:
    return subprocess.Popen(
        [sys.executable, str(SUPPORT), db, worker_id, "4", *extra],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
        env={**os.environ, "DPT_AGENT_LOG_TO_FILE": "0"},
    )


def _drain(db: str, tmp: Path, workers: int = 2) -> None:
    procs = [_worker(db, f"w{i}", tmp / f"w{i}.log") for i in range(workers)]
    for proc in procs:
        assert proc.wait(timeout=WORKER_TIMEOUT_S) == 0, (tmp / "w0.log").read_text()[-3000:]


def test_parked_jobs_hold_no_worker_and_finish_after_a_restart(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    db = str(tmp_path / "fleet.sqlite")
    queue = Fleet(None, db)
    plain = [f"inv-{i:02d}" for i in range(8)]
    paying = [f"pay-{i:02d}" for i in range(4)]
    for job in plain + paying:
        assert queue.submit(job, f"Process job {job}.")

    _drain(db, tmp_path)  # two workers, each until nothing is queued or running: they exit

    status = queue.status()
    assert (status.done, status.awaiting_approval, status.running, status.queued) == (8, 4, 0, 0)
    pending = queue.pending_approvals()
    assert sorted(pending) == paying
    assert all(
        p.tool_name == "pay" and p.arguments == {"job": j} for j in paying for p in pending[j]
    )

    # a worker that waits for work, killed while the jobs wait: nothing is lost
    idle = _worker(db, "w0", tmp_path / "idle.log", "forever")
    time.sleep(0.5)  # not an assertion: gives it a moment to start before the kill
    idle.send_signal(signal.SIGKILL)
    idle.wait(timeout=30)

    for job in paying:  # every answer given while no worker runs
        (call,) = pending[job]
        assert queue.approve(job, call.call_id, job != "pay-03", message="not this one")
    assert queue.status().queued == 4 and queue.pending_approvals() == {}

    _drain(db, tmp_path)  # restarted workers apply them

    results = queue.results()
    assert sorted(results) == sorted(plain + paying)
    assert all(r.state == "done" for r in results.values())
    for job in paying[:3]:
        assert results[job].output == f"{job} done: paid {job}"
        assert results[job].tools_used == ("pay",) and results[job].requests == 2
        assert [r["request_index"] for r in results[job].records] == [1, 2]  # one ledger
    assert "not this one" in results["pay-03"].output and results["pay-03"].tools_used == ()
    ran = Counter(fa.tool_log(tmp_path / "tools.log"))
    assert all(count == 1 for count in ran.values())  # no tool ran twice
    assert set(ran) == {("lookup", j) for j in plain} | {("pay", j) for j in paying[:3]}
    assert emulator.request_count == 2 * 12  # no request of a parked job was sent again
    queue.close()


def test_an_unanswered_call_is_refused_after_the_approval_timeout(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    fleet = Fleet(fa.make_agent, str(tmp_path / "f.sqlite"), approval_timeout=0.001)
    fleet.submit("pay-1", "Process job pay-1.")
    fleet.run()
    fleet.run()  # the deadline has passed: refused, and the job finishes
    (result,) = fleet.results().values()
    assert result.state == "done" and TIMED_OUT_TEXT in str(result.output)
    assert fa.tool_log(tmp_path / "tools.log") == []
    assert fleet.pending_approvals() == {}
    fleet.close()


def test_answers_that_fit_no_parked_job_are_errors(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    fleet = Fleet(fa.make_agent, str(tmp_path / "f.sqlite"))
    fleet.submit("pay-1", "Process job pay-1.")
    fleet.submit("inv-1", "Process job inv-1.")
    fleet.run()
    with pytest.raises(ApprovalError) as caught:
        fleet.approve("inv-1", "toolu_inv-1", True)
    assert caught.value.code == "nothing_pending"
    with pytest.raises(ApprovalError) as caught:
        fleet.approve("pay-1", "toolu_other", True)
    assert caught.value.code == "unknown_call"
    assert list(fleet.pending_approvals()) == ["pay-1"]
    fleet.close()


def test_dpt_fleet_approvals_lists_and_answers(
    emulator: ProviderEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from doc_processing_toolkit.cli.main import main

    db = str(tmp_path / "cli.sqlite")
    fleet = Fleet(fa.make_agent, db)
    fleet.submit("pay-7", "Process job pay-7.")
    fleet.run()
    capsys.readouterr()
    assert main(["fleet", "status", "--database-url", db]) == 0
    assert "1 awaiting approval" in capsys.readouterr().out
    assert main(["fleet", "approvals", "--database-url", db]) == 0
    assert capsys.readouterr().out.split("\t")[:3] == ["pay-7", "toolu_pay-7", "pay"]
    assert main(["fleet", "approvals", "--approve", "pay-7", "--database-url", db]) == 2
    assert "JOB:CALL" in capsys.readouterr().err
    refuse = ["fleet", "approvals", "--refuse", "pay-7:toolu_pay-7", "--message", "too much"]
    assert main([*refuse, "--database-url", db]) == 0
    assert "queued again" in capsys.readouterr().err
    fleet.run()
    (result,) = fleet.results().values()
    assert "too much" in str(result.output) and result.tools_used == ()
    fleet.close()
