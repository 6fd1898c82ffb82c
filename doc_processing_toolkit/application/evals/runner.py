"""`evaluate`: run a dataset's cases on one Agent or several, concurrently, and score them.

Each Agent is reused for all its cases (its SDK clients and connection pools with it);
the cases run ``concurrency`` at a time over all models together. A case whose run fails
is recorded with its error (and what it spent before failing), never raised.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from doc_processing_toolkit.application.evals.dataset import EvalCase, EvalDataset
from doc_processing_toolkit.application.evals.report import EvalReport
from doc_processing_toolkit.application.run.stream.streaming import run_blocking
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.evals.fields import FieldResult, compare_fields
from doc_processing_toolkit.domain.evals.matching import DEFAULT_FUZZY_THRESHOLD
from doc_processing_toolkit.domain.evals.results import CaseResult

__all__ = [
    "CaseRun",
    "EvalAgent",
    "EvalMode",
    "EvalProgress",
    "FleetCases",
    "aevaluate",
    "evaluate",
    "score_case",
]

EvalMode = Literal["interactive", "fleet"]


class EvalAgent(Protocol):
    """What `evaluate` needs of an Agent."""

    @property
    def model(self) -> str: ...

    async def run(self, message: str, **kwargs: Any) -> Any: ...


class _Evidence(Protocol):
    """What the evals read of an ``AgentResult.evidence`` entry (``run(evidence=True)``)."""

    page: int | None
    verified: bool


@dataclass(frozen=True, slots=True)
class EvalProgress:
    """Where a running eval is: finished case runs out of all, failures, spend."""

    done: int
    total: int
    failed: int
    cost: float
    running: int = 0
    """Case runs in flight now."""

    @property
    def finished(self) -> bool:
        """Every case run has finished."""
        return self.done >= self.total


@dataclass(frozen=True, slots=True)
class CaseRun:
    """One case's raw outcome before scoring."""

    output: Any
    cost: float
    latency_seconds: float
    retries: int
    requests: int
    evidence: dict[str, Any]
    error: str | None = None
    error_type: str | None = None
    model: str = ""
    """The model that served it (fleet runs name it here)."""


FleetCases = Callable[[Callable[[], Any], list[EvalCase], int, int], list[list[CaseRun]]]
"""Runs ``cases`` (each ``repeat`` times) through a fleet of the factory's Agents with the
given concurrency: ``(factory, cases, concurrency, repeat) -> [per case: [per repeat]]``."""

AgentSpec = Any
"""An Agent, a no-argument factory of one, or a list of either (side by side)."""


def _plain(output: Any) -> Any:
    return output.model_dump(mode="json") if isinstance(output, BaseModel) else output


def outcome(result: Any, error: BaseException | None, latency: float) -> CaseRun:
    """A run's result (or a failed run's partial one) as a `CaseRun`."""
    evidence = getattr(result, "evidence", None) or {}
    return CaseRun(
        output=_plain(getattr(result, "output", None)) if error is None else None,
        cost=float(getattr(result, "cost", 0.0) or 0.0),
        latency_seconds=latency,
        retries=int(getattr(result, "retry_count", 0) or 0),
        requests=len(getattr(result, "request_cost_records", None) or []),
        evidence=dict(evidence) if isinstance(evidence, dict) else {},
        error=None if error is None else (str(error) or type(error).__name__),
        error_type=None if error is None else type(error).__name__,
    )


def _with_evidence(result: FieldResult, evidence: dict[str, Any]) -> FieldResult:
    found: _Evidence | None = evidence.get(result.path)
    if found is None:
        return result
    page = getattr(found, "page", None)
    verified = getattr(found, "verified", None)
    return FieldResult(
        result.path,
        result.verdict,
        result.expected,
        result.actual,
        result.method,
        result.score,
        page if isinstance(page, int) else None,
        verified if isinstance(verified, bool) else None,
    )


def score_case(
    case: EvalCase,
    model: str,
    repeat: int,
    run: CaseRun,
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
) -> CaseResult:
    """Compare a case's outcome with its expected fields."""
    compared = compare_fields(
        case.expected, run.output, case.schema_json, fuzzy_threshold=fuzzy_threshold
    )
    return CaseResult(
        case=case.name,
        model=model,
        repeat=repeat,
        fields=[_with_evidence(f, run.evidence) for f in compared.fields],
        lists=compared.lists,
        output=run.output,
        error=run.error,
        error_type=run.error_type,
        cost=run.cost,
        latency_seconds=run.latency_seconds,
        retries=run.retries,
        requests=run.requests,
        tags=list(case.tags),
    )


def _labels(models: list[str]) -> list[str]:
    labels: list[str] = []
    for model in models:
        label, n = model, 1
        while label in labels:
            n += 1
            label = f"{model}#{n}"
        labels.append(label)
    return labels


def _specs(agent: AgentSpec) -> list[Any]:
    specs = list(agent) if isinstance(agent, Sequence) and not isinstance(agent, str) else [agent]
    if not specs:
        raise ConfigurationError("evaluate() needs at least one Agent (or factory)")
    for spec in specs:
        if not (hasattr(spec, "run") or callable(spec)):
            raise ConfigurationError(
                f"evaluate() takes Agents or factories of one, got {type(spec).__name__}"
            )
    return specs


def _check(concurrency: int, repeat: int, mode: str) -> None:
    if concurrency < 1 or repeat < 1:
        raise ConfigurationError(
            f"concurrency and repeat must be at least 1, got {concurrency} and {repeat}"
        )
    if mode not in ("interactive", "fleet"):
        raise ConfigurationError(f"mode must be 'interactive' or 'fleet', got {mode!r}")


class _Runner:
    def __init__(
        self,
        concurrency: int,
        total: int,
        evidence: bool,
        on_progress: Callable[[EvalProgress], None] | None,
    ) -> None:
        self.gate = asyncio.Semaphore(concurrency)
        self.total = total
        self.evidence = evidence
        self.on_progress = on_progress
        self.done = self.failed = self.running = 0
        self.cost = 0.0

    def tick(self, run: CaseRun) -> None:
        self.done += 1
        self.failed += run.error is not None
        self.cost += run.cost
        if self.on_progress is not None:
            progress = EvalProgress(self.done, self.total, self.failed, self.cost, self.running)
            self.on_progress(progress)

    async def one(self, agent: EvalAgent, case: EvalCase) -> CaseRun:
        kwargs: dict[str, Any] = {
            "files": list(case.files) or None,
            "output_schema": case.output_schema,
        }
        if self.evidence and "evidence" in inspect.signature(agent.run).parameters:
            kwargs["evidence"] = True
        async with self.gate:
            self.running += 1
            started = time.perf_counter()
            try:
                result = await agent.run(case.prompt, **kwargs)
            except Exception as exc:  # a failed case is a result, never an exception
                run = outcome(
                    getattr(exc, "partial_result", None), exc, time.perf_counter() - started
                )
            else:
                run = outcome(result, None, time.perf_counter() - started)
            finally:
                self.running -= 1
        self.tick(run)
        return run


async def aevaluate(
    agent: AgentSpec,
    dataset: EvalDataset,
    *,
    concurrency: int = 4,
    repeat: int = 1,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    evidence: bool = False,
    mode: EvalMode = "interactive",
    on_progress: Callable[[EvalProgress], None] | None = None,
    fleet_cases: FleetCases | None = None,
) -> EvalReport:
    """`evaluate` in a running event loop (interactive mode only)."""
    _check(concurrency, repeat, mode)
    specs = _specs(agent)
    started = time.perf_counter()
    if mode == "fleet":
        raise ConfigurationError("mode='fleet' runs through evaluate(), not aevaluate()")
    runs, labels = await _interactive_runs(
        specs, dataset, concurrency, repeat, evidence, on_progress
    )
    return _report(
        runs,
        labels,
        dataset,
        concurrency,
        repeat,
        fuzzy_threshold,
        evidence,
        mode,
        time.perf_counter() - started,
    )


def _report(
    runs: list[list[list[CaseRun]]],
    labels: list[str],
    dataset: EvalDataset,
    concurrency: int,
    repeat: int,
    fuzzy_threshold: float,
    evidence: bool,
    mode: str,
    wall: float,
) -> EvalReport:
    cases = [
        score_case(case, label, rep, runs[m][c][rep], fuzzy_threshold=fuzzy_threshold)
        for m, label in enumerate(labels)
        for c, case in enumerate(dataset.cases)
        for rep in range(repeat)
    ]
    return EvalReport(
        cases=cases,
        models=labels,
        dataset=dataset.path,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        concurrency=concurrency,
        repeat=repeat,
        wall_seconds=wall,
        meta={"mode": mode, "fuzzy_threshold": fuzzy_threshold, "evidence": evidence},
    )


async def _interactive_runs(
    specs: list[Any],
    dataset: EvalDataset,
    concurrency: int,
    repeat: int,
    evidence: bool,
    on_progress: Callable[[EvalProgress], None] | None,
) -> tuple[list[list[list[CaseRun]]], list[str]]:
    built = [spec if hasattr(spec, "run") else spec() for spec in specs]
    owned = [a for a, spec in zip(built, specs, strict=True) if a is not spec]
    runner = _Runner(concurrency, len(built) * len(dataset.cases) * repeat, evidence, on_progress)
    try:
        tasks = [
            [
                [asyncio.ensure_future(runner.one(a, case)) for _ in range(repeat)]
                for case in dataset.cases
            ]
            for a in built
        ]
        flat = [t for per_model in tasks for per_case in per_model for t in per_case]
        await asyncio.gather(*flat)
        runs = [[[t.result() for t in per_case] for per_case in per_model] for per_model in tasks]
    finally:
        for made in owned:
            close = getattr(made, "close", None)
            if close is not None:
                await close()
    return runs, _labels([str(getattr(a, "model", "model")) for a in built])


def _fleet_runs(
    specs: list[Any],
    dataset: EvalDataset,
    concurrency: int,
    repeat: int,
    fleet_cases: FleetCases,
) -> tuple[list[list[list[CaseRun]]], list[str]]:
    runs: list[list[list[CaseRun]]] = []
    models: list[str] = []
    for spec in specs:
        if hasattr(spec, "run"):
            raise ConfigurationError(
                "mode='fleet' needs Agent factories (the fleet builds one Agent per job in "
                f"its workers), got an {type(spec).__name__} instance"
            )
        runs.append(fleet_cases(spec, dataset.cases, concurrency, repeat))
        models.append(str(runs[-1][0][0].model if runs[-1] and runs[-1][0] else "model"))
    return runs, _labels(models)


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
    fleet_cases: FleetCases | None = None,
) -> EvalReport:
    """Run every case of ``dataset`` on ``agent`` and score it (blocking; works inside a
    running loop too). See `doc_processing_toolkit.evals.evaluate`."""
    _check(concurrency, repeat, mode)
    specs = _specs(agent)
    if mode == "fleet":
        if fleet_cases is None:
            raise ConfigurationError(
                "mode='fleet' needs a fleet runner (doc_processing_toolkit"
                ".evals.evaluate passes one)"
            )
        started = time.perf_counter()
        runs, labels = _fleet_runs(specs, dataset, concurrency, repeat, fleet_cases)
        return _report(
            runs,
            labels,
            dataset,
            concurrency,
            repeat,
            fuzzy_threshold,
            evidence,
            mode,
            time.perf_counter() - started,
        )
    agents = [s for s in specs if hasattr(s, "run")]

    async def run_and_release() -> EvalReport:
        try:
            return await aevaluate(
                agent,
                dataset,
                concurrency=concurrency,
                repeat=repeat,
                fuzzy_threshold=fuzzy_threshold,
                evidence=evidence,
                mode=mode,
                on_progress=on_progress,
                fleet_cases=fleet_cases,
            )
        finally:
            for made in agents:
                release = getattr(made, "release_loop_resources", None)
                if release is not None:
                    await release()

    return run_blocking(run_and_release)
