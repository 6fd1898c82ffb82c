"""The provider contract suite: generic pytest tests every ModelClient adapter must pass.

Subclass `ProviderContract` in a test module (the class name must start with
``Test``) and give it a ``contract_harness`` fixture returning a
`ContractHarness`::

    class TestMyProviderContract(ProviderContract):
        @pytest.fixture(scope="class")
        @classmethod
        def contract_harness(cls) -> Iterator[ContractHarness]:
            with MyHarness() as harness:
                yield harness

The tests are synchronous and run their async bodies with `anyio.run` (backend
`ProviderContract.contract_backend`), so they need no async pytest plugin and do
not depend on the host's ``anyio_backend`` fixture. Each test scripts the backend first,
so one harness serves the whole class.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar

import anyio
import pytest

from doc_processing_toolkit.domain.costs.ledger import price_request
from doc_processing_toolkit.domain.errors import (
    ProviderConnectionError,
    ProviderError,
    status_error_class,
)
from doc_processing_toolkit.domain.messages import Message, ReasoningPart, user_text
from doc_processing_toolkit.domain.requests import (
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from doc_processing_toolkit.ports.dialect import HistoryCodec
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.testing.contract.harness import ContractHarness
from doc_processing_toolkit.testing.contract.streaming import (
    StreamOutcome,
    contract_row,
    expected_cost,
    request_for,
    signature_payload,
    stream_once,
    string_leaves,
    tool_results_for,
)
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock, ToolCall

__all__ = ["ProviderContract"]

_T = TypeVar("_T")

_TEXT = "Streaming contract: deltas arrive in order, before the final response. ✓ ünïcode"
_THOUGHT = 'First I weigh the question… then "quote" it,\nand check ünïcode.'
_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
    "required": ["city", "population"],
    "additionalProperties": False,
}

_WEATHER = ToolCall("get_weather", {"city": "Paris", "units": "metric"})
_TIME = ToolCall("get_time", {"tz": "Europe/Paris", "nested": {"a": [1, 2, 3]}})

# (status, retryable) pairs every adapter maps through status_error_class.
_STATUS_FAULTS = [(400, False), (401, False), (404, False), (500, True), (503, True)]


class ProviderContract:
    """The contract suite; see the module docstring for how to run it."""

    contract_backend: ClassVar[str] = "asyncio"
    """The anyio backend the async bodies run on."""
    contract_timeout: ClassVar[float] = 30.0
    """Seconds one test body may take before it fails."""
    contract_warm_up_timeout: ClassVar[float] = 300.0
    """Seconds the warm-up stream (`_contract_warm_up`, before the first test) may take."""

    # -- plumbing ------------------------------------------------------------------------

    @pytest.fixture(autouse=True)
    def _contract_known_gaps(
        self, request: pytest.FixtureRequest, contract_harness: ContractHarness
    ) -> None:
        name = getattr(request.node, "originalname", request.node.name)
        reason = contract_harness.capabilities.known_gaps.get(name)
        if reason:
            pytest.skip(f"{contract_harness.provider}: {reason}")

    @pytest.fixture(scope="class", autouse=True)
    @classmethod
    def _contract_warm_up(cls, contract_harness: ContractHarness) -> None:
        """Stream once before the first test, outside every test's `contract_timeout`.

        The first stream of a process pays one-off costs that have nothing to do with the
        contract: the adapter imports its SDK there (``import anthropic`` alone is seconds
        of CPU, several times that on a loaded machine), builds its TLS context, and the
        backend serves its first request. Paid inside the first streaming test's timed
        body, they made that test's time depend on the machine's load. The warm-up's
        outcome is not checked (the tests check everything); it is bounded by
        `contract_warm_up_timeout`.
        """
        h = contract_harness
        h.script([Reply("warm-up")])

        async def warm_up() -> None:
            with anyio.move_on_after(cls.contract_warm_up_timeout):
                client = h.make_client()
                try:
                    await stream_once(client, request_for(h.model))
                finally:
                    with anyio.move_on_after(cls.contract_warm_up_timeout, shield=True):
                        await client.aclose()

        anyio.run(warm_up, backend=cls.contract_backend)

    def run_async(self, body: Callable[[], Awaitable[_T]]) -> _T:
        """Run ``body`` on a fresh event loop under `contract_timeout`."""

        async def main() -> _T:
            with anyio.fail_after(self.contract_timeout):
                return await body()

        return anyio.run(main, backend=self.contract_backend)

    def stream_all(
        self, harness: ContractHarness, requests: list[Any], *, client: ModelClient | None = None
    ) -> list[StreamOutcome]:
        """Stream each request (a ModelRequest or a callable building one from the
        outcomes so far) on one client, closed afterwards."""

        async def body() -> list[StreamOutcome]:
            own = client or harness.make_client()
            outcomes: list[StreamOutcome] = []
            try:
                for item in requests:
                    request = item(outcomes) if callable(item) else item
                    outcomes.append(await stream_once(own, request))
            finally:
                await own.aclose()
            return outcomes

        return self.run_async(body)

    @staticmethod
    def require(harness: ContractHarness, capability: str) -> None:
        """Skip unless the harness declares ``capability``."""
        if not getattr(harness.capabilities, capability):
            pytest.skip(f"{harness.provider}: the harness does not declare {capability}")

    @staticmethod
    def require_codec(harness: ContractHarness) -> HistoryCodec:
        """The harness codec; skip when there is none."""
        if harness.codec is None:
            pytest.skip(f"{harness.provider}: the harness has no HistoryCodec")
        return harness.codec

    @staticmethod
    def assert_requests(harness: ContractHarness, count: int) -> list[dict[str, Any]]:
        """Exactly ``count`` wire requests were sent (no SDK-level retry, no extra call)."""
        bodies = harness.recorded_requests()
        assert len(bodies) == count, (
            f"expected exactly {count} request(s) on the wire, saw {len(bodies)}: "
            "a client must send one request per stream() call and never retry"
        )
        return bodies

    # -- identity and lifecycle ----------------------------------------------------------

    def test_client_is_a_model_client(self, contract_harness: ContractHarness) -> None:
        client = contract_harness.make_client()
        assert isinstance(client, ModelClient)
        assert client.provider == contract_harness.provider
        if contract_harness.codec is not None:
            assert isinstance(contract_harness.codec, HistoryCodec)
            assert contract_harness.codec.provider == contract_harness.provider
        self.run_async(client.aclose)

    def test_aclose_is_idempotent(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        h.script([Reply("closing")])

        async def body() -> None:
            fresh = h.make_client()
            await fresh.aclose()
            await fresh.aclose()
            used = h.make_client()
            outcome = await stream_once(used, request_for(h.model))
            assert outcome.ok().message.text == "closing"
            await used.aclose()
            await used.aclose()

        self.run_async(body)

    # -- streaming -----------------------------------------------------------------------

    def test_text_streams_deltas_before_one_final_response(
        self, contract_harness: ContractHarness
    ) -> None:
        h = contract_harness
        h.script([Reply(_TEXT, chunk_size=6)])
        (outcome,) = self.stream_all(h, [request_for(h.model, system="Be brief.")])
        response = outcome.ok()

        assert outcome.deltas, "no delta streamed before the final response"
        assert all(isinstance(d, TextDelta) for d in outcome.deltas), outcome.deltas
        assert len(outcome.deltas) >= 2, "the text arrived in one piece: not streamed"
        assert outcome.text == response.message.text == _TEXT
        assert not any(d.structured_output for d in outcome.deltas if isinstance(d, TextDelta))
        assert response.message.role == "assistant"
        assert response.message.tool_calls == ()
        assert response.provider == h.provider
        assert isinstance(response.model, str) and response.model
        assert response.stop_reason == "end_turn"
        self.assert_requests(h, 1)

    def test_one_wire_request_per_stream_call(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        h.script([Reply("one"), Reply("two"), Reply("three")])
        outcomes = self.stream_all(h, [request_for(h.model)] * 3)
        assert [o.ok().message.text for o in outcomes] == ["one", "two", "three"]
        self.assert_requests(h, 3)

    def test_max_tokens_stop_reason(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        h.script([Reply("cut off mid-sen", stop_reason="max_tokens")])
        (outcome,) = self.stream_all(h, [request_for(h.model, max_tokens=16)])
        response = outcome.ok()
        assert response.stop_reason == "max_tokens"
        assert response.message.text == outcome.text == "cut off mid-sen"
        self.assert_requests(h, 1)

    def test_concurrent_streams_on_one_client(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        texts = {"first concurrent answer", "second concurrent answer"}
        h.script([Reply(text, chunk_size=4) for text in sorted(texts)])

        async def body() -> list[StreamOutcome]:
            client = h.make_client()
            outcomes: list[StreamOutcome] = []

            async def one() -> None:
                outcomes.append(await stream_once(client, request_for(h.model)))

            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(one)
                    group.start_soon(one)
            finally:
                await client.aclose()
            return outcomes

        outcomes = self.run_async(body)
        assert {o.ok().message.text for o in outcomes} == texts
        assert all(o.text == o.ok().message.text for o in outcomes), "deltas crossed streams"
        self.assert_requests(h, 2)

    def test_abandoned_stream_leaves_the_client_usable(
        self, contract_harness: ContractHarness
    ) -> None:
        h = contract_harness
        h.script([Reply("a long answer the caller stops reading " * 8, chunk_size=4)])

        async def body() -> StreamOutcome:
            client = h.make_client()
            try:
                stream = client.stream(request_for(h.model))
                first = await stream.__anext__()
                assert isinstance(first, TextDelta), first
                close = getattr(stream, "aclose", None)
                if close is not None:
                    await close()
                h.script([Reply("still works")])
                return await stream_once(client, request_for(h.model))
            finally:
                await client.aclose()

        outcome = self.run_async(body)
        assert outcome.ok().message.text == "still works"
        self.assert_requests(h, 1)

    # -- tools ---------------------------------------------------------------------------

    def test_tool_round_with_parallel_calls(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        calls = (_WEATHER, _TIME) if h.capabilities.parallel_tool_calls else (_WEATHER,)
        h.script([Reply(tool_calls=calls, chunk_size=4), Reply("Both answered.")])
        first = request_for(h.model)

        def second(done: list[StreamOutcome]) -> Any:
            response = done[0].ok()
            history = (*first.messages, response.message, tool_results_for(response))
            return first.with_messages(history)

        round1, round2 = self.stream_all(h, [first, second])
        response = round1.ok()

        parts = response.message.tool_calls
        assert [p.name for p in parts] == [c.name for c in calls]
        assert [p.arguments for p in parts] == [c.arguments for c in calls]
        ids = [p.id for p in parts]
        assert all(isinstance(i, str) and i for i in ids), ids
        assert len(set(ids)) == len(ids), f"tool call ids are not unique: {ids}"
        assert response.stop_reason == "tool_use"
        announced = [d for d in round1.deltas if isinstance(d, ToolCallDelta)]
        assert [(d.id, d.name) for d in announced] == [(p.id, p.name) for p in parts]

        assert round2.ok().message.text == "Both answered."
        bodies = self.assert_requests(h, 2)
        leaves = set(string_leaves(bodies[1]))
        for call_id in ids:
            assert call_id in leaves, f"call id {call_id!r} not replayed on the next request"
        for name in (c.name for c in calls):
            assert any(f"result of {name}" in leaf for leaf in leaves), f"{name} result not sent"

    # -- usage and cost ------------------------------------------------------------------

    def test_usage_prices_into_a_cost_record(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        caps = h.capabilities
        cached = 50 if caps.cache_reads else 0
        reasoning = 10 if caps.reasoning_tokens else 0
        h.script(
            [
                Reply(
                    "priced",
                    input_tokens=120,
                    output_tokens=30,
                    cache_read_tokens=cached,
                    reasoning_tokens=reasoning,
                )
            ]
        )
        (outcome,) = self.stream_all(h, [request_for(h.model)])
        response = outcome.ok()

        assert response.usage == Usage(
            input_tokens=120 + cached,
            output_tokens=30,
            reasoning_tokens=reasoning,
            cached_input_tokens=cached,
        ), "Usage must follow the toolkit convention: input includes cache reads"
        record = price_request(
            response.usage,
            contract_row(h.provider, h.model),
            served_model=response.model,
            served_tier=response.served_tier,
        )
        assert record.price_known and not record.cost_estimated
        assert record.input_tokens == 120 + cached and record.output_tokens == 30
        assert record.cached_input_tokens == cached
        assert record.cost == pytest.approx(expected_cost(120 + cached, cached, 30), abs=1e-12)
        self.assert_requests(h, 1)

    # -- failures ------------------------------------------------------------------------

    def test_rate_limit_is_retryable_with_retry_after(
        self, contract_harness: ContractHarness
    ) -> None:
        h = contract_harness
        h.script([Fault(status=429, retry_after=2, message="slow down")])
        (outcome,) = self.stream_all(h, [request_for(h.model)])
        error = outcome.failed()

        assert isinstance(error, status_error_class(429)), repr(error)
        assert error.retryable and error.before_stream and not error.deltas_emitted
        assert error.status_code == 429
        if h.capabilities.retry_after:
            assert error.retry_after == pytest.approx(2.0)
        assert not outcome.deltas
        self.assert_requests(h, 1)

    @pytest.mark.parametrize(("status", "retryable"), _STATUS_FAULTS)
    def test_status_errors_map_to_domain_errors(
        self, contract_harness: ContractHarness, status: int, retryable: bool
    ) -> None:
        h = contract_harness
        h.script([Fault(status=status, message=f"scripted {status}")])
        (outcome,) = self.stream_all(h, [request_for(h.model)])
        error = outcome.failed()

        assert isinstance(error, ProviderError), f"not a domain error: {error!r}"
        assert isinstance(error, status_error_class(status)), repr(error)
        assert error.status_code == status
        assert error.retryable is retryable
        assert error.before_stream and not error.deltas_emitted
        assert error.provider == h.provider
        self.assert_requests(h, 1)

    @pytest.mark.parametrize("kind", ["stream_error", "disconnect"])
    def test_mid_stream_failure_is_retryable_after_stream_began(
        self, contract_harness: ContractHarness, kind: str
    ) -> None:
        h = contract_harness
        if kind not in h.capabilities.mid_stream_faults:
            pytest.skip(f"{h.provider}: the backend cannot play a {kind} fault")
        partial = "partial answer that "
        h.script([Fault(kind=kind, partial_text=partial, input_tokens=33)])  # type: ignore[arg-type]
        (outcome,) = self.stream_all(h, [request_for(h.model)])
        error = outcome.failed()

        assert isinstance(error, ProviderError), f"not a domain error: {error!r}"
        assert error.retryable, repr(error)
        assert error.before_stream is False
        assert outcome.text == partial, "the partial text must stream before the failure"
        assert error.deltas_emitted is True
        if kind in h.capabilities.partial_usage:
            assert error.partial_usage is not None
            assert error.partial_usage.input_tokens == 33
        self.assert_requests(h, 1)

    def test_unreachable_endpoint_is_a_connection_error(
        self, contract_harness: ContractHarness
    ) -> None:
        h = contract_harness
        client = h.make_unreachable_client()
        if client is None:
            pytest.skip(f"{h.provider}: the harness has no unreachable client")
        h.script([])
        (outcome,) = self.stream_all(h, [request_for(h.model)], client=client)
        error = outcome.failed()
        assert isinstance(error, ProviderConnectionError), repr(error)
        assert error.retryable and error.before_stream and not error.deltas_emitted
        assert not outcome.deltas

    # -- structured output ---------------------------------------------------------------

    def test_structured_output(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        self.require(h, "structured_output")
        answer = {"city": "Paris", "population": 2102650}
        payload = json.dumps(answer)
        h.script([Reply(payload, chunk_size=5)])
        request = request_for(h.model, output_schema=_SCHEMA, tools=())
        (outcome,) = self.stream_all(h, [request])
        response = outcome.ok()

        assert outcome.deltas and all(
            isinstance(d, TextDelta) and d.structured_output for d in outcome.deltas
        ), "structured output text deltas must say structured_output=True"
        assert json.loads(response.message.text) == answer
        (body,) = self.assert_requests(h, 1)
        assert "population" in json.dumps(body), "the schema did not reach the wire"

    # -- reasoning -----------------------------------------------------------------------

    def test_thinking_round_trip(self, contract_harness: ContractHarness) -> None:
        h = contract_harness
        self.require(h, "thinking")
        caps = h.capabilities
        signature = signature_payload()
        h.script(
            [
                Reply(
                    "Looking it up.",
                    thinking=(ThinkingBlock(_THOUGHT, signature=signature),),
                    tool_calls=(ToolCall("lookup", {"q": "contract"}),),
                    chunk_size=7,
                ),
                Reply("Found it."),
            ]
        )
        thinking = dict(caps.thinking_config) if caps.thinking_config is not None else None
        first = request_for(h.model, thinking=thinking)

        def second(done: list[StreamOutcome]) -> Any:
            response = done[0].ok()
            history = (*first.messages, response.message, tool_results_for(response))
            return first.with_messages(history)

        round1, round2 = self.stream_all(h, [first, second])
        response = round1.ok()
        reasoning = [p for p in response.message.parts if isinstance(p, ReasoningPart)]
        assert reasoning, "the reasoning was not kept on the assistant message"
        assert all(p.provider == h.provider for p in reasoning)
        if caps.thinking_deltas:
            assert round1.thinking == _THOUGHT
            first_text = next(
                (i for i, d in enumerate(round1.deltas) if not isinstance(d, ThinkingDelta)),
                len(round1.deltas),
            )
            assert all(isinstance(d, ThinkingDelta) for d in round1.deltas[:first_text])
            assert "".join(p.text for p in reasoning) == _THOUGHT
        assert round2.ok().message.text == "Found it."

        bodies = self.assert_requests(h, 2)
        if caps.signed_reasoning:
            replayed = set(string_leaves(bodies[1]))
            opaque = [leaf for p in reasoning for leaf in string_leaves(p.provider_details)]
            assert opaque, "signed reasoning must keep its opaque payload in provider_details"
            for leaf in opaque:
                assert leaf in replayed, f"reasoning payload not replayed byte-identical: {leaf!r}"
        if h.codec is not None:
            history = h.wire_history(bodies[1])
            assert history is not None, "the harness cannot find the history in the body"
            parsed = h.codec.parse(history)
            assistant = [m for m in parsed if m.role == "assistant"]
            assert assistant, "no assistant turn in the replayed history"
            replayed_parts = [p for p in assistant[0].parts if isinstance(p, ReasoningPart)]
            assert replayed_parts == reasoning, "the replayed reasoning differs"

    # -- dialect -------------------------------------------------------------------------

    def test_dialect_round_trip_on_adapter_histories(
        self, contract_harness: ContractHarness
    ) -> None:
        h = contract_harness
        codec = self.require_codec(h)
        calls = (_WEATHER, _TIME) if h.capabilities.parallel_tool_calls else (_WEATHER,)
        h.script([Reply("Let me check.", tool_calls=calls), Reply("Sunny, noon."), Reply("Bye.")])
        first = request_for(h.model, system="Answer briefly.")

        def history(done: list[StreamOutcome]) -> tuple[Message, ...]:
            turns: list[Message] = list(first.messages)
            for index, outcome in enumerate(done):
                response = outcome.ok()
                turns.append(response.message)
                turns.append(tool_results_for(response) if index == 0 else user_text("Thanks!"))
            return tuple(turns)

        outcomes = self.stream_all(
            h,
            [
                first,
                lambda done: first.with_messages(history(done)),
                lambda done: first.with_messages(history(done)),
            ],
        )
        assert outcomes[-1].ok().message.text == "Bye."
        bodies = self.assert_requests(h, 3)
        for body in bodies:
            native = h.wire_history(body)
            assert native is not None, "the harness cannot find the history in the body"
            assert codec.render(codec.parse(native)) == native, "render(parse(x)) != x"

        native = h.wire_history(bodies[-1])
        assert native is not None
        parsed = codec.parse(native)
        sent_calls = outcomes[0].ok().message.tool_calls
        parsed_calls = [c for m in parsed for c in m.tool_calls]
        assert [(c.id, c.name, c.arguments) for c in parsed_calls] == [
            (c.id, c.name, c.arguments) for c in sent_calls
        ]
        assert [m.text for m in parsed if m.role == "assistant"] == [
            "Let me check.",
            "Sunny, noon.",
        ]
        assert parsed[-1].role == "user" and parsed[-1].text == "Thanks!"
