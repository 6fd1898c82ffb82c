"""AgentDeps: the typed set of ports an Agent is handed.

The composition root (``application/container.py``) builds one per Agent
(``container.default_deps()``); the Agent and what it builds read their adapters from it
and look nothing up. The documented entry points (``doc_processing_toolkit.agent``) pass the
composition root's in when the caller gives none — so nothing in the application imports
the container, and importing a module installs nothing.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    InvalidArgumentTypeError,
    StateError,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore
from doc_processing_toolkit.ports.archive_sink import ArchiveSink
from doc_processing_toolkit.ports.dialect import HistoryCodec
from doc_processing_toolkit.ports.document_converter import DocumentConverter, PdfPages
from doc_processing_toolkit.ports.media_store import MediaStore
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.ports.native_media import NativeMediaShapes
from doc_processing_toolkit.ports.ocr import OcrEngine
from doc_processing_toolkit.ports.provider_profile import ProviderProfile
from doc_processing_toolkit.ports.registry import ModelRegistry
from doc_processing_toolkit.ports.telemetry import Telemetry
from doc_processing_toolkit.ports.tool_session import ManagedToolSession, ToolSession

__all__ = [
    "AgentDeps",
    "ConfigValidator",
    "DepsFactory",
    "LocalSessionFactory",
    "ModelClientFactory",
    "SessionFactory",
    "ToolWiring",
    "TruncatedSessionFactory",
    "no_default_deps",
    "with_user_registry",
]


class ModelClientFactory(Protocol):
    """Builds the ModelClient of a provider (a built-in adapter or a plug-in's).

    ``api_key`` and ``base_url`` come as keywords when the Agent has them.

    Raises:
        ValueError: for a provider nothing provides.
    """

    def __call__(
        self,
        provider: str,
        *,
        row_lookup: Callable[[str], ModelInfo | None] | None = None,
        **kwargs: Any,
    ) -> ModelClient: ...


SessionFactory = Callable[[dict[str, Any]], ManagedToolSession]
"""Builds the (unconnected) session of one server config of a session format."""
ConfigValidator = Callable[[Mapping[str, Any]], Any]
"""Checks a format's config when the Agent is built (raises on a bad one)."""
TruncatedSessionFactory = Callable[[TruncatedResultStore], ToolSession]
"""Builds the session serving ``read_truncated_result`` over a run's store."""


class LocalSessionFactory(Protocol):
    """Builds the session serving ``@tool`` functions."""

    def __call__(self, functions: Sequence[Callable[..., Any]], name: str = ...) -> ToolSession: ...


@dataclass(frozen=True, slots=True)
class ToolWiring:
    """The tool-session adapters the ToolLoader and the run planner are handed: the
    session factories of every tool format (built by the composition root)."""

    session_factories: Mapping[str, SessionFactory]
    """A factory per session format (``fastmcp``, ``mcp_script``, ``mcp_command``,
    ``client_session``, ``mcp_remote_client``): config dict -> unconnected session."""
    local_session_factory: LocalSessionFactory
    """The session over ``@tool`` functions (formats 1-3)."""
    config_validators: Mapping[str, ConfigValidator]
    """Checks run by ``ToolLoader.load`` per format."""
    truncated_session_factory: TruncatedSessionFactory
    """The ``read_truncated_result`` session of a run."""


@dataclass(frozen=True, slots=True)
class AgentDeps:
    """The adapters an Agent uses, by port."""

    registry: ModelRegistry
    """Model rows and provider detection."""
    model_clients: ModelClientFactory
    """provider -> ModelClient (unless the Agent was given ``client=``)."""
    history_codecs: Callable[[str], HistoryCodec | None]
    """provider -> its HistoryCodec (None: messages stay in the neutral IR)."""
    provider_profiles: Callable[[str], ProviderProfile]
    """provider -> its ProviderProfile (option checks, key variables, ...)."""
    tools: ToolWiring
    """The tool-session factories of every tool format."""
    release_loop_resources: Callable[[], Awaitable[None]]
    """Closes the provider clients bound to the running loop (``run_sync`` calls it)."""
    native_media: NativeMediaShapes
    """How media sits in provider-native stored messages (session media policy)."""
    media_store: MediaStore | None = None
    """The default store for externalised media (None: media stays inline)."""
    archive_sink: ArchiveSink | None = None
    """The default receiver of compaction archives (None: archive files)."""
    directory_media_store: Callable[[str | os.PathLike[str]], MediaStore] | None = None
    """Builds the MediaStore of a directory (a ``media_store=`` given as a path)."""
    registry_overlay: Callable[[ModelRegistry, Any], ModelRegistry] | None = None
    """Builds ``registry`` with user rows merged over it (``Agent(registry=...)``); None:
    this set of adapters takes no user rows."""
    directory_archive_sink: Callable[[str | os.PathLike[str], str], ArchiveSink] | None = None
    """Builds the ArchiveSink of ``compaction_config["archive_dir"]`` (directory, file
    name prefix); None: compaction archives go only to ``archive_sink``."""
    pdf_pages: PdfPages | None = None
    """Reads, cuts and renders PDFs (page limits, ``Document(pages=...)``,
    ``run_document``); None: PDFs are sent as they are, their pages unchecked."""
    document_converter: DocumentConverter | None = None
    """Office/HTML to Markdown for ``on_unsupported_part="convert"``; None: not installed."""
    ocr: OcrEngine | None = None
    """Reads scanned pages for ``"convert"``; None: those pages are reported lost."""
    telemetry: Callable[[], Telemetry] | None = None
    """Builds the OpenTelemetry adapter of ``telemetry=True`` (raises MissingDependencyError
    without the ``otel`` extra); None: these adapters have no telemetry."""


DepsFactory = Callable[[], AgentDeps]
"""Builds the composition root's default AgentDeps."""


def no_default_deps() -> AgentDeps:
    """What a class of the application does for adapters it was not handed: refuse (the
    documented classes in ``doc_processing_toolkit.agent`` pass the composition root's).

    Raises:
        StateError: always, naming the way out.
    """
    raise StateError(
        "no adapters given: build it from its documented path (doc_processing_toolkit, "
        "doc_processing_toolkit.agent...), which hands it the composition root's, or pass deps="
    )


def with_user_registry(deps: AgentDeps, source: Any) -> AgentDeps:
    """``deps`` with the user rows of ``source`` merged over its registry (None: as is).

    Raises:
        ValueError: a malformed row (naming its source and key), or deps that take no
            user rows.
        TypeError: a source of none of the accepted forms.
    """
    if source is None:
        return deps
    if deps.registry_overlay is None:
        raise ConfigurationError(
            "registry=: the AgentDeps given take no user rows (no registry_overlay); "
            "merge the rows into deps.registry instead"
        )
    try:
        registry = deps.registry_overlay(deps.registry, source)
    except TypeError as exc:
        raise InvalidArgumentTypeError(f"registry: {exc}") from exc
    except ValueError as exc:  # the message names the source, the key and the problem
        raise ConfigurationError(f"registry: {exc}") from exc
    return dataclasses.replace(deps, registry=registry)
