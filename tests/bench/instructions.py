"""Instructions per call, Agent against the raw SDK: the bench's noise-free companion.

    make bench-instructions                       # anthropic, one call and a tool round
    python tests/bench/instructions.py --provider openai --calls 300

Wall-clock and CPU ratios on a shared 2-core machine move by +-6% between two identical
SDK clients. This counts instead: each contender runs under valgrind's cachegrind (the
emulator runs outside it, in its own process), and the figures are the simulated
instructions, L1 instruction / data cache misses, last-level cache misses (cachegrind's
model of this CPU's last cache, or ``--last-level``) and branch mispredictions of the
client process. Every child makes the same warm-up calls with every contender; one child
makes nothing more (the baseline) and each other makes ``--calls`` calls of one
contender, so (child - baseline) / calls is that contender's cost per call. Hash
randomisation is off (``PYTHONHASHSEED=0``) so start-up costs the same in every child.

The counts say how much work each side does, not how fast the CPU does it: a last cache
shared with other tenants, the TLBs and the real branch predictor are not what cachegrind
models (``--last-level 1048576,8,64`` simulates one core's 1 MiB L2 in place of the L3).
A measurement, never an assertion; it needs ``valgrind`` on the PATH and takes about 10
minutes per provider on 2 cores (9 minutes for Anthropic here).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import emulator_process  # noqa: E402
from contenders import (  # noqa: E402
    KEY,
    MODELS,
    PROMPT,
    TOOL_PROMPT,
    base_url,
    baseline,
    lookup_tool,
)

WARMUP = 30
"""Warm-up rounds of every workload in every child (the smoke run makes one)."""
CONTENDERS = ("sdk", "agent", "sdk_tool_round", "agent_tool_round")
COUNTERS = {
    "instructions": r"I\s+refs:\s+([\d,]+)",
    "L1 instruction misses": r"I1\s+misses:\s+([\d,]+)",
    "L1 data misses": r"D1\s+misses:\s+([\d,]+)",
    "last-level misses": r"LL\s+misses:\s+([\d,]+)",
    "branch mispredictions": r"Mispredicts:\s+([\d,]+)",
}


async def child(provider: str, url: str, contender: str, calls: int, warmup: int = WARMUP) -> None:
    """One cachegrind child: the common warm-up, then ``calls`` calls of ``contender``."""
    from doc_processing_toolkit import Agent

    warnings.filterwarnings("ignore")
    options = {"api_key": KEY, "base_url": base_url(provider, url), "log_to_file": False}
    agent = Agent(MODELS[provider], **options)
    tool_agent = Agent(MODELS[provider], tools=[lookup_tool()], **options)
    raw = baseline(provider, url)

    async def run_agent() -> None:
        await agent.run(PROMPT)

    async def run_tool_agent() -> None:
        await tool_agent.run(TOOL_PROMPT)

    workloads: dict[str, Callable[[], Awaitable[None]]] = {
        "sdk": raw.call,
        "agent": run_agent,
        "sdk_tool_round": raw.tool_round,
        "agent_tool_round": run_tool_agent,
    }
    for _ in range(warmup):
        for workload in workloads.values():
            await workload()
    measured = workloads.get(contender)
    for _ in range(calls if measured is not None else 0):
        assert measured is not None
        await measured()


def child_command(provider: str, url: str, contender: str, calls: int) -> list[str]:
    """The command line of one child process."""
    script = str(Path(__file__).resolve())
    options = ["--provider", provider, "--url", url, "--calls", str(calls)]
    return [sys.executable, script, "--child", contender, *options]


def counted(
    provider: str, url: str, contender: str, calls: int, out: Path, last_level: str | None = None
) -> dict[str, int]:
    """Run one child under cachegrind; its counters from valgrind's summary.
    ``last_level``: cachegrind's ``--LL=size,associativity,line`` (None: this CPU's)."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=yes",
        "--branch-sim=yes",
        *([f"--LL={last_level}"] if last_level else []),
        f"--cachegrind-out-file={out / contender}.out",
        *child_command(provider, url, contender, calls),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0", "DPT_AGENT_LOG_TO_FILE": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{contender}: the child failed:\n{done.stderr[-2000:]}")
    figures = {}
    for name, pattern in COUNTERS.items():
        found = re.search(pattern, done.stderr)
        if found is None:
            raise SystemExit(f"{contender}: no {name!r} in valgrind's summary")
        figures[name] = int(found.group(1).replace(",", ""))
    return figures


def table(provider: str, calls: int, last_level: str | None = None) -> str:
    """The per-call counts of every contender, and the Agent's ratios to the SDK's."""
    with emulator_process() as url, tempfile.TemporaryDirectory() as out:
        names = ("baseline", *CONTENDERS)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            futures = {
                name: pool.submit(counted, provider, url, name, calls, Path(out), last_level)
                for name in names
            }
            runs = {name: future.result() for name, future in futures.items()}
    per_call = {
        name: {k: (runs[name][k] - runs["baseline"][k]) / calls for k in COUNTERS}
        for name in CONTENDERS
    }
    lines = [
        f"| {provider}: per call ({calls} calls) | SDK | Agent | ratio |",
        "|---|---|---|---|",
    ]
    for sdk, agent, label in (
        ("sdk", "agent", "one call"),
        ("sdk_tool_round", "agent_tool_round", "tool round"),
    ):
        for counter in COUNTERS:
            a, b = per_call[sdk][counter], per_call[agent][counter]
            ratio = f"{b / a:.3f}x" if a > 0 else "-"
            lines.append(f"| {label}, {counter} | {a:,.0f} | {b:,.0f} | {ratio} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--provider", default="anthropic", choices=sorted(MODELS))
    parser.add_argument("--calls", type=int, default=200, help="measured calls per child")
    parser.add_argument(
        "--smoke", action="store_true", help="run every child once, without valgrind (CI)"
    )
    parser.add_argument(
        "--last-level",
        metavar="SIZE,ASSOC,LINE",
        help="simulate this last-level cache (e.g. 1048576,8,64: one core's 1 MiB L2)",
    )
    parser.add_argument("--child", choices=("baseline", *CONTENDERS), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--warmup", type=int, default=WARMUP, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.calls < 1:
        parser.error("--calls must be at least 1")
    if args.child is not None:
        asyncio.run(child(args.provider, args.url, args.child, args.calls, args.warmup))
        return 0
    if args.smoke:  # proves the workloads still run; counts nothing
        with emulator_process() as url:  # one warm-up round runs every workload once
            command = child_command(args.provider, url, "baseline", 1)
            subprocess.run([*command, "--warmup", "1"], check=True)
        print(f"instructions bench smoke: {args.provider} workloads ran")
        return 0
    if shutil.which("valgrind") is None:
        print("make bench-instructions needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    print(table(args.provider, args.calls, args.last_level))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
