"""AgentSession: a conversation that carries its history across turns.

Each turn hands the stored history (parsed from the provider-native form through the
Agent's codec) to the Agent's public seam, `Agent.run_turn` / `Agent.stream_turn`, and
stores what the turn added, including the final assistant reply. A turn commits all at
once — messages, run boundary, totals, the per-turn store row — or, when it fails, leaves
everything but the spend it really billed exactly as it was, with `interrupted_turn` set.

The class is composed, not inherited: one `SessionState` and the parts that work on it —
`SessionSaver` (envelope out, the per-turn store), `SessionRestorer` (envelope in, rebind),
`HistoryEditor` (clear, truncation, compaction) and `TurnRunner` (the turns).
"""

from __future__ import annotations

import copy
import os
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any, Self

from pydantic import BaseModel

from doc_processing_toolkit.application.config.method_docs import (
    SESSION_METHOD_SECTIONS,
    document_methods,
)
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.policy.tool_surface import ToolSurfaceGuard
from doc_processing_toolkit.application.run.run_input import RunInput
from doc_processing_toolkit.application.run.stream.streaming import run_blocking
from doc_processing_toolkit.application.session.approvals import ApprovalResumer
from doc_processing_toolkit.application.session.awaiting import pending_of
from doc_processing_toolkit.application.session.editing import HistoryEditor
from doc_processing_toolkit.application.session.envelope import (
    envelope_source,
    read_envelope_json,
)
from doc_processing_toolkit.application.session.history_config import validate_history_config
from doc_processing_toolkit.application.session.metadata import (
    InterruptedTurn,
    RunBoundary,
    SessionMetadata,
)
from doc_processing_toolkit.application.session.native import copy_tree
from doc_processing_toolkit.application.session.restoring import SessionRestorer
from doc_processing_toolkit.application.session.saving import UNSET, SessionSaver
from doc_processing_toolkit.application.session.state import (
    NativeMessages,
    SessionAgent,
    SessionState,
)
from doc_processing_toolkit.application.session.turns import (
    INTERRUPTED_TURN_ENV,
    TurnPolicy,
    TurnRunner,
)
from doc_processing_toolkit.domain.approvals import Approval, PendingApproval
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.domain.grounding import Citation, citation_from_dict
from doc_processing_toolkit.domain.session import MalformedEnvelopeError
from doc_processing_toolkit.ports.session_store import SessionStore

__all__ = [
    "INTERRUPTED_TURN_ENV",
    "LATE_INJECTION_POLICIES",
    "AgentSession",
]

LATE_INJECTION_POLICIES = ("surface", "new_turn")
"""What happens to a hook message that arrived too late for any turn boundary."""


class AgentSession:
    """Stateful conversation session with message history.

    Attributes:
        agent: The Agent instance this session is bound to.
        restored_from_schema_version: The envelope version a restore read, else None.
        prefix_changed_on_resume: The restoring Agent's prefix differs from the saved one.
        prefix_change_report: What moved, or None.
        converted_from: The dialect the last restore or rebind converted from, or None.
        dropped_parts: Restored media parts the target model cannot take.
        last_turn_results: Every AgentResult the most recent call produced.
    """

    def __init__(
        self,
        agent: SessionAgent,
        session_id: str | None = None,
        session_history_config: dict[str, Any] | None = None,
        reuse_anthropic_container: bool = False,
        late_injection_policy: str = "surface",
        max_follow_up_turns: int = 1,
        *,
        store: SessionStore | None = None,
    ) -> None:
        """Initialize an AgentSession.

        Raises:
            ValueError: If late_injection_policy is not "surface" or "new_turn", or
                max_follow_up_turns is negative (or the history config is malformed).
        """
        if late_injection_policy not in LATE_INJECTION_POLICIES:
            raise ConfigurationError(
                "late_injection_policy must be 'surface' or 'new_turn', got "
                f"{late_injection_policy!r}"
            )
        if (
            isinstance(max_follow_up_turns, bool)
            or not isinstance(max_follow_up_turns, int)
            or max_follow_up_turns < 0
        ):
            raise ConfigurationError(
                f"max_follow_up_turns must be a non-negative int, got {max_follow_up_turns!r}"
            )
        if session_history_config is not None:
            session_history_config = validate_history_config(session_history_config)
        state = SessionState(
            agent, session_id or uuid.uuid4().hex, session_history_config, store=store
        )
        policy = TurnPolicy(
            late_injection_policy, max_follow_up_turns, bool(reuse_anthropic_container)
        )
        self._state = state
        self._saver = SessionSaver(state)
        self._restorer = SessionRestorer(state, self._saver)
        self._editor = HistoryEditor(state, self._saver)
        self._turns = TurnRunner(state, self._saver, self._editor, policy)
        self._approvals = ApprovalResumer(state, self._saver, self._turns)
        if reuse_anthropic_container and not state.profile_flag("code_execution_containers"):
            state.log().warning(
                "reuse_anthropic_container is ignored: %s does not reuse code-execution containers",
                agent.provider,
            )
        if store is not None and session_id is not None:
            saved = store.load(session_id)
            if saved is not None:
                try:
                    self._restorer.adopt(saved, media_store=None)
                except MalformedEnvelopeError as exc:
                    where = f"{getattr(store, 'path', store)} session {session_id!r}"
                    raise exc.with_source(where) from None

    # ------------------------------------------------------------------ facts
    @property
    def agent(self) -> SessionAgent:
        """The Agent the next turn runs on (`rebind` moves the session to another)."""
        return self._state.agent

    @agent.setter
    def agent(self, value: SessionAgent) -> None:
        self._state.agent = value

    @property
    def session_id(self) -> str:
        """Get the unique session identifier."""
        return self._state.session_id

    @property
    def messages(self) -> NativeMessages:
        """Conversation history in provider-native shape, each turn's final reply included."""
        return self._state.messages

    @messages.setter
    def messages(self, value: NativeMessages) -> None:
        self._state.messages = list(value)

    @property
    def metadata(self) -> SessionMetadata:
        """Session metadata accumulated across runs."""
        return self._state.metadata

    @property
    def turn_in_flight(self) -> bool:
        """Whether a run() / stream() call is currently running on this session."""
        return self._state.in_flight

    @property
    def late_injection_policy(self) -> str:
        """The configured late-injection policy (read-only)."""
        return self._turns.policy.late_injection_policy

    @property
    def max_follow_up_turns(self) -> int:
        """Automatic follow-up turns allowed per call (read-only)."""
        return self._turns.policy.max_follow_up_turns

    @property
    def run_boundaries(self) -> list[RunBoundary]:
        """Where each recorded turn's messages sit in `messages` (a copy)."""
        return copy.deepcopy(list(self._state.metadata.get("run_boundaries", [])))

    @property
    def conversion_report(self) -> list[dict[str, Any]]:
        """Every artefact a cross-provider conversion dropped and every id it re-keyed."""
        return copy.deepcopy(list(self._state.metadata.get("conversion_report", [])))

    @property
    def citations(self) -> list[Citation]:
        """Every citation of the session's runs, run after run (kept in the envelope)."""
        runs = self._state.metadata.get("citations", [])
        return [citation_from_dict(c) for r in runs for c in r.get("citations", [])]

    @property
    def interrupted_turn(self) -> InterruptedTurn | None:
        """The most recent turn that did not complete, or None (a copy)."""
        turn = self._state.metadata.get("interrupted_turn")
        return copy.deepcopy(turn) if turn else None

    @property
    def pending_approvals(self) -> list[PendingApproval]:
        """The deferred tool calls the session's waiting turn holds (empty when none waits)."""
        return pending_of(self._state.metadata)

    @property
    def pending_injections(self) -> list[str]:
        """Texts a run could not deliver and the session has not sent (a copy)."""
        return list(self._state.metadata.get("pending_injections", []))

    @property
    def media_report(self) -> list[dict[str, Any]]:
        """What a save or a restore could not keep (a copy)."""
        return copy.deepcopy(self._state.media_report)

    @property
    def tool_surface_drift(self) -> list[dict[str, Any]]:
        """Every mid-session change to the provider's tools array (a copy)."""
        return copy.deepcopy(list(self._state.metadata.get("tool_surface_drift", [])))

    @property
    def persistence_report(self) -> dict[str, Any]:
        """What `to_dict` would write, measured (size, counts, media inventory)."""
        return self._saver.persistence_report()

    @property
    def restored_from_schema_version(self) -> int | None:
        """The envelope version a restore read, else None."""
        return self._state.restored_from_schema_version

    @property
    def prefix_changed_on_resume(self) -> bool:
        """The restoring (or rebound) Agent's prefix differs from the saved one."""
        return self._state.prefix_changed_on_resume

    @property
    def prefix_change_report(self) -> dict[str, Any] | None:
        """What moved in the prefix, or None."""
        return self._state.prefix_change_report

    @property
    def converted_from(self) -> str | None:
        """The dialect the last restore or rebind converted from, or None."""
        return self._state.converted_from

    @property
    def dropped_parts(self) -> list[dict[str, Any]]:
        """Restored media parts the target model cannot take."""
        return self._state.dropped_parts

    @property
    def last_turn_results(self) -> list[AgentResult]:
        """Every AgentResult the most recent call produced."""
        return self._state.last_turn_results

    @property
    def _tool_surface(self) -> ToolSurfaceGuard:
        """The session's frozen tool surface (application/run/policy/tool_surface.py)."""
        return self._turns.tool_surface

    def _store_header(self) -> dict[str, Any]:
        """The envelope a store keeps beside the messages (every key but ``messages``)."""
        return self._saver.store_header()

    def get_history(self) -> NativeMessages:
        """A copy of the conversation history, in provider-native shape."""
        return copy_tree(self._state.messages)

    # ------------------------------------------------------------------ lifecycle
    def clear(self) -> None:
        """Clear the history while keeping the session open (metadata is kept)."""
        self._editor.clear()

    def close(self) -> None:
        """Close the session, preventing further runs (its truncated results are released)."""
        self._state.closed = True
        if self._state.truncated is not None:
            self._state.truncated.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *args: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = self._state
        return (
            f"AgentSession(session_id={state.session_id!r}, model={state.agent.model!r}, "
            f"messages={len(state.messages)}, runs={state.metadata.get('run_count', 0)}, "
            f"closed={state.closed})"
        )

    # ------------------------------------------------------------------ turns
    async def run(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
        evidence: bool = False,
        output_retries: int | None = None,
    ) -> AgentResult:
        """Run the agent within the session: the history goes in, the turn is stored
        (a failed turn leaves the session as it was). Also raises ``StateError`` (a
        RuntimeError) when the session is closed or a turn is already running."""
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        return await self._turns.run(RunInput(message, *args, evidence, output_retries))

    def run_sync(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
        evidence: bool = False,
        output_retries: int | None = None,
    ) -> AgentResult:
        """Synchronous wrapper for run() (its own asyncio.run loop per call)."""
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        run_input = RunInput(message, *args, evidence, output_retries)

        async def run_and_release() -> AgentResult:
            try:
                return await self._turns.run(run_input)
            finally:
                await self._state.agent.release_loop_resources()

        return run_blocking(run_and_release)

    async def stream(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
        evidence: bool = False,
        output_retries: int | None = None,
    ) -> AsyncIterator[AgentStreamEvent]:
        """Stream agent events within the session; the turn is stored at ``complete``.
        Raises ``StateError`` (a RuntimeError) when the session is closed or a turn is
        already running; a failed turn is an ``error`` event and is not stored."""
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        async for event in self._turns.stream(RunInput(message, *args, evidence, output_retries)):
            yield event

    async def resume(self, approvals: Mapping[str, Approval]) -> AgentResult:
        """Continue the turn that ended ``awaiting_approval`` with a person's answers.

        Args:
            approvals (dict[str, Approval]): One `Approval` per pending call id
                (`pending_approvals`): approved calls run with their recorded arguments,
                refused ones give the model an error result carrying the message.

        Returns:
            AgentResult: The rest of the turn (what the resume spent; it may itself end
                ``awaiting_approval`` again).

        Raises:
            ApprovalError: (a StateError) nothing waits (never deferred, or resumed
                already), an unknown or missing call id, arguments edited in the saved
                session, the history truncated past the turn, the deferred tool gone, or
                another model or provider. Nothing ran and the session is unchanged.
        """
        return await self._approvals.resume(approvals)

    def resume_sync(self, approvals: Mapping[str, Approval]) -> AgentResult:
        """Synchronous wrapper for resume() (its own asyncio.run loop per call).

        Args:
            approvals (dict[str, Approval]): One `Approval` per pending call id, as for
                `resume`.

        Returns:
            AgentResult: The rest of the turn, as `resume` returns it.
        """

        async def resume_and_release() -> AgentResult:
            try:
                return await self._approvals.resume(approvals)
            finally:
                await self._state.agent.release_loop_resources()

        return run_blocking(resume_and_release)

    # ------------------------------------------------------------------ save
    def to_dict(
        self,
        *,
        media: str | None = None,
        media_store: Any = UNSET,
        media_max_inline_bytes: Any = UNSET,
    ) -> dict[str, Any]:
        """Serialize the session to a detached, JSON-clean version-3 envelope.

        Args:
            media (str | None): The media policy for this save (``"auto"``, ``"inline"``,
                ``"externalize"``, ``"strip"``); the Agent's ``media_policy`` when None.
                Default: None.
            media_store (MediaStore | None): Where ``"externalize"`` puts the bytes; the
                Agent's ``media_store`` when not given.
            media_max_inline_bytes (int | None): The largest media part kept inline; the
                Agent's when not given.

        Returns:
            dict: The version-3 envelope.

        Raises:
            ValueError: If media is not a known policy, or is "externalize" with no store.
        """
        return self._saver.to_dict(
            media=media, media_store=media_store, media_max_inline_bytes=media_max_inline_bytes
        )

    def to_json(
        self,
        *,
        path: str | os.PathLike[str] | None = None,
        indent: int | None = None,
        media: str | None = None,
        media_store: Any = UNSET,
        media_max_inline_bytes: Any = UNSET,
    ) -> str:
        """The envelope as JSON text; with ``path`` also written there atomically.

        Raises ``SessionStoreError`` when the file cannot be written (naming it)."""
        return self._saver.to_json(
            path=path,
            indent=indent,
            media=media,
            media_store=media_store,
            media_max_inline_bytes=media_max_inline_bytes,
        )

    # ------------------------------------------------------------------ restore
    @classmethod
    def from_dict(
        cls, data: dict[str, Any], agent: SessionAgent, *, media_store: Any = None
    ) -> Self:
        """Restore a session from `to_dict` output, bound to ``agent``.

        Args:
            data (dict): A version-3 envelope (older versions are migrated).
            agent (Agent): The Agent the session continues on; a history in another
                provider's dialect is converted for it (``metadata["converted_from"]``).
            media_store (str | MediaStore | None): A directory path or a MediaStore read
                for the envelope's ``$media:<ref>`` markers (None: the agent's); a missing
                blob becomes a placeholder and a `media_report` entry.
                Default: None.

        Returns:
            AgentSession: The restored session.

        Raises:
            MalformedEnvelopeError: (a ValueError) naming the key at fault; nothing is built.
            SessionCompatibilityError: the history is in another provider's dialect and
                cannot be converted for ``agent`` (or conversion is off).
            UnsupportedPartError: under on_unsupported_part="raise".
        """
        session = cls(agent)
        session._restorer.adopt(data, media_store=media_store)
        return session

    @classmethod
    def from_json(
        cls,
        source: str | bytes | os.PathLike[str],
        *,
        agent: SessionAgent,
        media_store: Any = None,
    ) -> Self:
        """Restore a session from JSON text, UTF-8 bytes or a file written by to_json.

        Args:
            source (str | bytes | os.PathLike): The JSON text or bytes, or the path of a
                file `to_json` wrote.
            agent (Agent): The Agent the session continues on (as in `from_dict`).
            media_store (str | MediaStore | None): As in `from_dict`. Default: None.

        Returns:
            AgentSession: The restored session.

        Raises:
            MalformedEnvelopeError: (a ValueError) the bytes are not UTF-8, not JSON, nested
                too deeply, or the envelope is malformed; names the file and the key.
            MissingFileError: (a FileNotFoundError) source names a file that does not exist.
            SessionStoreError: the file cannot be read (a directory, no permission).
        """
        try:
            return cls.from_dict(read_envelope_json(source), agent, media_store=media_store)
        except MalformedEnvelopeError as exc:
            raise exc.with_source(envelope_source(source)) from None

    def rebind(self, new_agent: SessionAgent) -> Self:
        """Continue this session's next turn on ``new_agent``, converting the history.

        Args:
            new_agent (Agent): The agent the next turn runs on.

        Returns:
            AgentSession: This session, for chaining.

        Raises:
            RuntimeError: If a turn is running on this session.
            SessionCompatibilityError: If the history cannot be converted.
        """
        self._restorer.rebind(new_agent)
        self._turns.tool_surface.snapshot = None  # the frozen array does not cross agents
        return self

    # ------------------------------------------------------------------ truncation
    def truncate_to(self, message_count: int, *, drop_orphans: bool = True) -> int:
        """Cut stored history down to (a legal prefix of) its first message_count messages.

        Args:
            message_count (int): How many leading messages to keep (0 to len(messages)).
            drop_orphans (bool): Move the cut back to a legal point (no open tool round)
                and drop tool results stored without their call. Default: True.

        Returns:
            int: The number of messages kept.

        Raises:
            ValueError: message_count is not an int, negative, or past the history.
            RuntimeError: the session is closed (or a turn is running).
        """
        return self._editor.truncate_to(message_count, drop_orphans=drop_orphans)

    def truncate_to_turn(self, turn_index: int, *, drop_orphans: bool = True) -> int:
        """Cut stored history to just before recorded turn ``turn_index``.

        Args:
            turn_index (int): The recorded turn to cut before (0 to the number of
                recorded turns; the number itself keeps everything).
            drop_orphans (bool): As in `truncate_to`. Default: True.

        Returns:
            int: The number of messages kept.

        Raises:
            ValueError: turn_index is not an int, negative, or past the recorded turns.
            RuntimeError: the session is closed.
        """
        return self._editor.truncate_to_turn(turn_index, drop_orphans=drop_orphans)


document_methods(AgentSession, SESSION_METHOD_SECTIONS)
