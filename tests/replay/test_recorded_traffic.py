"""Differential test: real recorded provider responses, replayed through the Agent.

Each recording of ``tests/fixtures/recordings/`` (real traffic other projects recorded;
sources in its SOURCES.md) is served byte for byte from a loopback HTTP server to an
:class:`Agent` that talks to it through the real provider SDK. What the Agent reports is
compared with what the recording itself says, read by ``recordings.py``'s own parsers
(never by our adapters): the output text, the tool calls (names and arguments), every
usage figure of every request (input, output, cache read, cache write, reasoning), the cost
record at registry prices, the stop reasons, and for a recording that carries an error, the
class of the error raised.

The Agent runs without tools and with ``max_iterations`` set to the number of tool rounds
the recording holds: a tool call it cannot run gets an error result and no request is sent
beyond the recording. Recordings whose model has no registry row run on a registry model
of the same dialect (``FALLBACK_MODEL``), which only moves the price.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from recordings import Expected, Recording, ReplayServer, corpus, expected

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.registry.json_file import default_registry
from doc_processing_toolkit.domain.errors import (
    BadRequestError,
    OverloadedError,
    ProviderError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from doc_processing_toolkit.domain.registry import ModelInfo

pytestmark = pytest.mark.anyio

FALLBACK_MODEL = {
    "anthropic": "claude-opus-4-8",
    "openai": "gpt-4.1",
    "google": "gemini-3.5-flash",
    "fireworks": "kimi-k2p6",
}
"""The registry model a recording runs on when its own model has no row."""

_STATUS_ERRORS: dict[int, type[Exception]] = {
    400: BadRequestError,
    429: RateLimitError,
    500: ServerError,
    529: OverloadedError,
}
"""The error an HTTP error status must raise (agent-api: the typed error tree)."""


def _wanted_error(status: int, code: str) -> type[Exception]:
    """The class a recorded error must raise: by its HTTP status; an ``error`` event on a
    200 stream is a broken stream (:class:`StreamInterruptedError`), Anthropic's overload
    excepted (:class:`OverloadedError`, retried as the 529 it stands for)."""
    if status >= 400:
        return _STATUS_ERRORS.get(status, ProviderError)
    return OverloadedError if code == "overloaded_error" else StreamInterruptedError


XFAIL: dict[str, str] = {}
"""Recordings that show a defect not fixed here, with the reason (strict xfail)."""

REGISTRY = default_registry()
RECORDINGS = corpus()


def _base_url(dialect: str, url: str) -> str:
    return {"openai": f"{url}/v1", "fireworks": f"{url}/inference/v1"}.get(dialect, url)


def _row(name: str | None) -> ModelInfo | None:
    return REGISTRY.row(name) if name else None


def _agent_model(recording: Recording, first: Expected) -> str:
    """The recording's own model when the registry prices it for this dialect."""
    row = _row(first.model)
    if row is not None and row.provider == recording.dialect and row.pricing.known:
        return row.model
    return FALLBACK_MODEL[recording.dialect]


# -- the cost, from the registry's prices and the documented rules (docs/guide/costs.md) ----


def _cost(row: ModelInfo, inp: int, out: int, read: int, write: int, write_1h: int) -> float:
    p = row.pricing
    if p.input_per_mtok is None or p.output_per_mtok is None:
        return 0.0  # an unknown price is never invented
    additive = row.cache_write_billing != "subset"
    prompt = inp + (write if additive else 0)
    long = p.long_context_threshold_tokens is not None and prompt > p.long_context_threshold_tokens
    in_rate, out_rate = p.input_per_mtok, p.output_per_mtok
    if long and p.long_context_input_per_mtok is not None:
        in_rate = p.long_context_input_per_mtok
    if long and p.long_context_output_per_mtok is not None:
        out_rate = p.long_context_output_per_mtok
    scale = in_rate / p.input_per_mtok if p.input_per_mtok else 1.0

    def rate(explicit: float | None, multiple: float) -> float:
        return in_rate * multiple if explicit is None else explicit * scale

    read_rate = rate(p.cache_read_per_mtok, 1.0)
    if additive:
        uncached = inp - read
        writes = write_1h * rate(p.cache_write_1h_per_mtok, 2.0) + (write - write_1h) * rate(
            p.cache_write_5m_per_mtok, 1.25
        )
    else:
        multiple = row.cache_write_input_multiplier or 1.0
        uncached = inp - read - write
        writes = write * in_rate * multiple
    return (uncached * in_rate + read * read_rate + writes + out * out_rate) / 1_000_000


def _expected_cost(e: Expected, agent_row: ModelInfo) -> float:
    served = _row(e.model) or agent_row
    if not e.billed_by_model:
        figures = (
            e.input_tokens,
            e.output_tokens,
            e.cached_input_tokens,
            e.cache_write_tokens,
            e.cache_write_1h_tokens,
        )
        return _cost(served, *figures)
    # iterations naming models: each share at its model's prices, the rest at the server's
    total = 0.0
    named = [0, 0, 0, 0]
    for model, (i, o, r, w) in e.billed_by_model.items():
        total += _cost(_row(model) or served, i, o, r, w, 0)
        named = [a + b for a, b in zip(named, (i, o, r, w), strict=True)]
    rest = (
        e.input_tokens - named[0],
        e.output_tokens - named[1],
        e.cached_input_tokens - named[2],
        e.cache_write_tokens - named[3],
        0,
    )
    if any(rest):
        total += _cost(served, *rest)
    return total


# -- the test ---------------------------------------------------------------------------------


def _iterations(found: list[Expected]) -> int:
    return max(1, sum(1 for e in found if e.stop_reason != "pause_turn"))


def _marks(recording: Recording) -> list[Any]:
    reason = XFAIL.get(recording.name)
    return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []


@pytest.mark.parametrize(
    "recording",
    [pytest.param(r, id=r.name, marks=_marks(r)) for r in RECORDINGS],
)
async def test_a_recorded_response_replays_as_recorded(
    recording: Recording, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_MAX_RETRIES", "0")
    found = expected(recording)
    errors = [i for i, e in enumerate(found) if e.error is not None]
    model = _agent_model(recording, found[0])
    agent_row = _row(model)
    assert agent_row is not None

    with ReplayServer(recording.exchanges) as server:
        agent = Agent(
            model,
            api_key="test-key-not-real",
            base_url=_base_url(recording.dialect, server.url),
            max_iterations=_iterations(found[: errors[0] + 1] if errors else found),
            log_to_file=False,
        )
        if errors:
            first = found[errors[0]]
            status = recording.exchanges[errors[0]].status
            with pytest.raises(ProviderError) as caught:
                await agent.run("Replay.")
            assert isinstance(caught.value, _wanted_error(status, str(first.error))), caught.value
            if status < 400:  # the recorded code (or type) reaches the user
                told = f"{caught.value} {caught.value.error_type}"
                assert any(name in told for name in first.error_names or (str(first.error),))
            assert len(server.paths) == errors[0] + 1
            return
        events = [event async for event in agent.stream("Replay.")]
        requests = len(server.paths)

    complete = events[-1]
    assert complete.event_type == "complete"
    result: dict[str, Any] = complete.metadata or {}
    assert result["error"] is None, result["error"]
    assert requests == len(found)  # every recorded response was asked for, no more

    # output text: the last response's text
    assert result["output"] == found[-1].text

    # tool calls: names and arguments, in order
    calls = [
        (e.metadata["tool_name"], e.metadata["arguments"])
        for e in events
        if e.event_type == "tool_call_start"
    ]
    assert calls == [call for e in found for call in e.tool_calls]

    # stop reasons: one per tool round (a pause_turn continues the same round)
    stops = [e.metadata.get("stop_reason") for e in events if e.event_type == "iteration_complete"]
    assert stops == [e.stop_reason for e in found if e.stop_reason != "pause_turn"]

    # usage and cost, request by request, then the run's totals
    records = result["request_cost_records"]
    assert len(records) == len(found)
    for record, e in zip(records, found, strict=True):
        got = {
            "input_tokens": record["input_tokens"],
            "output_tokens": record["output_tokens"],
            "cached_input_tokens": record["cached_input_tokens"],
            "cache_write_tokens": record["cache_write_tokens"],
            "reasoning_tokens": record["reasoning_tokens"],
        }
        want = {
            "input_tokens": e.input_tokens,
            "output_tokens": e.output_tokens,
            "cached_input_tokens": e.cached_input_tokens,
            "cache_write_tokens": e.cache_write_tokens,
            "reasoning_tokens": e.reasoning_tokens,
        }
        assert got == want
        assert math.isclose(
            record["cost"], _expected_cost(e, agent_row), rel_tol=1e-9, abs_tol=1e-9
        )
    assert result["input_tokens"] == sum(e.input_tokens for e in found)
    assert result["output_tokens"] == sum(e.output_tokens for e in found)
    assert result["cached_input_tokens"] == sum(e.cached_input_tokens for e in found)
    assert result["cache_write_tokens"] == sum(e.cache_write_tokens for e in found)
    assert result["reasoning_tokens"] == sum(e.reasoning_tokens for e in found)
    assert math.isclose(result["cost"], sum(r["cost"] for r in records), rel_tol=1e-9, abs_tol=1e-9)


def test_the_corpus_covers_every_dialect_and_feature() -> None:
    by_dialect: dict[str, int] = {}
    for recording in RECORDINGS:
        by_dialect[recording.dialect] = by_dialect.get(recording.dialect, 0) + 1
    assert set(by_dialect) == {"anthropic", "openai", "google", "fireworks"}
    assert sum(by_dialect.values()) >= 40

    everything = [(r, e) for r in RECORDINGS for e in expected(r)]
    raw = {r.name: b"".join(x.body for x in r.exchanges) for r in RECORDINGS}
    assert any(b"citations_delta" in body for body in raw.values())  # citations
    assert any(b'"type":"compaction"' in body for body in raw.values())  # usage.iterations
    assert any(e.stop_reason == "pause_turn" for _, e in everything)
    assert any(e.reasoning_tokens for _, e in everything)  # thinking / reasoning
    assert any(len(e.tool_calls) >= 2 for _, e in everything)  # parallel tool calls
    assert any(e.cached_input_tokens for _, e in everything)  # cache reads
    assert any(e.cache_write_tokens for _, e in everything)  # cache writes
    assert any(e.error for _, e in everything)  # in-stream errors
