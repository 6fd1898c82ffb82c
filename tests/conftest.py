"""Test-wide settings: anyio on asyncio, no log files, and no network but loopback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest


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
