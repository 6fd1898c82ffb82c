"""One run's input, and what a session-like wrapper hands a run besides it.

`Agent.run` / `run_sync` / `stream` (and the same methods of `AgentSession`) keep their
documented keywords and build one `RunInput` from them; everything below them passes
that value. `TurnHistory` is the other half of `Agent.run_turn` / `Agent.stream_turn`,
the public seam a wrapper that keeps a conversation (`AgentSession`) runs its turns
through.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore

__all__ = ["CompactionScope", "RunInput", "TurnHistory"]


@dataclass
class CompactionScope:
    """A session's side of one run's compaction."""

    session_id: str
    """Names the archives."""
    prior_count: int = 0
    """Compactions the session already made (``max_compactions_per_session``)."""
    history: list[Message] | None = None
    """Set when the run compacted: the history before this turn's messages, as it now is."""


@dataclass(frozen=True, slots=True)
class RunInput:
    """The input of one run: the message and the per-run keywords of ``run()``.

    The fields are the parameters of `Agent.run` (see there for each one), kept as they
    were given: their shape is checked by `check`, when the run starts.
    """

    message: str
    files: list[Any] | None = None
    tool_files: list[Any] | None = None
    output_schema: type[BaseModel] | None = None
    media_resolution_list: list[str | None] | None = None
    anthropic_container_id: str | None = None
    evidence: bool = False
    output_retries: int | None = None
    purpose: str = "generation"
    """The first request's purpose (``request_start``, cost records): ``"generation"``,
    or ``"document_chunk"`` / ``"document_reduce"`` for ``Agent.run_document``'s runs."""

    def check(self) -> None:
        """The shape checks of the per-run keywords, before anything is sent (the media
        room checks ``files`` and ``tool_files`` themselves; a provider checks the
        resolution levels it takes).

        Raises:
            TypeError: ``media_resolution_list``, ``anthropic_container_id``,
                ``output_retries`` or ``evidence`` is malformed.
            ValueError: ``evidence=True`` without an ``output_schema``.
        """
        resolutions, container = self.media_resolution_list, self.anthropic_container_id
        retries = self.output_retries
        if retries is not None and (
            isinstance(retries, bool) or not isinstance(retries, int) or retries < 0
        ):
            raise InvalidArgumentTypeError(f"output_retries must be an int >= 0, got {retries!r}")
        if not isinstance(self.evidence, bool):
            raise InvalidArgumentTypeError(f"evidence must be a bool, got {self.evidence!r}")
        if self.evidence and self.output_schema is None:
            raise ConfigurationError(
                "evidence=True needs an output_schema: evidence is asked for each field of "
                "the structured answer"
            )
        if resolutions is not None and (
            not isinstance(resolutions, list | tuple)
            or not all(v is None or isinstance(v, str) for v in resolutions)
        ):
            raise InvalidArgumentTypeError(
                "media_resolution_list must be a list of resolution strings or None, got "
                f"{resolutions!r}"
            )
        if container is not None and not isinstance(container, str):
            raise InvalidArgumentTypeError(
                f"anthropic_container_id must be a string, got {type(container).__name__}"
            )

    def with_container(self, container_id: str | None) -> RunInput:
        """This input with ``anthropic_container_id`` set to ``container_id``."""
        if container_id == self.anthropic_container_id:
            return self
        return dataclasses.replace(self, anthropic_container_id=container_id)

    def follow_up(self, message: str) -> RunInput:
        """The input of an automatic follow-up turn: ``message`` with this input's
        ``output_schema``; the files, tool files, resolutions and container belong to
        the message they were passed with and are not resent."""
        return RunInput(
            message,
            output_schema=self.output_schema,
            evidence=self.evidence,
            output_retries=self.output_retries,
        )


@dataclass(frozen=True, slots=True)
class TurnHistory:
    """What a conversation hands one run besides its `RunInput`."""

    messages: list[Message]
    """The conversation so far, in the neutral representation."""
    compaction: CompactionScope | None = None
    """The conversation's side of the run's compaction (None: the run's own)."""
    truncated_results: TruncatedResultStore | None = None
    """Where cut tool results are kept across turns (None: for the run only)."""
    resume: Any = None
    """A resumed turn's `ResumeState` (application/run/loop/resumed.py): ``messages`` end
    with its deferred tool round, and no new user message is added. None: a new turn."""
