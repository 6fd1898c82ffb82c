"""Models a new user meets are current, and a retired or mistyped one says so.

The README, the examples and the CLI's defaults name only models whose registry row is
neither deprecated nor retired on the day the test runs; a retired row gives one WARNING at
``Agent(...)`` naming the date and the replacement (never a refusal: the provider decides);
a name close to a registry row gets a "did you mean".
"""

from __future__ import annotations

import datetime
import logging
import re
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.domain.registry import ModelInfo, closest_model_names
from doc_processing_toolkit.testing import FakeModel, reply

LOG = logging.getLogger("tests.current_models")
ROOT = Path(__file__).resolve().parents[4]
USER_FACING = [
    ROOT / "README.md",
    *sorted((ROOT / "examples").glob("*.py")),
    *sorted((ROOT / "examples").glob("*.yaml")),
    *sorted((ROOT / "docs" / "guide").glob("*.md")),
    ROOT / "docs" / "index.md",
    ROOT / "doc_processing_toolkit" / "cli" / "main.py",
]

DESCRIBED_ONLY = {path.name for path in (ROOT / "docs" / "guide").glob("*.md")}
"""Guide pages: the models they name must be current, but need not be priced."""


def _named_models() -> set[tuple[str, str]]:
    names = {row.model for row in registry().models()}
    found: set[tuple[str, str]] = set()
    for path in USER_FACING:
        for token in re.findall(r"[A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9]", path.read_text()):
            if token in names:
                found.add((path.name, token))
    return found


def test_user_facing_files_name_models() -> None:
    files = {name for name, _ in _named_models()}
    assert {"README.md", "quickstart.py", "main.py"} <= files


@pytest.mark.parametrize(("where", "model"), sorted(_named_models()))
def test_no_user_facing_model_is_retired_or_deprecated_today(where: str, model: str) -> None:
    row = registry().row(model)
    assert row is not None
    today = datetime.date.today().isoformat()
    assert row.lifecycle_warning(today) is None, f"{where} names {model}: {row.notes}"
    if where in DESCRIBED_ONLY:
        return  # a guide page may describe an unpriced row; it must still be current
    assert row.pricing.input_per_mtok is not None, f"{where} names {model}, which has no price"


def test_a_retired_row_warns_once_naming_the_date_and_replacement(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        agent = Agent("claude-sonnet-4-5", client=FakeModel([reply("hi")]), logger=LOG)
        agent.run_sync("hello")
    lines = [r.getMessage() for r in caplog.records if "claude-sonnet-4-5" in r.getMessage()]
    lifecycle = [line for line in lines if "retired" in line]
    assert lifecycle == [
        "model claude-sonnet-4-5 retired on 2026-11-30 (its registry row says so); "
        "use claude-sonnet-5-5 instead"
    ]


def test_lifecycle_wording_before_and_after_the_date() -> None:
    row = ModelInfo(
        model="m-1", provider="x", deprecated=True, retirement_date="2027-01-31", replacement="m-2"
    )
    assert row.lifecycle_warning("2027-01-30") == (
        "model m-1 is deprecated and retires on 2027-01-31 (its registry row says so); "
        "use m-2 instead"
    )
    assert row.lifecycle_warning("2027-01-31") is not None
    assert "retired on 2027-01-31" in (row.lifecycle_warning("2027-02-01") or "")
    assert ModelInfo(model="m-3", provider="x").lifecycle_warning("2030-01-01") is None


def test_a_mistyped_model_gets_a_did_you_mean() -> None:
    """Agent.__init__ raises "ValueError — If model is invalid" (a name with no registry
    row), with the row it was likely meant to be."""
    with pytest.raises(ValueError, match="Did you mean claude-sonnet-5-5"):
        Agent("claude-sonet-5-5", client=FakeModel([reply("hi")]), logger=LOG)


def test_closest_model_names_keeps_far_names_out() -> None:
    known = ["claude-sonnet-5-5", "gpt-4o", "gemini-2.5-flash"]
    assert closest_model_names("gpt-4o-mini-typo-xyz", known) == []
    assert closest_model_names("GEMINI-2.5-FLASH ", known) == ["gemini-2.5-flash"]


def test_a_mistyped_keyword_gets_a_did_you_mean(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        Agent(
            "claude-sonnet-5-5",
            client=FakeModel([reply("hi")]),
            logger=LOG,
            effort_confg="low",
            entirely_unrelated=1,
        )
    lines = {r.getMessage().split("'")[1]: r.getMessage() for r in caplog.records}
    assert "did you mean 'effort_config'?" in lines["effort_confg"]
    assert "did you mean" not in lines["entirely_unrelated"]
    # A near miss of an Agent parameter is a TypeError instead (test_validation_keyword_typos.py).
    with pytest.raises(TypeError, match="Did you mean 'temperature'"):
        Agent("claude-sonnet-5-5", client=FakeModel([reply("hi")]), logger=LOG, temprature=0.2)
