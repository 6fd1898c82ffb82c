"""Test-wide settings: anyio on asyncio, no log files, and no network but loopback."""

from __future__ import annotations

import faulthandler
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's time-based checks measure the machine, not the code: under CPU load one slow
# draw (a GC pause, a starved core) failed test_json_round_trip_is_identity with
# "FailedHealthCheck: Input generation is slow" on an otherwise green run. Correctness
# checks stay on; no test here asserts a time.
settings.register_profile(
    "dpt", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("dpt")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_log_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_AGENT_LOG_TO_FILE", "0")
    monkeypatch.setenv("AGENT_LOG_LEVEL", "WARNING")
    for var in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GOOGLE_GEMINI_API_KEY",
        "FIREWORKS_API_KEY",
    ):
        monkeypatch.setenv(var, "test-key-not-real")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("DPT_ANTHROPIC_BASE_URL", raising=False)


_LOOPBACK = ("127.", "::1", "localhost")
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
        raise RuntimeError(f"tests may not reach the network: connect to {host!r} refused")
    return _real_connect(self, address)


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]


_PROGRESS = os.environ.get("DPT_PYTEST_PROGRESS")


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """Write each test's id as it starts (scripts/run-pytest.sh names the last one when
    pytest ends without its summary: a crash or a kill is never a silent truncated line)."""
    if _PROGRESS:
        with open(_PROGRESS, "a", encoding="utf-8") as progress:
            progress.write(nodeid + "\n")


def pytest_sessionstart(session: pytest.Session) -> None:
    """A whole-run watchdog above the per-test limit: should the run itself hang where no
    per-test limit can reach (a C call that ignores signals), every thread's stack is
    dumped and the process ends, and scripts/run-pytest.sh names the last test started.
    DPT_PYTEST_RUN_LIMIT seconds (default one hour: CI allows 90 minutes)."""
    limit = float(os.environ.get("DPT_PYTEST_RUN_LIMIT", "3600"))
    if limit > 0:
        faulthandler.dump_traceback_later(limit, exit=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    faulthandler.cancel_dump_traceback_later()


def pytest_configure(config: pytest.Config) -> None:
    """Every folder under tests/unit is a package (an empty ``__init__.py``): the unit tests
    mirror the package, so a basename such as ``test_dialect.py`` repeats, and without the
    ``__init__.py`` two of them would import as one module (tests/README.md)."""
    from pathlib import Path

    unit = Path(__file__).parent / "unit"
    folders = {parent for test in unit.rglob("test_*.py") for parent in test.parents}
    missing = sorted(
        str(folder.relative_to(unit.parent.parent))
        for folder in folders
        if folder.is_relative_to(unit) and not (folder / "__init__.py").is_file()
    )
    if missing:
        raise pytest.UsageError(
            "every folder under tests/unit needs an empty __init__.py (tests/README.md); "
            "missing in: " + ", ".join(missing)
        )
