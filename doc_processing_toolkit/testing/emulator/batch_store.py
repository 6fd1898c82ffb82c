"""The emulator's batch store: the provider batches created, their scripted progress, and
every request they carried.

Shared by the batch routes of the three dialects (Anthropic Message Batches, the OpenAI
Batch API, Gemini batch mode). A batch is ``in_progress`` when created and ends on its
N-th status check (`BatchStore.script`; default: the first). When it ends, each of
its requests is answered, in order, by the emulator's responder or its next script step,
exactly as the interactive endpoint would answer it (a request the real API would refuse
is answered with that error and consumes no step). A cancelled batch ends on its next check, and its
requests come back cancelled, consuming no step. Batches outlive
`ProviderEmulator.reset`, like uploaded files.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BatchStore", "EmulatedBatch"]

Answer = Callable[[str, dict[str, Any]], Any]
"""Answers one batched request (custom id, request body) with the dialect's result."""
Cancelled = Callable[[str], Any]
"""The dialect's result for one request of a cancelled batch."""


@dataclass(slots=True)
class EmulatedBatch:
    """One batch (mutable: the server thread updates it)."""

    provider: str
    """``anthropic``, ``openai`` or ``google``."""
    id: str
    """The provider's id for it (``msgbatch_...``, ``batch_...``, ``batches/...``)."""
    requests: list[tuple[str, dict[str, Any]]]
    """(custom id, request body) in submission order."""
    ends_after_polls: int = 1
    """The status check on which it ends."""
    polls: int = 0
    """Status checks so far."""
    status: str = "in_progress"
    """``in_progress``, ``canceling``, ``ending`` (being answered) or ``ended``."""
    cancelled: bool = False
    """Whether a cancel was received."""
    results: dict[str, Any] = field(default_factory=dict)
    """Custom id -> the dialect's result (filled when it ends)."""
    created_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Dialect facts (OpenAI: the input, output and error file ids)."""

    @property
    def ended(self) -> bool:
        return self.status == "ended"


class BatchStore:
    """Every batch created, and the scripted progress of the next ones (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._batches: dict[str, EmulatedBatch] = {}
        self._scripts: deque[int] = deque()

    def script(self, *, polls: int = 1) -> None:
        """The next batch created ends on its ``polls``-th status check (1: the first)."""
        with self._lock:
            self._scripts.append(max(int(polls), 1))

    def create(
        self, provider: str, batch_id: str, requests: list[tuple[str, dict[str, Any]]]
    ) -> EmulatedBatch:
        """Store a new ``in_progress`` batch."""
        with self._lock:
            polls = self._scripts.popleft() if self._scripts else 1
            batch = EmulatedBatch(provider, batch_id, list(requests), ends_after_polls=polls)
            self._batches[batch_id] = batch
            return batch

    def get(self, batch_id: str) -> EmulatedBatch | None:
        """The batch called ``batch_id`` (None: there is none)."""
        with self._lock:
            return self._batches.get(batch_id)

    def poll(self, batch_id: str, answer: Answer, cancelled: Cancelled) -> EmulatedBatch | None:
        """One status check: counts it, and ends the batch when its time has come (each
        request answered by ``answer``, or by ``cancelled`` after a cancel)."""
        with self._lock:
            batch = self._batches.get(batch_id)
            if batch is None or batch.ended:
                if batch is not None:
                    batch.polls += 1
                return batch
            batch.polls += 1
            due = batch.cancelled or batch.polls >= batch.ends_after_polls
            if not due or batch.status == "ending":  # another check is answering it
                return batch
            batch.status = "ending"
            requests = list(batch.requests)
            was_cancelled = batch.cancelled
        results = {
            custom_id: cancelled(custom_id) if was_cancelled else answer(custom_id, body)
            for custom_id, body in requests
        }
        with self._lock:
            batch.results = results
            batch.status = "ended"
            batch.ended_at = time.time()
            return batch

    def cancel(self, batch_id: str) -> EmulatedBatch | None:
        """Start cancelling ``batch_id`` (an ended batch stays as it is)."""
        with self._lock:
            batch = self._batches.get(batch_id)
            if batch is not None and not batch.ended:
                batch.cancelled = True
                batch.status = "canceling"
            return batch

    @property
    def batches(self) -> list[EmulatedBatch]:
        """Every batch created, in order."""
        with self._lock:
            return list(self._batches.values())

    @property
    def requests(self) -> list[tuple[str, dict[str, Any]]]:
        """Every batched request (custom id, body), in submission order."""
        with self._lock:
            return [entry for batch in self._batches.values() for entry in batch.requests]

    @property
    def request_count(self) -> int:
        """How many model requests the batches carried."""
        return len(self.requests)

    def clear(self) -> None:
        """Forget every batch and scripted progress."""
        with self._lock:
            self._batches.clear()
            self._scripts.clear()
