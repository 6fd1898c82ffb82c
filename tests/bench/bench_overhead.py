"""Agent.run overhead against the raw SDKs (and raw httpx2), on the loopback emulator.

    make bench            # or: python tests/bench/bench_overhead.py [--n 200] [--provider all]

For each provider the same streamed request (one short text reply) is made three ways,
in the same process, against the same emulator, interleaved round-robin so drift hits
all of them alike:

* raw httpx2 (Anthropic only): POST /v1/messages with stream=true, read the SSE body;
* raw SDK: the provider's own SDK streaming call, iterating every event;
* Agent.run: the whole toolkit path (request build, retry layer, ledger, result).

Reported: p50 / p99 latency of each and the Agent's ratio to the raw SDK (and to raw
httpx2). These are measurements, not assertions; nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import ProviderEmulator, Reply

MODELS = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-4o",
    "google": "gemini-2.5-flash",
    "fireworks": "kimi-k2p6",
}
PROMPT = "Say hello."
KEY = "bench-key"

Case = Callable[[], Awaitable[None]]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _raw_cases(provider: str, emulator: ProviderEmulator) -> tuple[dict[str, Case], list[Any]]:
    """The raw baselines for ``provider`` and the clients to close afterwards."""
    model = MODELS[provider]
    if provider == "anthropic":
        import anthropic
        import httpx2

        base = emulator.anthropic_base_url
        http = httpx2.AsyncClient(base_url=base, timeout=30)
        sdk = anthropic.AsyncAnthropic(api_key=KEY, base_url=base, max_retries=0)
        body = {
            "model": model,
            "max_tokens": 256,
            "stream": True,
            "messages": [{"role": "user", "content": PROMPT}],
        }

        async def raw_httpx() -> None:
            headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
            async with http.stream("POST", "/v1/messages", json=body, headers=headers) as resp:
                async for _ in resp.aiter_bytes():
                    pass

        async def raw_anthropic() -> None:
            stream = await sdk.messages.create(
                model=model,
                max_tokens=256,
                stream=True,
                messages=[{"role": "user", "content": PROMPT}],
            )
            async for _ in stream:
                pass

        return {"raw httpx2": raw_httpx, "raw SDK": raw_anthropic}, [http, sdk]
    if provider in ("openai", "fireworks"):
        import openai

        base = emulator.openai_base_url if provider == "openai" else emulator.fireworks_base_url
        client = openai.AsyncOpenAI(api_key=KEY, base_url=base, max_retries=0)

        async def raw_openai() -> None:
            if provider == "openai":
                events = await client.responses.create(model=model, input=PROMPT, stream=True)
            else:
                events = await client.chat.completions.create(
                    model=model,
                    stream=True,
                    stream_options={"include_usage": True},
                    messages=[{"role": "user", "content": PROMPT}],
                )
            async for _ in events:
                pass

        return {"raw SDK": raw_openai}, [client]
    from google import genai
    from google.genai import types

    gclient = genai.Client(
        api_key=KEY,
        http_options=types.HttpOptions(
            base_url=emulator.google_base_url, retry_options=types.HttpRetryOptions(attempts=1)
        ),
    )

    async def raw_google() -> None:
        chunks = await gclient.aio.models.generate_content_stream(model=model, contents=PROMPT)
        async for _ in chunks:
            pass

    return {"raw SDK": raw_google}, [gclient]


async def _close(clients: list[Any]) -> None:
    for client in clients:
        if hasattr(client, "aclose"):
            await client.aclose()
        elif hasattr(client, "aio"):
            await client.aio.aclose()
        else:
            await client.close()


async def _bench(provider: str, n: int, warmup: int) -> dict[str, list[float]]:
    reply = Reply(text="Hello there, this is a short benchmark reply.", chunk_size=12)
    with ProviderEmulator(default=reply) as emulator:
        cases, clients = _raw_cases(provider, emulator)
        agent = Agent(
            MODELS[provider],
            api_key=KEY,
            base_url=getattr(emulator, f"{provider}_base_url"),
            log_to_file=False,
        )

        async def agent_run() -> None:
            await agent.run(PROMPT)

        cases["Agent.run"] = agent_run
        timings: dict[str, list[float]] = {name: [] for name in cases}
        for i in range(warmup + n):
            for name, fn in cases.items():
                start = time.perf_counter()
                await fn()
                elapsed = (time.perf_counter() - start) * 1000
                if i >= warmup:
                    timings[name].append(elapsed)
        await _close(clients)
        await agent.close()
    return timings


def _report(provider: str, timings: dict[str, list[float]]) -> None:
    print(f"\n{provider} ({MODELS[provider]})")
    print(f"  {'path':<12} {'p50 ms':>9} {'p99 ms':>9} {'mean ms':>9}")
    for name, values in timings.items():
        print(
            f"  {name:<12} {_pct(values, 0.5):>9.3f} {_pct(values, 0.99):>9.3f} "
            f"{statistics.fmean(values):>9.3f}"
        )
    agent = timings["Agent.run"]
    for base in ("raw SDK", "raw httpx2"):
        ref = timings.get(base)
        if ref is None:
            continue
        print(
            f"  Agent.run / {base:<10}: p50 x{_pct(agent, 0.5) / _pct(ref, 0.5):.2f}  "
            f"p99 x{_pct(agent, 0.99) / _pct(ref, 0.99):.2f}  "
            f"(+{_pct(agent, 0.5) - _pct(ref, 0.5):.3f} ms at p50)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=int(os.environ.get("DPT_BENCH_N", "200")))
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--provider", choices=[*MODELS, "all"], default="all")
    args = parser.parse_args()
    os.environ.setdefault("DPT_AGENT_LOG_TO_FILE", "0")
    os.environ.setdefault("AGENT_LOG_LEVEL", "WARNING")
    # The SDK warns that a benchmark model is deprecated; that is not what we measure.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    providers = list(MODELS) if args.provider == "all" else [args.provider]
    print(f"Agent.run overhead, loopback emulator, n={args.n} (after {args.warmup} warm-up)")
    for provider in providers:
        _report(provider, asyncio.run(_bench(provider, args.n, args.warmup)))


if __name__ == "__main__":
    main()
