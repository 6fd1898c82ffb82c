"""`evaluate` with FakeModel Agents: a failed case is a result, factories, side by side,
repeat, evidence pages read from the result (issue 37)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.evals import EvalDataset, EvalProgress, evaluate
from doc_processing_toolkit.testing import FakeModel, Fault, reply

DATASET = """
prompt: Extract the invoice.
output_schema:
  type: object
  properties:
    number: {type: string}
    total: {type: number}
  required: [number]
cases:
  - {name: a, expected: {number: INV-1, total: 10}}
  - {name: b, expected: {number: INV-2, total: 20}}
"""


@pytest.fixture
def dataset(tmp_path: Path) -> EvalDataset:
    path = tmp_path / "d.yaml"
    path.write_text(DATASET)
    return EvalDataset.load(path)


def _answer(number: str, total: float) -> Any:
    return reply(json.dumps({"number": number, "total": total}), input_tokens=100, output_tokens=10)


def _agent(*steps: Any) -> Agent:
    return Agent("claude-sonnet-5-5", client=FakeModel(list(steps)), log_to_file=False)


def test_a_failed_case_is_a_result_with_its_error(
    dataset: EvalDataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_MAX_RETRIES", "0")
    agent = _agent(_answer("INV-1", 10), Fault(status=400, message="bad document"))
    seen: list[EvalProgress] = []
    report = evaluate(agent, dataset, concurrency=1, on_progress=seen.append)
    a, b = report.cases
    assert a.success and a.exact and a.cost > 0 and a.requests == 1
    assert not b.success and b.error_type == "BadRequestError" and "bad document" in b.error
    assert [f.verdict for f in b.fields] == ["missing", "missing"]
    summary = report.summary()
    assert summary.failed == 1 and summary.field_accuracy == 0.5
    assert summary.exact_match_rate == 0.5
    assert [p.done for p in seen] == [1, 2] and seen[-1].finished and seen[-1].failed == 1
    assert [p.running for p in seen] == [0, 0]  # concurrency 1: none in flight after each


def test_retries_are_counted(dataset: EvalDataset) -> None:
    agent = _agent(Fault(status=429, retry_after=0.01), _answer("INV-1", 10), _answer("X", 20))
    report = evaluate(agent, dataset, concurrency=1)
    assert [c.retries for c in report.cases] == [1, 0]
    assert report.summary().retries == 1


def test_side_by_side_factories_and_repeat(dataset: EvalDataset) -> None:
    built: list[Agent] = []

    def factory() -> Agent:
        built.append(_agent(*[_answer("INV-1", 10)] * 4))
        return built[-1]

    other = Agent(
        "gpt-4o",
        client=FakeModel([], default=_answer("INV-2", 20), provider="openai"),
        log_to_file=False,
    )
    report = evaluate([factory, other], dataset, concurrency=3, repeat=2)
    assert len(built) == 1  # one Agent per factory, reused for every case
    assert report.models == ["claude-sonnet-5-5", "gpt-4o"]
    assert [(c.case, c.repeat) for c in report.cases_of("gpt-4o")] == [
        ("a", 0),
        ("a", 1),
        ("b", 0),
        ("b", 1),
    ]
    assert report.summary("claude-sonnet-5-5").exact_match_rate == 0.5
    assert report.summary("gpt-4o").exact_match_rate == 0.5
    same = evaluate([other, other], dataset, concurrency=2)
    assert same.models == ["gpt-4o", "gpt-4o#2"]


@dataclass
class _Evidence:
    page: int | None
    verified: bool


class _EvidenceAgent:
    """An Agent whose results carry per-field evidence, as ``run(evidence=True)`` gives."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.model = agent.model
        self.asked: list[bool] = []

    async def run(self, message: str, *, evidence: bool = False, **kwargs: Any) -> Any:
        self.asked.append(evidence)
        result = await self.agent.run(message, **kwargs)
        result.evidence = {"total": _Evidence(page=3, verified=True)}  # type: ignore[attr-defined]
        return result


def test_the_evidence_page_is_read_from_the_result(dataset: EvalDataset) -> None:
    agent = _EvidenceAgent(_agent(_answer("INV-1", 10), _answer("INV-2", 99)))
    report = evaluate(agent, dataset, concurrency=1, evidence=True)
    assert agent.asked == [True, True]
    total = next(f for f in report.cases[1].fields if f.path == "total")
    assert (total.verdict, total.evidence_page, total.evidence_verified) == ("wrong", 3, True)
    number = next(f for f in report.cases[1].fields if f.path == "number")
    assert number.evidence_page is None


def test_bad_arguments(dataset: EvalDataset) -> None:
    agent = _agent()
    with pytest.raises(ConfigurationError, match="concurrency"):
        evaluate(agent, dataset, concurrency=0)
    with pytest.raises(ConfigurationError, match="mode"):
        evaluate(agent, dataset, mode="batch")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="at least one"):
        evaluate([], dataset)
    with pytest.raises(ConfigurationError, match="factories"):
        evaluate(agent, dataset, mode="fleet")
