"""The contract suite keeps one-off cold-start work out of its timed test bodies.

The first stream of a process imports the adapter's SDK (seconds of CPU for ``anthropic``),
builds its TLS context and wakes the backend. Inside a test body it counted against
``contract_timeout`` (30 s), so the first streaming test (``test_aclose_is_idempotent``)
timed out once on a loaded machine. The probe below fails its first stream when that stream
runs inside a test's timed window: deterministic, no clock is measured.
"""

from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]

_PROBE = """
import anyio
import pytest
from doc_processing_toolkit.adapters.providers.anthropic import (
    AnthropicHistoryCodec,
    AnthropicModelClient,
)
from doc_processing_toolkit.testing.contract import EmulatorHarness, ProviderContract
from doc_processing_toolkit.testing.contract.presets import ANTHROPIC_CAPABILITIES

COLD = [True]


class ColdStartProbe:
    provider = "anthropic"

    def __init__(self, inner):
        self.inner = inner

    async def aclose(self):
        await self.inner.aclose()

    async def stream(self, request):
        if COLD[0]:
            COLD[0] = False
            left = anyio.current_effective_deadline() - anyio.current_time()
            if left <= ProviderContract.contract_timeout:
                raise RuntimeError("the cold first stream ran inside a test's timed body")
        async for item in self.inner.stream(request):
            yield item


class TestColdStart(ProviderContract):
    @pytest.fixture(scope="class")
    @classmethod
    def contract_harness(cls):
        def factory(url):
            return ColdStartProbe(AnthropicModelClient(base_url=url, api_key="sk-ant-warm-up"))

        with EmulatorHarness(
            "anthropic",
            "claude-contract-1",
            factory,
            codec=AnthropicHistoryCodec(),
            capabilities=ANTHROPIC_CAPABILITIES,
        ) as harness:
            yield harness
"""


def test_the_first_stream_runs_before_the_timed_test_bodies(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_cold_start=textwrap.dedent(_PROBE))
    recorder = pytester.inline_run("-p", "no:cacheprovider", "-k", "test_aclose_is_idempotent")
    passed, _, failed = recorder.listoutcomes()
    assert [r.nodeid.split("::")[-1] for r in passed] == ["test_aclose_is_idempotent"], failed
