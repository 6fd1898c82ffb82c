"""``dpt fleet run|status|results|approvals``: a backlog of documents as one durable fleet.

::

    dpt fleet run jobs.jsonl --model claude-sonnet-5-5 [--mode batch] [--workers N]
                             [--database-url URL] [--tool tools.py] [--instructions TEXT]
    dpt fleet status [--database-url URL]
    dpt fleet results [--out results.jsonl] [--database-url URL]
    dpt fleet approvals [--approve JOB:CALL | --refuse JOB:CALL --message M] [--json]

Each line of ``jobs.jsonl`` is ``{"id": ..., "message": ..., "files": [...]}`` (``files``
optional; each a path or URL, or ``{"document": path, "pages": "41-60"}`` to send only
those pages of a PDF). A job may add ``"output_schema": "module:Model"`` (a pydantic
model the workers can import) and ``"evidence": true`` for a structured extraction with
evidence. ``run`` submits every line (an id already submitted is not run again), then
works in this process with ``--workers`` jobs at once until the queue is empty, with a
progress bar on stderr. The same command on another machine with the same Postgres
``--database-url`` (and its own ``--worker-id``) drains the same queue. Exit codes: 0
every job done, 1 some job failed, 2 a usage or input error. ``approvals`` lists the
deferred tool calls of parked jobs (one per line: job, call id, tool, arguments, reason),
or answers one; once a job's calls are all answered it is queued again, and the next
``dpt fleet run`` (or any worker) finishes it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from doc_processing_toolkit.application.config.schema_reference import schema_reference
from doc_processing_toolkit.cli.tool_files import load_tool_file
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    DocProcessingToolkitError,
    InvalidInputError,
    MissingFileError,
)
from doc_processing_toolkit.fleet import Fleet, FleetStatus

__all__ = ["ProgressBar", "add_commands", "read_jobs"]


def read_jobs(path: str) -> list[dict[str, Any]]:
    """The jobs of a JSONL file, checked.

    Raises:
        MissingFileError: no such file.
        InvalidInputError: a line that is not a job, naming the line.
    """
    file = Path(path)
    if not file.is_file():
        raise MissingFileError(f"jobs file not found: {path}")
    jobs: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            job = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(job, dict):
            raise InvalidInputError(f"{path}:{number}: a job is an object with id and message")
        job_id, message, files = job.get("id"), job.get("message"), job.get("files") or []
        if not isinstance(job_id, str) or not job_id:
            raise InvalidInputError(f"{path}:{number}: 'id' must be a non-empty string")
        if not isinstance(message, str):
            raise InvalidInputError(f"{path}:{number}: 'message' must be a string")
        if not isinstance(files, list) or not all(
            isinstance(f, str) or Document.is_payload(f) for f in files
        ):
            raise InvalidInputError(
                f"{path}:{number}: 'files' must be a list of paths or URLs, or "
                '{"document": path, "pages": "1-20"} objects'
            )
        try:
            files = [Document.from_payload(f) if isinstance(f, dict) else f for f in files]
        except DocProcessingToolkitError as exc:
            raise InvalidInputError(f"{path}:{number}: {exc}") from exc
        if job_id in seen:
            raise InvalidInputError(f"{path}:{number}: job id {job_id!r} appears twice")
        seen.add(job_id)
        structured = {k: job[k] for k in ("output_schema", "evidence") if k in job}
        if "output_schema" in structured:
            try:
                structured["output_schema"] = schema_reference(structured["output_schema"])
            except DocProcessingToolkitError as exc:
                raise InvalidInputError(f"{path}:{number}: {exc}") from exc
        jobs.append({"id": job_id, "message": message, "files": files, **structured})
    if not jobs:
        raise InvalidInputError(f"{path} holds no jobs")
    return jobs


class ProgressBar:
    """``[#####-----] 120/200  done 117  failed 3  running 8  $0.4211`` on a terminal
    (redrawn in place), one line per change elsewhere."""

    def __init__(self, out: TextIO, width: int = 30) -> None:
        self._out = out
        self._width = width
        self._tty = out.isatty()
        self._last = ""
        self._last_time = 0.0

    def __call__(self, status: FleetStatus) -> None:
        """Draw ``status``."""
        total = max(status.total, 1)
        finished = status.done + status.failed
        filled = int(self._width * finished / total)
        line = (
            f"[{'#' * filled}{'-' * (self._width - filled)}] {finished}/{status.total}  "
            f"done {status.done}  failed {status.failed}  running {status.running}  "
            f"${status.spend:.4f}"
        )
        if line == self._last:
            return
        now = time.monotonic()
        if self._tty:
            self._out.write("\r" + line)
        elif now - self._last_time >= 1.0 or status.finished:
            self._out.write(line + "\n")
        else:
            return
        self._out.flush()
        self._last, self._last_time = line, now

    def close(self) -> None:
        """End the bar's line."""
        if self._tty and self._last:
            self._out.write("\n")
            self._out.flush()


def _fleet(args: argparse.Namespace, factory: Any = None, **kwargs: Any) -> Fleet:
    return Fleet(
        factory,
        args.database_url,
        name=args.name,
        worker_id=getattr(args, "worker_id", None),
        **kwargs,
    )


def _cmd_run(args: argparse.Namespace) -> int:
    from doc_processing_toolkit.agent import Agent

    jobs = read_jobs(args.jobs)
    tools: list[Any] = []
    for path in args.tool or []:
        tools.extend(load_tool_file(path))
    if args.workers < 1:
        raise ConfigurationError(f"--workers must be at least 1, got {args.workers}")

    def agent() -> Agent:
        return Agent(args.model, args.instructions or "", tools=tools or None, log_to_file=False)

    fleet = _fleet(args, agent, mode=args.mode, concurrency=args.workers)
    try:
        new = sum(
            fleet.submit(
                j["id"],
                j["message"],
                j["files"],
                output_schema=j.get("output_schema"),
                evidence=bool(j.get("evidence")),
            )
            for j in jobs
        )
        print(f"dpt fleet: {new} new jobs, {len(jobs) - new} already submitted", file=sys.stderr)
        bar = ProgressBar(sys.stderr)
        try:
            fleet.run(on_progress=bar)
        finally:
            bar.close()
        status = fleet.status()
    finally:
        fleet.close()
    print(_summary(status))
    return 1 if status.failed else 0


def _summary(status: FleetStatus) -> str:
    line = (
        f"jobs: {status.total}  done: {status.done}  failed: {status.failed}  "
        f"queued: {status.queued}  running: {status.running}  spend: ${status.spend:.6f}"
    )
    if status.awaiting_approval:
        line += f"\n{status.awaiting_approval} awaiting approval: see `dpt fleet approvals`"
    n = status.unrecorded_requests
    if n:
        requests = "request" if n == 1 else "requests"
        line += (
            f"\n{n} {requests} may have been billed without being recorded (in flight when "
            "a worker died; their cost is not in spend)"
        )
    return line


def _existing_database(args: argparse.Namespace) -> None:
    """Refuse to read a fleet whose SQLite file does not exist: opening it would create an
    empty database and report an empty fleet (Postgres URLs are the server's to judge)."""
    url = args.database_url
    if url is None:
        path = Path.cwd() / f"{args.name}.sqlite"
    elif url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
    elif "://" in url:
        return
    else:
        path = Path(url)
    if not path.is_file():
        raise MissingFileError(
            f"no fleet database at {path}: `dpt fleet run` creates it "
            "(or pass --database-url / --name of an existing fleet)"
        )


def _cmd_status(args: argparse.Namespace) -> int:
    _existing_database(args)
    fleet = _fleet(args)
    try:
        status = fleet.status()
    finally:
        fleet.close()
    if args.json:
        data = {
            "queued": status.queued,
            "running": status.running,
            "done": status.done,
            "failed": status.failed,
            "awaiting_approval": status.awaiting_approval,
            "spend": status.spend,
            "unrecorded_requests": status.unrecorded_requests,
        }
        print(json.dumps(data))
    else:
        print(_summary(status))
    return 0


def _cmd_results(args: argparse.Namespace) -> int:
    _existing_database(args)
    fleet = _fleet(args)
    try:
        lines = (json.dumps(r.to_dict(), default=str) + "\n" for r in fleet.results().values())
        if args.out is None:
            sys.stdout.writelines(lines)
            return 0
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
        written = 0
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                for line in lines:  # a page of results at a time, never all of them
                    handle.write(line)
                    written += 1
            os.replace(temp, out)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    finally:
        fleet.close()
    print(f"dpt fleet: {written} results written to {out}", file=sys.stderr)
    return 0


def _job_call(value: str, flag: str) -> tuple[str, str]:
    job, sep, call = value.rpartition(":")
    if not sep or not job or not call:
        raise ConfigurationError(f"{flag} takes JOB:CALL (a job id and a call id), got {value!r}")
    return job, call


def _cmd_approvals(args: argparse.Namespace) -> int:
    _existing_database(args)
    if args.message is not None and args.refuse is None:
        raise ConfigurationError("--message goes with --refuse JOB:CALL")
    fleet = _fleet(args)
    try:
        if args.approve is not None or args.refuse is not None:
            approved = args.approve is not None
            flag = "--approve" if approved else "--refuse"
            job, call = _job_call(args.approve if approved else args.refuse, flag)
            queued = fleet.approve(job, call, approved, message=args.message)
            verb = "approved" if approved else "refused"
            tail = "; the job is queued again" if queued else "; the job waits for its other calls"
            print(f"dpt fleet: {verb} {job}:{call}{tail}", file=sys.stderr)
            return 0
        pending = fleet.pending_approvals()
    finally:
        fleet.close()
    for job_id, calls in pending.items():
        for pending_call in calls:
            if args.json:
                print(json.dumps({"job_id": job_id, **pending_call.to_dict()}, default=str))
                continue
            arguments = json.dumps(pending_call.arguments, default=str)
            fields = (pending_call.call_id, pending_call.tool_name, arguments)
            print("\t".join((job_id, *fields, pending_call.reason or "")))
    return 0


def add_commands(sub: Any) -> None:
    """Add ``fleet run|status|results|approvals`` to the ``dpt`` parser."""
    fleet = sub.add_parser("fleet", help="durable fleets of jobs (DBOS: SQLite or Postgres)")
    commands = fleet.add_subparsers(dest="fleet_command", required=True)

    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--database-url",
            default=None,
            help="a postgresql:// URL shared by workers, or a SQLite file "
            "(default: <name>.sqlite in the working directory)",
        )
        parser.add_argument("--name", default="dpt-fleet", help="the fleet (its queue)")

    run = commands.add_parser("run", help="submit jobs.jsonl and work until the queue is empty")
    run.add_argument("jobs", help='a JSONL file: {"id", "message", "files"} per line')
    run.add_argument("--model", required=True, help="a registry model name, e.g. gpt-4o")
    run.add_argument(
        "--mode",
        choices=("interactive", "batch"),
        default="interactive",
        help="interactive requests, or provider batch APIs at batch prices",
    )
    run.add_argument("--workers", type=int, default=8, help="jobs this process runs at once")
    run.add_argument("--worker-id", default=None, help="this worker's stable name")
    run.add_argument("--tool", action="append", metavar="FILE.py", help="a file of @tool functions")
    run.add_argument("--instructions", default="", help="the system prompt (default: none)")
    common(run)
    run.set_defaults(func=_cmd_run)

    status = commands.add_parser("status", help="queued / running / done / failed and spend")
    status.add_argument("--json", action="store_true", help="print the counts as JSON")
    common(status)
    status.set_defaults(func=_cmd_status)

    results = commands.add_parser("results", help="the finished jobs' results as JSONL")
    results.add_argument("--out", default=None, help="write them to this file (default: stdout)")
    common(results)
    results.set_defaults(func=_cmd_results)

    approvals = commands.add_parser(
        "approvals", help="list parked jobs' deferred tool calls, or approve / refuse one"
    )
    answer = approvals.add_mutually_exclusive_group()
    answer.add_argument("--approve", metavar="JOB:CALL", help="run this deferred call")
    answer.add_argument("--refuse", metavar="JOB:CALL", help="refuse this deferred call")
    approvals.add_argument("--message", default=None, help="the refusal's message to the model")
    approvals.add_argument("--json", action="store_true", help="one JSON object per call")
    common(approvals)
    approvals.set_defaults(func=_cmd_approvals)
