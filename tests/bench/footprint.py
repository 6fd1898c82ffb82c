"""The Python code one call runs, counted: functions and 64-byte lines of bytecode.

    python tests/bench/footprint.py anthropic            # one call, Agent and SDK
    python tests/bench/footprint.py anthropic --tool     # a tool round
    python tests/bench/footprint.py openai --top 30      # the toolkit's largest functions

After warm-up calls, one call of each contender (the emulator out of process) runs under
an opcode tracer. It counts the distinct functions the call ran and the distinct 64-byte
lines of their bytecode it executed. In CPython 3.11 the bytecode, with its inline
caches, is data to the CPU. So these lines are a floor for what a call must fetch again
when the SDK, the HTTP stack and the event loop have evicted it from the CPU's L2
between calls. Unlike timings, the counts do not move with the machine's load. A
measurement, never an assertion; see "The twelfth pass" in ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import warnings
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import emulator_process
from contenders import KEY, MODELS, PROMPT, TOOL_PROMPT, base_url, baseline, lookup_tool

LINE = 64
"""Bytes per counted line (a cache line)."""

Touched = dict[CodeType, set[int]]


async def _touched(call: Callable[[], Awaitable[Any]]) -> Touched:
    """The bytecode lines each function ran during one ``call()``."""
    touched: defaultdict[CodeType, set[int]] = defaultdict(set)

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event in ("call", "opcode"):
            touched[frame.f_code].add(frame.f_lasti // LINE)
        return tracer

    sys.settrace(tracer)
    try:
        await call()
    finally:
        sys.settrace(None)
    return dict(touched)


def _lines(touched: Touched) -> int:
    return sum(len(lines) for lines in touched.values())


def _own(touched: Touched) -> Touched:
    return {
        code: lines
        for code, lines in touched.items()
        if "doc_processing_toolkit" in code.co_filename
    }


async def _measure(provider: str, url: str, tool: bool, top: int) -> None:
    from doc_processing_toolkit import Agent

    agent = Agent(
        MODELS[provider],
        api_key=KEY,
        base_url=base_url(provider, url),
        log_to_file=False,
        tools=[lookup_tool()] if tool else [],
    )
    raw = baseline(provider, url)
    prompt = TOOL_PROMPT if tool else PROMPT

    async def agent_call() -> None:
        await agent.run(prompt)

    sdk_call = raw.tool_round if tool else raw.call
    for _ in range(20):
        await agent_call()
        await sdk_call()
    sdk = await _touched(sdk_call)
    ours = await _touched(agent_call)
    await agent.close()
    await raw.close()
    own = _own(ours)
    what = "tool round" if tool else "one call"
    print(f"| {provider}, {what} | raw SDK | Agent | ratio |")
    print("|---|---|---|---|")
    print(f"| functions run | {len(sdk)} | {len(ours)} | {len(ours) / len(sdk):.3f}x |")
    print(
        f"| 64-byte bytecode lines run | {_lines(sdk)} | {_lines(ours)} "
        f"| {_lines(ours) / _lines(sdk):.3f}x |"
    )
    print(f"| of which the toolkit's | - | {_lines(own)} ({len(own)} functions) | |")
    if top:
        print(f"\nthe toolkit's functions by bytecode lines run, top {top}:")
        ranked = sorted(own.items(), key=lambda item: -len(item[1]))
        for code, lines in ranked[:top]:
            where = code.co_filename.split("doc_processing_toolkit/", 1)[1]
            print(f"  {len(lines):4d}  {where}:{code.co_firstlineno} {code.co_name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("provider", choices=sorted(MODELS))
    parser.add_argument("--tool", action="store_true", help="a tool round instead of one call")
    parser.add_argument("--top", type=int, default=0, help="list the toolkit's largest")
    args = parser.parse_args()
    os.environ["DPT_AGENT_LOG_TO_FILE"] = "0"
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    with emulator_process() as url:
        asyncio.run(_measure(args.provider, url, args.tool, args.top))


if __name__ == "__main__":
    main()
