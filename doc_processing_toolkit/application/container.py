"""The composition root: the one module that wires adapters to the application.

Nothing else imports ``dependency_injector`` or an adapter module from the application.
``Agent(...)`` uses the process default container (`default_container`); a host
overrides any adapter on it::

    from dependency_injector import providers
    from doc_processing_toolkit.application.container import default_container

    container = default_container()
    container.model_clients.anthropic.override(providers.Object(my_client))
    ...
    container.model_clients.anthropic.reset_override()

or per Agent with ``Agent(..., client=my_client)`` or ``Agent(..., deps=my_deps)``. The
container hands each Agent a typed `AgentDeps`
(`default_deps`); nothing below it looks the container up. Third-party providers register a
factory ``(**kwargs) -> ModelClient`` under the entry-point group
``doc_processing_toolkit.providers``; the entry point's name is the provider name. A
plug-in's HistoryCodec (so ``AgentResult.messages`` is in its native form) registers a
zero-argument factory under ``doc_processing_toolkit.history_codecs`` the same way.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any, cast

from dependency_injector import containers, providers

from doc_processing_toolkit.adapters.documents import (
    default_converter,
    default_ocr,
    default_pdf_pages,
)
from doc_processing_toolkit.adapters.durable.dbos import DbosEngine
from doc_processing_toolkit.adapters.providers._batch import BatchPolling
from doc_processing_toolkit.adapters.providers._common import release_loop_clients
from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers.anthropic.batch import AnthropicBatchClient
from doc_processing_toolkit.adapters.providers.anthropic.client import AnthropicModelClient
from doc_processing_toolkit.adapters.providers.anthropic.dialect import AnthropicHistoryCodec
from doc_processing_toolkit.adapters.providers.anthropic.profile import AnthropicProfile
from doc_processing_toolkit.adapters.providers.fireworks.client import FireworksModelClient
from doc_processing_toolkit.adapters.providers.fireworks.dialect import FireworksHistoryCodec
from doc_processing_toolkit.adapters.providers.fireworks.profile import FireworksProfile
from doc_processing_toolkit.adapters.providers.google.batch import GoogleBatchClient
from doc_processing_toolkit.adapters.providers.google.client import GoogleModelClient
from doc_processing_toolkit.adapters.providers.google.dialect import GoogleHistoryCodec
from doc_processing_toolkit.adapters.providers.google.profile import GoogleProfile
from doc_processing_toolkit.adapters.providers.native_media import ProviderMediaShapes
from doc_processing_toolkit.adapters.providers.openai.batch import OpenAIBatchClient
from doc_processing_toolkit.adapters.providers.openai.client import OpenAIModelClient
from doc_processing_toolkit.adapters.providers.openai.dialect import OpenAIHistoryCodec
from doc_processing_toolkit.adapters.providers.openai.profile import OpenAIProfile
from doc_processing_toolkit.adapters.registry.json_file import JsonFileRegistry, overlay_registry
from doc_processing_toolkit.adapters.tool_sessions.local_functions import LocalFunctionSession
from doc_processing_toolkit.adapters.tool_sessions.truncated_results import TruncatedResultSession
from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.deps import AgentDeps, ToolWiring
from doc_processing_toolkit.application.fleet.fleet import FleetDeps
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.archive_sink import ArchiveSink
from doc_processing_toolkit.ports.batch import BatchClient
from doc_processing_toolkit.ports.dialect import HistoryCodec
from doc_processing_toolkit.ports.durable import DurableEngine
from doc_processing_toolkit.ports.media_store import MediaStore
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.ports.provider_profile import ProviderProfile
from doc_processing_toolkit.ports.registry import ModelRegistry
from doc_processing_toolkit.ports.telemetry import Telemetry
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = [
    "CODEC_ENTRY_POINT_GROUP",
    "ENTRY_POINT_GROUP",
    "PROFILE_ENTRY_POINT_GROUP",
    "BatchPolling",
    "Container",
    "build_batch_client",
    "build_durable_engine",
    "build_history_codec",
    "build_model_client",
    "build_provider_profile",
    "default_container",
    "default_deps",
    "detect_provider",
    "fleet_deps",
    "local_function_session",
    "registry",
    "release_loop_resources",
    "reset_default_container",
    "tool_loader_wiring",
]

ENTRY_POINT_GROUP = "doc_processing_toolkit.providers"
CODEC_ENTRY_POINT_GROUP = "doc_processing_toolkit.history_codecs"
PROFILE_ENTRY_POINT_GROUP = "doc_processing_toolkit.provider_profiles"


def _mcp_session(config: dict[str, Any]) -> Any:
    """The (unconnected) MCP session for a tool config; imported on first use."""
    from doc_processing_toolkit.adapters.mcp.factory import mcp_session_for

    return mcp_session_for(config)


class Container(containers.DeclarativeContainer):
    """Adapters by port. Override a provider to swap an adapter for the whole process."""

    registry = providers.Singleton(JsonFileRegistry)
    model_clients: providers.FactoryAggregate[Any] = providers.FactoryAggregate(
        anthropic=providers.Factory(AnthropicModelClient),
        openai=providers.Factory(OpenAIModelClient),
        google=providers.Factory(GoogleModelClient),
        fireworks=providers.Factory(FireworksModelClient),
    )
    history_codecs: providers.FactoryAggregate[Any] = providers.FactoryAggregate(
        anthropic=providers.Factory(AnthropicHistoryCodec),
        openai=providers.Factory(OpenAIHistoryCodec),
        google=providers.Factory(GoogleHistoryCodec),
        fireworks=providers.Factory(FireworksHistoryCodec),
    )
    provider_profiles: providers.FactoryAggregate[Any] = providers.FactoryAggregate(
        anthropic=providers.Singleton(AnthropicProfile),
        openai=providers.Singleton(OpenAIProfile),
        google=providers.Singleton(GoogleProfile),
        fireworks=providers.Singleton(FireworksProfile),
    )
    batch_clients: providers.FactoryAggregate[Any] = providers.FactoryAggregate(
        anthropic=providers.Factory(AnthropicBatchClient),
        openai=providers.Factory(OpenAIBatchClient),
        google=providers.Factory(GoogleBatchClient),
    )
    """Provider batch APIs by provider (Fireworks has none: its jobs run interactively)."""
    local_functions = providers.Factory(LocalFunctionSession)
    mcp_sessions = providers.FactoryAggregate(
        fastmcp=providers.Factory(_mcp_session),
        mcp_script=providers.Factory(_mcp_session),
        mcp_command=providers.Factory(_mcp_session),
        client_session=providers.Factory(_mcp_session),
        mcp_remote_client=providers.Factory(_mcp_session),
    )
    """ToolLoader session factories by tool format: ``(config dict) -> ManagedToolSession``."""
    truncated_results = providers.Factory(TruncatedResultSession)
    pdf_pages = providers.Singleton(default_pdf_pages)
    document_converter = providers.Singleton(default_converter)
    ocr = providers.Singleton(default_ocr)
    durable_engine = providers.Factory(DbosEngine)
    """``(database_url, name) -> DurableEngine`` of fleets (DBOS)."""


_default: Container | None = None
_default_lock = threading.Lock()


def default_container() -> Container:
    """The process default container, built on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Container()
        return _default


def reset_default_container() -> None:
    """Drop the process default container (tests, hosts that rebuild their wiring)."""
    global _default
    with _default_lock:
        _default = None


def _plugin_factory(provider: str, group: str = ENTRY_POINT_GROUP) -> Any | None:
    for ep in entry_points(group=group):
        if ep.name == provider:
            return ep.load()
    return None


_TIMEOUT_KWARGS = ("connect_timeout", "timeout", "stream_idle_timeout")


def _accepted(factory: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` without the timeouts a plug-in factory's signature does not take."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k not in _TIMEOUT_KWARGS or k in params}


def build_model_client(
    container: Container,
    provider: str,
    *,
    row_lookup: Callable[[str], ModelInfo | None] | None = None,
    **kwargs: Any,
) -> ModelClient:
    """A ModelClient for ``provider``: a built-in adapter, else an entry-point plug-in.

    ``row_lookup`` reaches the built-in adapters only (a plug-in factory gets ``kwargs``:
    ``api_key`` and ``base_url`` when set).

    Raises:
        ValueError: for a provider nothing provides.
    """
    if provider in container.model_clients.providers:
        if row_lookup is not None:
            kwargs["row_lookup"] = row_lookup
        return cast(ModelClient, container.model_clients(provider, **kwargs))
    factory = _plugin_factory(provider)
    if factory is not None:
        return cast(ModelClient, factory(**_accepted(factory, kwargs)))
    raise ConfigurationError(
        f"no adapter for provider {provider!r}: register one under the entry-point group "
        f"{ENTRY_POINT_GROUP!r} or pass client="
    )


def build_batch_client(
    container: Container,
    provider: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    polling: BatchPolling | None = None,
    row_lookup: Callable[[str], ModelInfo | None] | None = None,
) -> BatchClient | None:
    """The BatchClient of ``provider``'s batch API, or None when the toolkit has none for it
    (Fireworks, plug-ins): the caller then runs those requests interactively.

    ``api_key`` / ``base_url`` work as for ``Agent(...)``: unset, the key comes from the
    provider's variable (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``,
    ``GOOGLE_GEMINI_API_KEY``) and the endpoint from ``DPT_<PROVIDER>_BASE_URL`` or the
    SDK's own. A missing key raises ConfigurationError naming the variable at the first
    ``run_batch``, before any network. ``polling`` sets the poll intervals and the timeout
    (`BatchPolling`; default: 10 s doubling to 5 min, cancelled after 25 h, each
    overridable by ``DPT_BATCH_POLL_INITIAL_S``, ``DPT_BATCH_POLL_MAX_S`` and
    ``DPT_BATCH_TIMEOUT_S``);
    ``row_lookup`` defaults to the container's registry. The client prices nothing
    itself: its responses carry ``served_tier="batch"`` and the ledger bills them at the
    registry row's ``batch`` prices. Override per provider with
    ``container.batch_clients.<provider>.override(...)``; fleets in batch mode get theirs
    here (`fleet_deps`).
    """
    if provider not in container.batch_clients.providers:
        return None
    kwargs: dict[str, Any] = {
        "row_lookup": row_lookup or registry(container).row,
        "polling": polling or BatchPolling.from_env(environment.batch_polling_values()),
    }
    for name, value in (("api_key", api_key), ("base_url", base_url)):
        if value is not None:
            kwargs[name] = value
    return cast(BatchClient, container.batch_clients(provider, **kwargs))


def local_function_session(container: Container, functions: list[Any]) -> ToolSession:
    """A ToolSession over ``@tool`` functions."""
    return cast(ToolSession, container.local_functions(functions))


def tool_loader_wiring(container: Container) -> ToolWiring:
    """The tool-session adapters: a session factory per format, the ``@tool`` session,
    the config validators and the ``read_truncated_result`` session.

    A session factory validates its config as it builds the (unconnected) session, so it
    doubles as the validator the loader runs when the Agent is built."""
    factories = {
        kind: functools.partial(container.mcp_sessions, kind)
        for kind in container.mcp_sessions.providers
    }

    def local_session(
        functions: Sequence[Callable[..., Any]], name: str = "local-functions"
    ) -> ToolSession:
        return cast(ToolSession, container.local_functions(functions, name=name))

    return ToolWiring(
        session_factories=factories,
        local_session_factory=local_session,
        config_validators=dict(factories),
        truncated_session_factory=lambda store: cast(
            ToolSession, container.truncated_results(store)
        ),
    )


def default_deps(container: Container | None = None) -> AgentDeps:
    """The AgentDeps of ``container`` (default: the process container).

    Built per Agent, so an override made on the container before an Agent is built
    reaches that Agent (a model-client override reaches it until its first run).
    """
    container = container or default_container()

    def model_client(
        provider: str,
        *,
        row_lookup: Callable[[str], ModelInfo | None] | None = None,
        **kwargs: Any,
    ) -> ModelClient:
        return build_model_client(container, provider, row_lookup=row_lookup, **kwargs)

    return AgentDeps(
        registry=registry(container),
        model_clients=model_client,
        # Codecs are stateless: one lookup per provider per Agent, not one per run.
        history_codecs=functools.cache(functools.partial(build_history_codec, container)),
        provider_profiles=functools.partial(build_provider_profile, container),
        tools=tool_loader_wiring(container),
        release_loop_resources=release_loop_resources,
        native_media=ProviderMediaShapes(),
        registry_overlay=overlay_registry,
        directory_media_store=directory_media_store,
        directory_archive_sink=directory_archive_sink,
        pdf_pages=container.pdf_pages(),
        document_converter=container.document_converter(),
        ocr=container.ocr(),
        telemetry=agent_telemetry,
    )


def agent_telemetry() -> Telemetry:
    """The OpenTelemetry adapter of ``Agent(telemetry=True)``: one per process, on the
    API's global providers (content captured when
    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` when first built).

    Raises:
        MissingDependencyError: without the ``otel`` extra.
    """
    global _agent_telemetry
    if _agent_telemetry is None:
        from doc_processing_toolkit.adapters.telemetry import otel_telemetry

        _agent_telemetry = otel_telemetry(capture_content=environment.capture_message_content())
    return _agent_telemetry


_agent_telemetry: Telemetry | None = None


def directory_archive_sink(directory: str | os.PathLike[str], prefix: str) -> ArchiveSink:
    """The bundled `DirectoryArchiveSink` of ``directory`` (compaction archives)."""
    from doc_processing_toolkit.adapters.archive_sinks.directory import DirectoryArchiveSink

    return DirectoryArchiveSink(directory, prefix)


def directory_media_store(directory: str | os.PathLike[str]) -> MediaStore:
    """The bundled `DirectoryMediaStore` of ``directory``."""
    from doc_processing_toolkit.adapters.media_stores.directory import DirectoryMediaStore

    return DirectoryMediaStore(directory)


async def release_loop_resources() -> None:
    """Close every provider SDK client bound to the running event loop (shared or owned).

    ``Agent.run_sync`` calls this before its private loop ends.
    """
    await release_loop_clients()


def build_history_codec(container: Container, provider: str) -> HistoryCodec | None:
    """The provider's HistoryCodec, or None when it has none."""
    if provider in container.history_codecs.providers:
        return cast(HistoryCodec, container.history_codecs(provider))
    factory = _plugin_factory(provider, CODEC_ENTRY_POINT_GROUP)
    return cast(HistoryCodec, factory()) if factory is not None else None


def build_provider_profile(container: Container, provider: str) -> ProviderProfile:
    """The provider's profile: a built-in one, a plug-in's (entry-point group
    ``doc_processing_toolkit.provider_profiles``, a zero-argument factory), else a
    `BaseProfile` with the provider's name (no id convention, media anywhere
    but in a model turn, nothing salvaged, keywords passed through)."""
    if provider in container.provider_profiles.providers:
        return cast(ProviderProfile, container.provider_profiles(provider))
    factory = _plugin_factory(provider, PROFILE_ENTRY_POINT_GROUP)
    if factory is not None:
        return cast(ProviderProfile, factory())
    return BaseProfile(name=provider)


def build_durable_engine(
    container: Container, database_url: str | None, name: str
) -> DurableEngine:
    """The durable engine of fleet ``name`` on ``database_url``."""
    return cast(DurableEngine, container.durable_engine(database_url, name))


def fleet_deps(container: Container | None = None) -> FleetDeps:
    """The FleetDeps of ``container`` (default: the process container)."""
    container = container or default_container()
    return FleetDeps(
        engine=functools.partial(build_durable_engine, container),
        batch_clients=functools.partial(build_batch_client, container),
        registry=registry(container),
    )


def registry(container: Container | None = None) -> ModelRegistry:
    """The registry of ``container`` (default: the process container)."""
    return cast(ModelRegistry, (container or default_container()).registry())


def detect_provider(model_name: str, container: Container | None = None) -> str:
    """The provider of ``model_name`` by the registry of ``container`` (default: the process
    container, ``registry/model_information.json`` plus user rows).

    ``_``-prefixed keys are registry metadata at every level and never resolve as
    models.

    Raises:
        ValueError: if the model is not found.
        TypeError: if ``model_name`` is None (or not a string).
    """
    if not isinstance(model_name, str):
        raise InvalidArgumentTypeError(
            f"model_name must be a string, got {type(model_name).__name__}"
        )
    return registry(container).detect_provider(model_name)
