"""`EvalReport`: the results of one eval run, saved, loaded, rendered and compared."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    InvalidInputError,
    MissingFileError,
)
from doc_processing_toolkit.domain.evals.results import (
    CaseResult,
    Comparison,
    ModelSummary,
    compare_models,
    summarise,
)

__all__ = ["EvalReport"]

_FORMAT = "dpt-eval-report/1"


@dataclass(slots=True)
class EvalReport:
    """Every case result of a run, per model (several models: a side-by-side run)."""

    cases: list[CaseResult]
    models: list[str]
    dataset: str | None = None
    created_at: str = ""
    concurrency: int = 1
    repeat: int = 1
    wall_seconds: float = 0.0
    """The whole run's wall-clock time."""
    meta: dict[str, Any] = field(default_factory=dict)

    def cases_of(self, model: str) -> list[CaseResult]:
        """The results of one model, in dataset order."""
        return [c for c in self.cases if c.model == model]

    def summary(self, model: str | None = None) -> ModelSummary:
        """One model's aggregates (the only model's when None).

        Raises:
            ConfigurationError: no such model in the report.
        """
        if model is None:
            model = self.models[0]
        if model not in self.models:
            raise ConfigurationError(f"no model {model!r} in this report (it has {self.models})")
        return summarise(model, self.cases_of(model))

    @property
    def summaries(self) -> dict[str, ModelSummary]:
        """Every model's aggregates, by model label."""
        return {m: self.summary(m) for m in self.models}

    # ------------------------------------------------------------------ storage
    def to_dict(self) -> dict[str, Any]:
        """JSON data (with each model's summary, for readers other than `load`)."""
        return {
            "format": _FORMAT,
            "dataset": self.dataset,
            "created_at": self.created_at,
            "models": list(self.models),
            "concurrency": self.concurrency,
            "repeat": self.repeat,
            "wall_seconds": self.wall_seconds,
            "meta": self.meta,
            "summaries": {m: s.to_dict() for m, s in self.summaries.items()},
            "cases": [c.to_dict() for c in self.cases],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalReport:
        """From `to_dict` data.

        Raises:
            InvalidInputError: not an eval report.
        """
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise InvalidInputError(f"not an eval report (format {_FORMAT!r} expected)")
        try:
            return cls(
                cases=[CaseResult.from_dict(c) for c in data.get("cases", [])],
                models=[str(m) for m in data["models"]],
                dataset=data.get("dataset"),
                created_at=str(data.get("created_at", "")),
                concurrency=int(data.get("concurrency", 1)),
                repeat=int(data.get("repeat", 1)),
                wall_seconds=float(data.get("wall_seconds", 0.0)),
                meta=dict(data.get("meta") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"malformed eval report: {exc!r}") from exc

    def to_json(self, path: str | Path) -> Path:
        """Write the report as JSON; returns the path."""
        target = Path(path)
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False, default=str)
        target.write_text(text + "\n", encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | Path) -> EvalReport:
        """Read a report `to_json` wrote.

        Raises:
            MissingFileError: no such file.
            InvalidInputError: not JSON, or not an eval report (naming the file).
        """
        source = Path(path)
        if not source.is_file():
            raise MissingFileError(f"{source}: no such eval report")
        try:
            return cls.from_dict(json.loads(source.read_text(encoding="utf-8")))
        except ValueError as exc:
            raise InvalidInputError(f"{source}: {exc}") from exc

    # ------------------------------------------------------------------ rendering
    def to_markdown(self) -> str:
        """The summary table and every model's failing fields, as Markdown."""
        from doc_processing_toolkit.application.evals.render import markdown

        return markdown(self)

    def to_html(self, path: str | Path) -> Path:
        """Write one self-contained HTML page (a table per model, an inline SVG chart of
        accuracy and cost per model; nothing fetched); returns the path."""
        from doc_processing_toolkit.application.evals.render import html

        target = Path(path)
        target.write_text(html(self), encoding="utf-8")
        return target

    # ------------------------------------------------------------------ regressions
    def compare(self, baseline: EvalReport) -> Comparison:
        """What changed since ``baseline``: fields and cases that got worse or better (per
        model, first repeat of each case) and the change of accuracy and cost per document.
        Models are paired by label; two single-model reports are paired whatever their
        labels."""
        pairs = [(m, m) for m in self.models if m in baseline.models]
        if not pairs and len(self.models) == 1 and len(baseline.models) == 1:
            pairs = [(self.models[0], baseline.models[0])]
        regressions, improvements = [], []
        cost: dict[str, float] = {}
        accuracy: dict[str, float] = {}
        for now, before in pairs:
            worse, better = compare_models(now, self.cases_of(now), baseline.cases_of(before))
            regressions.extend(worse)
            improvements.extend(better)
            new, old = self.summary(now), baseline.summary(before)
            cost[now] = new.mean_cost_per_document - old.mean_cost_per_document
            accuracy[now] = new.field_accuracy - old.field_accuracy
        return Comparison(regressions, improvements, cost, accuracy)
