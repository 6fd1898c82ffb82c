"""The session's history edits: clear, truncate_to(_turn), and taking a compacted prefix.

Each edit is stored first and assigned after, so a store that refuses the cut leaves the
session as it was. Run boundaries are message indices: an edit keeps those that still
point into the history and says when it reset them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.application.run.run_input import CompactionScope
from doc_processing_toolkit.application.session.envelope import json_clean
from doc_processing_toolkit.application.session.metadata import SessionMetadata, as_metadata
from doc_processing_toolkit.application.session.native import legal_cut, orphan_results
from doc_processing_toolkit.application.session.saving import SessionSaver
from doc_processing_toolkit.application.session.state import SessionState
from doc_processing_toolkit.domain.errors import ConfigurationError, StateError
from doc_processing_toolkit.domain.messages import Message

__all__ = ["HistoryEditor"]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(eq=False)
class HistoryEditor:
    """Cuts and replaces the stored history (and the store's copy of it)."""

    state: SessionState
    saver: SessionSaver

    def clear(self) -> None:
        """Clear the history while keeping the session open (metadata is kept)."""
        state = self.state
        state.check_idle()
        changes: SessionMetadata = {"run_boundaries": []}
        if state.metadata.get("run_boundaries"):
            changes["boundaries_reset_at_run"] = state.metadata["run_count"]
        if state.store is not None:  # stored first: a refused cut changes nothing
            header = self.saver.store_header([], as_metadata({**state.metadata, **changes}))
            self.saver.store_truncate(0, header)
        state.messages = []
        state.metadata.update(changes)
        if state.truncated is not None:
            state.truncated.clear()

    # ------------------------------------------------------------------ compaction
    def compaction_scope(self) -> CompactionScope:
        """The session's side of the next run's compaction."""
        count = int(self.state.metadata.get("compaction_count", 0) or 0)
        return CompactionScope(session_id=self.state.session_id, prior_count=count)

    def adopt_compacted(
        self, scope: CompactionScope, history: list[Message], error: BaseException | None = None
    ) -> list[Message]:
        """Take the history a completed run compacted (``history`` when it did not, or when
        the run failed): the stored prefix is rewritten, and the run boundaries, which
        pointed into the old one, are reset (``metadata["boundaries_reset_at_run"]`` names
        the run)."""
        if scope.history is None or error is not None:
            return history
        state = self.state
        messages = json_clean(state.native().render(scope.history))
        metadata = copy.deepcopy(state.metadata)
        metadata["boundaries_reset_at_run"] = int(metadata.get("run_count", 0)) + 1
        metadata["run_boundaries"] = []
        self.saver.store_rewrite(messages, self.saver.store_header(messages, metadata))
        state.messages, state.metadata = messages, metadata
        return scope.history

    # ------------------------------------------------------------------ truncation
    def truncate_to(self, message_count: int, *, drop_orphans: bool = True) -> int:
        """Cut the history to (a legal prefix of) its first ``message_count`` messages.

        Raises:
            ConfigurationError: (a ValueError) message_count is not an int, negative, or
                past the history.
            StateError: (a RuntimeError) the session is closed or a turn is running.
        """
        state = self.state
        if state.closed:
            raise StateError(f"session {state.session_id!r} is closed")
        if state.in_flight:
            raise StateError("cannot truncate while a turn is running on this session")
        if not _is_int(message_count):
            raise ConfigurationError(f"message_count must be an int, got {message_count!r}")
        if not 0 <= message_count <= len(state.messages):
            raise ConfigurationError(
                f"message_count must be between 0 and {len(state.messages)}, got {message_count}"
            )
        native = state.native()
        keep = message_count
        kept = state.messages[:keep]
        if drop_orphans and keep:
            keep = legal_cut(native, state.messages, keep)
            kept = state.messages[:keep]
            orphans = set(orphan_results(native, kept))
            if orphans:
                state.log().warning(
                    "truncate_to dropped %d tool result(s) stored without their call",
                    len(orphans),
                )
                kept = [m for i, m in enumerate(kept) if i not in orphans]
        metadata = copy.deepcopy(state.metadata)
        metadata["run_boundaries"] = [
            b for b in metadata.get("run_boundaries", []) if b["end"] <= len(kept)
        ]
        if state.store is None:
            pass
        elif len(kept) == keep:
            self.saver.store_truncate(keep, self.saver.store_header(kept, metadata))
        else:  # orphans were removed: the prefix was rewritten
            self.saver.store_rewrite(kept, self.saver.store_header(kept, metadata))
        state.messages, state.metadata = kept, metadata
        return len(kept)

    def truncate_to_turn(self, turn_index: int, *, drop_orphans: bool = True) -> int:
        """Cut the history to just before recorded turn ``turn_index``.

        Raises:
            ConfigurationError: (a ValueError) turn_index is not an int, negative, or past
                the recorded turns.
            StateError: (a RuntimeError) the session is closed.
        """
        state = self.state
        if state.closed:
            raise StateError(f"session {state.session_id!r} is closed")
        boundaries = list(state.metadata.get("run_boundaries", []))
        if not _is_int(turn_index) or not 0 <= turn_index <= len(boundaries):
            reset = state.metadata.get("boundaries_reset_at_run")
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
            return self.truncate_to(len(state.messages), drop_orphans=drop_orphans)
        return self.truncate_to(boundaries[turn_index]["start"], drop_orphans=drop_orphans)
