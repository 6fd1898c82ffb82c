"""Fleet test support: an invoice-like job per request, a side-effect tool, a worker process.

Run as a script it is one fleet worker process (the kill and multi-worker tests start
several)::

    python tests/integration/fleet_support.py DATABASE_URL WORKER_ID CONCURRENCY [READY GO]

The environment carries the emulator's URL (``DPT_TEST_EMULATOR_URL``) and the tool's
log file (``DPT_TEST_TOOL_LOG``): every call appends ``<job> <pid>`` to it with one
``O_APPEND`` write, so a tool that ran twice for a job shows as two lines
(``DPT_TEST_RATE_LIMIT``, ``requests/period_seconds``, gives the worker a rate-limited lane). With
``DPT_TEST_TOOL_STARTS`` every execution first appends ``start <job> <key> <pid>`` there
(and ``end ...`` when it returns); with ``DPT_TEST_TOOL_EFFECTS`` (a directory) the tool
makes its effect once per ``ToolContext.idempotency_key``: the file named after the key,
written whole and then linked into place (a re-execution finds it and makes no second
effect; a kill never leaves half an effect).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.fleet import ToolContext
from doc_processing_toolkit.testing.script import Reply, ScriptStep, ToolCall

MODEL = "claude-sonnet-5-5"
_JOB = re.compile(r"job ([\w-]+)")


def _append(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{line}\n".encode())
    finally:
        os.close(fd)


@tool
def lookup(job: str) -> str:
    """Look up an invoice's total."""
    context = ToolContext.current()
    key = context.idempotency_key if context is not None else f"{job}/no-fleet"
    starts = os.environ.get("DPT_TEST_TOOL_STARTS")
    if starts:
        _append(starts, f"start {job} {key} {os.getpid()}")
    delay = float(os.environ.get("DPT_TEST_TOOL_DELAY_S") or 0)
    if delay:  # a slow tool keeps one worker from draining the queue before another polls
        time.sleep(delay)
    effects = os.environ.get("DPT_TEST_TOOL_EFFECTS")
    if effects:  # the effect, made once per idempotency key, whole or not at all
        draft = Path(effects) / f".draft-{os.getpid()}-{threading.get_ident()}"
        draft.write_text(job)
        with contextlib.suppress(FileExistsError):  # a re-execution: made already
            os.link(draft, Path(effects) / quote(key, safe=""))
        draft.unlink()
    log = os.environ.get("DPT_TEST_TOOL_LOG")
    if log:
        _append(log, f"{job} {os.getpid()}")
    if starts:
        _append(starts, f"end {job} {key} {os.getpid()}")
    return f"total for {job}: {len(job) * 7} EUR"


def make_agent() -> Agent:
    """The fleet's agent: the emulator's Anthropic dialect, one tool."""
    return Agent(
        MODEL,
        "Extract invoice totals.",
        tools=[lookup],
        base_url=os.environ["DPT_TEST_EMULATOR_URL"],
        log_to_file=False,
    )


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content if isinstance(b, dict)]


def _has_tool_result(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def job_of(body: dict[str, Any]) -> tuple[str, int]:
    """The job id a wire request belongs to, and its iteration (1: the first request)."""
    messages = body.get("messages") or []
    first = " ".join(_texts(messages[0].get("content", ""))) if messages else ""
    match = _JOB.search(first)
    job = match.group(1) if match else "?"
    return job, 2 if messages and _has_tool_result(messages[-1]) else 1


def profile_of(job: str) -> int:
    """The job's usage profile (0-9): jobs of one profile bill the same tokens."""
    return sum(ord(c) for c in job) % 10


def invoice_responder(body: dict[str, Any]) -> ScriptStep | None:
    """First request of a job: one ``lookup`` call; after the tool result: the answer.
    Token counts depend on the job's profile, so jobs' ledgers differ."""
    job, iteration = job_of(body)
    digits = 7 * profile_of(job)
    if iteration == 1:
        return Reply(
            tool_calls=(ToolCall("lookup", {"job": job}, id=f"toolu_{job}"),),
            input_tokens=100 + digits,
            output_tokens=20,
        )
    return Reply(f"The total of {job} is {len(job) * 7} EUR.", input_tokens=200 + digits)


def tool_log(path: Path) -> list[tuple[str, int]]:
    """The tool log's lines as (job, pid)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        job, pid = line.split()
        out.append((job, int(pid)))
    return out


def main(argv: list[str]) -> int:
    """One worker process: serve the fleet until its queue is empty. With READY and GO
    file paths it touches READY once built and waits for GO before serving (so several
    workers start draining together)."""

    from doc_processing_toolkit.fleet import Fleet, RateLimit

    database_url, worker_id, concurrency = argv[0], argv[1], int(argv[2])
    limit = os.environ.get("DPT_TEST_RATE_LIMIT")  # "requests/period_seconds": a lane
    rate = None
    if limit:
        requests, period = limit.split("/")
        rate = RateLimit(int(requests), float(period))
    fleet = Fleet(
        make_agent, database_url, worker_id=worker_id, concurrency=concurrency, rate_limit=rate
    )
    if len(argv) >= 5:
        Path(argv[3]).touch()
        while not Path(argv[4]).exists():
            time.sleep(0.02)
    fleet.run()
    fleet.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def make_bedrock_agent() -> Agent:
    """The fleet's agent on Amazon Bedrock (the emulator's Bedrock routes, SigV4 checked)."""
    from doc_processing_toolkit.testing.emulator import deployments_wire as cloud

    return Agent(
        "claude-haiku-4-5",
        "Extract invoice totals.",
        tools=[lookup],
        deployment="bedrock",
        deployment_options={
            "region": cloud.AWS_REGION,
            "aws_access_key": cloud.AWS_ACCESS_KEY,
            "aws_secret_key": cloud.AWS_SECRET_KEY,
            "base_url": os.environ["DPT_TEST_EMULATOR_URL"],
        },
        log_to_file=False,
    )
