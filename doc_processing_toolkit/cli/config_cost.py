"""``dpt config schema|check`` and ``dpt cost``: configuration files and cost reports.

::

    dpt config schema > agent.schema.json     # JSON Schema for editors
    dpt config check agent.yaml               # the validated config, or every problem
    dpt cost agent_costs/cost_report_<id>.json   # one run, one row per request
    dpt cost agent_costs/                     # every report, summed by model and by day
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from doc_processing_toolkit._redaction import redact_text
from doc_processing_toolkit.agent.config import (
    ConfigParseError,
    ConfigValidationError,
    config_json_schema,
    default_registry_check,
)
from doc_processing_toolkit.agent.cost import DetailedCostReport
from doc_processing_toolkit.application.config.env_references import EnvReferences, as_written
from doc_processing_toolkit.application.config.yaml_loader import config_file_problems
from doc_processing_toolkit.cli.render import mask_secrets, report_summary, report_table
from doc_processing_toolkit.domain.errors import InvalidInputError, MissingFileError

__all__ = ["add_commands"]


def _cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(config_json_schema(), indent=2))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    import yaml

    config, problems, sources = config_file_problems(
        args.file, registry_check=default_registry_check
    )
    if config is not None:
        refused = _build(args.file)  # what only the constructor can refuse (a tool file, ...)
        if refused is not None:
            problems.append(refused)
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
        print(f"dpt: {args.file}: invalid configuration ({count})", file=sys.stderr)
        for problem in problems:
            print(f"  {redact_text(str(problem))}", file=sys.stderr)
        return 2
    print(f"# {args.file}: valid", file=sys.stderr)
    shown = as_written(mask_secrets(config), EnvReferences.of(sources))  # ${NAME}, no value
    print(yaml.safe_dump(shown, sort_keys=False), end="")
    return 0


def _build(path: str) -> ConfigValidationError | ConfigParseError | None:
    """Construct (and drop) the Agent of ``path``: no request is sent, nothing connects,
    and the passed logger keeps the check from opening a log file. Returns the
    constructor's refusal, if any."""
    import logging

    from doc_processing_toolkit.agent import Agent

    try:
        Agent.from_config(path, logger=logging.getLogger("doc_processing_toolkit.cli.check"))
    except (ConfigParseError, ConfigValidationError) as exc:
        return exc
    except NotImplementedError as exc:
        return ConfigValidationError(str(exc))
    return None


def _load_reports(path: Path) -> list[DetailedCostReport]:
    files = sorted(path.glob("cost_report_*.json")) if path.is_dir() else [path]
    if not files:
        raise MissingFileError(f"no cost_report_*.json files in {path}")
    reports = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not _REPORT_KEYS <= data.keys():
                missing = ", ".join(sorted(_REPORT_KEYS - set(data)))
                shape = f"no {missing}" if isinstance(data, dict) else type(data).__name__
                raise InvalidInputError(f"{file}: not a cost report ({shape})")
            reports.append(DetailedCostReport.from_dict(data))
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError, KeyError) as exc:
            raise InvalidInputError(f"{file}: not a cost report ({exc})") from None
    return reports


_REPORT_KEYS = {"run_id", "model_name", "iterations", "total_cost"}
"""Keys every report `DetailedCostReport.save` writes has: a JSON file without them is
some other file, refused rather than shown as an empty table."""


def _cmd_cost(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if not path.exists():
        raise MissingFileError(f"{path} does not exist")
    reports = _load_reports(path)
    if path.is_dir():
        report_summary(reports, sys.stdout)
    else:
        report_table(reports[0], sys.stdout)
    return 0


def add_commands(sub: Any) -> None:
    """Register ``config`` and ``cost`` on the ``dpt`` sub-command parser."""
    config = sub.add_parser("config", help="the YAML configuration: schema and checks")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    schema = config_sub.add_parser("schema", help="print the JSON Schema of an agent YAML file")
    schema.set_defaults(func=_cmd_schema)
    check = config_sub.add_parser("check", help="validate an agent YAML file")
    check.add_argument("file", metavar="FILE.yaml", help="the YAML configuration to validate")
    check.set_defaults(func=_cmd_check)

    cost = sub.add_parser("cost", help="render a cost report, or sum a directory of them")
    cost.add_argument(
        "path",
        metavar="REPORT.json|DIR",
        help="a cost report, or a directory of cost_report_*.json files to sum",
    )
    cost.set_defaults(func=_cmd_cost)
