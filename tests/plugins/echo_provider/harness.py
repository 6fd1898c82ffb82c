"""EchoHarness: the echo provider as the contract suite sees it (a hand-written ContractHarness).

It does not use EmulatorHarness: a plug-in with its own backend implements the
ContractHarness protocol directly, as here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Self

from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.testing.contract import ContractCapabilities, unreachable_url
from doc_processing_toolkit.testing.contract.harness import MID_STREAM_FAULTS
from doc_processing_toolkit.testing.script import ScriptStep

from .client import EchoModelClient
from .codec import PROVIDER, EchoHistoryCodec
from .server import EchoServer

__all__ = ["ECHO_CAPABILITIES", "EchoHarness"]

ECHO_CAPABILITIES = ContractCapabilities(
    parallel_tool_calls=True,
    structured_output=True,
    thinking=True,
    thinking_config={"effort": "low"},
    thinking_deltas=True,
    signed_reasoning=True,
    retry_after=True,
    cache_reads=True,
    reasoning_tokens=True,
    partial_usage=MID_STREAM_FAULTS,
)


class EchoHarness:
    """An EchoServer plus EchoModelClient factory; use as a context manager."""

    provider = PROVIDER
    capabilities = ECHO_CAPABILITIES

    def __init__(self, model: str = "echo-1", api_key: str = "echo-key-not-real") -> None:
        self.model = model
        self.codec = EchoHistoryCodec()
        self.server = EchoServer()
        self._api_key = api_key

    def __enter__(self) -> Self:
        self.server.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.stop()

    def script(self, steps: Sequence[ScriptStep]) -> None:
        self.server.reset(steps)

    def make_client(self) -> ModelClient:
        return EchoModelClient(base_url=self.server.url, api_key=self._api_key)

    def make_unreachable_client(self) -> ModelClient:
        return EchoModelClient(base_url=unreachable_url(), api_key=self._api_key)

    def recorded_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.server.requests]

    def wire_history(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        history = body.get("history")
        return list(history) if isinstance(history, list) else None
