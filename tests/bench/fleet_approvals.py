"""Issue 40 at full size: a fleet of 50 jobs, 10 of which defer a payment, with 2 worker
processes on SQLite, against the ProviderEmulator on loopback.

1. Both workers drain the queue: the 40 finish, the 10 park, both workers exit (free).
2. A waiting worker is started and SIGKILLed while the jobs wait (no worker runs then).
3. The 10 are approved (9) or refused (1) with no worker running.
4. Two workers are started again: the 10 finish. No tool ran twice; no request repeated.

    .venv/bin/python tests/bench/fleet_approvals.py [JOBS DEFERRING]

Prints one line per phase with its wall time, and exits 1 when a check fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from doc_processing_toolkit.fleet import Fleet
from doc_processing_toolkit.testing import ProviderEmulator

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
import fleet_approvals_support as fa  # noqa: E402 - found through the path above

SUPPORT = ROOT / "tests" / "integration" / "fleet_approvals_support.py"


def workers(db: str, tmp: Path, *extra: str, n: int = 2) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen(
            [sys.executable, str(SUPPORT), db, f"w{i}", "8", *extra],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=(tmp / f"w{i}.log").open("ab"),
        )
        for i in range(n)
    ]


def main(jobs: int = 50, deferring: int = 10) -> int:
    os.environ.setdefault("ANTHROPIC_API_KEY", "test-key-not-real")
    os.environ["DPT_AGENT_LOG_TO_FILE"] = "0"
    os.environ.setdefault("AGENT_LOG_LEVEL", "WARNING")
    with tempfile.TemporaryDirectory() as folder, ProviderEmulator() as emu:
        tmp = Path(folder)
        emu.responder = fa.responder
        os.environ["DPT_TEST_EMULATOR_URL"] = emu.anthropic_base_url
        os.environ["DPT_TEST_TOOL_LOG"] = str(tmp / "tools.log")
        db = str(tmp / "fleet.sqlite")
        queue = Fleet(None, db)
        plain = [f"inv-{i:03d}" for i in range(jobs - deferring)]
        paying = [f"pay-{i:03d}" for i in range(deferring)]
        for job in plain + paying:
            queue.submit(job, f"Process job {job}.")

        started = time.monotonic()
        for proc in workers(db, tmp):
            proc.wait(timeout=600)
        status = queue.status()
        print(
            f"phase 1 ({time.monotonic() - started:.1f} s): done {status.done}, awaiting "
            f"{status.awaiting_approval}, running {status.running}, queued {status.queued}; "
            "both workers exited"
        )
        ok = (status.done, status.awaiting_approval, status.running) == (len(plain), deferring, 0)

        (idle,) = workers(db, tmp, "forever", n=1)
        time.sleep(2)
        idle.send_signal(signal.SIGKILL)
        idle.wait(timeout=60)
        print("phase 2: a waiting worker SIGKILLed while the jobs wait")

        pending = queue.pending_approvals()
        for job in paying:
            (call,) = pending[job]
            queue.approve(job, call.call_id, job != paying[-1], message="refused in the bench")
        print(f"phase 3: {len(pending)} jobs answered with no worker running")

        started = time.monotonic()
        for proc in workers(db, tmp):
            proc.wait(timeout=600)
        results = queue.results()
        ran = Counter(fa.tool_log(tmp / "tools.log"))
        twice = [key for key, count in ran.items() if count > 1]
        print(
            f"phase 4 ({time.monotonic() - started:.1f} s): {len(results)} jobs done, "
            f"{sum(ran.values())} tool executions, {len(twice)} ran twice, "
            f"{emu.request_count} model requests for {2 * jobs} model steps"
        )
        ok = ok and len(results) == jobs and not twice and emu.request_count == 2 * jobs
        ok = ok and all(r.state == "done" for r in results.values())
        queue.close()
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:3])))
