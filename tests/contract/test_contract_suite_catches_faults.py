"""The contract suite itself: it fails adapters that break the contract, and says which test.

Each case wraps the real AnthropicModelClient in a deliberately broken ModelClient, runs
the suite on it in an inner pytest session (pytester) and checks exactly which contract
tests fail.
"""

from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]

_PREAMBLE = """
import pytest
from doc_processing_toolkit.adapters.providers.anthropic import (
    AnthropicHistoryCodec,
    AnthropicModelClient,
)
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.messages import Message, ReasoningPart
from doc_processing_toolkit.domain.requests import ModelResponse
from doc_processing_toolkit.testing.contract import EmulatorHarness, ProviderContract
from doc_processing_toolkit.testing.contract.presets import ANTHROPIC_CAPABILITIES


class Wrapper:
    provider = "anthropic"

    def __init__(self, inner):
        self.inner = inner

    async def aclose(self):
        await self.inner.aclose()

    def stream(self, request):
        return self.broken(request)


class TestBrokenContract(ProviderContract):
    @pytest.fixture(scope="class")
    @classmethod
    def contract_harness(cls):
        def factory(url):
            return Broken(AnthropicModelClient(base_url=url, api_key="sk-ant-suite-test"))

        with EmulatorHarness(
            "anthropic",
            "claude-contract-1",
            factory,
            codec=AnthropicHistoryCodec(),
            capabilities=ANTHROPIC_CAPABILITIES,
        ) as harness:
            yield harness
"""

_BROKEN = {
    "leaks_sdk_exceptions": """
class Broken(Wrapper):
    async def broken(self, request):
        try:
            async for item in self.inner.stream(request):
                yield item
        except ProviderError as exc:
            raise (exc.__cause__ or exc) from None
""",
    "retries_itself": """
class Broken(Wrapper):
    async def broken(self, request):
        try:
            async for item in self.inner.stream(request):
                yield item
        except ProviderError as exc:
            if not (exc.retryable and exc.before_stream):
                raise
            async for item in self.inner.stream(request):
                yield item
""",
    "final_response_first": """
class Broken(Wrapper):
    async def broken(self, request):
        held = []
        async for item in self.inner.stream(request):
            if isinstance(item, ModelResponse):
                yield item
            else:
                held.append(item)
        for item in held:
            yield item
""",
    "drops_reasoning": """
class Broken(Wrapper):
    async def broken(self, request):
        async for item in self.inner.stream(request):
            if isinstance(item, ModelResponse):
                parts = tuple(p for p in item.message.parts if not isinstance(p, ReasoningPart))
                message = Message("assistant", parts, provider="anthropic")
                item = ModelResponse(message, item.usage, item.stop_reason, item.model,
                                     item.provider)
            yield item
""",
}


def _failed(pytester: pytest.Pytester, case: str, select: str) -> set[str]:
    pytester.makepyfile(test_broken=textwrap.dedent(_PREAMBLE) + textwrap.dedent(_BROKEN[case]))
    recorder = pytester.inline_run("-p", "no:cacheprovider", "-k", select)
    passed, _, failed = recorder.listoutcomes()
    assert passed or failed, "the inner session ran nothing"
    return {report.nodeid.split("::")[-1] for report in failed}


def test_sdk_exceptions_leaking_out_fail_error_mapping(pytester: pytest.Pytester) -> None:
    failed = _failed(pytester, "leaks_sdk_exceptions", "status_errors or rate_limit or mid_stream")
    assert failed == {
        "test_rate_limit_is_retryable_with_retry_after",
        *(
            f"test_status_errors_map_to_domain_errors[{s}]"
            for s in (
                "400-False",
                "401-False",
                "404-False",
                "500-True",
                "503-True",
            )
        ),
        "test_mid_stream_failure_is_retryable_after_stream_began[stream_error]",
        "test_mid_stream_failure_is_retryable_after_stream_began[disconnect]",
    }


def test_a_client_that_retries_fails_the_one_request_rule(pytester: pytest.Pytester) -> None:
    failed = _failed(pytester, "retries_itself", "status_errors or rate_limit")
    assert failed == {
        "test_rate_limit_is_retryable_with_retry_after",
        "test_status_errors_map_to_domain_errors[500-True]",
        "test_status_errors_map_to_domain_errors[503-True]",
    }


def test_deltas_after_the_final_response_fail_streaming(pytester: pytest.Pytester) -> None:
    failed = _failed(pytester, "final_response_first", "text_streams or one_wire")
    assert failed == {
        "test_text_streams_deltas_before_one_final_response",
        "test_one_wire_request_per_stream_call",
    }


def test_lost_reasoning_fails_the_thinking_round_trip(pytester: pytest.Pytester) -> None:
    failed = _failed(pytester, "drops_reasoning", "thinking or text_streams")
    assert failed == {"test_thinking_round_trip"}
