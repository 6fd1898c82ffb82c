"""AgentSession: a conversation that carries its history across turns.

Each turn hands the stored history (parsed from the provider-native form through the
Agent's codec) to the Agent's one run loop and stores what the turn added, including the
final assistant reply. A turn commits all at once — messages, run boundary, totals, the
per-turn store row — or, when it fails, leaves everything but the spend it really billed
exactly as it was, with `interrupted_turn` set.
"""

from __future__ import annotations

import contextlib
import copy
import os
import uuid
from collections.abc import AsyncIterator
from typing import Any, Self

from pydantic import BaseModel

from doc_processing_toolkit.application.config.reference import (
    SESSION_METHOD_SECTIONS,
    document_methods,
)
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.run_input import RunInput, TurnHistory
from doc_processing_toolkit.application.run.streaming import run_blocking
from doc_processing_toolkit.application.session.envelope import (
    envelope_source,
    read_envelope_json,
)
from doc_processing_toolkit.application.session.history_config import validate_history_config
from doc_processing_toolkit.application.session.metadata import new_metadata
from doc_processing_toolkit.application.session.native import copy_tree
from doc_processing_toolkit.application.session.turns import INTERRUPTED_TURN_ENV, SessionTurns
from doc_processing_toolkit.domain.errors import ConfigurationError, StateError
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.domain.session import MalformedEnvelopeError
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore, marker_ids
from doc_processing_toolkit.ports.session_store import SessionStore

__all__ = ["INTERRUPTED_TURN_ENV", "LATE_INJECTION_POLICIES", "AgentSession"]

LATE_INJECTION_POLICIES = ("surface", "new_turn")
"""What happens to a hook message that arrived too late for any turn boundary."""


class AgentSession(SessionTurns):
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
        agent: Any,
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
        self.agent: Any = agent
        self._session_id = session_id or uuid.uuid4().hex
        self._history_config = session_history_config
        self._reuse_container = bool(reuse_anthropic_container)
        self._late_policy = late_injection_policy
        self._max_follow_ups = max_follow_up_turns
        self._store = store
        self._messages: list[dict[str, Any]] = []
        self._metadata: dict[str, Any] = new_metadata()
        self._media_table: dict[str, dict[str, Any]] = {}
        self._media_report: list[dict[str, Any]] = []
        self._kept_uploads: dict[str, tuple[str, str]] | None = None
        self._container_id: str | None = None
        self._closed = False
        self._in_flight = False
        self._truncated: TruncatedResultStore | None = None
        """Cut tool results kept for the session's lifetime (created at the first turn)."""
        self.restored_from_schema_version: int | None = None
        self.prefix_changed_on_resume = False
        self.prefix_change_report: dict[str, Any] | None = None
        self.converted_from: str | None = None
        self.dropped_parts: list[dict[str, Any]] = []
        self.last_turn_results: list[AgentResult] = []
        if reuse_anthropic_container and not self._profile_flag("code_execution_containers"):
            self._log().warning(
                "reuse_anthropic_container is ignored: %s does not reuse code-execution containers",
                agent.provider,
            )
        if store is not None and session_id is not None:
            saved = store.load(session_id)
            if saved is not None:
                try:
                    self._adopt(saved, media_store=None)
                except MalformedEnvelopeError as exc:
                    where = f"{getattr(store, 'path', store)} session {session_id!r}"
                    raise exc.with_source(where) from None

    # ------------------------------------------------------------------ facts
    def _profile_flag(self, name: str) -> bool:
        profile = self.agent.deps.provider_profiles(self.agent.provider)
        return bool(getattr(profile, name, False))

    @property
    def session_id(self) -> str:
        """Get the unique session identifier."""
        return self._session_id

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Conversation history in provider-native shape, each turn's final reply included."""
        return self._messages

    @messages.setter
    def messages(self, value: list[dict[str, Any]]) -> None:
        self._messages = list(value)

    @property
    def metadata(self) -> dict[str, Any]:
        """Session metadata accumulated across runs."""
        return self._metadata

    @property
    def turn_in_flight(self) -> bool:
        """Whether a run() / stream() call is currently running on this session."""
        return self._in_flight

    @property
    def late_injection_policy(self) -> str:
        """The configured late-injection policy (read-only)."""
        return self._late_policy

    @property
    def max_follow_up_turns(self) -> int:
        """Automatic follow-up turns allowed per call (read-only)."""
        return self._max_follow_ups

    @property
    def run_boundaries(self) -> list[dict[str, int]]:
        """Where each recorded turn's messages sit in `messages` (a copy)."""
        return copy.deepcopy(list(self._metadata.get("run_boundaries", [])))

    @property
    def conversion_report(self) -> list[dict[str, Any]]:
        """Every artefact a cross-provider conversion dropped and every id it re-keyed."""
        return copy.deepcopy(list(self._metadata.get("conversion_report", [])))

    @property
    def interrupted_turn(self) -> dict[str, Any] | None:
        """The most recent turn that did not complete, or None (a copy)."""
        turn = self._metadata.get("interrupted_turn")
        return copy.deepcopy(turn) if turn else None

    @property
    def pending_injections(self) -> list[str]:
        """Texts a run could not deliver and the session has not sent (a copy)."""
        return list(self._metadata.get("pending_injections", []))

    @property
    def media_report(self) -> list[dict[str, Any]]:
        """What a save or a restore could not keep (a copy)."""
        return copy.deepcopy(self._media_report)

    @property
    def tool_surface_drift(self) -> list[dict[str, Any]]:
        """Every mid-session change to the provider's tools array (a copy)."""
        return copy.deepcopy(list(self._metadata.get("tool_surface_drift", [])))

    def get_history(self) -> list[dict[str, Any]]:
        """A copy of the conversation history, in provider-native shape."""
        return copy_tree(self._messages)

    # ------------------------------------------------------------------ lifecycle
    def _check_open(self) -> None:
        if self._closed:
            raise StateError(f"session {self._session_id!r} is closed")

    def _check_idle(self) -> None:
        if self._in_flight:
            raise StateError(f"a turn is already running on session {self._session_id!r}")

    def clear(self) -> None:
        """Clear the history while keeping the session open (metadata is kept)."""
        self._check_idle()
        changes: dict[str, Any] = {"run_boundaries": []}
        if self._metadata.get("run_boundaries"):
            changes["boundaries_reset_at_run"] = self._metadata["run_count"]
        if self._store is not None:  # stored first: a refused cut changes nothing
            header = self._store_header([], {**self._metadata, **changes})
            self._store.truncate(self._session_id, 0, header)
        self._messages = []
        self._metadata.update(changes)
        if self._truncated is not None:
            self._truncated.clear()

    def close(self) -> None:
        """Close the session, preventing further runs (its truncated results are released)."""
        self._closed = True
        if self._truncated is not None:
            self._truncated.clear()

    def _truncated_results(self) -> TruncatedResultStore:
        """The session's store of truncated tool results, so a later turn can read on from
        an earlier turn's result and an id a provider reuses gets a ``-2`` suffix. Created at
        the first turn with every id the history already names retired: a restored
        session's old results are no longer available and their ids are never reused."""
        if self._truncated is None:
            self._truncated = TruncatedResultStore()
            self._truncated.retire(_marker_ids(self._messages))
        return self._truncated

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *args: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"AgentSession(session_id={self._session_id!r}, model={self.agent.model!r}, "
            f"messages={len(self._messages)}, runs={self._metadata.get('run_count', 0)}, "
            f"closed={self._closed})"
        )

    # ------------------------------------------------------------------ turns
    def _start_call(self) -> None:
        self._check_open()
        self._check_idle()
        self.last_turn_results = []
        self._metadata.pop("interrupted_turn", None)
        if self._metadata.get("pending_injections"):
            self._metadata["pending_injections"] = []

    async def _one_turn(self, run_input: RunInput) -> AgentResult:
        await self._refresh_uploads()
        history, scope = self._native().parse(self._messages), self._compaction_scope()
        self._in_flight = True
        result: AgentResult
        error: BaseException | None
        guard = self._enter_turn()
        try:
            result, error = await self.agent.run_turn(
                run_input.with_container(self._container_for(run_input.anthropic_container_id)),
                TurnHistory(history, scope, self._truncated_results()),
            )
        finally:
            self._in_flight = False
            self._leave_turn(guard)
        message, files = run_input.message, run_input.files
        if error is not None:
            self._bank_failure(message, files, result, error)
            raise error
        try:
            self._commit(self._turn_native(result, self._adopt_compacted(scope, history)), result)
        except Exception as exc:  # the turn was billed: bank it, raise it typed
            failure = self._save_failed(message, files, result, exc)
            raise failure from (None if failure is exc else exc)
        return result

    async def run(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
    ) -> AgentResult:
        """Run the agent within the session: the history goes in, the turn is stored
        (a failed turn leaves the session as it was). Also raises ``StateError`` (a
        RuntimeError) when the session is closed or a turn is already running."""
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        return await self._run(RunInput(message, *args))

    async def _run(self, run_input: RunInput) -> AgentResult:
        self._start_call()
        result = await self._one_turn(run_input)
        budget, sent = self._max_follow_ups, run_input.message
        while (text := self._follow_up_text(result, sent, budget)) is not None:
            budget, sent = budget - 1, text
            result = await self._one_turn(run_input.follow_up(text))
        return result

    def run_sync(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
    ) -> AgentResult:
        """Synchronous wrapper for run() (its own asyncio.run loop per call)."""
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        run_input = RunInput(message, *args)

        async def run_and_release() -> AgentResult:
            try:
                return await self._run(run_input)
            finally:
                await self.agent.release_loop_resources()

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
    ) -> AsyncIterator[AgentStreamEvent]:
        """Stream agent events within the session; the turn is stored at ``complete``.
        Raises ``StateError`` (a RuntimeError) when the session is closed or a turn is
        already running; a failed turn is an ``error`` event and is not stored."""
        self._start_call()
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        run_input = RunInput(message, *args)
        budget, turn_index = self._max_follow_ups, 0
        turn_costs: list[float] = []
        captured: dict[str, tuple[AgentResult, BaseException | None]] = {}
        while True:
            captured.clear()
            await self._refresh_uploads()
            history, scope = self._native().parse(self._messages), self._compaction_scope()
            events = self.agent.stream_turn(
                run_input.with_container(self._container_for(run_input.anthropic_container_id)),
                TurnHistory(history, scope, self._truncated_results()),
                on_result=lambda r, e: captured.__setitem__("turn", (r, e)),
            )
            sent, send_files = run_input.message, run_input.files
            follow_up: str | None = None
            completed = False
            self._in_flight = True
            guard = self._enter_turn()
            try:
                async with contextlib.aclosing(events):
                    async for event in events:
                        if event.event_type != "complete":
                            yield event
                            continue
                        completed = True
                        self._in_flight = False
                        result, error = captured.get("turn", (AgentResult(), None))
                        try:
                            history = self._adopt_compacted(scope, history, error)
                            follow_up = self._settle_streamed(
                                sent,
                                send_files,
                                result,
                                error,
                                history,
                                run_input.output_schema,
                                budget,
                            )
                        except Exception as exc:  # the turn was billed: bank it, raise it
                            failure = self._save_failed(sent, send_files, result, exc)
                            raise failure from (None if failure is exc else exc)
                        turn_costs.append(result.cost)
                        meta = dict(event.metadata or {})
                        if follow_up is not None:
                            yield AgentStreamEvent(
                                "turn_complete",
                                None,
                                {
                                    **meta,
                                    "turn_index": turn_index,
                                    "auto_follow_up": turn_index > 0,
                                },
                            )
                        else:
                            if turn_index > 0:
                                meta.update(
                                    turns=turn_index + 1,
                                    turn_costs=list(turn_costs),
                                    total_cost=sum(turn_costs),
                                )
                            yield AgentStreamEvent("complete", event.content, meta)
            finally:
                self._in_flight = False
                self._leave_turn(guard)
                if not completed:
                    self._bank_abandoned()
            if follow_up is None:
                return
            budget, turn_index = budget - 1, turn_index + 1
            run_input = run_input.follow_up(follow_up)
            yield AgentStreamEvent(
                "turn_start",
                None,
                {
                    "turn_index": turn_index,
                    "auto_follow_up": True,
                    "trigger": "late_injection",
                    "message": follow_up,
                },
            )

    # ------------------------------------------------------------------ restore
    @classmethod
    def from_dict(cls, data: dict[str, Any], agent: Any, *, media_store: Any = None) -> Self:
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
        session._adopt(data, media_store=media_store)
        return session

    @classmethod
    def from_json(
        cls, source: str | bytes | os.PathLike[str], *, agent: Any, media_store: Any = None
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


document_methods(AgentSession, SESSION_METHOD_SECTIONS)


def _marker_ids(value: Any) -> list[str]:
    """The truncated-result ids named by read-back markers anywhere in ``value``."""
    if isinstance(value, str):
        return marker_ids(value)
    if isinstance(value, dict):
        return [i for item in value.values() for i in _marker_ids(item)]
    if isinstance(value, list | tuple):
        return [i for item in value for i in _marker_ids(item)]
    return []
