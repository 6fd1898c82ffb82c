"""The output helpers the ``dpt`` commands share: the cost table, the cost line, a streamed run."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from doc_processing_toolkit.agent import Agent, AgentResult
from doc_processing_toolkit.application.config.log_setup import RedactingFilter

__all__ = ["cost_line", "cost_table", "held_warnings", "stream_run"]


def cost_line(result: AgentResult) -> str:
    """One line: the cost, whether it is estimated, tokens and request count."""
    estimated = " (estimated)" if result.cost_estimated else ""
    return (
        f"cost ${result.cost:.6f}{estimated} · {result.input_tokens} in / "
        f"{result.output_tokens} out tokens · {len(result.request_cost_records)} request(s)"
    )


def cost_table(result: dict[str, Any] | AgentResult, out: TextIO) -> None:
    """Print one row per API request and the total."""
    data = result.to_dict() if isinstance(result, AgentResult) else result
    records = data.get("request_cost_records") or []
    header = f"{'#':>2}  {'purpose':<16} {'input':>7} {'cached':>7} {'output':>7} {'cost USD':>12}"
    print(header, file=out)
    print("-" * len(header), file=out)
    for index, record in enumerate(records, 1):
        print(
            f"{index:>2}  {record.get('purpose') or ''!s:<16} "
            f"{record.get('input_tokens', 0):>7} {record.get('cached_input_tokens', 0):>7} "
            f"{record.get('output_tokens', 0):>7} {record.get('cost', 0.0):>12.6f}",
            file=out,
        )
    print("-" * len(header), file=out)
    retry = data.get("retry_cost", 0.0)
    if retry:
        print(f"    {'failed retries':<16} {'':>7} {'':>7} {'':>7} {retry:>12.6f}", file=out)
    mark = " (estimated)" if data.get("cost_estimated") else ""
    print(
        f"    {'total':<16} {data.get('input_tokens', 0):>7} "
        f"{data.get('cached_input_tokens', 0):>7} {data.get('output_tokens', 0):>7} "
        f"{data.get('cost', 0.0):>12.6f}{mark}",
        file=out,
    )


async def stream_run(
    agent: Agent,
    message: str,
    out: TextIO | None,
    files: list[Any] | None = None,
    progress: TextIO | None = None,
) -> dict[str, Any]:
    """Run once through ``agent.stream``; returns the ``complete`` metadata.

    ``out`` shows the stream as it arrives (text, thinking dimmed, tool calls and results),
    ``progress`` one line per finished iteration (for a run whose answer prints at the end).
    Errors are not printed here: the caller prints one line.
    """
    final: dict[str, Any] = {}
    at_line_start = True

    def show(text: str, *, newline: bool = False) -> None:
        nonlocal at_line_start
        if out is None or not text:
            return
        if newline and not at_line_start:
            text = "\n" + text
        print(text, end="", flush=True, file=out)
        at_line_start = text.endswith("\n")

    async for event in agent.stream(message, files=files):
        meta = event.metadata or {}
        if event.event_type == "text_delta":
            show(str(event.content))
        elif event.event_type == "thinking_delta":
            show(f"\x1b[2m{event.content}\x1b[0m")
        elif event.event_type == "tool_call_start":
            args = json.dumps(meta.get("arguments"), ensure_ascii=False)
            show(f"→ tool {meta.get('tool_name')}({args})\n", newline=True)
        elif event.event_type == "tool_call_result":
            status = "ok" if meta.get("success") else "error"
            show(f"← {meta.get('tool_name')} [{status}]: {meta.get('result')}\n", newline=True)
        elif event.event_type == "iteration_complete" and progress is not None:
            tools = ", ".join(meta.get("tools_called") or []) or "no tools"
            print(
                f"dpt: iteration {meta.get('iteration')} done ({tools}, "
                f"${float(meta.get('cost') or 0.0):.6f})",
                file=progress,
                flush=True,
            )
        elif event.event_type == "complete":
            final = meta
    if out is not None and not at_line_start:
        print(file=out)
    return final


class _HeldRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def held_warnings(err: TextIO) -> Iterator[logging.Logger]:
    """A logger for a CLI Agent that holds its WARNINGs and prints them to ``err`` at the
    end (redacted), so they never land in the middle of a streamed answer."""
    logger = logging.getLogger(f"doc_processing_toolkit.cli.{uuid.uuid4().hex[:8]}")
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    held = _HeldRecords()
    held.addFilter(RedactingFilter())
    logger.addHandler(held)
    try:
        yield logger
    finally:
        logger.removeHandler(held)
        for record in held.records:
            print(f"dpt: warning: {record.getMessage()}", file=err)
