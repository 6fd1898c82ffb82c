"""What a session holds, typed, and what it reads of its Agent.

`SessionState` is the one record every part of `AgentSession` works on (the history,
the metadata, the media table, the restore facts, the lifecycle flags); `SessionAgent`
is the public surface of an Agent a session uses (`Agent.run_turn` / `Agent.stream_turn`
and the facts beside them), declared here so the session room never imports the Agent.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.history.dialects import Dialects
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.run_input import RunInput, TurnHistory
from doc_processing_toolkit.application.session.metadata import SessionMetadata, new_metadata
from doc_processing_toolkit.application.session.native import NativeHistory
from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.ports.session_store import SessionStore

__all__ = ["NativeMessages", "SessionAgent", "SessionState"]

_log = logging.getLogger("doc_processing_toolkit.session")

NativeMessages = list[dict[str, Any]]
"""A history in the provider's own message shape (the codec's render / the envelope's)."""


class SessionAgent(Protocol):
    """What a session reads of and calls on its Agent: public members only."""

    @property
    def model(self) -> str: ...

    @property
    def instructions(self) -> str: ...

    @property
    def provider(self) -> str: ...

    @property
    def settings(self) -> AgentSettings: ...

    @property
    def deps(self) -> AgentDeps: ...

    @property
    def logger(self) -> logging.Logger: ...

    @property
    def last_abandoned_stream(self) -> dict[str, Any] | None: ...

    async def run_turn(
        self, run_input: RunInput, history: TurnHistory | None = None
    ) -> tuple[AgentResult, BaseException | None]: ...

    def stream_turn(
        self,
        run_input: RunInput,
        history: TurnHistory | None = None,
        *,
        on_result: Callable[[AgentResult, BaseException | None], None] | None = None,
    ) -> AsyncGenerator[AgentStreamEvent, None]: ...

    def model_client(self) -> ModelClient: ...

    async def release_loop_resources(self) -> None: ...

    def declared_tool_surface(self) -> list[dict[str, Any]]: ...


@dataclass(eq=False)
class SessionState:
    """Everything one session holds. The parts of `AgentSession` build a change aside
    and assign it here at the end, so a refused step leaves the state as it was."""

    agent: SessionAgent
    session_id: str
    history_config: dict[str, Any] | None = None
    """The session's own ``session_history_config`` (validated), else None."""
    store: SessionStore | None = None
    """The per-turn store every completed turn is appended to, if any."""
    messages: NativeMessages = field(default_factory=list)
    """The conversation, provider-native (each turn's final reply included)."""
    metadata: SessionMetadata = field(default_factory=new_metadata)
    media_table: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The envelope's media table: Google uploads kept beside their URIs."""
    media_report: list[dict[str, Any]] = field(default_factory=list)
    kept_uploads: dict[str, tuple[str, str]] | None = None
    """After a restore: the bytes of the history's Files API URIs, checked before the
    next turn (None: nothing to check)."""
    container_id: str | None = None
    """The Anthropic container captured under reuse_anthropic_container."""
    closed: bool = False
    in_flight: bool = False
    truncated: TruncatedResultStore | None = None
    """Cut tool results kept for the session's lifetime (created at the first turn)."""
    last_turn_results: list[AgentResult] = field(default_factory=list)
    restored_from_schema_version: int | None = None
    prefix_changed_on_resume: bool = False
    prefix_change_report: dict[str, Any] | None = None
    converted_from: str | None = None
    dropped_parts: list[dict[str, Any]] = field(default_factory=list)
    awaiting_schema: Any = None
    """The waiting turn's ``output_schema`` in this process (its import path, when it has
    one, is in the ``awaiting_approval`` record for any other process)."""

    # ------------------------------------------------------------------ agent facts
    def log(self) -> logging.Logger:
        """The Agent's logger (the session logger when it has none)."""
        logger = getattr(self.agent, "logger", None)
        return logger if isinstance(logger, logging.Logger) else _log

    def native(self) -> NativeHistory:
        """The Agent's codec, for this history."""
        return NativeHistory(self.agent.deps.history_codecs(self.agent.provider))

    def dialects(self) -> Dialects:
        deps = self.agent.deps
        return Dialects(codec=deps.history_codecs, profile=deps.provider_profiles)

    def input_types(self) -> list[str] | None:
        """The input types of the Agent's registry row (None: the model is not listed)."""
        row = self.agent.deps.registry.row(self.agent.model)
        return list(row.input_types) if row is not None else None

    def profile_flag(self, name: str) -> bool:
        profile = self.agent.deps.provider_profiles(self.agent.provider)
        return bool(getattr(profile, name, False))

    # ------------------------------------------------------------------ lifecycle
    def check_open(self) -> None:
        if self.closed:
            raise StateError(f"session {self.session_id!r} is closed")

    def check_idle(self) -> None:
        if self.in_flight:
            raise StateError(f"a turn is already running on session {self.session_id!r}")

    def record_drift(self, record: dict[str, Any]) -> None:
        """Keep one tool-surface drift record (AgentSession.tool_surface_drift)."""
        self.metadata.setdefault("tool_surface_drift", []).append(record)
