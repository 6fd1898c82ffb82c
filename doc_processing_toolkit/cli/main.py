"""The ``dpt`` command: run an agent, list the registry, or watch an offline demo.

::

    dpt run "What is 2 + 3?" --model claude-sonnet-5-5 --tool tools.py --stream
    dpt run "Summarise." --model gpt-5 --file contract.pdf --pages 41-60
    dpt models [--provider anthropic]
    dpt demo [--model claude-sonnet-5-5]
    dpt config schema | dpt config check agent.yaml
    dpt cost REPORT.json | dpt cost agent_costs/
    dpt fleet run jobs.jsonl --model M [--mode batch] | dpt fleet status | dpt fleet results
    dpt docs serve --root DIR
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from doc_processing_toolkit import __version__
from doc_processing_toolkit.agent import Agent, AgentResult
from doc_processing_toolkit.cli import docs as docs_cli
from doc_processing_toolkit.cli import evals as evals_cli
from doc_processing_toolkit.cli import fleet as fleet_cli
from doc_processing_toolkit.cli.config_cost import add_commands
from doc_processing_toolkit.cli.files import input_files
from doc_processing_toolkit.cli.render import cost_line, held_warnings, stream_run
from doc_processing_toolkit.cli.tool_files import load_tool_file as _load_tool_file
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    InvalidArgumentTypeError,
)

__all__ = ["main"]


def _cmd_run(args: argparse.Namespace) -> int:
    tools: list[Any] = []
    for path in args.tool or []:
        tools.extend(_load_tool_file(path))
    files = input_files(args.file, args.pages)
    out = sys.stdout
    # Warnings go to stderr after the answer, never into the middle of it.
    with held_warnings(sys.stderr) as logger:
        agent = Agent(
            args.model,
            args.instructions or "",
            tools=tools or None,
            logger=logger,
            deployment=args.deployment,
        )
        progress = None if args.stream or args.json else sys.stderr
        final = asyncio.run(
            stream_run(agent, args.message, out if args.stream else None, files, progress)
        )
        if final.get("error_type") == "ConfigurationError":
            # A missing key or a refused setting, found before anything was sent: the
            # user's to fix (exit 2), one line, no cost line and no repeated warning.
            raise ConfigurationError(str(final["error"]).removeprefix("ConfigurationError: "))
    if args.json:
        print(json.dumps(final, indent=2, default=str), file=out)
    else:
        result = AgentResult.from_dict(final)
        if not args.stream and not final.get("error"):
            print(result.output, file=out)
        print(cost_line(result), file=out)
    if final.get("error"):
        print(f"dpt: the run failed: {final['error']}", file=sys.stderr)
        return 1
    return 0


def _price(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def _cmd_models(args: argparse.Namespace) -> int:
    from doc_processing_toolkit.application.container import registry

    rows = registry().models()
    if args.provider:
        known = sorted({r.provider for r in rows})
        if args.provider not in known:
            raise UsageError(
                f"unknown provider {args.provider!r}; the registry knows {', '.join(known)}"
            )
        rows = [r for r in rows if r.provider == args.provider]
    print(f"{'model':<36} {'provider':<10} {'window':>9} {'in $/M':>8} {'out $/M':>8}")
    for row in rows:
        window = f"{row.context_window_tokens:,}" if row.context_window_tokens else "?"
        print(
            f"{row.model:<36} {row.provider:<10} {window:>9} "
            f"{_price(row.pricing.input_per_mtok):>8} {_price(row.pricing.output_per_mtok):>8}"
        )
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from doc_processing_toolkit.cli.demo import run_demo

    return run_demo(args.model, sys.stdout)


class UsageError(ConfigurationError):
    """A command line the user should change (exit code 2)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpt",
        description="doc-processing-toolkit: run agents over Anthropic, OpenAI, Gemini and "
        "Fireworks. Exit codes: 0 success, 1 the run failed, 2 a usage or input error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run an agent on one message")
    run.add_argument("message", help="the user message")
    run.add_argument(
        "--model", required=True, help="a registry model name (see `dpt models`), e.g. gpt-4o"
    )
    run.add_argument("--tool", action="append", metavar="FILE.py", help="a file of @tool functions")
    run.add_argument("--instructions", default="", help="the system prompt (default: none)")
    run.add_argument(
        "--file", action="append", metavar="PATH_OR_URL", help="a document, image or URL to send"
    )
    run.add_argument(
        "--pages",
        metavar="PAGES",
        help='send only these pages of each PDF given with --file, e.g. "1-20,25" (1-based, '
        "inclusive; the page numbers reported are the original ones)",
    )
    run.add_argument(
        "--deployment",
        choices=("vertex", "bedrock", "foundry", "azure"),
        help="serve the model on this cloud (its options from the SDK's variables, e.g. "
        "AWS_REGION, ANTHROPIC_VERTEX_PROJECT_ID, AZURE_OPENAI_ENDPOINT)",
    )
    run.add_argument("--stream", action="store_true", help="stream text and tool calls")
    run.add_argument("--json", action="store_true", help="print the whole result as JSON")
    run.set_defaults(func=_cmd_run)

    models = sub.add_parser("models", help="list registry models with windows and prices")
    models.add_argument(
        "--provider", help="only this provider's rows (anthropic, openai, google, fireworks)"
    )
    models.set_defaults(func=_cmd_models)

    demo = sub.add_parser("demo", help="an offline tool-using agent against the local emulator")
    demo.add_argument(
        "--model",
        default="claude-sonnet-5-5",
        help="the model the emulator plays (any provider's; default: claude-sonnet-5-5)",
    )
    demo.set_defaults(func=_cmd_demo)
    add_commands(sub)
    fleet_cli.add_commands(sub)
    docs_cli.add_commands(sub)
    evals_cli.add_commands(sub)
    return parser


_SIGPIPE_EXIT = 128 + 13
"""What a Unix tool whose reader went away exits with (killed by SIGPIPE: 141)."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``dpt``.

    A reader that stops early (``dpt config schema | head``) ends the command quietly, as
    it ends any Unix tool: no BrokenPipeError, exit status 141 (128 + SIGPIPE).
    """
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        _drop_stdout()
        return _SIGPIPE_EXIT
    return code


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush finds no closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real descriptor (a test's capture)
        pass


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        raise
    except (
        UsageError,
        ValueError,
        InvalidArgumentTypeError,
        FileNotFoundError,
        NotImplementedError,
    ) as exc:
        print(f"dpt: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        print(f"dpt: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
