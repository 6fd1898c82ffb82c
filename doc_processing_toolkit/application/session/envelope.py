"""The session envelope on the way out (to_dict / to_json) and its file write.

`build_envelope` applies the save's media policy to a copy of the history and returns
a detached, JSON-clean version-3 envelope that never holds the system prompt;
`write_atomic` puts text on disk through a sibling temporary file, fsync and a
rename, so an interrupted checkpoint never replaces the last good file.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import tempfile
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.session.media_policy import (
    externalize_messages,
    resolve_media_policy,
    strip_messages,
)
from doc_processing_toolkit.application.session.metadata import utc_now
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.session import ENVELOPE_SCHEMA_VERSION
from doc_processing_toolkit.ports.media_store import MediaStore
from doc_processing_toolkit.ports.native_media import NativeMediaShapes

__all__ = [
    "EnvelopeSource",
    "build_envelope",
    "drop_system_message",
    "json_clean",
    "sdk_info",
    "toolkit_version",
    "write_atomic",
]


@dataclass
class EnvelopeSource:
    """What a save reads of a session (copies are made by `build_envelope`)."""

    session_id: str
    provider: str
    model: str
    messages: list[dict[str, Any]]
    metadata: dict[str, Any]
    prefix_fingerprint: dict[str, str]
    media_table: dict[str, dict[str, Any]] = field(default_factory=dict)
    media_report: list[dict[str, Any]] = field(default_factory=list)
    session_history_config: dict[str, Any] | None = None
    sdk_distribution: str | None = None
    shapes: NativeMediaShapes | None = None
    """How media sits in the stored messages (needed to externalise or strip media)."""


def toolkit_version() -> str | None:
    """The installed toolkit's version."""
    try:
        return importlib_metadata.version("doc-processing-toolkit")
    except importlib_metadata.PackageNotFoundError:
        return None


def sdk_info(distribution: str | None) -> dict[str, str | None]:
    """``{"name", "version"}`` of the provider SDK distribution (version None if absent)."""
    if distribution is None:
        return {"name": None, "version": None}
    try:
        version: str | None = importlib_metadata.version(distribution)
    except importlib_metadata.PackageNotFoundError:
        version = None
    return {"name": distribution, "version": version}


def json_clean(value: Any) -> Any:
    """A JSON-clean deep copy (bytes and other non-JSON values become strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def drop_system_message(
    messages: list[dict[str, Any]], boundaries: list[dict[str, int]]
) -> tuple[list[dict[str, Any]], list[dict[str, int]]]:
    """Without a leading system message, and with the boundaries rebased onto what is left."""
    if messages and isinstance(messages[0], dict) and messages[0].get("role") == "system":
        rebased = [
            {**b, "start": b["start"] - 1, "end": b["end"] - 1}
            for b in boundaries
            if b["start"] >= 1
        ]
        return messages[1:], rebased
    return messages, boundaries


def _cap_uploads(
    table: dict[str, dict[str, Any]],
    store: MediaStore | None,
    cap: int | None,
    report: list[dict[str, Any]],
) -> None:
    """Google upload entries keep their bytes up to ``cap``, or move them to ``store``."""
    import base64
    import hashlib

    for key, entry in table.items():
        data = entry.get("data")
        if entry.get("kind") != "google_upload" or not isinstance(data, str):
            continue
        raw = base64.b64decode(data)
        if store is not None:
            digest = hashlib.sha256(raw).hexdigest()
            entry["ref"] = store.put(digest, entry.get("mime_type") or "", raw)
            entry.pop("data")
        elif cap is not None and len(raw) > cap:
            entry.pop("data")
            report.append(
                {
                    "reason": "over_inline_threshold",
                    "uri": key,
                    "mime_type": entry.get("mime_type"),
                    "size": len(raw),
                    "limit": cap,
                }
            )


def build_envelope(
    source: EnvelopeSource,
    *,
    media: str | None,
    store: MediaStore | None,
    max_inline_bytes: int | None,
) -> dict[str, Any]:
    """The version-3 envelope of ``source`` under one save's media policy.

    Raises:
        ValueError: an unknown policy, or ``externalize`` with no store.
    """
    policy = resolve_media_policy(media, store)
    metadata = copy.deepcopy(source.metadata)
    messages, boundaries = drop_system_message(
        copy.deepcopy(source.messages), list(metadata.get("run_boundaries", []))
    )
    metadata["run_boundaries"] = boundaries
    table = copy.deepcopy(source.media_table)
    report = copy.deepcopy(source.media_report)
    _cap_uploads(table, store, max_inline_bytes, report)
    if policy in ("externalize", "strip") and source.shapes is None:
        raise ConfigurationError(f"media={policy!r} needs the stored messages' media shapes")
    if policy == "externalize" and store is not None and source.shapes is not None:
        messages = externalize_messages(messages, store, table, source.shapes)
    elif policy == "strip" and source.shapes is not None:
        messages = strip_messages(messages, report, source.shapes)
    envelope: dict[str, Any] = {
        "schema_version": ENVELOPE_SCHEMA_VERSION,
        "session_id": source.session_id,
        "provider": source.provider,
        "model": source.model,
        "toolkit_version": toolkit_version(),
        "saved_at": utc_now(),
        "sdk": sdk_info(source.sdk_distribution),
        "media_policy": policy,
        "media": table,
        "media_report": report,
        "prefix_fingerprint": dict(source.prefix_fingerprint),
        "messages": messages,
        "metadata": metadata,
    }
    if source.session_history_config is not None:
        envelope["session_history_config"] = dict(source.session_history_config)
    cleaned: dict[str, Any] = json_clean(envelope)
    return cleaned


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a sibling temp file, fsync and a rename.

    Parent directories are created; the previous file stays whole until the rename.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where we can
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
