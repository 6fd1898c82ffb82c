"""The session's restore side: an envelope in (from_dict / from_json / a store's row) and
a rebind onto another Agent.

Everything is built aside and assigned to the `SessionState` at the end, so a malformed
envelope or an unconvertible history leaves the session as it was. Provider-native dicts
are this part's edge: the envelope's messages are read and converted here.
"""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.application.history.dialects import Dialects
from doc_processing_toolkit.application.media.source import KeptMedia
from doc_processing_toolkit.application.session.converted_media import converted_media_drops
from doc_processing_toolkit.application.session.envelope import drop_system_message, json_clean
from doc_processing_toolkit.application.session.fingerprint import (
    compare_fingerprints,
    compute_prefix_fingerprint,
)
from doc_processing_toolkit.application.session.history_config import validate_history_config
from doc_processing_toolkit.application.session.media_policy import (
    iter_slots,
    registry_key_for_part,
    reinline_messages,
    replace_slot,
)
from doc_processing_toolkit.application.session.metadata import SessionMetadata, as_metadata
from doc_processing_toolkit.application.session.native import check_native_messages
from doc_processing_toolkit.application.session.restore import (
    convert_stored_history,
    detect_dialect,
)
from doc_processing_toolkit.application.session.saving import UNSET, SessionSaver
from doc_processing_toolkit.application.session.state import (
    NativeMessages,
    SessionAgent,
    SessionState,
)
from doc_processing_toolkit.domain.errors import StateError, UnsupportedPartError
from doc_processing_toolkit.domain.media import accepts_input_type
from doc_processing_toolkit.domain.session import MalformedEnvelopeError, parse_envelope
from doc_processing_toolkit.ports.media_store import MediaStore

__all__ = ["SessionRestorer"]


def _fill_defaults(metadata: SessionMetadata) -> None:
    """What a restored metadata gets when the envelope lacks it (older versions)."""
    metadata.setdefault("run_count", 0)
    metadata.setdefault("compaction_count", 0)
    metadata.setdefault("total_tokens", 0)
    metadata.setdefault("total_cost", 0.0)
    metadata.setdefault("total_input_tokens", 0)
    metadata.setdefault("total_output_tokens", 0)
    metadata.setdefault("compaction_archives", [])
    metadata.setdefault("served_models", [])
    metadata.setdefault("pending_injections", [])


def _row_input_types(agent: SessionAgent) -> list[str] | None:
    row = agent.deps.registry.row(agent.model)
    return list(row.input_types) if row is not None else None


@dataclass(eq=False)
class SessionRestorer:
    """Adopts an envelope's state, or continues the session on another Agent."""

    state: SessionState
    saver: SessionSaver

    # ------------------------------------------------------------------ envelope in
    def adopt(self, data: Any, *, media_store: Any) -> None:
        """Take an envelope's state (validated, migrated, converted) or raise, changing
        nothing."""
        state, agent = self.state, self.state.agent
        parsed = parse_envelope(data)
        env = parsed.envelope
        if parsed.newer_than_reader:
            state.log().warning(
                "session envelope schema_version %d is newer than this reader's; unknown keys "
                "are ignored",
                parsed.original_version,
            )
        metadata = as_metadata(copy.deepcopy(env.metadata))
        messages, boundaries = drop_system_message(
            copy.deepcopy(env.messages), list(metadata.get("run_boundaries", []))
        )
        store = self.saver.media_store(UNSET if media_store is None else media_store)
        report = copy.deepcopy(env.media_report)
        table = copy.deepcopy(env.media)
        messages = reinline_messages(messages, table, store, report, agent.deps.native_media)
        source = self._source_dialect(messages, env.provider, metadata)
        conversion = convert_stored_history(
            messages,
            source=source,
            target=agent.provider,
            model=agent.model,
            session_id=env.session_id,
            dialects=state.dialects(),
            input_types=state.input_types(),
            media_lookup=(kept := self.media_lookup(table, store)),
        )
        if conversion.source is not None:
            metadata.setdefault("conversion_report", []).extend(conversion.entries)
            boundaries = []
        elif env.provider and env.provider != agent.provider:
            state.log().info("restored a plain-text history saved on %s", env.provider)
        converted = self._converted_media(conversion.entries, agent)
        messages, unsupported = self._unsupported_media(conversion.messages)
        metadata["run_boundaries"] = [
            b for b in boundaries if 0 <= b["start"] <= b["end"] <= len(messages)
        ]
        _fill_defaults(metadata)
        metadata.setdefault("created_at", env.saved_at)
        if conversion.source is None:
            check_native_messages(messages, agent.provider, state.native())
        history_config = self._check_history_config(env.session_history_config)
        fingerprint = compute_prefix_fingerprint(agent)
        saved = env.prefix_fingerprint.model_dump() if env.prefix_fingerprint else None
        change = compare_fingerprints(saved, fingerprint, parsed.original_version)
        # Everything is built: assign.
        state.session_id = env.session_id
        state.messages = json_clean(messages)
        state.metadata = json_clean(metadata)
        state.media_table = table
        state.media_report = report
        state.kept_uploads = kept  # checked against the Files API before the next turn
        if history_config is not None and state.history_config is None:
            state.history_config = history_config
        state.dropped_parts = [*converted, *unsupported]
        state.restored_from_schema_version = parsed.original_version
        state.prefix_change_report = change
        state.prefix_changed_on_resume = change is not None
        state.converted_from = conversion.source

    def _source_dialect(
        self, messages: NativeMessages, saved: str | None, metadata: SessionMetadata
    ) -> str:
        if saved:
            return saved
        agent = self.state.agent
        candidates = [agent.provider]
        candidates += [
            str(r.get("provider"))
            for r in metadata.get("served_models", [])
            if isinstance(r, dict) and r.get("provider")
        ]
        candidates += [row.provider for row in agent.deps.registry.models()]
        return detect_dialect(messages, candidates, self.state.dialects()) or agent.provider

    @staticmethod
    def _check_history_config(config: dict[str, Any] | None) -> dict[str, Any] | None:
        if config is None:
            return None
        try:
            return validate_history_config(dict(config))
        except (ValueError, TypeError) as exc:
            raise MalformedEnvelopeError("session_history_config", str(exc)) from None

    # ------------------------------------------------------------------ media
    @staticmethod
    def media_lookup(
        table: dict[str, dict[str, Any]], store: MediaStore | None
    ) -> dict[str, tuple[str, str]]:
        """The bytes kept for the history's Google upload URIs (for conversion, refresh)."""
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

    @staticmethod
    def _converted_media(
        entries: list[dict[str, Any]], agent: SessionAgent
    ) -> list[dict[str, Any]]:
        """Media the conversion dropped for ``agent``'s row: refused or recorded."""
        return converted_media_drops(
            entries,
            input_types=_row_input_types(agent),
            provider=agent.provider,
            model=agent.model,
            on_unsupported_part=agent.settings.media.on_unsupported_part,
        )

    def _unsupported_media(
        self, messages: NativeMessages
    ) -> tuple[NativeMessages, list[dict[str, Any]]]:
        """Drop (or refuse) restored media the agent's row does not list."""
        agent = self.state.agent
        input_types = self.state.input_types()
        if input_types is None:
            return messages, []
        dropped: list[dict[str, Any]] = []
        for slot in list(iter_slots(messages, agent.deps.native_media)):
            key = registry_key_for_part(slot, agent.provider)
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
                "provider": agent.provider,
                "model": agent.model,
            }
            if agent.settings.media.on_unsupported_part == "raise":
                raise UnsupportedPartError(
                    f"restored message {slot.message_index} holds {key}, which "
                    f"{agent.model} does not take"
                )
            replacement = agent.deps.native_media.placeholder(
                slot, f"not supported by {agent.model}"
            )
            replace_slot(messages, slot, replacement)
            dropped.append(record)
        return messages, dropped

    # ------------------------------------------------------------------ rebind
    def rebind(self, new_agent: SessionAgent) -> None:
        """Continue on ``new_agent``: the history converted, the prefix compared.

        Raises:
            StateError: (a RuntimeError) a turn is running on this session.
            SessionCompatibilityError: the history cannot be converted.
        """
        state = self.state
        if state.in_flight:
            raise StateError("cannot rebind while a turn is running on this session")
        conversion = convert_stored_history(
            state.messages,
            source=state.agent.provider,
            target=new_agent.provider,
            model=new_agent.model,
            session_id=state.session_id,
            dialects=Dialects(
                codec=new_agent.deps.history_codecs, profile=new_agent.deps.provider_profiles
            ),
            input_types=_row_input_types(new_agent),
            media_lookup=self.media_lookup(state.media_table, self.saver.media_store(UNSET)),
        )
        converted = self._converted_media(conversion.entries, new_agent)
        metadata = copy.deepcopy(state.metadata)
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
        saved = compute_prefix_fingerprint(state.agent)
        change = compare_fingerprints(saved, compute_prefix_fingerprint(new_agent), 3)
        state.agent = new_agent
        state.messages = json_clean(conversion.messages)
        state.metadata = metadata
        state.container_id = None
        state.converted_from = conversion.source
        state.dropped_parts = converted
        state.prefix_change_report = change
        state.prefix_changed_on_resume = change is not None
