"""The output helpers the ``dpt`` commands share: the cost table, the cost line, a streamed run."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from doc_processing_toolkit.agent import Agent, AgentResult

__all__ = ["cost_line", "cost_table", "stream_run"]


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
    agent: Agent, message: str, out: TextIO, files: list[Any] | None = None
) -> dict[str, Any]:
    """Stream one run to ``out`` (text, thinking dimmed, tool calls); returns ``complete``."""
    final: dict[str, Any] = {}
    async for event in agent.stream(message, files=files):
        meta = event.metadata or {}
        if event.event_type == "text_delta":
            print(event.content, end="", flush=True, file=out)
        elif event.event_type == "thinking_delta":
            print(f"\x1b[2m{event.content}\x1b[0m", end="", flush=True, file=out)
        elif event.event_type == "tool_call_start":
            args = json.dumps(meta.get("arguments"), ensure_ascii=False)
            print(f"\n→ tool {meta.get('tool_name')}({args})", file=out)
        elif event.event_type == "tool_call_result":
            status = "ok" if meta.get("success") else "error"
            print(f"← {meta.get('tool_name')} [{status}]: {meta.get('result')}", file=out)
        elif event.event_type == "error":
            print(f"\nerror: {event.content}", file=sys.stderr)
        elif event.event_type == "complete":
            final = meta
    print(file=out)
    return final
