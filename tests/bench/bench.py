"""The performance gate: the Agent against the raw provider SDKs, on the emulator.

    make bench          # 11 interleaved rounds per figure, the whole table (< 5 minutes)
    make bench-smoke    # one short round of everything (seconds): proves the bench works

The provider emulator runs in a separate process (``emulator_server.py``), so the
server's CPU is never counted as the client's. For each provider, in the same run:

* one streamed call, sequential: p50 / p99 latency and client CPU per call (the p99
  over every call of all the rounds, as a round of 40 calls has none of its own)
  (``time.process_time`` of this process), Agent.run against the SDK's streamed call;
  for information, the same with the two alternating call by call (each runs with the
  other's code in the CPU caches), and on Google the SDK call given the config the Agent
  must send;
* the same call through ``Agent.stream`` (its provider call on the stream worker thread),
  for information: no goal is set for it;
* one run with a tool round (two requests) against a hand-written SDK loop; for
  information, the same round with an ``async def`` tool, and the synchronous round
  against a hand-written loop that runs its tool on a thread (``asyncio.to_thread``);
* 100 concurrent calls (``asyncio.gather``): throughput of one Agent and of 100 Agents
  against one SDK client, each burst after a full collection (see :func:`bursts`);

In each round every contender makes its calls in a row, and the one that goes first
rotates from round to round. Each figure is the median of the rounds' figures, and each
ratio is the median of the rounds' own ratios, against the SDK of the same run (1.00x).
Then ``import doc_processing_toolkit`` in fresh processes (``python -X importtime``)
and the session figures (envelope save/restore at 300 and 3,000 messages, the per-turn
save, history conversion throughput), and the document figures (``documents.py``: a
1,000-page PDF split into 100-page chunks, its text layers, MarkItDown converting a .docx,
in pages per second; and the peak memory of a 500 MB PDF uploaded through the Gemini Files
API against a baseline child, goal < 100 MB), and the evidence figure (``evidence.py``: what
``run(evidence=True)`` adds to a 50-field extraction over a 100-page PDF, goal < 50 ms).
Last, the fleet section (``fleet_scale.py``, issue 41): the fleet against ``asyncio.gather``
at 50 ms per request, on SQLite and (when reachable) Postgres, and in batch mode.
These are measurements, never assertions: nothing
here fails on a slow machine (the smoke run fails only when a workload itself breaks).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from contenders import (  # noqa: E402
    KEY,
    MODELS,
    PROMPT,
    TOOL_PROMPT,
    async_lookup_tool,
    base_url,
    baseline,
    lookup_tool,
)
from documents import UPLOAD_GOAL_MB, document_rows, upload_memory_row  # noqa: E402
from evidence import evidence_rows  # noqa: E402
from otel_overhead import TELEMETRY_GOAL, telemetry_rows  # noqa: E402
from sessions import session_rows  # noqa: E402

PYDANTIC_AI_REFERENCE_S = 0.40
"""``import pydantic_ai`` as issue 17 measured it here (used when it is not installed)."""
IMPORT_GOAL = 0.30
"""``import doc_processing_toolkit`` <= 0.30x ``import pydantic_ai``."""
FORBIDDEN_AT_IMPORT = (
    "anthropic",
    "openai",
    "google.genai",
    "rich",
    "mcp",
    "fastmcp",
    "yaml",
    "tenacity",
    "opentelemetry",
)

Call = Callable[[], Awaitable[object]]


@dataclass
class Figures:
    """One contender's samples over the rounds of one workload."""

    p50: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rate: list[float] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)
    """Every call's wall time, all rounds together: the pool the p99 row is taken from."""

    def median(self, name: str) -> float:
        values = getattr(self, name)
        return statistics.median(values) if values else float("nan")

    def add_round(self, wall: list[float], cpu: list[float]) -> None:
        """One round's calls: their p50 and mean CPU, and the wall times pooled."""
        self.p50.append(_pct(wall, 0.5))
        self.cpu.append(statistics.fmean(cpu))
        self.walls.extend(wall)

    def pooled_p99(self) -> float:
        return _pct(self.walls, 0.99) if self.walls else float("nan")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@contextlib.contextmanager
def emulator_process() -> Iterator[str]:
    """The emulator in its own process; yields its ``http://127.0.0.1:PORT``."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "emulator_server.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the bench emulator did not start: {line!r}")
        yield f"http://127.0.0.1:{line.split()[1]}"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


async def interleaved(contenders: dict[str, Call], rounds: int, n: int) -> dict[str, Figures]:
    """Sequential calls in interleaved rounds: in each round every contender makes ``n``
    calls in a row (the one that goes first rotates), so each runs warm, as a worker
    making call after call does, and load on the machine hits all alike."""
    figures = {name: Figures() for name in contenders}
    names = list(contenders)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            fn = contenders[name]
            wall: list[float] = []
            cpu: list[float] = []
            for _ in range(n):
                c0, t0 = time.process_time(), time.perf_counter()
                await fn()
                t1, c1 = time.perf_counter(), time.process_time()
                wall.append((t1 - t0) * 1000)
                cpu.append((c1 - c0) * 1000)
            figures[name].add_round(wall, cpu)
    return figures


async def alternating(contenders: dict[str, Call], rounds: int, n: int) -> dict[str, Figures]:
    """Sequential calls, the contenders alternating call by call (the first one rotates).

    Each call then follows another contender's, which has evicted its code and data from
    the CPU caches: the figure the toolkit's code pays when it runs cold (for
    information; see ``docs/performance.md``)."""
    figures = {name: Figures() for name in contenders}
    names = list(contenders)
    for _ in range(rounds):
        wall: dict[str, list[float]] = {name: [] for name in names}
        cpu: dict[str, list[float]] = {name: [] for name in names}
        for i in range(n):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                fn = contenders[name]
                c0, t0 = time.process_time(), time.perf_counter()
                await fn()
                t1, c1 = time.perf_counter(), time.process_time()
                wall[name].append((t1 - t0) * 1000)
                cpu[name].append((c1 - c0) * 1000)
        for name in names:
            figures[name].add_round(wall[name], cpu[name])
    return figures


async def bursts(
    contenders: dict[str, Callable[[int], list[Awaitable[object]]]], rounds: int, k: int
) -> dict[str, Figures]:
    """``k`` concurrent calls at once per contender per round (the order rotates).

    Before each burst, untimed, a full collection clears what the bursts before it left
    for the collector. Otherwise one contender's burst pays for a full collection (~150 ms
    over the SDKs' ~200,000 tracked objects on this machine) that another's allocations
    brought on, and which burst it lands in is chance. The collector stays on during the
    burst, so each pays for the collections its own allocations trigger."""
    figures = {name: Figures() for name in contenders}
    names = list(contenders)
    for name in names:  # warm: every Agent has run once (its client and codec are built)
        await asyncio.gather(*contenders[name](k))
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            calls = contenders[name](k)
            gc.collect()
            c0, t0 = time.process_time(), time.perf_counter()
            await asyncio.gather(*calls)
            t1, c1 = time.perf_counter(), time.process_time()
            figures[name].rate.append(k / (t1 - t0))
            figures[name].cpu.append((c1 - c0) * 1000 / k)
    return figures


@dataclass
class Row:
    """One line of the table."""

    group: str
    figure: str
    sdk: float | None
    agent: float
    unit: str
    goal: str = ""
    ok: bool | None = None
    ratio: float | None = None
    """The median of the rounds' own ratios, when the figure pairs rounds (else the ratio
    of the two medians)."""

    def cells(self) -> list[str]:
        ratio = (
            self.ratio if self.ratio is not None else (self.agent / self.sdk if self.sdk else None)
        )
        sdk = f"{self.sdk:.3g} {self.unit}" if self.sdk is not None else "-"
        met = "" if self.ok is None else ("yes" if self.ok else "NO")
        return [
            self.group,
            self.figure,
            sdk,
            f"{self.agent:.3g} {self.unit}",
            f"{ratio:.2f}x" if ratio is not None else "-",
            self.goal,
            met,
        ]


def compare(
    group: str,
    figure: str,
    sdk: Figures,
    agent: Figures,
    name: str,
    unit: str,
    limit: float | None = None,
    higher: bool = False,
) -> Row:
    """One figure of two contenders measured in the same rounds.

    The ratio is the median of the rounds' ratios: each round's pair ran a moment apart,
    so a change in the machine's speed from round to round cancels out of it.
    """
    pairs = zip(getattr(agent, name), getattr(sdk, name), strict=True)
    ratio = statistics.median(a / s for a, s in pairs)
    row = Row(group, figure, sdk.median(name), agent.median(name), unit, ratio=ratio)
    if limit is not None:
        row.goal = f"{'>=' if higher else '<='} {limit:.2f}x"
        row.ok = ratio >= limit if higher else ratio <= limit
    return row


def pooled_p99(group: str, figure: str, sdk: Figures, agent: Figures, limit: float) -> Row:
    """The p99 of every call of all the rounds, each contender's own pool.

    A round's 40 calls have no p99 of their own (their 99th percentile is the slowest
    call, a single scheduler hiccup), so the tail is taken where it exists: over the
    rounds x calls of each contender (440 in ``make bench``: the 5th slowest)."""
    s, a = sdk.pooled_p99(), agent.pooled_p99()
    ratio = a / s
    goal = f"<= {limit:.2f}x"
    return Row(group, figure, s, a, "ms", goal=goal, ok=ratio <= limit, ratio=ratio)


async def provider_rows(provider: str, url: str, args: argparse.Namespace) -> list[Row]:
    from doc_processing_toolkit import Agent

    base = base_url(provider, url)
    raw = baseline(provider, url)

    def agent(**kwargs: object) -> Agent:
        return Agent(MODELS[provider], api_key=KEY, base_url=base, log_to_file=False, **kwargs)  # type: ignore[arg-type]

    one, with_tool = agent(), agent(tools=[lookup_tool()])
    with_async_tool = agent(tools=[async_lookup_tool()])
    many = [agent() for _ in range(args.concurrency)]

    async def agent_call() -> None:
        await one.run(PROMPT)

    async def agent_stream() -> None:
        text = [e.content async for e in one.stream(PROMPT) if e.event_type == "text_delta"]
        if not text:
            raise RuntimeError(f"{provider}: Agent.stream streamed no text")

    async def tool_round_of(tooled: Agent) -> None:
        result = await tooled.run(TOOL_PROMPT)
        if result.tools_used != ["lookup"] or result.iterations != 2:
            raise RuntimeError(
                f"{provider}: the tool round did not run: {result.tools_used} {result.error}"
            )

    async def agent_tool_round() -> None:
        await tool_round_of(with_tool)

    async def agent_async_tool_round() -> None:
        await tool_round_of(with_async_tool)

    # Warm-up, and proof the workloads are real: each yields a non-empty answer.
    for _ in range(args.warmup):
        await raw.call()
        await raw.tool_round()
        await raw.tool_round(threaded=True)
        if not (await one.run(PROMPT)).output:
            raise RuntimeError(f"{provider}: Agent.run returned no output")
        await agent_tool_round()
        await agent_async_tool_round()
    g = provider
    sequential: dict[str, Call] = {"sdk": raw.call, "agent": agent_call}
    if raw.configured_call is not None:
        sequential["configured"] = raw.configured_call
    seq = await interleaved(sequential, args.rounds, args.n)
    s, a = seq["sdk"], seq["agent"]
    rows = [
        compare(g, "one call p50", s, a, "p50", "ms", 1.10),
        pooled_p99(g, "one call p99 (all rounds' calls)", s, a, 1.20),
        compare(g, "client CPU / call", s, a, "cpu", "ms", 1.10),
    ]
    if "configured" in seq:
        figure = f"SDK call given the Agent's config ({raw.configured_note}), CPU"
        rows.append(compare(g, figure, s, seq["configured"], "cpu", "ms"))
    cold = await alternating({"sdk": raw.call, "agent": agent_call}, args.rounds, args.n)
    s, a = cold["sdk"], cold["agent"]
    rows.append(compare(g, "one call, alternating call by call, p50", s, a, "p50", "ms"))
    rows.append(compare(g, "one call, alternating call by call, CPU", s, a, "cpu", "ms"))
    streamed = await interleaved({"sdk": raw.call, "agent": agent_stream}, args.rounds, args.n)
    s, a = streamed["sdk"], streamed["agent"]
    rows.append(compare(g, "Agent.stream (off-loop), p50", s, a, "p50", "ms"))
    rows.append(compare(g, "Agent.stream (off-loop), CPU", s, a, "cpu", "ms"))

    async def sdk_threaded_tool_round() -> None:
        await raw.tool_round(threaded=True)

    tool = await interleaved(
        {
            "sdk": raw.tool_round,
            "agent": agent_tool_round,
            "async": agent_async_tool_round,
            "sdk_threaded": sdk_threaded_tool_round,
        },
        args.rounds,
        args.tool_n,
    )
    s, a = tool["sdk"], tool["agent"]
    rows.append(compare(g, "tool round p50 (vs SDK loop)", s, a, "p50", "ms", 1.10))
    rows.append(compare(g, "tool round CPU", s, a, "cpu", "ms", 1.10))
    # The same round with an async tool: the synchronous row less its worker-thread hop.
    rows.append(
        compare(g, "tool round, async tool (no thread hop), p50", s, tool["async"], "p50", "ms")
    )
    rows.append(
        compare(g, "tool round, async tool (no thread hop), CPU", s, tool["async"], "cpu", "ms")
    )
    # Both sides hop to a thread: the SDK loop's tool through asyncio.to_thread.
    t = tool["sdk_threaded"]
    figure = "tool round vs an SDK loop running the tool on a thread (asyncio.to_thread)"
    rows.append(compare(g, f"{figure}, p50", t, a, "p50", "ms"))
    rows.append(compare(g, f"{figure}, CPU", t, a, "cpu", "ms"))
    burst_contenders: dict[str, Callable[[int], list[Awaitable[object]]]] = {
        "sdk": lambda k: [raw.call() for _ in range(k)],
        "one": lambda k: [one.run(PROMPT) for _ in range(k)],
        "many": lambda k: [many[i % len(many)].run(PROMPT) for i in range(k)],
    }
    configured_call = raw.configured_call
    if configured_call is not None:
        burst_contenders["configured"] = lambda k: [configured_call() for _ in range(k)]
    burst = await bursts(burst_contenders, args.rounds, args.concurrency)
    k, s = args.concurrency, burst["sdk"]
    rows.append(
        compare(g, f"{k} concurrent, 1 Agent", s, burst["one"], "rate", "calls/s", 0.90, True)
    )
    rows.append(
        compare(g, f"{k} concurrent, {k} Agents", s, burst["many"], "rate", "calls/s", 0.90, True)
    )
    rows.append(compare(g, f"{k} concurrent, CPU / call", s, burst["one"], "cpu", "ms", 1.10))
    if "configured" in burst:
        c = burst["configured"]
        rows.append(
            compare(g, f"{k} concurrent, SDK given the Agent's config", s, c, "rate", "calls/s")
        )
        rows.append(
            compare(g, f"{k} concurrent, 1 Agent vs that SDK", c, burst["one"], "rate", "calls/s")
        )
    for a_ in (one, with_tool, with_async_tool, *many):
        await a_.close()
    await raw.close()
    return rows


def _import_seconds(statement: str) -> float:
    """``statement`` in a fresh interpreter, by ``-X importtime`` (cumulative, seconds)."""
    module = statement.split()[-1]
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    for line in out.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s?(\S+)$", line)
        if match and match.group(2) == module:
            return int(match.group(1)) / 1e6
    raise RuntimeError(f"no importtime line for {module}")


def _statement_seconds(statement: str) -> float:
    """Wall time of ``statement`` in a fresh interpreter (everything it imports)."""
    probe = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return float(out.strip().splitlines()[-1])


def import_rows(rounds: int) -> list[Row]:
    """The import figures: ours, pydantic's (our floor) and pydantic-ai's (when installed),
    and what ``from doc_processing_toolkit import Agent`` (the lazy names loaded) costs."""
    ours, pyd, peer, agent = [], [], [], []
    have_peer = importlib.util.find_spec("pydantic_ai") is not None
    for _ in range(rounds):
        ours.append(_import_seconds("import doc_processing_toolkit"))
        agent.append(_statement_seconds("from doc_processing_toolkit import Agent"))
        pyd.append(_import_seconds("import pydantic"))
        if have_peer:
            peer.append(_import_seconds("import pydantic_ai"))
    probe = (
        "import sys, doc_processing_toolkit; "
        f"print(','.join(m for m in {FORBIDDEN_AT_IMPORT!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    mine = statistics.median(ours)
    ref = statistics.median(peer) if have_peer else PYDANTIC_AI_REFERENCE_S
    label = (
        "import pydantic_ai" if have_peer else f"pydantic_ai not installed: issue 17's {ref:.2f} s"
    )
    return [
        Row(
            "import",
            f"doc_processing_toolkit vs {label}",
            ref,
            mine,
            "s",
            f"<= {IMPORT_GOAL:.2f}x",
            mine / ref <= IMPORT_GOAL,
        ),
        Row(
            "import",
            "from doc_processing_toolkit import Agent (loads the Agent) vs the reference",
            ref,
            statistics.median(agent),
            "s",
        ),
        Row(
            "import",
            "import pydantic (a dependency: the floor) vs ours",
            statistics.median(pyd),
            mine,
            "s",
        ),
        Row(
            "import",
            "SDK / rich / MCP / yaml / tenacity / opentelemetry imported",
            None,
            float(len([m for m in loaded.split(",") if m])),
            f"modules ({loaded or 'none'})",
            "0",
            not loaded,
        ),
    ]


def print_table(rows: list[Row], header: str) -> None:
    cols = ["group", "figure", "raw SDK (1.00x)", "Agent", "ratio", "goal", "met"]
    cells = [cols] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(cols))]
    print(f"\n{header}\n")
    for j, line in enumerate(cells):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |")
        if j == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


async def run_all(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    with emulator_process() as url:
        for provider in args.providers:
            rows += await provider_rows(provider, url, args)
        for figure, unit, value, note in await session_rows(
            url, args.session_sizes, args.session_repeat
        ):
            rows.append(
                Row("sessions", f"{figure}{f' ({note})' if note else ''}", None, value, unit)
            )
        figure, unit, value, note, met = upload_memory_row(url, smoke=args.smoke)
        rows.append(
            Row("documents", f"{figure} ({note})", None, value, unit, f"< {UPLOAD_GOAL_MB} MB", met)
        )
        for figure, off, on, unit, ratio in await telemetry_rows(url, args.rounds, args.tool_n):
            goal = f"<= {TELEMETRY_GOAL:.2f}x"
            ok = ratio <= TELEMETRY_GOAL
            rows.append(Row("telemetry", figure, off, on, unit, goal, ok, ratio=ratio))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="one short round of everything")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument(
        "--n", type=int, default=40, help="sequential calls per contender per round"
    )
    parser.add_argument(
        "--tool-n", type=int, default=14, help="tool rounds per contender per round"
    )
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--provider", choices=[*MODELS, "all"], default="all")
    args = parser.parse_args()
    if args.smoke:
        args.rounds, args.n, args.tool_n, args.concurrency, args.warmup = 1, 3, 1, 10, 1
    args.session_sizes = (30, 300) if args.smoke else (300, 3000)
    args.session_repeat = 1 if args.smoke else 5
    args.providers = list(MODELS) if args.provider == "all" else [args.provider]
    os.environ["DPT_AGENT_LOG_TO_FILE"] = "0"
    os.environ.pop("AGENT_LOG_LEVEL", None)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    gc.collect()
    start = time.perf_counter()
    rows = import_rows(1 if args.smoke else args.rounds)
    rows = asyncio.run(run_all(args)) + rows
    rows += [
        Row("documents", f"{figure}{f' ({note})' if note else ''}", None, value, unit)
        for figure, unit, value, note in document_rows(smoke=args.smoke)
    ]
    rows += [
        Row("evidence", figure, None, value, unit, note if met is not None else "", met)
        for figure, unit, value, note, met in evidence_rows(smoke=args.smoke)
    ]
    header = (
        f"Agent vs raw SDK, emulator in a separate process, {args.rounds} interleaved round(s) "
        f"(medians; ratios: the median of the rounds' ratios), {args.n} calls/round, "
        f"{args.tool_n} tool rounds/round, {args.concurrency} concurrent; "
        f"{time.perf_counter() - start:.0f} s, {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}"
    )
    print_table(rows, header)
    # The fleet at scale (issue 41): its own processes (emulator, workers, Postgres).
    fleet = [sys.executable, str(HERE / "fleet_scale.py"), *(["--smoke"] if args.smoke else [])]
    subprocess.run(fleet, check=True)


if __name__ == "__main__":
    main()
