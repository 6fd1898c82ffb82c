"""Setup shared by the provider adapter tests: one loopback ProviderEmulator per test module,
handed to each test reset (empty script, no default reply) and with no endpoint variable
pointing a client elsewhere. Plain helpers live in ``adapter_helpers``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_processing_toolkit.testing.emulator import ProviderEmulator

pytest.register_assert_rewrite("adapter_helpers")  # imported by the test modules, later
sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs  # noqa: E402

ENDPOINT_ENVS = (
    "DPT_ANTHROPIC_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "DPT_OPENAI_BASE_URL",
    "OPENAI_BASE_URL",
    "DPT_FIREWORKS_BASE_URL",
    "DPT_GOOGLE_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
)
"""Every variable that moves a provider client's endpoint (cleared for each test)."""


@pytest.fixture(scope="module")
def emulator_server() -> Iterator[ProviderEmulator]:
    """One running emulator for the test module."""
    with ProviderEmulator() as emu:
        yield emu


@pytest.fixture
def emu(emulator_server: ProviderEmulator, monkeypatch: pytest.MonkeyPatch) -> ProviderEmulator:
    """The module's emulator, reset, with no endpoint variable set."""
    for var in ENDPOINT_ENVS:
        monkeypatch.delenv(var, raising=False)
    emulator_server.reset()
    emulator_server.default = None
    return emulator_server


@pytest.fixture
def emulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderEmulator]:
    """The fleet tests' emulator: it answers the invoice jobs of ``fleet_support`` (the
    worker processes find it, and the tool's log, through the environment)."""
    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        monkeypatch.setenv("DPT_TEST_EMULATOR_URL", emu.anthropic_base_url)
        monkeypatch.setenv("DPT_TEST_TOOL_LOG", str(tmp_path / "tools.log"))
        yield emu
