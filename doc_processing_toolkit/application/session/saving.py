"""The session's save side: the envelope out (to_dict / to_json) and the per-turn store.

Provider-native dicts are this part's edge: the envelope carries the history as the
provider's messages, and the store header is that envelope without them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.application.session.envelope import (
    EnvelopeSource,
    build_envelope,
    write_atomic,
)
from doc_processing_toolkit.application.session.fingerprint import compute_prefix_fingerprint
from doc_processing_toolkit.application.session.media_policy import (
    as_media_store,
    media_parts,
    validate_max_inline_bytes,
)
from doc_processing_toolkit.application.session.metadata import SessionMetadata
from doc_processing_toolkit.application.session.state import NativeMessages, SessionState
from doc_processing_toolkit.domain.errors import InvalidInputError
from doc_processing_toolkit.ports.media_store import MediaStore

__all__ = ["UNSET", "SessionSaver"]


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""An omitted ``media_store`` / ``media_max_inline_bytes`` (the agent's applies)."""


@dataclass(eq=False)
class SessionSaver:
    """Builds the session's envelope, writes it, and keeps the per-turn store in step."""

    state: SessionState

    def media_store(self, value: Any) -> MediaStore | None:
        """The store ``value`` names (UNSET: the agent's)."""
        agent = self.state.agent
        factory = getattr(agent.deps, "directory_media_store", None)
        if value is UNSET:
            value = agent.settings.media.media_store
            if value is None:
                return agent.deps.media_store
        return as_media_store(value, factory)

    def source(
        self,
        messages: NativeMessages | None = None,
        metadata: SessionMetadata | None = None,
        media_table: dict[str, dict[str, Any]] | None = None,
    ) -> EnvelopeSource:
        """What an envelope is built from (the state's, unless given)."""
        state, agent = self.state, self.state.agent
        profile = agent.deps.provider_profiles(agent.provider)
        return EnvelopeSource(
            session_id=state.session_id,
            provider=agent.provider,
            model=agent.model,
            messages=state.messages if messages is None else messages,
            metadata=state.metadata if metadata is None else metadata,
            prefix_fingerprint=compute_prefix_fingerprint(agent),
            media_table=state.media_table if media_table is None else media_table,
            media_report=state.media_report,
            session_history_config=state.history_config,
            sdk_distribution=getattr(profile, "sdk_distribution", None),
            shapes=agent.deps.native_media,
        )

    # ------------------------------------------------------------------ store
    def store_header(
        self,
        messages: NativeMessages | None = None,
        metadata: SessionMetadata | None = None,
        media_table: dict[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The envelope a store keeps beside the messages (every key but ``messages``)."""
        envelope = build_envelope(
            self.source([], metadata, media_table),
            media="inline",
            store=None,
            max_inline_bytes=None,
        )
        envelope.pop("messages")
        envelope["message_count"] = len(self.state.messages if messages is None else messages)
        return envelope

    def store_rewrite(self, messages: NativeMessages, header: dict[str, Any]) -> None:
        """Replace the stored history by ``messages``: in one transaction where the store
        can (SqliteSessionStore.replace), else as a cut to nothing and an append."""
        store, session_id = self.state.store, self.state.session_id
        if store is None:
            return
        replace = getattr(store, "replace", None)
        if callable(replace):
            replace(session_id, messages, header)
            return
        store.truncate(session_id, 0, {**header, "message_count": 0})
        store.append(session_id, 0, messages, header)

    def store_append(self, start: int, added: NativeMessages, header: dict[str, Any]) -> None:
        """Append one turn's messages at ``start`` (nothing without a store)."""
        if self.state.store is not None:
            self.state.store.append(self.state.session_id, start, added, header)

    def store_truncate(self, keep: int, header: dict[str, Any]) -> None:
        """Cut the stored history to its first ``keep`` messages (nothing without a store)."""
        if self.state.store is not None:
            self.state.store.truncate(self.state.session_id, keep, header)

    # ------------------------------------------------------------------ save
    def to_dict(
        self,
        *,
        media: str | None = None,
        media_store: Any = UNSET,
        media_max_inline_bytes: Any = UNSET,
    ) -> dict[str, Any]:
        """The detached, JSON-clean version-3 envelope (see `AgentSession.to_dict`)."""
        settings = self.state.agent.settings
        store = self.media_store(media_store)
        cap = settings.media.media_max_inline_bytes
        if media_max_inline_bytes is not UNSET:
            override = validate_max_inline_bytes(media_max_inline_bytes)
            cap = override if cap is None or override is None else min(cap, override)
            if override is None:
                cap = None
        policy = settings.media.media_policy if media is None else media
        return build_envelope(self.source(), media=policy, store=store, max_inline_bytes=cap)

    def to_json(
        self,
        *,
        path: str | os.PathLike[str] | None = None,
        indent: int | None = None,
        media: str | None = None,
        media_store: Any = UNSET,
        media_max_inline_bytes: Any = UNSET,
    ) -> str:
        """The envelope as JSON text; with ``path`` also written there atomically."""
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
                f"session {self.state.session_id!r} holds a value strict JSON cannot carry: {exc}"
            ) from None
        if path is not None:
            write_atomic(path, text)
        return text

    def persistence_report(self) -> dict[str, Any]:
        """What `to_dict` would write, measured (size, counts, media inventory)."""
        messages = self.state.messages
        records = list(media_parts(messages, self.state.agent.deps.native_media))
        size = len(json.dumps(self.to_dict(media="inline"), ensure_ascii=False).encode())
        return {
            "size_bytes": size,
            "message_count": len(messages),
            "media_count": len(records),
            "media_bytes": sum(r["size_bytes"] for r in records if r["kind"] == "base64"),
            "media": records,
        }
