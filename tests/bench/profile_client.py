"""cProfile of the client side only: Agent.run or the raw SDK call, emulator out of process.

    python tests/bench/profile_client.py anthropic --n 300            # Agent and SDK
    python tests/bench/profile_client.py openai --top 25 --dump /tmp/p  # keep .prof files

Prints, per mode, client CPU per call and Python function calls per call, then the
toolkit's own top entries by self time, and the functions whose call count per request
differs most between Agent.run and the SDK call (the overhead, in calls: unlike times,
call counts do not move with the machine's load).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import emulator_process
from contenders import KEY, MODELS, PROMPT, base_url, baseline


def _short(path: str) -> str:
    for marker in ("site-packages/", "doc_processing_toolkit/", "python3.11/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            return ("dpt/" if marker == "doc_processing_toolkit/" else "") + path
    return path


async def _profile(provider: str, url: str, mode: str, n: int) -> tuple[pstats.Stats, float]:
    from doc_processing_toolkit import Agent

    agent = Agent(
        MODELS[provider], api_key=KEY, base_url=base_url(provider, url), log_to_file=False
    )
    raw = baseline(provider, url)

    async def agent_call() -> Any:
        return await agent.run(PROMPT)

    fn = agent_call if mode == "agent" else raw.call
    for _ in range(20):
        await fn()
    profile = cProfile.Profile()
    start = time.process_time()
    profile.enable()
    for _ in range(n):
        await fn()
    profile.disable()
    cpu = (time.process_time() - start) / n * 1000
    await agent.close()
    await raw.close()
    return pstats.Stats(profile), cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("provider", choices=list(MODELS))
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument(
        "--dump", type=Path, default=None, help="write <dir>/<provider>-<mode>.prof"
    )
    args = parser.parse_args()
    os.environ["DPT_AGENT_LOG_TO_FILE"] = "0"
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    stats: dict[str, Any] = {}
    with emulator_process() as url:
        for mode in ("sdk", "agent"):
            st, cpu = asyncio.run(_profile(args.provider, url, mode, args.n))
            stats[mode] = st.stats  # type: ignore[attr-defined]
            calls = sum(v[1] for v in stats[mode].values()) / args.n
            print(
                f"{mode:>5}: {cpu:.2f} ms CPU/call under cProfile, {calls:.0f} function calls/call"
            )
            if args.dump is not None:
                args.dump.mkdir(parents=True, exist_ok=True)
                st.dump_stats(str(args.dump / f"{args.provider}-{mode}.prof"))
    own = [
        (v[2] / args.n * 1e6, v[1] / args.n, k)
        for k, v in stats["agent"].items()
        if "doc_processing_toolkit" in k[0]
    ]
    own.sort(reverse=True)
    print(f"\ntoolkit functions by self time (us/call under cProfile, calls/call), top {args.top}:")
    for tottime, calls, (path, line, name) in own[: args.top]:
        print(f"  {tottime:8.1f} us  {calls:5.1f}x  {_short(path)}:{line}({name})")
    diff = []
    for key in set(stats["sdk"]) | set(stats["agent"]):
        delta = (stats["agent"].get(key, (0, 0))[1] - stats["sdk"].get(key, (0, 0))[1]) / args.n
        if abs(delta) >= 0.5:
            diff.append((delta, key))
    diff.sort(key=lambda item: -item[0])
    total = sum(d for d, _ in diff)
    print(f"\nextra function calls per request, Agent.run - SDK: {total:.0f}; top {args.top}:")
    for delta, (path, line, name) in diff[: args.top]:
        where = name if path == "~" else f"{_short(path)}:{line}({name})"
        print(f"  {delta:+7.1f}  {where}")


if __name__ == "__main__":
    main()
