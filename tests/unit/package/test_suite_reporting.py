"""The suite always ends with a report (issue 31, item 12): scripts/run-pytest.sh names the
last test started when pytest dies without its summary, and a hung test fails by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RUNNER = ROOT / "scripts" / "run-pytest.sh"


def _run(tmp_path: Path, body: str, *args: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "fake_pytest.py"
    script.write_text(body, encoding="utf-8")
    return subprocess.run(
        [str(RUNNER), sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_run_that_dies_mid_line_names_the_last_test_started(tmp_path: Path) -> None:
    dies = (
        "import os, sys\n"
        "with open(os.environ['DPT_PYTEST_PROGRESS'], 'a') as f:\n"
        "    f.write('tests/a.py::test_one\\ntests/b.py::test_two\\n')\n"
        "sys.stdout.write('.......'); sys.stdout.flush()\n"
        "os._exit(0)\n"
    )
    done = _run(tmp_path, dies)
    assert done.returncode == 1  # a run without its summary never passes
    assert "pytest ended WITHOUT its summary line (exit status 0)" in done.stdout
    assert "The last test started was: tests/b.py::test_two" in done.stdout
    assert "tests/a.py::test_one" in done.stdout


def test_a_run_with_its_summary_keeps_its_status(tmp_path: Path) -> None:
    done = _run(tmp_path, "print('..')\nprint('2 passed, 1 skipped in 0.12s')\n")
    assert done.returncode == 0 and "WITHOUT" not in done.stdout
    failed = _run(tmp_path, "print('1 failed, 1 passed in 0.12s')\nraise SystemExit(1)\n")
    assert failed.returncode == 1 and "WITHOUT" not in failed.stdout


def test_a_hung_test_fails_by_name_and_the_run_reaches_its_summary(tmp_path: Path) -> None:
    hung = tmp_path / "test_hung.py"
    hung.write_text("import time\n\ndef test_hangs():\n    time.sleep(600)\n", encoding="utf-8")
    done = subprocess.run(
        [
            str(RUNNER),
            sys.executable,
            "-m",
            "pytest",
            str(hung),
            "-o",
            "timeout=2",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout
    assert "Timeout (>2.0s) from pytest-timeout" in done.stdout
    assert "1 failed" in done.stdout and "WITHOUT" not in done.stdout


def test_make_test_runs_pytest_through_the_reporting_runner_with_a_per_test_limit() -> None:
    assert "\ntimeout = " in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "scripts/run-pytest.sh" in (ROOT / "Makefile").read_text(encoding="utf-8")
