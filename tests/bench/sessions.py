"""The session figures of the bench: envelope save/restore, per-turn saves, conversion.

A template conversation (one tool round: user, tool call, tool result, answer) is run
once per provider against the emulator; its native messages are repeated to the sizes
measured. Nothing here has an SDK baseline: the figures are absolute.
"""

from __future__ import annotations

import functools
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contenders import KEY, MODELS, TOOL_PROMPT, base_url, lookup_tool

from doc_processing_toolkit import Agent, AgentSession
from doc_processing_toolkit.agent.history_conversion import convert_history
from doc_processing_toolkit.agent.session import SqliteSessionStore

Row = tuple[str, str, float, str]
"""(figure, unit, value, note)."""


def _median_time(fn: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def _template(provider: str, url: str) -> tuple[Agent, dict[str, Any]]:
    agent = Agent(
        MODELS[provider],
        api_key=KEY,
        base_url=base_url(provider, url),
        tools=[lookup_tool()],
        log_to_file=False,
    )
    session = agent.session()
    await session.run(TOOL_PROMPT)
    return agent, session.to_dict()


def _sized(envelope: dict[str, Any], count: int) -> dict[str, Any]:
    turn = envelope["messages"]
    messages = [dict(m) for _ in range(count // len(turn) + 1) for m in turn][:count]
    # A history must end on a closed turn: trim to a whole number of turns.
    messages = messages[: len(messages) - len(messages) % len(turn)]
    return {**envelope, "messages": messages}


def _size_rows(
    agent: Agent, envelope: dict[str, Any], size: int, repeat: int, tmp: Path
) -> list[Row]:
    data = _sized(envelope, size)
    n = len(data["messages"])
    session = AgentSession.from_dict(data, agent)
    text = session.to_json()
    path = tmp / f"s{n}.json"
    store = SqliteSessionStore(tmp / f"sessions{n}.db")
    sid = f"bench-{n}"
    header = {k: v for k, v in data.items() if k != "messages"}
    store.append(sid, 0, data["messages"], {**header, "message_count": n})
    turn = envelope["messages"]
    position = [n]

    def one_turn() -> None:
        header["message_count"] = position[0] + len(turn)
        store.append(sid, position[0], turn, header)
        position[0] += len(turn)

    rows: list[Row] = [
        (f"session to_json, {n} msgs", "ms", 1000 * _median_time(session.to_json, repeat), ""),
        (
            f"session from_json, {n} msgs",
            "ms",
            1000 * _median_time(lambda: AgentSession.from_json(text, agent=agent), repeat),
            "",
        ),
        (
            f"per-turn save, to_json(path), {n} msgs",
            "ms",
            1000 * _median_time(lambda: session.to_json(path=path), repeat),
            "atomic: temp + fsync + rename",
        ),
        (
            f"per-turn save, SqliteSessionStore, {n} msgs",
            "ms",
            1000 * _median_time(one_turn, repeat),
            f"one turn of {len(turn)} messages, one transaction",
        ),
    ]
    store.close()
    return rows


async def session_rows(url: str, sizes: tuple[int, ...], repeat: int) -> list[Row]:
    """Every session figure, at each size in ``sizes`` (e.g. 300 and 3,000 messages)."""
    rows: list[Row] = []
    templates = {p: await _template(p, url) for p in MODELS}
    agent, envelope = templates["anthropic"]
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            rows += _size_rows(agent, envelope, size, repeat, Path(tmp))
    size = max(sizes)
    for source in MODELS:
        native = _sized(templates[source][1], size)["messages"]
        for target in MODELS:
            if target == source:
                continue
            convert = functools.partial(
                convert_history, native, source=source, target=target, model=MODELS[target]
            )
            seconds = _median_time(convert, max(1, repeat // 2))
            rows.append(
                (
                    f"history conversion {source} -> {target}",
                    "msgs/s",
                    len(native) / seconds,
                    f"{len(native)} msgs",
                )
            )
    for agent_, _ in templates.values():
        await agent_.close()
    return rows
