"""``dpt eval run DATASET --model M [--model M2 ...]``: run an eval dataset, print the
summary as Markdown, write the JSON / HTML reports, compare with a baseline.

Exit codes: 0 done (failed cases are results), 1 a regression against ``--baseline`` with
``--fail-on-regression`` (so it can gate CI), 2 a usage or dataset error. A progress bar
goes to stderr while the cases run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from doc_processing_toolkit.cli.fleet import ProgressBar
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.fleet import FleetStatus

__all__ = ["add_commands"]


def _cmd_run(args: argparse.Namespace) -> int:
    from doc_processing_toolkit.agent import Agent
    from doc_processing_toolkit.evals import EvalDataset, EvalProgress, EvalReport, evaluate

    if args.baseline is None and args.fail_on_regression:
        raise ConfigurationError("--fail-on-regression needs --baseline OLD_REPORT.json")
    dataset = EvalDataset.load(args.dataset)
    baseline = EvalReport.load(args.baseline) if args.baseline else None
    agents = [Agent(model, args.instructions or "", log_to_file=False) for model in args.model]
    bar = ProgressBar(sys.stderr)

    def progress(state: EvalProgress) -> None:
        bar(
            FleetStatus(
                queued=state.total - state.done - state.running,
                running=state.running,
                done=state.done - state.failed,
                failed=state.failed,
                spend=state.cost,
            )
        )

    try:
        report = evaluate(
            agents,
            dataset,
            concurrency=args.concurrency,
            repeat=args.repeat,
            evidence=args.evidence,
            on_progress=progress,
        )
    finally:
        bar.close()
    print(report.to_markdown())
    if args.out:
        print(f"report: {report.to_json(args.out)}", file=sys.stderr)
    if args.html:
        print(f"html report: {report.to_html(args.html)}", file=sys.stderr)
    if baseline is None:
        return 0
    comparison = report.compare(baseline)
    print(comparison.to_markdown())
    return 1 if comparison.regressed and args.fail_on_regression else 0


def add_commands(sub: Any) -> None:
    """Register ``dpt eval run``."""
    evals = sub.add_parser("eval", help="extraction evals: accuracy and cost per model")
    commands = evals.add_subparsers(dest="eval_command", required=True)
    run = commands.add_parser("run", help="run an eval dataset (YAML or JSONL) on models")
    run.add_argument("dataset", help="the dataset file (.yaml, .yml or .jsonl)")
    run.add_argument(
        "--model",
        action="append",
        required=True,
        help="a registry model name; repeat it for a side-by-side run",
    )
    run.add_argument("--out", default=None, metavar="REPORT.json", help="write the JSON report")
    run.add_argument("--html", default=None, metavar="REPORT.html", help="write the HTML report")
    run.add_argument(
        "--baseline",
        default=None,
        metavar="OLD.json",
        help="an earlier JSON report: print what got worse or better",
    )
    run.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a field or case got worse than in --baseline",
    )
    run.add_argument("--concurrency", type=int, default=4, help="case runs at once (4)")
    run.add_argument("--repeat", type=int, default=1, help="runs of each case (1)")
    run.add_argument("--evidence", action="store_true", help="ask for per-field evidence pages")
    run.add_argument("--instructions", default="", help="the system prompt (default: none)")
    run.set_defaults(func=_cmd_run)
