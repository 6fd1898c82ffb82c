"""How a session runs, stores (or banks) its turns.

What a completed turn added, after the history config; the all-or-nothing commit of that
turn (messages, run boundary, totals, the per-turn store row); the record a failed or
abandoned turn leaves; the late-injection follow-up; and the context each run starts in:
the session's frozen tool surface and, under
``session_history_config={"include_system_prompt": False}``, no system prompt. Each turn
goes through the Agent's public seam (`Agent.run_turn` / `Agent.stream_turn`) with one
`RunInput` and the history parsed into the neutral representation.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextvars import Token
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.config.log_setup import redact
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.policy.tool_surface import (
    ToolSurfaceGuard,
    enter_guard,
    leave_guard,
)
from doc_processing_toolkit.application.run.policy.turn_system import (
    omit_system_prompt,
    restore_system_prompt,
)
from doc_processing_toolkit.application.run.run_input import CompactionScope, RunInput, TurnHistory
from doc_processing_toolkit.application.session.awaiting import (
    check_not_awaiting,
    mark_awaiting,
    structured_record,
)
from doc_processing_toolkit.application.session.editing import HistoryEditor
from doc_processing_toolkit.application.session.history_config import (
    apply_history_mode,
    resolve_session_history_config,
)
from doc_processing_toolkit.application.session.media_policy import iter_slots, strip_messages
from doc_processing_toolkit.application.session.metadata import (
    fold_spend,
    record_citations,
    record_served_models,
    utc_now,
)
from doc_processing_toolkit.application.session.native import copy_tree
from doc_processing_toolkit.application.session.saving import SessionSaver
from doc_processing_toolkit.application.session.state import NativeMessages, SessionState
from doc_processing_toolkit.application.session.uploads import refresh_expired_uploads
from doc_processing_toolkit.domain.errors import DocProcessingToolkitError, SessionStoreError
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.domain.messages import Message, assistant_text, user_text
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore, marker_ids
from doc_processing_toolkit.ports.remote_media import RemoteMediaFiles

__all__ = ["INTERRUPTED_TURN_ENV", "TurnContext", "TurnPolicy", "TurnRunner"]

INTERRUPTED_TURN_ENV = environment.SESSION_INTERRUPTED_TURN_ENV
"""``off`` disables the interrupted-turn record."""

TurnContext = tuple[Token[ToolSurfaceGuard | None], Token[bool]]
"""What `TurnRunner.enter_turn` set, for `TurnRunner.leave_turn`."""


@dataclass(frozen=True)
class TurnPolicy:
    """The per-session choices that shape each call's turns (validated by AgentSession)."""

    late_injection_policy: str = "surface"
    max_follow_up_turns: int = 1
    reuse_container: bool = False


@dataclass(eq=False)
class TurnRunner:
    """Runs a session's turns on its Agent and stores each one."""

    state: SessionState
    saver: SessionSaver
    editor: HistoryEditor
    policy: TurnPolicy
    tool_surface: ToolSurfaceGuard = field(init=False)
    """The session's frozen tool surface (application/run/policy/tool_surface.py)."""

    def __post_init__(self) -> None:
        self.tool_surface = ToolSurfaceGuard(self.state.record_drift)

    # ------------------------------------------------------------------ calls
    def start_call(self) -> None:
        state = self.state
        state.check_open()
        state.check_idle()
        check_not_awaiting(state)
        state.last_turn_results = []
        state.metadata.pop("interrupted_turn", None)
        if state.metadata.get("pending_injections"):
            state.metadata["pending_injections"] = []

    async def run(self, run_input: RunInput) -> AgentResult:
        """One call: the turn, then any late-injection follow-ups (the last result)."""
        self.start_call()
        result = await self.one_turn(run_input)
        budget, sent = self.policy.max_follow_up_turns, run_input.message
        while (text := self.follow_up_text(result, sent, budget)) is not None:
            budget, sent = budget - 1, text
            result = await self.one_turn(run_input.follow_up(text))
        return result

    async def _turn_history(self) -> tuple[list[Message], CompactionScope, TurnHistory]:
        await self.refresh_uploads()
        history = self.state.native().parse(self.state.messages)
        scope = self.editor.compaction_scope()
        return history, scope, TurnHistory(history, scope, self.truncated_results())

    def _with_container(self, run_input: RunInput) -> RunInput:
        explicit = run_input.anthropic_container_id
        if explicit is None and self.policy.reuse_container:
            return run_input.with_container(self.state.container_id)
        return run_input

    async def one_turn(self, run_input: RunInput) -> AgentResult:
        state = self.state
        history, scope, turn = await self._turn_history()
        state.in_flight = True
        result: AgentResult
        error: BaseException | None
        guard = self.enter_turn()
        try:
            result, error = await state.agent.run_turn(self._with_container(run_input), turn)
        finally:
            state.in_flight = False
            self.leave_turn(guard)
        if error is not None:
            self.bank_failure(run_input, result, error)
            raise error
        try:
            added = self.turn_native(result, self.editor.adopt_compacted(scope, history))
            self.commit(added, result, run_input)
        except Exception as exc:  # the turn was billed: bank it, raise it typed
            failure = self.save_failed(run_input, result, exc)
            raise failure from (None if failure is exc else exc)
        return result

    async def stream(self, run_input: RunInput) -> AsyncIterator[AgentStreamEvent]:
        """One streamed call: the turn's events, then any follow-ups' (one ``complete``)."""
        state = self.state
        self.start_call()
        budget, turn_index = self.policy.max_follow_up_turns, 0
        turn_costs: list[float] = []
        captured: dict[str, tuple[AgentResult, BaseException | None]] = {}
        while True:
            captured.clear()
            history, scope, turn = await self._turn_history()
            events = state.agent.stream_turn(
                self._with_container(run_input),
                turn,
                on_result=lambda r, e: captured.__setitem__("turn", (r, e)),
            )
            follow_up: str | None = None
            completed = False
            state.in_flight = True
            guard = self.enter_turn()
            try:
                async with contextlib.aclosing(events):
                    async for event in events:
                        if event.event_type != "complete":
                            yield event
                            continue
                        completed = True
                        state.in_flight = False
                        result, error = captured.get("turn", (AgentResult(), None))
                        try:
                            history = self.editor.adopt_compacted(scope, history, error)
                            follow_up = self.settle_streamed(
                                run_input, result, error, history, budget
                            )
                        except Exception as exc:  # the turn was billed: bank it, raise it
                            failure = self.save_failed(run_input, result, exc)
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
                state.in_flight = False
                self.leave_turn(guard)
                if not completed:
                    self.bank_abandoned()
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

    # ------------------------------------------------------------------ run context
    def truncated_results(self) -> TruncatedResultStore:
        """The session's store of truncated tool results, so a later turn can read on from
        an earlier turn's result and an id a provider reuses gets a ``-2`` suffix. Created at
        the first turn with every id the history already names retired: a restored
        session's old results are no longer available and their ids are never reused."""
        state = self.state
        if state.truncated is None:
            state.truncated = TruncatedResultStore()
            state.truncated.retire(_marker_ids(state.messages))
        return state.truncated

    def resolved_history_config(self) -> dict[str, Any]:
        return resolve_session_history_config(
            self.state.history_config, self.state.agent.settings.compaction.session_history_config
        )

    def enter_turn(self) -> TurnContext:
        """The context the next run starts in: frozen tools, and the system-prompt flag."""
        include = self.resolved_history_config().get("include_system_prompt", True)
        return enter_guard(self.tool_surface), omit_system_prompt(include is False)

    def leave_turn(self, context: TurnContext) -> None:
        guard, system = context
        restore_system_prompt(system)
        leave_guard(guard)

    async def refresh_uploads(self) -> None:
        """After a restore: re-upload (or replace) the history's expired Files API URIs."""
        state = self.state
        kept, state.kept_uploads = state.kept_uploads, None
        shapes = state.agent.deps.native_media
        if kept is None or not any(
            s.kind == "google_file_uri" for s in iter_slots(state.messages, shapes)
        ):
            return
        try:
            client = state.agent.model_client()
        except Exception:  # no client yet: the turn reports that itself
            return
        if not isinstance(client, RemoteMediaFiles):
            return
        try:
            refresh = await refresh_expired_uploads(
                state.messages, kept, state.media_table, shapes, client
            )
        except BaseException:
            state.kept_uploads = kept  # nothing changed: the next turn checks again
            raise
        if not refresh.changed:
            return
        header = self.saver.store_header(refresh.messages, media_table=refresh.table)
        self.saver.store_rewrite(refresh.messages, header)
        state.messages, state.media_table = refresh.messages, refresh.table
        state.media_report.extend(refresh.report)

    # ------------------------------------------------------------------ outcomes
    def bank_failure(self, run_input: RunInput, result: AgentResult, error: BaseException) -> None:
        metadata = self.state.metadata
        fold_spend(metadata, result)
        self.state.last_turn_results.append(result)
        if not environment.session_interrupted_turn():
            return
        metadata["interrupted_turn"] = {
            "message": run_input.message,
            "files": len(run_input.files or []),
            "error": f"{type(error).__name__}: {redact(str(error))}",
            "at": utc_now(),
            "run": int(metadata.get("run_count", 0)) + 1,
        }

    def save_failed(
        self, run_input: RunInput, result: AgentResult, exc: Exception
    ) -> DocProcessingToolkitError:
        """A billed turn that could not be stored: its spend is banked like a failed
        turn's (the history and the store stay as they were) and the typed error carries
        the turn's result on ``partial_result``."""
        error = exc
        if not isinstance(error, DocProcessingToolkitError):
            store, session_id = self.state.store, self.state.session_id
            error = SessionStoreError(
                f"session {session_id!r}: the turn could not be stored in {store!r}: "
                f"{type(exc).__name__}: {redact(str(exc))}",
                path=str(getattr(store, "path", store)),
                session_id=session_id,
            )
        self.bank_failure(run_input, result, error)
        error.partial_result = result
        return error

    def turn_native(self, result: AgentResult, history: list[Message]) -> NativeMessages:
        """What the turn added, provider-native, after the history config."""
        state = self.state
        native = state.native()
        full = list(result.messages)
        if full[: len(state.messages)] == state.messages:
            added = copy_tree(full[len(state.messages) :])
        else:
            added = native.render(native.parse(full)[len(history) :])
        config = self.resolved_history_config()
        if config.get("mode", "full") != "full" and result.status != "awaiting_approval":
            added = native.render(apply_history_mode(native.parse(added), config))
        if not config.get("preserve_media", True):
            added = strip_messages(
                added,
                state.media_report,
                state.agent.deps.native_media,
                references=True,
                label="removed from history",
                source="preserve_media",
            )
        return added

    def commit(
        self, added: NativeMessages, result: AgentResult, run_input: RunInput | None = None
    ) -> None:
        """Store one completed turn: all of it, or (when the store refuses) none of it
        (``run_input``: the turn's, for a turn that waits for approval)."""
        state, agent = self.state, self.state.agent
        metadata = copy_tree(state.metadata)
        fold_spend(metadata, result)
        metadata["run_count"] = int(metadata.get("run_count", 0)) + 1
        run = metadata["run_count"]
        start = len(state.messages)
        metadata.setdefault("run_boundaries", []).append(
            {"run": run, "start": start, "end": start + len(added)}
        )
        record_served_models(metadata, run, result, provider=agent.provider, model=agent.model)
        structured = structured_record(run_input)  # a waiting turn resumes with its schema
        mark_awaiting(
            metadata, result, start=start, end=start + len(added), run=run, agent=agent,
            structured=structured,
        )  # fmt: skip
        record_citations(metadata, run, result)
        table = dict(state.media_table)
        for upload in result.media_uploads:
            uri = upload.get("file_uri") or upload.get("uri")
            if isinstance(uri, str):
                table.setdefault(uri, {"kind": "google_upload", **upload})
        messages = [*state.messages, *added]
        if state.store is not None:
            self.saver.store_append(
                start, added, self.saver.store_header(messages, metadata, table)
            )
        state.messages, state.metadata, state.media_table = messages, metadata, table
        waiting = result.status == "awaiting_approval" and run_input is not None
        state.awaiting_schema = run_input.output_schema if waiting and run_input else None
        if result.container_id and self.policy.reuse_container:
            state.container_id = result.container_id
        state.last_turn_results.append(result)

    def follow_up_text(self, result: AgentResult, sent: str, budget: int) -> str | None:
        """The next follow-up message, or None (parking what is left)."""
        undelivered = [t for t in result.undelivered_injections if t]
        if not undelivered:
            return None
        text = "\n\n".join(undelivered)
        if self.policy.late_injection_policy == "surface" or budget <= 0 or text == sent:
            if text == sent:
                self.state.log().warning("late injection repeats the message it answered: parked")
            self.state.metadata.setdefault("pending_injections", []).extend(undelivered)
            return None
        return text

    def settle_streamed(
        self,
        run_input: RunInput,
        result: AgentResult,
        error: BaseException | None,
        history: list[Message],
        budget: int,
    ) -> str | None:
        """Store (or bank) a streamed turn; the follow-up to run next, if any."""
        if error is not None:
            self.bank_failure(run_input, result, error)
            return None
        if run_input.output_schema is not None or result.status == "awaiting_approval":
            added = self.turn_native(result, history)
        else:  # the lightweight shape: [user, injected..., assistant]
            light = [user_text(run_input.message)]
            light += [user_text(t) for t in result.injected_messages]
            light.append(assistant_text(str(result.output or ""), self.state.agent.provider))
            added = self.state.native().render(light)
        self.commit(added, result, run_input)
        return self.follow_up_text(result, run_input.message, budget)

    def bank_abandoned(self) -> None:
        spent: dict[str, Any] | None = getattr(self.state.agent, "last_abandoned_stream", None)
        if not spent:
            return
        fold_spend(self.state.metadata, spent)
        fields = {k: v for k, v in spent.items() if k in AgentResult.__dataclass_fields__}
        fields.pop("iteration_metrics", None)
        self.state.last_turn_results.append(AgentResult(**fields))


def _marker_ids(value: Any) -> list[str]:
    """The truncated-result ids named by read-back markers anywhere in ``value``."""
    if isinstance(value, str):
        return marker_ids(value)
    if isinstance(value, dict):
        return [i for item in value.values() for i in _marker_ids(item)]
    if isinstance(value, list | tuple):
        return [i for item in value for i in _marker_ids(item)]
    return []
