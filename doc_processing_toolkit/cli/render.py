"""The output helpers the ``dpt`` commands share: the cost table, the cost line, a streamed run."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from doc_processing_toolkit.agent import Agent, AgentResult
from doc_processing_toolkit.agent.cost import DetailedCostReport
from doc_processing_toolkit.application.config.log_setup import RedactingFilter
from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = [
    "cost_line",
    "cost_table",
    "held_warnings",
    "mask_secrets",
    "report_summary",
    "report_table",
    "stream_run",
]

_SECRET_KEYS = ("api_key", "headers", "env", "authorization_token", "auth", "token")


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
    error_type: str | None = None
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
        elif event.event_type == "error":
            error_type = meta.get("error_type")
        elif event.event_type == "complete":
            final = dict(meta)
            if error_type and "error_type" not in final:
                final["error_type"] = error_type
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
    except ConfigurationError as exc:
        # The caller prints this error once; the run's own "run failed" record repeats it.
        held.records = [r for r in held.records if str(exc) not in r.getMessage()]
        raise
    finally:
        logger.removeHandler(held)
        for record in held.records:
            print(f"dpt: warning: {record.getMessage()}", file=err)


def mask_secrets(value: Any) -> Any:
    """A copy of a configuration with every secret value (api_key, headers, env, tokens)
    replaced by ``***``."""
    if isinstance(value, dict):
        return {
            k: ("***" if k in _SECRET_KEYS and v is not None else mask_secrets(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value


def report_table(report: DetailedCostReport, out: TextIO) -> None:
    """One row per API request of a saved report, then the totals and retries."""
    records = report.request_cost_records
    print(f"run {report.run_id} · {report.provider} · {report.model_name}", file=out)
    header = (
        f"{'#':>3} {'purpose':<24} {'model':<22} {'tier':<9} {'input':>9} {'cached':>9} "
        f"{'cache wr':>9} {'output':>8} {'reason':>8} {'retries':>7} {'cost USD':>11}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for index, entry in enumerate(report.iterations):
        record = records[index] if index < len(records) else {}
        tier = record.get("served_tier") or "-"
        print(
            f"{entry.iteration_number:>3} {entry.purpose or '-':<24.24} "
            f"{entry.model or record.get('served_model') or '-':<22.22} {tier:<9.9} "
            f"{entry.input_tokens:>9} {entry.cached_input_tokens:>9} "
            f"{entry.cache_write_tokens:>9} {entry.output_tokens:>8} "
            f"{entry.reasoning_tokens:>8} {entry.retry_count:>7} {entry.cost:>11.6f}",
            file=out,
        )
    print("-" * len(header), file=out)
    if report.total_tool_reported_cost:
        label = "tool-reported spend"
        print(f"    {label:<24} {'':>83} {report.total_tool_reported_cost:>11.6f}", file=out)
    mark = " (estimated)" if report.cost_estimated else ""
    print(
        f"    {'total':<24} {'':<22} {report.service_tier_served or '-':<9.9} "
        f"{report.total_input_tokens:>9} {report.total_cached_input_tokens:>9} "
        f"{report.total_cache_write_tokens:>9} {report.total_output_tokens:>8} "
        f"{report.total_reasoning_tokens:>8} {report.total_retry_count:>7} "
        f"{report.total_cost:>11.6f}{mark}",
        file=out,
    )
    if report.total_retry_count:
        print(
            f"    retries: {report.total_retry_count} failed attempt(s), "
            f"${report.total_retry_cost:.6f} (included in the total)",
            file=out,
        )


def _summary_rows(title: str, rows: dict[str, list[float]], out: TextIO) -> None:
    print(f"{title:<36} {'runs':>5} {'input':>11} {'output':>10} {'cost USD':>12}", file=out)
    for key in sorted(rows):
        runs, tokens_in, tokens_out, cost = rows[key]
        print(
            f"{key:<36.36} {int(runs):>5} {int(tokens_in):>11} {int(tokens_out):>10} {cost:>12.6f}",
            file=out,
        )


def report_summary(reports: list[DetailedCostReport], out: TextIO) -> None:
    """Sum saved reports by model and by day (UTC date of each report's timestamp)."""
    by_model: dict[str, list[float]] = {}
    by_day: dict[str, list[float]] = {}
    for report in reports:
        for key, table in ((report.model_name or "?", by_model), (report.timestamp[:10], by_day)):
            row = table.setdefault(key, [0, 0, 0, 0.0])
            row[0] += 1
            row[1] += report.total_input_tokens
            row[2] += report.total_output_tokens
            row[3] += report.total_cost
    _summary_rows("model", by_model, out)
    print(file=out)
    _summary_rows("day", by_day, out)
    total = sum(r.total_cost for r in reports)
    estimated = " (some estimated)" if any(r.cost_estimated for r in reports) else ""
    print(f"\n{len(reports)} report(s), total ${total:.6f}{estimated}", file=out)
