"""Gemini Files API uploads for media too large to send inline.

A request whose inline media would exceed the model's inline limit (its registry row's
``max_inline_bytes``; `INLINE_LIMIT_BYTES` for a row without the fact) has its largest
parts uploaded through google-genai (``client.aio.files.upload``) and polled
(``client.aio.files.get``) until ``ACTIVE``; the part is then sent as ``file_data`` with
the file's URI. Polling follows `PollSettings` (``file_active_timeout_s``,
``file_poll_interval_s``, ``file_poll_backoff``, each defaulting to its
``DPT_GOOGLE_*`` variable, then to 60 s for images and 120 s for other media, 1 s and
1.0). A ``FAILED`` or timed-out file is a `MediaUploadError` naming the file and
its state. The same bytes upload once per process and endpoint (an in-process cache keyed
by sha256, entries dropped once the file expires); every upload or cache hit of the
request's new turns becomes one ``media_uploads`` record, in prompt order. A part backed
by a local file (``MediaPart.path``: a large file in ``files=`` / ``tool_files=``) is
always uploaded, streamed from disk by the SDK (8 MiB at a time) and hashed in pieces:
it is never held in memory; its ``media_uploads`` record names the ``path``, and the
history renders the part as the uploaded file's URI.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from doc_processing_toolkit.adapters import _environment
from doc_processing_toolkit.adapters.providers._source import (
    forget_uploads,
    part_sha256,
    part_size,
    remember_upload,
)
from doc_processing_toolkit.adapters.providers.google.dialect import PROVIDER
from doc_processing_toolkit.domain.errors import ConfigurationError, MediaUploadError
from doc_processing_toolkit.domain.media import media_key
from doc_processing_toolkit.domain.messages import MediaPart, Message
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest

__all__ = [
    "INLINE_LIMIT_BYTES",
    "MediaUploadError",
    "PollSettings",
    "clear_upload_cache",
    "file_name",
    "inline_limit",
    "poll_settings",
    "upload_large_media",
    "upload_part",
    "usable",
]

INLINE_LIMIT_BYTES = 20 * 1024 * 1024
"""The most inline media bytes one Gemini request carries when the model's registry row
has no ``max_inline_bytes``; larger parts are uploaded."""

ENV_TIMEOUT = "DPT_GOOGLE_FILE_ACTIVE_TIMEOUT_S"
ENV_INTERVAL = "DPT_GOOGLE_FILE_POLL_INTERVAL_S"
ENV_BACKOFF = "DPT_GOOGLE_FILE_POLL_BACKOFF"

_BOUNDS = {
    "file_active_timeout_s": (1.0, 3600.0),
    "file_poll_interval_s": (0.05, 60.0),
    "file_poll_backoff": (1.0, 10.0),
}
_DEFAULT_TIMEOUT = {"image": 60.0}
_DEFAULT_OTHER_TIMEOUT = 120.0
_DEFAULT_INTERVAL = 1.0

_cache_lock = threading.Lock()
_CACHE: dict[tuple[str, str], dict[str, Any]] = {}


@dataclasses.dataclass(frozen=True, slots=True)
class PollSettings:
    """How an upload is waited for."""

    timeout_s: float | None = None
    """Seconds until ACTIVE (None: 60 for images, 120 for other media)."""
    interval_s: float = _DEFAULT_INTERVAL
    backoff: float = 1.0

    def timeout_for(self, mime_type: str) -> float:
        """The timeout of a part of this type."""
        if self.timeout_s is not None:
            return self.timeout_s
        return _DEFAULT_TIMEOUT.get(media_key(mime_type), _DEFAULT_OTHER_TIMEOUT)


def _setting(options: Mapping[str, Any], key: str, env: str) -> float | None:
    value: Any = options.get(key)
    source = key
    if value is None:
        raw = _environment.variable(env)
        if raw is None or not raw.strip():
            return None
        source = env
        try:
            value = float(raw)
        except ValueError as exc:
            raise ConfigurationError(f"{env} must be a number, got {raw!r}") from exc
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigurationError(f"{source} must be a number, got {value!r}")
    low, high = _BOUNDS[key]
    if not low <= float(value) <= high:
        raise ConfigurationError(f"{source} must be between {low:g} and {high:g}, got {value!r}")
    return float(value)


def poll_settings(options: Mapping[str, Any]) -> PollSettings:
    """The polling settings of a request's provider options (then the environment).

    Raises:
        ValueError: a value out of its bounds, or an interval above the timeout.
    """
    timeout = _setting(options, "file_active_timeout_s", ENV_TIMEOUT)
    interval = _setting(options, "file_poll_interval_s", ENV_INTERVAL)
    backoff = _setting(options, "file_poll_backoff", ENV_BACKOFF)
    if timeout is not None and interval is not None and interval > timeout:
        raise ConfigurationError(
            f"file_poll_interval_s ({interval:g}) must not exceed file_active_timeout_s "
            f"({timeout:g})"
        )
    return PollSettings(
        timeout_s=timeout,
        interval_s=interval if interval is not None else _DEFAULT_INTERVAL,
        backoff=backoff if backoff is not None else 1.0,
    )


def clear_upload_cache() -> None:
    """Forget every cached upload (the next request uploads again)."""
    with _cache_lock:
        _CACHE.clear()
    forget_uploads(PROVIDER)


def _expired(record: Mapping[str, Any]) -> bool:
    expires = record.get("expiration_time")
    if not isinstance(expires, str):
        return False
    try:
        when = datetime.fromisoformat(expires.replace("Z", "+00:00"))
    except ValueError:
        return False
    return when <= datetime.now(UTC)


def _state_name(state: Any) -> str:
    value = getattr(state, "value", state)
    return str(value) if value is not None else "STATE_UNSPECIFIED"


def _iso(value: Any) -> str | None:
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    return str(value) if value is not None else None


def _first_new_turn(messages: tuple[Message, ...] | list[Message]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant":
            return index + 1
    return 0


async def _wait_active(client: Any, file: Any, label: str, mime: str, poll: PollSettings) -> Any:
    timeout = poll.timeout_for(mime)
    deadline = time.monotonic() + timeout
    interval = poll.interval_s
    while True:
        state = _state_name(getattr(file, "state", None))
        if state == "ACTIVE":
            return file
        if state == "FAILED":
            detail = getattr(getattr(file, "error", None), "message", None)
            raise MediaUploadError(
                f"google: the Files API upload of {label} ({file.name}) is FAILED"
                + (f": {detail}" if detail else ""),
                provider=PROVIDER,
                before_stream=True,
            )
        if time.monotonic() + interval > deadline:
            raise MediaUploadError(
                f"google: the Files API upload of {label} ({file.name}) is still {state} "
                f"after {timeout:g} s (file_active_timeout_s)",
                provider=PROVIDER,
                before_stream=True,
            )
        await asyncio.sleep(interval)
        interval = min(interval * poll.backoff, max(deadline - time.monotonic(), 0.0))
        file = await client.aio.files.get(name=file.name)


def _has_bytes(part: MediaPart) -> bool:
    return part.data is not None or part.path is not None


async def _upload(client: Any, part: MediaPart, digest: str, poll: PollSettings) -> dict[str, Any]:
    assert _has_bytes(part)
    size = part_size(part)
    label = part.filename or f"a {size}-byte {part.mime_type} part"
    config: dict[str, Any] = {"mime_type": part.mime_type}
    if part.filename:
        config["display_name"] = part.filename
    # A path is streamed by the SDK (an async file, read in 8 MiB chunks), never read whole.
    source: Any = part.path if part.data is None else io.BytesIO(part.data)
    file = await client.aio.files.upload(file=source, config=config)
    file = await _wait_active(client, file, label, part.mime_type, poll)
    return {
        "uri": file.uri,
        "name": file.name,
        "mime_type": file.mime_type or part.mime_type,
        "size": size,
        "sha256": digest,
        "uploaded_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "expiration_time": _iso(getattr(file, "expiration_time", None)),
    }


async def upload_part(client: Any, part: MediaPart, poll: PollSettings) -> dict[str, Any]:
    """Upload ``part`` (bytes, or its file streamed from disk) and wait for ACTIVE; its
    ``media_uploads``-style record.

    Raises:
        MediaUploadError: the upload FAILED or did not become ACTIVE in time.
        MissingFileError: the part's file cannot be read.
    """
    return await _upload(client, part, part_sha256(part), poll)


def file_name(uri: str) -> str:
    """The Files API resource name (``files/<id>``) of a ``file_data`` URI."""
    tail = uri.rstrip("/").rsplit("/files/", 1)[-1]
    return f"files/{tail}"


def usable(file: Any) -> bool:
    """Whether a Files API file can still be referenced (not FAILED)."""
    return _state_name(getattr(file, "state", None)) != "FAILED"


def inline_limit(row: ModelInfo | None) -> int:
    """The most inline media bytes one request for ``row``'s model carries: the row's
    ``max_inline_bytes``, else `INLINE_LIMIT_BYTES`."""
    if row is not None and row.max_inline_bytes is not None:
        return row.max_inline_bytes
    return INLINE_LIMIT_BYTES


def _to_upload(messages: list[Message], limit: int) -> set[tuple[int, int]]:
    """(message, part) positions of the parts to upload: every part backed by a local
    file, then the largest inline parts until the inline remainder fits ``limit``."""
    chosen: set[tuple[int, int]] = set()
    sized: list[tuple[int, int, int]] = []
    for m, message in enumerate(messages):
        for p, part in enumerate(message.parts):
            if not isinstance(part, MediaPart):
                continue
            if part.data is not None:
                sized.append((len(part.data), m, p))
            elif part.path is not None:
                chosen.add((m, p))
    total = sum(size for size, _, _ in sized)
    for size, m, p in sorted(sized, reverse=True):
        if total <= limit:
            break
        chosen.add((m, p))
        total -= size
    return chosen


async def upload_large_media(
    client: Any, request: ModelRequest, endpoint: str, row: ModelInfo | None = None
) -> tuple[ModelRequest, list[dict[str, Any]]]:
    """``request`` with its too-large inline media (over `inline_limit` of ``row``) and
    its file-backed media uploaded, and the ``media_uploads`` records of its new turns.

    Raises:
        ValueError: polling settings out of bounds.
        MediaUploadError: an upload FAILED or did not become ACTIVE in time.
        MissingFileError: a part's file cannot be read.
    """
    messages = list(request.messages)
    chosen = _to_upload(messages, inline_limit(row))
    if not chosen:
        return request, []
    if row is not None and row.lacks("files_api"):  # Gemini on Vertex AI: no Files API
        raise MediaUploadError(
            f"google: {len(chosen)} media part(s) are over the inline limit and "
            f"{row.model} on {row.deployment} has no Files API to upload them to: pass "
            "them as gs:// URIs (a MediaPart with uri='gs://bucket/object') or smaller",
            provider=PROVIDER,
            before_stream=True,
        )
    poll = poll_settings(request.provider_options)
    new_from = _first_new_turn(messages)
    records: list[dict[str, Any]] = []
    for m, p in sorted(chosen):
        part = messages[m].parts[p]
        assert isinstance(part, MediaPart) and _has_bytes(part)
        digest = part_sha256(part)
        with _cache_lock:
            cached = _CACHE.get((endpoint, digest))
        if cached is None or _expired(cached):
            cached = await _upload(client, part, digest, poll)
            with _cache_lock:
                _CACHE[(endpoint, digest)] = cached
        remember_upload(PROVIDER, part, cached)  # the history renders it as this file
        replaced = MediaPart(
            mime_type=part.mime_type,
            file_uri=cached["uri"],
            filename=part.filename,
            provider_ref={"google_file": dict(cached)},
        )
        parts = list(messages[m].parts)
        parts[p] = replaced
        messages[m] = dataclasses.replace(messages[m], parts=tuple(parts))
        if m >= new_from:
            records.append(
                {"part_index": p, **cached, **({"path": part.path} if part.path else {})}
            )
    return dataclasses.replace(request, messages=tuple(messages)), records
