"""domain/approvals.py: the pure checks a resume must pass before anything runs."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.domain.approvals import (
    REFUSED_TOOL_TEXT,
    Approval,
    PendingApproval,
    check_resume,
    refusal_text,
)
from doc_processing_toolkit.domain.errors import ApprovalError, InvalidArgumentTypeError

PAY = PendingApproval("c2", "pay", {"account": "a-1", "amount": 5}, "money")
RECORDED = {"c1": ("lookup", {"name": "bob"}), "c2": ("pay", {"amount": 5, "account": "a-1"})}
MODEL = ("anthropic", "claude-sonnet-5-5")


def _check(approvals: dict[str, Approval], **overrides: object) -> list[object]:
    kwargs: dict[str, object] = {
        "recorded_calls": RECORDED,
        "saved_model": MODEL,
        "model": MODEL,
    }
    kwargs.update(overrides)
    pending = overrides.pop("pending", [PAY]) if "pending" in overrides else [PAY]
    kwargs.pop("pending", None)
    return list(check_resume(pending, approvals, **kwargs))  # type: ignore[arg-type]


def test_a_full_answer_gives_one_decision_per_pending_call() -> None:
    (decision,) = _check({"c2": Approval(approved=True)})
    assert decision.pending == PAY and decision.approval.approved  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("approvals", "overrides", "code"),
    [
        ({"c2": Approval(True)}, {"pending": []}, "nothing_pending"),
        ({"zz": Approval(True), "c2": Approval(True)}, {}, "unknown_call"),
        ({}, {}, "missing_call"),
        ({"c2": Approval(True)}, {"model": ("openai", "gpt-5")}, "model_changed"),
        ({"c2": Approval(True)}, {"recorded_calls": {}}, "truncated"),
        (
            {"c2": Approval(True)},
            {"recorded_calls": {"c2": ("pay", {"account": "a-1", "amount": 5000})}},
            "tampered",
        ),
    ],
)
def test_each_bad_resume_is_a_typed_error_naming_its_fault(
    approvals: dict[str, Approval], overrides: dict[str, object], code: str
) -> None:
    with pytest.raises(ApprovalError) as caught:
        _check(approvals, **overrides)
    assert caught.value.code == code
    assert isinstance(caught.value, RuntimeError)  # a StateError


def test_approvals_must_be_a_mapping_of_approval() -> None:
    with pytest.raises(InvalidArgumentTypeError):
        _check({"c2": True})  # type: ignore[dict-item]
    with pytest.raises(InvalidArgumentTypeError):
        Approval(approved="yes")  # type: ignore[arg-type]


def test_refusal_text_carries_the_reviewers_message() -> None:
    assert refusal_text(None) == REFUSED_TOOL_TEXT
    assert refusal_text("over budget").endswith("over budget")


def test_pending_approval_round_trips_as_plain_data() -> None:
    assert PendingApproval.from_dict(PAY.to_dict()) == PAY
