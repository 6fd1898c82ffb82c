"""The session's save, restore, rebind and truncation (a mixin of `AgentSession`).

Everything here builds its result aside and assigns it at the end, so a malformed
envelope, an unconvertible history or a refused cut leaves the session as it was.
"""

from __future__ import annotations

import base64
import copy
import json
import logging
import os
import weakref
from contextvars import Token
from typing import Any, Self

from doc_processing_toolkit.application.compaction.run_hook import CompactionScope
from doc_processing_toolkit.application.history.dialects import Dialects
from doc_processing_toolkit.application.media.source import KeptMedia
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.tool_surface import (
    ToolSurfaceGuard,
    enter_guard,
    leave_guard,
)
from doc_processing_toolkit.application.session.converted_media import converted_media_drops
from doc_processing_toolkit.application.session.envelope import (
    EnvelopeSource,
    build_envelope,
    drop_system_message,
    json_clean,
    read_envelope_json,
    write_atomic,
)
from doc_processing_toolkit.application.session.fingerprint import (
    compare_fingerprints,
    compute_prefix_fingerprint,
)
from doc_processing_toolkit.application.session.history_config import validate_history_config
from doc_processing_toolkit.application.session.media_policy import (
    as_media_store,
    iter_slots,
    media_parts,
    registry_key_for_part,
    reinline_messages,
    replace_slot,
    validate_max_inline_bytes,
)
from doc_processing_toolkit.application.session.native import (
    NativeHistory,
    check_native_messages,
    legal_cut,
    orphan_results,
)
from doc_processing_toolkit.application.session.restore import (
    convert_stored_history,
    detect_dialect,
)
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    InvalidInputError,
    StateError,
    UnsupportedPartError,
)
from doc_processing_toolkit.domain.media import accepts_input_type
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.domain.session import MalformedEnvelopeError, parse_envelope
from doc_processing_toolkit.ports.media_store import MediaStore
from doc_processing_toolkit.ports.session_store import SessionStore

__all__ = ["UNSET", "SessionPersistence", "read_envelope_json"]

_log = logging.getLogger("doc_processing_toolkit.session")


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""An omitted ``media_store`` / ``media_max_inline_bytes`` (the agent's applies)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class SessionPersistence:
    """to_dict / to_json / from_dict / from_json / rebind / truncate_to(_turn)."""

    agent: Any
    _session_id: str
    _messages: list[dict[str, Any]]
    _metadata: dict[str, Any]
    _media_table: dict[str, dict[str, Any]]
    _media_report: list[dict[str, Any]]
    _kept_uploads: dict[str, tuple[str, str]] | None
    _history_config: dict[str, Any] | None
    _container_id: str | None
    _store: SessionStore | None
    _closed: bool
    _in_flight: bool
    restored_from_schema_version: int | None
    prefix_changed_on_resume: bool
    prefix_change_report: dict[str, Any] | None
    converted_from: str | None
    dropped_parts: list[dict[str, Any]]
    last_turn_results: list[AgentResult]

    def _log(self) -> logging.Logger:
        logger = getattr(self.agent, "logger", None)
        return logger if isinstance(logger, logging.Logger) else _log

    def _native(self) -> NativeHistory:
        return NativeHistory(self.agent.deps.history_codecs(self.agent.provider))

    # ------------------------------------------------------------------ stores
    def _media_store(self, value: Any) -> MediaStore | None:
        factory = getattr(self.agent.deps, "directory_media_store", None)
        if value is UNSET:
            value = self.agent.settings.media_store
            if value is None:
                return self.agent.deps.media_store  # type: ignore[no-any-return]
        return as_media_store(value, factory)

    def _source(
        self,
        messages: list[dict[str, Any]] | None = None,
        metadata: dict[str, Any] | None = None,
        media_table: dict[str, dict[str, Any]] | None = None,
    ) -> EnvelopeSource:
        profile = self.agent.deps.provider_profiles(self.agent.provider)
        return EnvelopeSource(
            session_id=self._session_id,
            provider=self.agent.provider,
            model=self.agent.model,
            messages=self._messages if messages is None else messages,
            metadata=self._metadata if metadata is None else metadata,
            prefix_fingerprint=compute_prefix_fingerprint(self.agent),
            media_table=self._media_table if media_table is None else media_table,
            media_report=self._media_report,
            session_history_config=self._history_config,
            sdk_distribution=getattr(profile, "sdk_distribution", None),
            shapes=self.agent.deps.native_media,
        )

    def _store_header(
        self,
        messages: list[dict[str, Any]] | None = None,
        metadata: dict[str, Any] | None = None,
        media_table: dict[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The envelope a store keeps beside the messages (every key but ``messages``)."""
        envelope = build_envelope(
            self._source([], metadata, media_table),
            media="inline",
            store=None,
            max_inline_bytes=None,
        )
        envelope.pop("messages")
        envelope["message_count"] = len(self._messages if messages is None else messages)
        return envelope

    def _store_rewrite(self, messages: list[dict[str, Any]], header: dict[str, Any]) -> None:
        """Replace the stored history by ``messages``: in one transaction where the store
        can (SqliteSessionStore.replace), else as a cut to nothing and an append."""
        store = self._store
        if store is None:
            return
        replace = getattr(store, "replace", None)
        if callable(replace):
            replace(self._session_id, messages, header)
            return
        store.truncate(self._session_id, 0, {**header, "message_count": 0})
        store.append(self._session_id, 0, messages, header)

    # ------------------------------------------------------------------ save
    def to_dict(
        self,
        *,
        media: str | None = None,
        media_store: Any = UNSET,
        media_max_inline_bytes: Any = UNSET,
    ) -> dict[str, Any]:
        """Serialize the session to a detached, JSON-clean version-3 envelope.

        Raises:
            ValueError: If media is not a known policy, or is "externalize" with no store.
        """
        store = self._media_store(media_store)
        cap = self.agent.settings.media_max_inline_bytes
        if media_max_inline_bytes is not UNSET:
            override = validate_max_inline_bytes(media_max_inline_bytes)
            cap = override if cap is None or override is None else min(cap, override)
            if override is None:
                cap = None
        policy = self.agent.settings.media_policy if media is None else media
        return build_envelope(self._source(), media=policy, store=store, max_inline_bytes=cap)

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

        Raises:
            SessionStoreError: the file cannot be written (names it).
        """
        envelope = self.to_dict(
            media=media, media_store=media_store, media_max_inline_bytes=media_max_inline_bytes
        )
        separators = (",", ":") if indent is None else None
        try:
            text = json.dumps(
                envelope, ensure_ascii=False, indent=indent, separators=separators, allow_nan=False
            )
        except ValueError as exc:  # a NaN or an infinity: never written as bare NaN
            raise InvalidInputError(
                f"session {self._session_id!r} holds a value strict JSON cannot carry: {exc}"
            ) from None
        if path is not None:
            write_atomic(path, text)
        return text

    @property
    def persistence_report(self) -> dict[str, Any]:
        """What `to_dict` would write, measured (size, counts, media inventory)."""
        records = list(media_parts(self._messages, self.agent.deps.native_media))
        size = len(json.dumps(self.to_dict(media="inline"), ensure_ascii=False).encode())
        return {
            "size_bytes": size,
            "message_count": len(self._messages),
            "media_count": len(records),
            "media_bytes": sum(r["size_bytes"] for r in records if r["kind"] == "base64"),
            "media": records,
        }

    # ------------------------------------------------------------------ restore
    def _dialects(self) -> Dialects:
        deps = self.agent.deps
        return Dialects(codec=deps.history_codecs, profile=deps.provider_profiles)

    def _input_types(self) -> list[str] | None:
        row = self.agent.deps.registry.row(self.agent.model)
        return list(row.input_types) if row is not None else None

    def _source_dialect(
        self, messages: list[dict[str, Any]], saved: str | None, metadata: dict[str, Any]
    ) -> str:
        if saved:
            return saved
        candidates = [self.agent.provider]
        candidates += [
            str(r.get("provider"))
            for r in metadata.get("served_models", [])
            if isinstance(r, dict) and r.get("provider")
        ]
        candidates += [row.provider for row in self.agent.deps.registry.models()]
        return detect_dialect(messages, candidates, self._dialects()) or self.agent.provider

    def _media_lookup(
        self, table: dict[str, dict[str, Any]], store: MediaStore | None
    ) -> dict[str, tuple[str, str]]:
        lookup: dict[str, tuple[str, str]] = {}
        streamed: dict[str, dict[str, Any]] = {}  # uploads streamed from a local file
        for uri, entry in table.items():
            if entry.get("kind") != "google_upload":
                continue
            if isinstance(entry.get("path"), str):
                streamed[uri] = entry
            data = entry.get("data")
            if not isinstance(data, str) and store is not None and entry.get("ref"):
                try:
                    data = base64.b64encode(store.get(str(entry["ref"]))).decode("ascii")
                except Exception:  # a missing blob leaves the URI without bytes
                    data = None
            if isinstance(data, str):
                lookup[uri] = (str(entry.get("mime_type") or "application/octet-stream"), data)
        return KeptMedia(lookup, streamed)

    def _converted_media(self, entries: list[dict[str, Any]], agent: Any) -> list[dict[str, Any]]:
        """Media the conversion dropped for ``agent``'s row: refused or recorded."""
        row = agent.deps.registry.row(agent.model)
        return converted_media_drops(
            entries,
            input_types=list(row.input_types) if row is not None else None,
            provider=agent.provider,
            model=agent.model,
            on_unsupported_part=agent.settings.on_unsupported_part,
        )

    def _unsupported_media(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Drop (or refuse) restored media the agent's row does not list."""
        input_types = self._input_types()
        if input_types is None:
            return messages
        dropped: list[dict[str, Any]] = []
        for slot in list(iter_slots(messages, self.agent.deps.native_media)):
            key = registry_key_for_part(slot, self.agent.provider)
            if (
                key is None
                or key in input_types
                or (slot.mime_type and accepts_input_type(input_types, slot.mime_type))
            ):
                continue
            record = {
                "kind": slot.kind,
                "index": slot.message_index,
                "reason": f"{key} is not in the model's input_types",
                "provider": self.agent.provider,
                "model": self.agent.model,
            }
            if self.agent.settings.on_unsupported_part == "raise":
                raise UnsupportedPartError(
                    f"restored message {slot.message_index} holds {key}, which "
                    f"{self.agent.model} does not take"
                )
            replacement = self.agent.deps.native_media.placeholder(
                slot, f"not supported by {self.agent.model}"
            )
            replace_slot(messages, slot, replacement)
            dropped.append(record)
        self.dropped_parts = dropped
        return messages

    def _check_native(self, messages: list[dict[str, Any]]) -> None:
        """The restored history reads in the agent's dialect (before any request)."""
        check_native_messages(messages, self.agent.provider, self._native())

    @staticmethod
    def _check_history_config(config: dict[str, Any] | None) -> dict[str, Any] | None:
        if config is None:
            return None
        try:
            return validate_history_config(dict(config))
        except (ValueError, TypeError) as exc:
            raise MalformedEnvelopeError("session_history_config", str(exc)) from None

    def _adopt(self, data: Any, *, media_store: Any) -> None:
        """Take an envelope's state (validated, migrated, converted) or raise, changing
        nothing."""
        parsed = parse_envelope(data)
        env = parsed.envelope
        if parsed.newer_than_reader:
            self._log().warning(
                "session envelope schema_version %d is newer than this reader's; unknown keys "
                "are ignored",
                parsed.original_version,
            )
        metadata = copy.deepcopy(env.metadata)
        messages, boundaries = drop_system_message(
            copy.deepcopy(env.messages), list(metadata.get("run_boundaries", []))
        )
        store = self._media_store(UNSET if media_store is None else media_store)
        report = copy.deepcopy(env.media_report)
        table = copy.deepcopy(env.media)
        messages = reinline_messages(messages, table, store, report, self.agent.deps.native_media)
        source = self._source_dialect(messages, env.provider, metadata)
        conversion = convert_stored_history(
            messages,
            source=source,
            target=self.agent.provider,
            model=self.agent.model,
            session_id=env.session_id,
            dialects=self._dialects(),
            input_types=self._input_types(),
            media_lookup=(kept := self._media_lookup(table, store)),
        )
        if conversion.source is not None:
            metadata.setdefault("conversion_report", []).extend(conversion.entries)
            boundaries = []
        elif env.provider and env.provider != self.agent.provider:
            self._log().info("restored a plain-text history saved on %s", env.provider)
        converted = self._converted_media(conversion.entries, self.agent)
        messages = self._unsupported_media(conversion.messages)
        self.dropped_parts[:0] = converted
        metadata["run_boundaries"] = [
            b for b in boundaries if 0 <= b["start"] <= b["end"] <= len(messages)
        ]
        for key, value in (
            ("run_count", 0),
            ("compaction_count", 0),
            ("total_tokens", 0),
            ("total_cost", 0.0),
            ("total_input_tokens", 0),
            ("total_output_tokens", 0),
            ("compaction_archives", []),
            ("served_models", []),
            ("pending_injections", []),
        ):
            metadata.setdefault(key, value)
        metadata.setdefault("created_at", env.saved_at)
        if conversion.source is None:
            self._check_native(messages)
        history_config = self._check_history_config(env.session_history_config)
        fingerprint = compute_prefix_fingerprint(self.agent)
        saved = env.prefix_fingerprint.model_dump() if env.prefix_fingerprint else None
        change = compare_fingerprints(saved, fingerprint, parsed.original_version)
        # Everything is built: assign.
        self._session_id = env.session_id
        self._messages = json_clean(messages)
        self._metadata = json_clean(metadata)
        self._media_table = table
        self._media_report = report
        self._kept_uploads = kept  # checked against the Files API before the next turn
        if history_config is not None and self._history_config is None:
            self._history_config = history_config
        self.restored_from_schema_version = parsed.original_version
        self.prefix_change_report = change
        self.prefix_changed_on_resume = change is not None
        self.converted_from = conversion.source

    @property
    def _tool_surface(self) -> ToolSurfaceGuard:
        """The session's frozen tool surface (application/run/tool_surface.py)."""
        guard = self.__dict__.get("_frozen_tool_surface")
        if guard is None:
            # The guard calls back through a weak reference: the session holds the guard,
            # so a bound method would make a cycle that keeps a dropped session (and its
            # Agent) alive until the collector runs.
            record_drift = weakref.WeakMethod(self._record_drift)

            def record(entry: dict[str, Any]) -> None:
                method = record_drift()
                if method is not None:
                    method(entry)

            guard = self.__dict__["_frozen_tool_surface"] = ToolSurfaceGuard(record)
        return guard

    def _record_drift(self, record: dict[str, Any]) -> None:
        """Keep one tool-surface drift record (AgentSession.tool_surface_drift)."""
        self._metadata.setdefault("tool_surface_drift", []).append(record)

    def _enter_tool_guard(self) -> Token[ToolSurfaceGuard | None]:
        """Make this session's frozen tool surface current for the run it starts."""
        return enter_guard(self._tool_surface)

    @staticmethod
    def _leave_tool_guard(token: Token[ToolSurfaceGuard | None]) -> None:
        leave_guard(token)

    def rebind(self, new_agent: Any) -> Self:
        """Continue this session's next turn on ``new_agent``, converting the history.

        Raises:
            RuntimeError: If a turn is running on this session.
            SessionCompatibilityError: If the history cannot be converted.
        """
        if self._in_flight:
            raise StateError("cannot rebind while a turn is running on this session")
        old_provider = self.agent.provider
        old_table = self._media_table
        store = self._media_store(UNSET)
        conversion = convert_stored_history(
            self._messages,
            source=old_provider,
            target=new_agent.provider,
            model=new_agent.model,
            session_id=self._session_id,
            dialects=Dialects(
                codec=new_agent.deps.history_codecs, profile=new_agent.deps.provider_profiles
            ),
            input_types=(
                list(row.input_types)
                if (row := new_agent.deps.registry.row(new_agent.model)) is not None
                else None
            ),
            media_lookup=self._media_lookup(old_table, store),
        )
        converted = self._converted_media(conversion.entries, new_agent)
        metadata = copy.deepcopy(self._metadata)
        if conversion.source is not None:
            metadata.setdefault("conversion_report", []).extend(conversion.entries)
            metadata["run_boundaries"] = []
        metadata.setdefault("served_models", []).append(
            {
                "rebind": True,
                "provider": new_agent.provider,
                "model": new_agent.model,
                "run": metadata.get("run_count", 0),
            }
        )
        saved = compute_prefix_fingerprint(self.agent)
        change = compare_fingerprints(saved, compute_prefix_fingerprint(new_agent), 3)
        self.agent = new_agent
        self._messages = json_clean(conversion.messages)
        self._metadata = metadata
        self._container_id = None
        self._tool_surface.snapshot = None
        self.converted_from = conversion.source
        self.dropped_parts = converted
        self.prefix_change_report = change
        self.prefix_changed_on_resume = change is not None
        return self

    # ------------------------------------------------------------------ compaction
    def _compaction_scope(self) -> CompactionScope:
        """The session's side of the next run's compaction."""
        count = int(self._metadata.get("compaction_count", 0) or 0)
        return CompactionScope(session_id=self._session_id, prior_count=count)

    def _adopt_compacted(
        self, scope: CompactionScope, history: list[Message], error: BaseException | None = None
    ) -> list[Message]:
        """Take the history a completed run compacted (``history`` when it did not, or when
        the run failed): the stored prefix is rewritten, and the run boundaries, which
        pointed into the old one, are reset (``metadata["boundaries_reset_at_run"]`` names
        the run)."""
        if scope.history is None or error is not None:
            return history
        messages = json_clean(self._native().render(scope.history))
        metadata = copy.deepcopy(self._metadata)
        metadata["boundaries_reset_at_run"] = int(metadata.get("run_count", 0)) + 1
        metadata["run_boundaries"] = []
        self._store_rewrite(messages, self._store_header(messages, metadata))  # a new prefix
        self._messages, self._metadata = messages, metadata
        return scope.history

    # ------------------------------------------------------------------ truncation
    def truncate_to(self, message_count: int, *, drop_orphans: bool = True) -> int:
        """Cut stored history down to (a legal prefix of) its first message_count messages.

        Raises:
            ValueError: message_count is not an int, negative, or past the history.
            RuntimeError: the session is closed (or a turn is running).
        """
        if self._closed:
            raise StateError(f"session {self._session_id!r} is closed")
        if self._in_flight:
            raise StateError("cannot truncate while a turn is running on this session")
        if not _is_int(message_count):
            raise ConfigurationError(f"message_count must be an int, got {message_count!r}")
        if not 0 <= message_count <= len(self._messages):
            raise ConfigurationError(
                f"message_count must be between 0 and {len(self._messages)}, got {message_count}"
            )
        native = self._native()
        keep = message_count
        kept = self._messages[:keep]
        if drop_orphans and keep:
            keep = legal_cut(native, self._messages, keep)
            kept = self._messages[:keep]
            orphans = set(orphan_results(native, kept))
            if orphans:
                self._log().warning(
                    "truncate_to dropped %d tool result(s) stored without their call",
                    len(orphans),
                )
                kept = [m for i, m in enumerate(kept) if i not in orphans]
        metadata = copy.deepcopy(self._metadata)
        metadata["run_boundaries"] = [
            b for b in metadata.get("run_boundaries", []) if b["end"] <= len(kept)
        ]
        if self._store is not None and len(kept) == keep:
            self._store.truncate(self._session_id, keep, self._store_header(kept, metadata))
        elif self._store is not None:  # orphans were removed: the prefix was rewritten
            self._store_rewrite(kept, self._store_header(kept, metadata))
        self._messages, self._metadata = kept, metadata
        return len(kept)

    def truncate_to_turn(self, turn_index: int, *, drop_orphans: bool = True) -> int:
        """Cut stored history to just before recorded turn ``turn_index``.

        Raises:
            ValueError: turn_index is not an int, negative, or past the recorded turns.
            RuntimeError: the session is closed.
        """
        if self._closed:
            raise StateError(f"session {self._session_id!r} is closed")
        boundaries = list(self._metadata.get("run_boundaries", []))
        if not _is_int(turn_index) or not 0 <= turn_index <= len(boundaries):
            reset = self._metadata.get("boundaries_reset_at_run")
            hint = (
                f"; turns before run {reset} are not addressable "
                "(metadata['boundaries_reset_at_run'])"
                if reset is not None
                else ""
            )
            raise ConfigurationError(
                f"turn_index must be an int from 0 to {len(boundaries)}, got {turn_index!r}{hint}"
            )
        if turn_index == len(boundaries):
            return self.truncate_to(len(self._messages), drop_orphans=drop_orphans)
        return self.truncate_to(boundaries[turn_index]["start"], drop_orphans=drop_orphans)
