"""The adapters read the process environment through one module (issue 34)."""

from __future__ import annotations

from pathlib import Path

import pytest

from doc_processing_toolkit.adapters import _environment

ADAPTERS = Path(__file__).resolve().parents[3] / "doc_processing_toolkit" / "adapters"


def test_only_the_adapters_environment_module_reads_the_environment() -> None:
    readers = sorted(
        str(path.relative_to(ADAPTERS))
        for path in ADAPTERS.rglob("*.py")
        if "os.environ" in path.read_text(encoding="utf-8")
        or "getenv(" in path.read_text(encoding="utf-8")
    )
    assert readers == ["_environment.py"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, True), ("", True), (" ", True), ("on", True), ("1", True), ("OFF", False),
     ("0", False), ("false", False), ("no", False)],
)  # fmt: skip
def test_a_switch_is_off_only_when_it_says_so(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool
) -> None:
    if value is None:
        monkeypatch.delenv("DPT_TEST_SWITCH", raising=False)
    else:
        monkeypatch.setenv("DPT_TEST_SWITCH", value)
    assert _environment.switch("DPT_TEST_SWITCH") is expected
