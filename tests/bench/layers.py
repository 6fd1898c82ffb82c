"""Where the Agent's client CPU goes, layer by layer, against the emulator out of process.

    python tests/bench/layers.py                 # all four providers
    python tests/bench/layers.py anthropic --rounds 9

For each provider it runs, interleaved and repeated (medians of the rounds):

- ``sdk``: the raw SDK call of ``make bench`` (one streamed "Say hello.");
- ``adapter``: the toolkit's ModelClient streaming the very ModelRequest ``Agent.run``
  builds (captured from one real run), without the run loop;
- ``agent``: ``Agent.run``, split into the CPU spent inside the adapter's stream and the
  rest (the application layer: settings, hooks, retry, the ledger, pricing, the result);
- ``Agent.run`` on ``FakeModel``, back to back and after each raw SDK call.

Unlike cProfile, this adds no cost per function call, so it shows how much each layer
costs while the SDK and the HTTP stack run in the same process. Those evict the
toolkit's code and data from the CPU caches: the two FakeModel rows show how much slower
the same run gets when it follows an SDK call. See ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import emulator_process
from contenders import KEY, MODELS, PROMPT, base_url, baseline


class _TimedStream:
    """The adapter's stream, with the CPU spent inside its ``__anext__`` added up."""

    def __init__(self, stream: AsyncIterator[Any], total: list[float]) -> None:
        self._it, self._total = stream.__aiter__(), total

    def __aiter__(self) -> _TimedStream:
        return self

    async def __anext__(self) -> Any:
        start = time.process_time()
        try:
            return await self._it.__anext__()
        finally:
            self._total[0] += time.process_time() - start

    async def aclose(self) -> None:
        await self._it.aclose()  # type: ignore[attr-defined]


async def _layers(provider: str, url: str, rounds: int, n: int) -> dict[str, float]:
    from doc_processing_toolkit import Agent

    agent = Agent(
        MODELS[provider], api_key=KEY, base_url=base_url(provider, url), log_to_file=False
    )
    raw = baseline(provider, url)
    await agent.run(PROMPT)
    client: Any = agent._client  # the Agent's own ModelClient (built by the first run)
    stream = client.stream
    captured: list[Any] = []

    def capture(request: Any) -> AsyncIterator[Any]:
        captured.append(request)
        return stream(request)  # type: ignore[no-any-return]

    client.stream = capture
    await agent.run(PROMPT)
    request = captured[0]
    inside = [0.0]
    client.stream = lambda req: _TimedStream(stream(req), inside)

    async def adapter() -> None:
        async for _ in stream(request):
            pass

    async def agent_run() -> None:
        await agent.run(PROMPT)

    contenders: dict[str, Callable[[], Awaitable[None]]] = {
        "sdk": raw.call,
        "adapter": adapter,
        "agent": agent_run,
    }
    samples: dict[str, list[float]] = {name: [] for name in [*contenders, "agent: in adapter"]}
    for r in range(rounds):
        names = list(contenders)
        for name in names[r % 3 :] + names[: r % 3]:
            fn = contenders[name]
            for _ in range(5):
                await fn()
            inside[0] = 0.0
            start = time.process_time()
            for _ in range(n):
                await fn()
            samples[name].append((time.process_time() - start) / n * 1e6)
            if name == "agent":
                samples["agent: in adapter"].append(inside[0] / n * 1e6)
    samples.update(await _fake_runs(raw.call, rounds, n))
    await agent.close()
    await raw.close()
    result = {name: statistics.median(values) for name, values in samples.items()}
    result["agent: application layer"] = result["agent"] - result["agent: in adapter"]
    return result


async def _fake_runs(
    sdk_call: Callable[[], Awaitable[None]], rounds: int, n: int
) -> dict[str, list[float]]:
    """``Agent.run`` on ``FakeModel`` (no SDK, no HTTP), back to back and after each raw SDK
    call: the same code, with the CPU caches warm and then cold."""
    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.testing import FakeModel, reply

    fake = FakeModel(default=reply("Hello there."))
    agent = Agent("claude-sonnet-5-5", client=fake, log_to_file=False)
    hot: list[float] = []
    cold: list[float] = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(n):
            await agent.run(PROMPT)
        hot.append((time.process_time() - start) / n * 1e6)
        spent = 0.0
        for _ in range(n):
            await sdk_call()
            start = time.process_time()
            await agent.run(PROMPT)
            spent += time.process_time() - start
        cold.append(spent / n * 1e6)
        fake.requests.clear()
    return {
        "FakeModel Agent.run, back to back": hot,
        "FakeModel Agent.run, after each SDK call": cold,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("providers", nargs="*", default=list(MODELS))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--n", type=int, default=100, help="calls per contender per round")
    args = parser.parse_args()
    os.environ["DPT_AGENT_LOG_TO_FILE"] = "0"
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    print("| provider | layer | client CPU / call | vs the SDK call |")
    print("|---|---|---|---|")
    with emulator_process() as url:
        for provider in args.providers or list(MODELS):
            figures = asyncio.run(_layers(provider, url, args.rounds, args.n))
            sdk = figures["sdk"]
            for name, value in figures.items():
                print(f"| {provider} | {name} | {value:.0f} us | {value / sdk:.2f}x |")


if __name__ == "__main__":
    main()
