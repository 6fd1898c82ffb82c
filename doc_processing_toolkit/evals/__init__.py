"""Extraction evals: know what a prompt, schema or model change does to accuracy and cost.

An eval dataset (YAML or JSONL) lists cases: documents, a prompt, an output schema and the
fields expected back. `evaluate` runs them on one Agent or several side by side and scores
every field; the `EvalReport` it returns saves to JSON, renders as Markdown or one HTML page,
and compares with a baseline report::

    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.evals import EvalDataset, evaluate

    dataset = EvalDataset.load("evals/invoices.yaml")
    report = evaluate(Agent("gpt-4o"), dataset, concurrency=8)
    print(report.to_markdown())

See docs/guide/evals.md.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.evals.dataset import EvalCase, EvalDataset
from doc_processing_toolkit.application.evals.report import EvalReport
from doc_processing_toolkit.application.evals.runner import (
    AgentSpec,
    CaseRun,
    EvalMode,
    EvalProgress,
    aevaluate,
)
from doc_processing_toolkit.application.evals.runner import evaluate as _evaluate
from doc_processing_toolkit.domain.evals.fields import FieldResult, ListScore
from doc_processing_toolkit.domain.evals.matching import (
    DEFAULT_FUZZY_THRESHOLD,
    match_value,
    normalise_text,
    parse_dates,
    parse_number,
)
from doc_processing_toolkit.domain.evals.results import (
    CaseResult,
    Change,
    Comparison,
    ModelSummary,
)

__all__ = [
    "DEFAULT_FUZZY_THRESHOLD",
    "CaseResult",
    "Change",
    "Comparison",
    "EvalCase",
    "EvalDataset",
    "EvalProgress",
    "EvalReport",
    "FieldResult",
    "ListScore",
    "ModelSummary",
    "aevaluate",
    "evaluate",
    "match_value",
    "normalise_text",
    "parse_dates",
    "parse_number",
]


def evaluate(
    agent: AgentSpec,
    dataset: EvalDataset,
    *,
    concurrency: int = 4,
    repeat: int = 1,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    evidence: bool = False,
    mode: EvalMode = "interactive",
    on_progress: Callable[[EvalProgress], None] | None = None,
) -> EvalReport:
    """Run every case of ``dataset`` on ``agent`` and score each field.

    Args:
        agent (Agent | Callable[[], Agent] | list): One Agent (reused for every case, its
            clients with it), a no-argument factory of one, or a list of either for a side
            by side run (one table per model in the report).
        dataset (EvalDataset): The cases (`EvalDataset.load`).
        concurrency (int): Case runs in flight at once, over all models. Default: 4.
        repeat (int): Runs of each case (to see how stable a model is). Default: 1.
        fuzzy_threshold (float): rapidfuzz ratio (0-100) at which a ``"fuzzy"`` field counts
            as correct, unless its schema property sets ``threshold``. Default: 90.
        evidence (bool): Ask for per-field evidence (``run(..., evidence=True)``) and report
            each field's evidence page. Default: False.
        mode (str): ``"interactive"`` (default), or ``"fleet"``: the cases run as jobs of a
            `doc_processing_toolkit.fleet.Fleet` (rate limits, durable retries) on a
            temporary SQLite database; it needs factories, not Agent instances.
        on_progress (Callable[[EvalProgress], None] | None): Called after each case run.

    Returns:
        EvalReport: Per case and field the verdict, values and evidence page; per case
            cost, latency, retries and error; the aggregates per model.

    Raises:
        ConfigurationError: concurrency or repeat below 1, an unknown mode, no agent, an
            Agent instance in fleet mode. A case whose run fails is a result, not an error.
    """
    return _evaluate(
        agent,
        dataset,
        concurrency=concurrency,
        repeat=repeat,
        fuzzy_threshold=fuzzy_threshold,
        evidence=evidence,
        mode=mode,
        on_progress=on_progress,
        fleet_cases=_fleet_cases,
    )


class _SchemaAgent:
    """A fleet job's Agent that asks for the case's output schema."""

    def __init__(self, agent: Any, schema: Any) -> None:
        self._agent = agent
        self._schema = schema

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agent, name)

    async def run(self, message: str, *, files: list[Any] | None = None) -> Any:
        return await self._agent.run(message, files=files, output_schema=self._schema)

    async def close(self) -> None:
        await self._agent.close()


def _fleet_cases(
    factory: Callable[[], Any], cases: list[EvalCase], concurrency: int, repeat: int
) -> list[list[CaseRun]]:
    from doc_processing_toolkit.fleet import Fleet

    runs: list[list[CaseRun | None]] = [[None] * repeat for _ in cases]
    groups: dict[int, list[int]] = {}
    for index, case in enumerate(cases):
        groups.setdefault(id(case.output_schema), []).append(index)
    with tempfile.TemporaryDirectory(prefix="dpt-eval-") as folder:
        database = str(Path(folder) / "evals.sqlite")
        for number, members in enumerate(groups.values()):
            schema = cases[members[0]].output_schema

            def build(schema: Any = schema) -> _SchemaAgent:
                return _SchemaAgent(factory(), schema)

            fleet = Fleet(build, database, name=f"dpt-eval-{number}", concurrency=concurrency)
            try:
                for index in members:
                    for rep in range(repeat):
                        fleet.submit(f"{index}:{rep}", cases[index].prompt, cases[index].files)
                results = fleet.run()
                for job_id, job in results.items():
                    index, rep = (int(part) for part in job_id.split(":"))
                    runs[index][rep] = CaseRun(
                        output=job.output if job.success else None,
                        cost=job.cost,
                        latency_seconds=0.0,  # a fleet does not time its jobs one by one
                        retries=0,
                        requests=job.requests,
                        evidence={},
                        error=job.error,
                        error_type=job.error_type,
                        model=str(fleet.model or ""),
                    )
            finally:
                fleet.close()
    return [[run or _lost() for run in per_case] for per_case in runs]


def _lost() -> CaseRun:
    return CaseRun(None, 0.0, 0.0, 0, 0, {}, "the fleet returned no result", "StateError")
