"""What the provider contract suite drives: the ContractHarness protocol and EmulatorHarness.

A harness stands between the generic suite (`suite`) and one provider adapter. It
loads scripted steps (`Reply` /
`Fault`) into whatever backend the adapter
talks to, builds the adapter's `ModelClient`
against it, and hands back the wire bodies the backend received. Its
`ContractCapabilities` say what the provider offers, so the suite skips (with a
reason) what does not apply.

`EmulatorHarness` is the harness for any adapter that speaks a dialect of the
loopback `ProviderEmulator`; a plug-in
with its own backend implements `ContractHarness` directly (see
``docs/guide/provider-plugins.md``).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.ports.dialect import HistoryCodec
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.testing.script import ScriptStep

if TYPE_CHECKING:
    from doc_processing_toolkit.testing.emulator import DialectRoute, ProviderEmulator

__all__ = [
    "MID_STREAM_FAULTS",
    "ContractCapabilities",
    "ContractHarness",
    "EmulatorHarness",
    "unreachable_url",
]

MID_STREAM_FAULTS = frozenset({"stream_error", "disconnect"})
"""Every ``Fault`` kind that fails a stream after it began."""


@dataclass(frozen=True, slots=True)
class ContractCapabilities:
    """What a provider offers; the suite skips a check the provider cannot pass by design."""

    parallel_tool_calls: bool = True
    """The model can make two tool calls in one response."""
    structured_output: bool = False
    """Native schema-constrained output (``ModelRequest.output_schema``)."""
    thinking: bool = False
    """The model returns reasoning the adapter keeps as ``ReasoningPart``."""
    thinking_config: Mapping[str, Any] | None = None
    """The ``ModelRequest.thinking`` value that asks for reasoning."""
    thinking_deltas: bool = True
    """Visible reasoning streams as ``ThinkingDelta`` (with ``thinking``)."""
    signed_reasoning: bool = True
    """Reasoning carries an opaque payload (signature, encrypted content) that must be
    replayed byte-identical on the next request (with ``thinking``)."""
    retry_after: bool = True
    """The wire carries retry-after on a 429, so ``ProviderError.retry_after`` is set."""
    cache_reads: bool = True
    """Usage reports prompt-cache reads (``Usage.cached_input_tokens``)."""
    reasoning_tokens: bool = False
    """Usage reports the reasoning share of output (``Usage.reasoning_tokens``)."""
    partial_usage: frozenset[str] = frozenset()
    """The mid-stream ``Fault`` kinds after which the error carries the usage the wire
    reported before the failure (``ProviderError.partial_usage``)."""
    mid_stream_faults: frozenset[str] = MID_STREAM_FAULTS
    """The ``Fault`` kinds the backend can play after the stream began."""
    known_gaps: Mapping[str, str] = field(default_factory=dict)
    """Suite test name (e.g. ``"test_thinking_round_trip"``) -> why it is skipped here."""


@runtime_checkable
class ContractHarness(Protocol):
    """One provider adapter plus a scriptable backend, as the contract suite sees them."""

    @property
    def provider(self) -> str:
        """The provider name the client reports (``ModelClient.provider``)."""
        ...

    @property
    def model(self) -> str:
        """The model name the suite puts on every request."""
        ...

    @property
    def codec(self) -> HistoryCodec | None:
        """The adapter's HistoryCodec (None: the dialect round trip is skipped)."""
        ...

    @property
    def capabilities(self) -> ContractCapabilities:
        """What the provider offers."""
        ...

    def script(self, steps: Sequence[ScriptStep]) -> None:
        """Replace the backend's script with ``steps`` and forget recorded requests."""
        ...

    def make_client(self) -> ModelClient:
        """A new client of the adapter under test, pointed at the backend."""
        ...

    def make_unreachable_client(self) -> ModelClient | None:
        """A client pointed at a closed loopback port (None: skip the connection check)."""
        ...

    def recorded_requests(self) -> list[dict[str, Any]]:
        """The wire bodies the backend received since the last `script`, in order."""
        ...

    def wire_history(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        """The native message history inside a wire body (what the codec parses)."""
        ...


def unreachable_url() -> str:
    """``http://127.0.0.1:PORT`` of a port that was free a moment ago (nothing listens)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    return f"http://127.0.0.1:{port}"


class EmulatorHarness:
    """A `ContractHarness` over the loopback ProviderEmulator.

    ``client_factory`` receives the base URL (the emulator's URL plus ``base_path``) and
    returns the adapter's client; the harness starts one emulator and keeps it until
    `stop` (use it as a context manager, one per test module)::

        with EmulatorHarness(
            "anthropic",
            "claude-contract-1",
            lambda url: AnthropicModelClient(base_url=url),
            codec=AnthropicHistoryCodec(),
        ) as harness:
            ...
    """

    def __init__(
        self,
        provider: str,
        model: str,
        client_factory: Callable[[str], ModelClient],
        *,
        dialect: str | None = None,
        base_path: str = "",
        codec: HistoryCodec | None = None,
        capabilities: ContractCapabilities | None = None,
        history_key: str | None = "messages",
        history_to_native: Callable[[list[Any]], list[dict[str, Any]]] | None = None,
        routes: Mapping[str, DialectRoute] | None = None,
    ) -> None:
        """Describe the adapter; nothing starts until `start`.

        Args:
            provider: The provider name the client reports.
            model: The model name on every request.
            client_factory: ``base_url -> ModelClient``.
            dialect: The emulator dialect whose requests count (default: ``provider``).
            base_path: Appended to the emulator URL (``"/v1"`` for SDKs that expect it).
            codec: The adapter's HistoryCodec.
            capabilities: What the provider offers (default: `ContractCapabilities`).
            history_key: The wire body key holding the message history (None: none).
            history_to_native: Turns the wire history into the codec's native form, when
                the SDK reshapes what the adapter gave it (google-genai camelCases keys).
            routes: Emulator routes (default: every registered dialect).
        """
        self.provider = provider
        self.model = model
        self.codec = codec
        self.capabilities = capabilities or ContractCapabilities()
        self.dialect = dialect or provider
        self._client_factory = client_factory
        self._base_path = base_path
        self._history_key = history_key
        self._history_to_native = history_to_native
        self._routes = routes
        self._emulator: ProviderEmulator | None = None

    def __repr__(self) -> str:
        state = "running" if self._emulator is not None else "stopped"
        return f"EmulatorHarness({self.provider!r}, {self.model!r}, {state})"

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Self:
        """Start the emulator (idempotent); returns self."""
        if self._emulator is None:
            from doc_processing_toolkit.testing.emulator import ProviderEmulator

            self._emulator = ProviderEmulator(routes=self._routes).start()
        return self

    def stop(self) -> None:
        """Stop the emulator (idempotent)."""
        emulator, self._emulator = self._emulator, None
        if emulator is not None:
            emulator.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def emulator(self) -> ProviderEmulator:
        """The running emulator (raises before `start`)."""
        if self._emulator is None:
            raise StateError("the harness is not started: call start() or use it in a with")
        return self._emulator

    @property
    def base_url(self) -> str:
        """The URL handed to ``client_factory``."""
        return self.emulator.url + self._base_path

    # -- the ContractHarness protocol ----------------------------------------------------

    def script(self, steps: Sequence[ScriptStep]) -> None:
        """Replace the emulator's script (no default reply) and forget its requests."""
        emulator = self.emulator
        emulator.reset(steps)
        emulator.default = None

    def make_client(self) -> ModelClient:
        """``client_factory(base_url)``."""
        return self._client_factory(self.base_url)

    def make_unreachable_client(self) -> ModelClient:
        """``client_factory`` on a closed loopback port."""
        return self._client_factory(unreachable_url() + self._base_path)

    def recorded_requests(self) -> list[dict[str, Any]]:
        """Bodies of this dialect's requests since the last `script`."""
        return [r.body for r in self.emulator.requests if r.dialect == self.dialect]

    def wire_history(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        """``body[history_key]``, through ``history_to_native`` when given (None when the
        key is unset or absent)."""
        if self._history_key is None:
            return None
        history = body.get(self._history_key)
        if not isinstance(history, list):
            return None
        if self._history_to_native is not None:
            return self._history_to_native(history)
        return list(history)
