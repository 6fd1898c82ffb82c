"""Agent.run overhead against the raw SDK and raw httpx2, on the loopback emulator.

    make bench            # or: python tests/bench/bench_overhead.py [--n 200]

Three ways to make the same streamed Anthropic request (one short text reply) are timed
in the same process, against the same emulator, interleaved round-robin so drift hits
all of them alike:

* raw httpx2: POST /v1/messages with stream=true, read the SSE body;
* raw SDK: ``AsyncAnthropic(...).messages.create(stream=True)``, iterate the events;
* Agent.run: the whole toolkit path (request build, retry layer, ledger, result).

Reported: p50 / p99 latency of each and the Agent's ratios to both baselines. These are
measurements, not assertions; nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import warnings
from collections.abc import Awaitable, Callable

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import ProviderEmulator, Reply

MODEL = "claude-sonnet-4-5"
BODY = {
    "model": MODEL,
    "max_tokens": 256,
    "stream": True,
    "messages": [{"role": "user", "content": "Say hello."}],
}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def _bench(n: int, warmup: int) -> dict[str, list[float]]:
    import anthropic
    import httpx2

    reply = Reply(text="Hello there, this is a short benchmark reply.", chunk_size=12)
    with ProviderEmulator(default=reply) as emulator:
        base = emulator.anthropic_base_url
        http = httpx2.AsyncClient(base_url=base, timeout=30)
        sdk = anthropic.AsyncAnthropic(api_key="bench-key", base_url=base, max_retries=0)
        agent = Agent(MODEL, api_key="bench-key", base_url=base, log_to_file=False)

        async def raw_httpx() -> None:
            headers = {"x-api-key": "bench-key", "anthropic-version": "2023-06-01"}
            async with http.stream("POST", "/v1/messages", json=BODY, headers=headers) as resp:
                async for _ in resp.aiter_bytes():
                    pass

        async def raw_sdk() -> None:
            stream = await sdk.messages.create(
                model=MODEL,
                max_tokens=256,
                messages=[{"role": "user", "content": "Say hello."}],
                stream=True,
            )
            async for _ in stream:
                pass

        async def agent_run() -> None:
            await agent.run("Say hello.")

        cases: dict[str, Callable[[], Awaitable[None]]] = {
            "raw httpx2": raw_httpx,
            "raw SDK": raw_sdk,
            "Agent.run": agent_run,
        }
        timings: dict[str, list[float]] = {name: [] for name in cases}
        for i in range(warmup + n):
            for name, fn in cases.items():
                start = time.perf_counter()
                await fn()
                elapsed = (time.perf_counter() - start) * 1000
                if i >= warmup:
                    timings[name].append(elapsed)
        await http.aclose()
        await sdk.close()
        await agent.close()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=int(os.environ.get("DPT_BENCH_N", "200")))
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    os.environ.setdefault("DPT_AGENT_LOG_TO_FILE", "0")
    os.environ.setdefault("AGENT_LOG_LEVEL", "WARNING")
    # The SDK warns that the benchmark's model is deprecated; that is not what we measure.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    timings = asyncio.run(_bench(args.n, args.warmup))

    print(f"Agent.run overhead, loopback emulator, n={args.n} (after {args.warmup} warm-up)")
    print(f"{'path':<12} {'p50 ms':>9} {'p99 ms':>9} {'mean ms':>9}")
    for name, values in timings.items():
        print(
            f"{name:<12} {_pct(values, 0.5):>9.3f} {_pct(values, 0.99):>9.3f} "
            f"{statistics.fmean(values):>9.3f}"
        )
    agent = timings["Agent.run"]
    for base in ("raw SDK", "raw httpx2"):
        ref = timings[base]
        print(
            f"Agent.run / {base:<10}: p50 x{_pct(agent, 0.5) / _pct(ref, 0.5):.2f}  "
            f"p99 x{_pct(agent, 0.99) / _pct(ref, 0.99):.2f}  "
            f"(+{_pct(agent, 0.5) - _pct(ref, 0.5):.3f} ms at p50)"
        )


if __name__ == "__main__":
    main()
