"""The fast path and the public SDK path of an adapter, run on the same traffic and compared.

An adapter that uses private members of its SDK keeps every such use in one module
(``adapters/providers/<vendor>/_sdk_private.py``), which chooses at import, by a feature
check, between that fast path and the public-SDK path beside it. `SDK_PATHS` names the
switch of each such adapter; `sdk_path` sets it for a block. Two uses:

* the whole `ProviderContract` again with the switch on the public path (a test module
  whose class takes the `public_sdk_path` fixture), so the fallback is proven correct,
  not only present;
* `SdkPathComparison`: the same scripted emulator traffic streamed through each path, and
  the results compared: the wire request, the deltas, the message IR, the usage, the stop
  reason and the raw response (ids the emulator draws anew each time left out); for a
  failure, the error's class, status, retryability and partial usage.

``make test-sdk-latest`` runs both against the newest released SDKs. The suite imports
pytest; import it only from tests.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, NamedTuple

import anyio
import pytest

from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.messages import Message, user_text
from doc_processing_toolkit.testing.contract.harness import ContractHarness
from doc_processing_toolkit.testing.contract.streaming import (
    StreamOutcome,
    request_for,
    signature_payload,
    stream_once,
    tool_results_for,
)
from doc_processing_toolkit.testing.script import Fault, Reply, ScriptStep, ThinkingBlock, ToolCall

__all__ = ["SDK_PATHS", "SdkPath", "SdkPathComparison", "public_sdk_path", "sdk_path"]


class SdkPath(NamedTuple):
    """Where an adapter keeps its import-time choice between its two SDK paths."""

    module: str
    """The module holding every private-SDK use (imported on first use)."""
    switch: str
    """Its boolean attribute: True, the fast (private) path; False, the public one."""
    check: str
    """Its feature check, a function answering whether the fast path is usable."""


SDK_PATHS: dict[str, SdkPath] = {
    "google": SdkPath(
        "doc_processing_toolkit.adapters.providers.google._sdk_private",
        "PRIVATE_PATH",
        "available",
    ),
}
"""Preset name -> the switch of the adapter's SDK paths (adapters with a private path)."""


@contextmanager
def sdk_path(preset: str, *, private: bool) -> Iterator[None]:
    """Within the block, the ``preset`` adapter takes its fast path (``private=True``) or
    its public-SDK path; the import-time choice is restored after."""
    where = SDK_PATHS[preset]
    module = importlib.import_module(where.module)
    before = getattr(module, where.switch)
    setattr(module, where.switch, private)
    try:
        yield
    finally:
        setattr(module, where.switch, before)


@pytest.fixture
def public_sdk_path(request: pytest.FixtureRequest) -> Iterator[None]:
    """The test module's ``CONTRACT_PRESET`` adapter on its public-SDK path."""
    with sdk_path(request.module.CONTRACT_PRESET, private=False):
        yield


_WEATHER = ToolCall("get_weather", {"city": "Oslo", "units": "metric"}, id="call-w")
_TIME = ToolCall("get_time", {"tz": "Europe/Oslo", "nested": {"a": [1, None, 3]}}, id="call-t")

TRAFFIC: dict[str, list[ScriptStep]] = {
    "text": [Reply("Plain text ✓ ünïcode, in small chunks.", chunk_size=4)],
    "usage with cache reads and a stop reason": [
        Reply(
            "Cut short",
            input_tokens=1200,
            cache_read_tokens=1000,
            output_tokens=7,
            stop_reason="max_tokens",
        )
    ],
    "parallel tool calls": [Reply("", tool_calls=(_WEATHER, _TIME))],
    "thinking with a signature, then a tool call": [
        Reply(
            "Checking.",
            thinking=(ThinkingBlock('Weigh it… "quoted"', signature=signature_payload()),),
            tool_calls=(_WEATHER,),
            chunk_size=5,
            reasoning_tokens=9,
        )
    ],
    "a status error before the stream": [Fault(kind="status", status=429, retry_after=2.0)],
    "a server error": [Fault(kind="status", status=503)],
    "an error in the stream": [Fault(kind="stream_error", partial_text="Half an ans")],
    "a stream cut short": [Fault(kind="disconnect", partial_text="Half")],
}
"""Named scripts, each streamed once per path (a script's reply is one request)."""


def _comparable(outcome: StreamOutcome) -> dict[str, Any]:
    """What must be the same both ways (ids the emulator draws per response left out)."""
    from doc_processing_toolkit.testing.emulator.common import without_key

    if outcome.error is not None or outcome.response is None:
        error = outcome.error
        return {
            "error": type(error).__name__,
            "status": getattr(error, "status_code", None),
            "retryable": getattr(error, "retryable", None),
            "retry_after": getattr(error, "retry_after", None),
            "before_stream": getattr(error, "before_stream", None),
            "partial_usage": getattr(error, "partial_usage", None),
            "provider": error.provider if isinstance(error, ProviderError) else None,
            "deltas": outcome.deltas,
        }
    # ids are drawn per response: two paths of one reply differ in them, nothing else
    response = dataclasses.replace(outcome.response, request_id=None, response_id=None, raw=None)
    return {
        "deltas": outcome.deltas,
        "message": response.message,
        "usage": response.usage,
        "stop_reason": response.stop_reason,
        "response": response,
        "raw": without_key(outcome.response.raw, "response_id"),
        "after_response": outcome.after_response,
    }


class SdkPathComparison:
    """Each script of `TRAFFIC` through the fast path and the public-SDK path of the
    ``CONTRACT_PRESET`` adapter: the same wire requests and the same results.

    Subclass it in a test module (class name starting with ``Test``) that sets
    ``CONTRACT_PRESET`` and provides the ``contract_harness`` fixture, as for
    `ProviderContract`.
    """

    contract_timeout: ClassVar[float] = 30.0
    """Seconds one path of one script may take before the test fails."""

    def _stream(
        self, harness: ContractHarness, preset: str, steps: list[ScriptStep], *, private: bool
    ) -> tuple[list[dict[str, Any]], StreamOutcome]:
        messages: tuple[Message, ...] = (user_text("What is the weather in Oslo?"),)
        request = request_for(harness.model, *messages, system="Be brief.", temperature=0.2)

        async def body() -> StreamOutcome:
            client = harness.make_client()
            try:
                with anyio.fail_after(self.contract_timeout):
                    return await stream_once(client, request)
            finally:
                await client.aclose()

        harness.script(steps)
        with sdk_path(preset, private=private):
            outcome = anyio.run(body)
        return harness.recorded_requests(), outcome

    def test_the_fast_path_is_what_the_installed_sdk_gets(self, request: Any) -> None:
        where = SDK_PATHS[request.module.CONTRACT_PRESET]
        module = importlib.import_module(where.module)
        getattr(module, where.check).cache_clear()
        assert getattr(module, where.check)() is True
        assert getattr(module, where.switch) is True

    @pytest.mark.parametrize("traffic", sorted(TRAFFIC))
    def test_both_paths_give_the_same_result(
        self, contract_harness: ContractHarness, request: Any, traffic: str
    ) -> None:
        preset = request.module.CONTRACT_PRESET
        steps = TRAFFIC[traffic]
        fast_sent, fast = self._stream(contract_harness, preset, steps, private=True)
        public_sent, public = self._stream(contract_harness, preset, steps, private=False)
        assert fast_sent == public_sent, "the two paths sent different requests"
        assert _comparable(fast) == _comparable(public)

    def test_a_follow_up_request_replays_the_same_history_both_ways(
        self, contract_harness: ContractHarness, request: Any
    ) -> None:
        """A tool round: the second request carries the first response (signatures and
        all) and the tool results, byte for byte the same on both paths."""
        preset = request.module.CONTRACT_PRESET
        first = TRAFFIC["thinking with a signature, then a tool call"]
        results = []
        for private in (True, False):
            _, outcome = self._stream(contract_harness, preset, first, private=private)
            response = outcome.ok()
            history = (
                user_text("What is the weather in Oslo?"),
                response.message,
                tool_results_for(response),
            )
            follow_up = request_for(contract_harness.model, *history, system="Be brief.")

            async def body(follow_up: Any = follow_up) -> StreamOutcome:
                client = contract_harness.make_client()
                try:
                    with anyio.fail_after(self.contract_timeout):
                        return await stream_once(client, follow_up)
                finally:
                    await client.aclose()

            contract_harness.script([Reply("Mild, 12 °C.")])
            with sdk_path(preset, private=private):
                second = anyio.run(body)
            results.append((contract_harness.recorded_requests(), _comparable(second)))
        assert results[0] == results[1]
