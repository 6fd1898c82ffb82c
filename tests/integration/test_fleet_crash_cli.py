"""``dpt fleet run`` as a user runs it: a subprocess, SIGKILLed mid-run and started again
with the same command, against an independent fake provider that counts what it serves
(``counting_provider``, no code shared with the toolkit or its ledger). Issues 31.10 and
32.10."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

sys.path.insert(0, str(Path(__file__).parent))
from counting_provider import CountingProvider

MODEL = "claude-sonnet-5-5"
JOBS = 30


def _dpt() -> list[str]:
    script = Path(sys.executable).parent / "dpt"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "doc_processing_toolkit.cli.main"]  # pragma: no cover


def _env(base_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DPT_ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "test-key-not-real",
        "DPT_AGENT_LOG_TO_FILE": "0",
    }


def _jobs_file(directory: Path, ids: list[str]) -> Path:
    jobs = directory / "jobs.jsonl"
    jobs.write_text(
        "".join(json.dumps({"id": i, "message": f"Process job {i}."}) + "\n" for i in ids)
    )
    return jobs


def _status(directory: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [*_dpt(), "fleet", "status", "--json"],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_a_killed_fleet_run_rerun_with_the_same_command_resends_no_finished_job(
    tmp_path: Path,
) -> None:
    """31.10: 30 one-request jobs, ``--workers 1``, SIGKILL right after the provider's 10th
    answer (between that answer and its checkpoint), then the same command again.

    Before the fix the worker started every queued job at once (the queue's concurrency
    was set after DBOS was launched, and its first poll took the whole queue): every
    job's request was in flight at the kill, and the restart sent them all again. Now at
    most one request is in flight (``--workers 1``), so the only request the provider sees
    twice is the one whose answer the kill cut off before its checkpoint; every job
    answered and checkpointed before the kill is never sent again, and the ledger
    (``dpt fleet status``) is an uninterrupted run's.
    """
    ids = [f"job-{i:02d}" for i in range(JOBS)]

    # The reference: the same command, nothing killed.
    reference = tmp_path / "reference"
    reference.mkdir()
    with CountingProvider() as provider:
        env = _env(provider.base_url)
        command = [*_dpt(), "fleet", "run", str(_jobs_file(reference, ids))]
        command += ["--model", MODEL, "--workers", "1"]
        done = subprocess.run(command, cwd=reference, env=env, capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert len(provider.received) == JOBS
        uninterrupted = _status(reference, env)

    crashed = tmp_path / "crashed"
    crashed.mkdir()
    worker: dict[str, subprocess.Popen[bytes]] = {}
    killed = threading.Event()

    def kill_after_tenth(count: int, job: str) -> None:
        if count == 10 and "first" in worker:
            worker["first"].send_signal(signal.SIGKILL)
            killed.set()

    with CountingProvider(answer_delay=0.05, on_answer=kill_after_tenth) as provider:
        env = _env(provider.base_url)
        command = [*_dpt(), "fleet", "run", str(_jobs_file(crashed, ids))]
        command += ["--model", MODEL, "--workers", "1"]
        worker["first"] = subprocess.Popen(
            command, cwd=crashed, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        _, first_err = worker["first"].communicate(timeout=300)
        assert killed.is_set(), first_err.decode()[-2000:]
        assert worker["first"].returncode == -signal.SIGKILL
        in_flight_at_kill = provider.max_in_flight
        received_before = list(provider.received)

        again = subprocess.run(command, cwd=crashed, env=env, capture_output=True, timeout=300)
        assert again.returncode == 0, again.stderr[-2000:]
        assert b"0 new jobs, 30 already submitted" in again.stderr
        after = _status(crashed, env)
        per_job = provider.per_job()

    # --workers 1 means one job (so one request) at a time, from the first poll on.
    assert in_flight_at_kill == 1
    assert len(received_before) == 10
    # Every job answered before the kill except the last one was checkpointed: never resent.
    twice = sorted(job for job, n in per_job.items() if n > 1)
    assert set(twice) <= {received_before[-1]}, per_job
    assert sorted(per_job) == ids and max(per_job.values()) <= 2
    assert len(provider.received) <= JOBS + 1
    # The ledger is the uninterrupted run's: 30 answers, each recorded once.
    assert (after["done"], after["failed"], after["queued"], after["running"]) == (30, 0, 0, 0)
    assert after["spend"] == pytest.approx(uninterrupted["spend"])
    billed_per_answer = uninterrupted["spend"] / JOBS
    assert after["spend"] == pytest.approx(
        billed_per_answer * (len(provider.answered) - len(twice))
    )
    # The gap is reported, not hidden (31.10): every request the provider served twice is
    # counted as maybe billed without being recorded, and nothing else is.
    assert after["unrecorded_requests"] == len(twice), (per_job, after)
    assert uninterrupted["unrecorded_requests"] == 0
    results = subprocess.run(
        [*_dpt(), "fleet", "results"], cwd=crashed, env=env, capture_output=True, timeout=120
    )
    rows = {r["id"]: r for r in map(json.loads, results.stdout.decode().splitlines())}
    assert {i for i, r in rows.items() if r["unrecorded_requests"]} == set(twice)
    assert all(rows[i]["unrecorded_requests"] == per_job[i] - 1 for i in ids)
    text = subprocess.run(
        [*_dpt(), "fleet", "status"], cwd=crashed, env=env, capture_output=True, timeout=120
    )
    if twice:
        assert b"1 request may have been billed without being recorded" in text.stdout


SYSTEM_EXIT_TOOLS = '''
from doc_processing_toolkit import tool


@tool
def lookup(job: str) -> str:
    """Look up a job's total."""
    if job == "job-02":
        raise SystemExit(3)
    return f"total for {job}"
'''


def test_a_tool_raising_system_exit_fails_its_job_and_the_worker_goes_on(
    tmp_path: Path,
) -> None:
    """32.10: a tool that raises SystemExit used to kill the worker's event loop: all six
    jobs stayed "running" forever. Now that job fails with a ToolExecutionError, the five
    others finish, and ``dpt fleet run`` ends (exit 1: a job failed)."""
    from doc_processing_toolkit.testing import ProviderEmulator

    sys.path.insert(0, str(Path(__file__).parent))
    import fleet_support as fs

    ids = [f"job-{i:02d}" for i in range(6)]
    tools = tmp_path / "tools.py"
    tools.write_text(SYSTEM_EXIT_TOOLS)
    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        env = _env(emu.anthropic_base_url)
        command = [*_dpt(), "fleet", "run", str(_jobs_file(tmp_path, ids)), "--model", MODEL]
        command += ["--workers", "3", "--tool", str(tools)]
        try:
            done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, timeout=180)
        except subprocess.TimeoutExpired as exc:  # the hang this test is about
            raise AssertionError("dpt fleet run hung after a tool raised SystemExit") from exc
    assert done.returncode == 1, done.stderr[-2000:]
    assert b"done: 5  failed: 1  queued: 0  running: 0" in done.stdout
    results = subprocess.run(
        [*_dpt(), "fleet", "results"], cwd=tmp_path, env=env, capture_output=True, timeout=120
    )
    rows = {r["id"]: r for r in map(json.loads, results.stdout.decode().splitlines())}
    bad = rows["job-02"]
    assert bad["state"] == "failed" and bad["error_type"] == "ToolExecutionError"
    assert "SystemExit(3)" in bad["error"] and "lookup" in bad["error"]
    assert bad["cost"] > 0  # the request before the tool was billed and is counted
    assert all(rows[i]["state"] == "done" for i in ids if i != "job-02")
