"""How a session stores (or banks) one turn (a mixin of `AgentSession`).

What a completed turn added, after the history config; the all-or-nothing commit of that
turn (messages, run boundary, totals, the per-turn store row); the record a failed or
abandoned turn leaves; the late-injection follow-up; and the context each run starts in:
the session's frozen tool surface and, under
``session_history_config={"include_system_prompt": False}``, no system prompt.
"""

from __future__ import annotations

from contextvars import Token
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.config.log_setup import redact
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.tool_surface import ToolSurfaceGuard
from doc_processing_toolkit.application.run.turn_system import (
    omit_system_prompt,
    restore_system_prompt,
)
from doc_processing_toolkit.application.session.history_config import (
    apply_history_mode,
    resolve_session_history_config,
)
from doc_processing_toolkit.application.session.media_policy import iter_slots, strip_messages
from doc_processing_toolkit.application.session.metadata import (
    fold_spend,
    record_served_models,
    utc_now,
)
from doc_processing_toolkit.application.session.native import copy_tree
from doc_processing_toolkit.application.session.persistence import SessionPersistence
from doc_processing_toolkit.application.session.uploads import refresh_expired_uploads
from doc_processing_toolkit.domain.errors import DocProcessingToolkitError, SessionStoreError
from doc_processing_toolkit.domain.messages import Message, assistant_text, user_text
from doc_processing_toolkit.ports.remote_media import RemoteMediaFiles

__all__ = ["INTERRUPTED_TURN_ENV", "SessionTurns", "TurnContext"]

INTERRUPTED_TURN_ENV = environment.SESSION_INTERRUPTED_TURN_ENV
"""``off`` disables the interrupted-turn record."""

TurnContext = tuple[Token[ToolSurfaceGuard | None], Token[bool]]
"""What `SessionTurns._enter_turn` set, for `SessionTurns._leave_turn`."""


class SessionTurns(SessionPersistence):
    """The turn bookkeeping of `AgentSession`."""

    _reuse_container: bool
    _late_policy: str
    _max_follow_ups: int

    def _enter_turn(self) -> TurnContext:
        """The context the next run starts in: frozen tools, and the system-prompt flag."""
        include = self._resolved_history_config().get("include_system_prompt", True)
        return self._enter_tool_guard(), omit_system_prompt(include is False)

    def _leave_turn(self, context: TurnContext) -> None:
        guard, system = context
        restore_system_prompt(system)
        self._leave_tool_guard(guard)

    async def _refresh_uploads(self) -> None:
        """After a restore: re-upload (or replace) the history's expired Files API URIs."""
        kept, self._kept_uploads = self._kept_uploads, None
        shapes = self.agent.deps.native_media
        if kept is None or not any(
            s.kind == "google_file_uri" for s in iter_slots(self._messages, shapes)
        ):
            return
        try:
            client = self.agent._get_client()
        except Exception:  # no client yet: the turn reports that itself
            return
        if not isinstance(client, RemoteMediaFiles):
            return
        try:
            refresh = await refresh_expired_uploads(
                self._messages, kept, self._media_table, shapes, client
            )
        except BaseException:
            self._kept_uploads = kept  # nothing changed: the next turn checks again
            raise
        if not refresh.changed:
            return
        header = self._store_header(refresh.messages, media_table=refresh.table)
        self._store_rewrite(refresh.messages, header)
        self._messages, self._media_table = refresh.messages, refresh.table
        self._media_report.extend(refresh.report)

    def _resolved_history_config(self) -> dict[str, Any]:
        return resolve_session_history_config(
            self._history_config, self.agent.settings.session_history_config
        )

    def _container_for(self, explicit: str | None) -> str | None:
        if explicit is not None:
            return explicit
        return self._container_id if self._reuse_container else None

    def _bank_failure(
        self, message: str, files: list[Any] | None, result: AgentResult, error: BaseException
    ) -> None:
        fold_spend(self._metadata, result)
        self.last_turn_results.append(result)
        if not environment.session_interrupted_turn():
            return
        self._metadata["interrupted_turn"] = {
            "message": message,
            "files": len(files or []),
            "error": f"{type(error).__name__}: {redact(str(error))}",
            "at": utc_now(),
            "run": int(self._metadata.get("run_count", 0)) + 1,
        }

    def _save_failed(
        self, message: str, files: list[Any] | None, result: AgentResult, exc: Exception
    ) -> DocProcessingToolkitError:
        """A billed turn that could not be stored: its spend is banked like a failed
        turn's (the history and the store stay as they were) and the typed error carries
        the turn's result on ``partial_result``."""
        error = exc
        if not isinstance(error, DocProcessingToolkitError):
            store = self._store
            error = SessionStoreError(
                f"session {self._session_id!r}: the turn could not be stored in {store!r}: "
                f"{type(exc).__name__}: {redact(str(exc))}",
                path=str(getattr(store, "path", store)),
                session_id=self._session_id,
            )
        self._bank_failure(message, files, result, error)
        error.partial_result = result
        return error

    def _turn_native(self, result: AgentResult, history: list[Message]) -> list[dict[str, Any]]:
        """What the turn added, provider-native, after the history config."""
        native = self._native()
        full = list(result.messages)
        if full[: len(self._messages)] == self._messages:
            added = copy_tree(full[len(self._messages) :])
        else:
            added = native.render(native.parse(full)[len(history) :])
        config = self._resolved_history_config()
        if config.get("mode", "full") != "full":
            added = native.render(apply_history_mode(native.parse(added), config))
        if not config.get("preserve_media", True):
            added = strip_messages(
                added,
                self._media_report,
                self.agent.deps.native_media,
                references=True,
                label="removed from history",
                source="preserve_media",
            )
        return added

    def _commit(self, added: list[dict[str, Any]], result: AgentResult) -> None:
        """Store one completed turn: all of it, or (when the store refuses) none of it."""
        metadata = copy_tree(self._metadata)
        fold_spend(metadata, result)
        metadata["run_count"] = int(metadata.get("run_count", 0)) + 1
        run = metadata["run_count"]
        start = len(self._messages)
        metadata.setdefault("run_boundaries", []).append(
            {"run": run, "start": start, "end": start + len(added)}
        )
        record_served_models(
            metadata, run, result, provider=self.agent.provider, model=self.agent.model
        )
        table = dict(self._media_table)
        for upload in result.media_uploads:
            uri = upload.get("file_uri") or upload.get("uri")
            if isinstance(uri, str):
                table.setdefault(uri, {"kind": "google_upload", **upload})
        messages = [*self._messages, *added]
        if self._store is not None:
            self._store.append(
                self._session_id, start, added, self._store_header(messages, metadata, table)
            )
        self._messages, self._metadata, self._media_table = messages, metadata, table
        if result.container_id and self._reuse_container:
            self._container_id = result.container_id
        self.last_turn_results.append(result)

    def _follow_up_text(self, result: AgentResult, sent: str, budget: int) -> str | None:
        """The next follow-up message, or None (parking what is left)."""
        undelivered = [t for t in result.undelivered_injections if t]
        if not undelivered:
            return None
        text = "\n\n".join(undelivered)
        if self._late_policy == "surface" or budget <= 0 or text == sent:
            if text == sent:
                self._log().warning("late injection repeats the message it answered: parked")
            self._metadata.setdefault("pending_injections", []).extend(undelivered)
            return None
        return text

    def _stream_turn_native(
        self, message: str, result: AgentResult, history: list[Message], structured: bool
    ) -> list[dict[str, Any]]:
        if structured:
            return self._turn_native(result, history)
        light = [user_text(message), *(user_text(t) for t in result.injected_messages)]
        light.append(assistant_text(str(result.output or ""), self.agent.provider))
        return self._native().render(light)

    def _settle_streamed(
        self,
        message: str,
        files: list[Any] | None,
        result: AgentResult,
        error: BaseException | None,
        history: list[Message],
        output_schema: type[BaseModel] | None,
        budget: int,
    ) -> str | None:
        """Store (or bank) a streamed turn; the follow-up to run next, if any."""
        if error is not None:
            self._bank_failure(message, files, result, error)
            return None
        added = self._stream_turn_native(message, result, history, output_schema is not None)
        self._commit(added, result)
        return self._follow_up_text(result, message, budget)

    def _bank_abandoned(self) -> None:
        spent: dict[str, Any] | None = getattr(self.agent, "last_abandoned_stream", None)
        if not spent:
            return
        fold_spend(self._metadata, spent)
        fields = {k: v for k, v in spent.items() if k in AgentResult.__dataclass_fields__}
        fields.pop("iteration_metrics", None)
        self.last_turn_results.append(AgentResult(**fields))
