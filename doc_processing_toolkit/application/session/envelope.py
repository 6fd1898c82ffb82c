"""The session envelope on the way out (to_dict / to_json) and its file write.

`build_envelope` applies the save's media policy to a copy of the history and returns
a detached, JSON-clean version-3 envelope that never holds the system prompt;
`write_atomic` puts text on disk through a sibling temporary file, fsync and a
rename, so an interrupted checkpoint never replaces the last good file (and leaves no
temporary file behind).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import secrets
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
from doc_processing_toolkit.application.session.metadata import (
    RunBoundary,
    SessionMetadata,
    utc_now,
)
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    MissingFileError,
    SessionStoreError,
)
from doc_processing_toolkit.domain.session import (
    ENVELOPE_SCHEMA_VERSION,
    MalformedEnvelopeError,
    decode_json_text,
)
from doc_processing_toolkit.ports.media_store import MediaStore
from doc_processing_toolkit.ports.native_media import NativeMediaShapes

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, no stale-file sweep
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "EnvelopeSource",
    "build_envelope",
    "drop_system_message",
    "envelope_source",
    "json_clean",
    "read_envelope_json",
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
    metadata: SessionMetadata
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
    messages: list[dict[str, Any]], boundaries: list[RunBoundary]
) -> tuple[list[dict[str, Any]], list[RunBoundary]]:
    """Without a leading system message, and with the boundaries rebased onto what is left."""
    if messages and isinstance(messages[0], dict) and messages[0].get("role") == "system":
        rebased = [
            RunBoundary(**{**b, "start": b["start"] - 1, "end": b["end"] - 1})
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


def envelope_source(source: str | bytes | os.PathLike[str]) -> str:
    """How an error names what `read_envelope_json` read."""
    if isinstance(source, bytes):
        return "session JSON bytes"
    if isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        return "session JSON text"
    return f"session file {os.fspath(source)!r}"


def read_envelope_json(source: str | bytes | os.PathLike[str]) -> dict[str, Any]:
    """The envelope object in JSON text, UTF-8 bytes or a file (a Path is always a file).

    Raises:
        MalformedEnvelopeError: (a ValueError) not UTF-8, not JSON, nested too deeply, a
            number no reader takes, or not an object; names the file.
        MissingFileError: the file does not exist.
        SessionStoreError: the file cannot be read (a directory, no permission).
    """
    where = envelope_source(source)
    raw: str | bytes
    if isinstance(source, bytes) or where == "session JSON text":
        raw = source  # type: ignore[assignment]
    else:
        try:
            raw = Path(source).read_bytes()
        except FileNotFoundError:
            raise MissingFileError(f"session file {os.fspath(source)!r} does not exist") from None
        except OSError as exc:
            raise SessionStoreError(
                f"cannot read {where}: {exc.strerror or exc}", path=os.fspath(source)
            ) from None
    data = decode_json_text(raw, source=where)
    if not isinstance(data, dict):
        raise MalformedEnvelopeError(
            "<envelope>", f"must decode to an object, got {type(data).__name__}", source=where
        )
    return data


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a sibling temp file, fsync and a rename.

    Parent directories are created; the previous file stays whole until the rename. The
    bytes are written to an unnamed file (``O_TMPFILE``) that only gets a name the moment
    before the rename, so a process killed while writing leaves nothing behind; a name
    left by a kill in that last instant (or by a platform without ``O_TMPFILE``) is
    removed by the next save to the same path, once no live writer holds it.

    Raises:
        SessionStoreError: the file cannot be written (the parent is a regular file, no
            permission, a full disk); names the file.
    """
    target = Path(path)
    # A lone surrogate cannot be UTF-8: written as its JSON escape, it reads back the same.
    data = text.encode("utf-8", "backslashreplace")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _sweep_stale_temps(target)
        _write_replace(target, data)
    except OSError as exc:
        raise SessionStoreError(
            f"cannot write session file {os.fspath(target)!r}: {exc.strerror or exc}",
            path=target,
        ) from None
    with contextlib.suppress(OSError):  # make the rename itself durable where we can
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _temp_name(target: Path) -> Path:
    return target.parent / f".{target.name}.{secrets.token_hex(8)}.tmp"


def _lock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _write_replace(target: Path, data: bytes) -> None:
    """The bytes on disk under ``target``, through an unnamed file where the OS has one."""
    flag = getattr(os, "O_TMPFILE", 0)
    fd = -1
    if flag:
        try:
            fd = os.open(target.parent, flag | os.O_WRONLY, 0o600)
        except OSError:  # a filesystem without O_TMPFILE: a named temp file instead
            fd = -1
    if fd >= 0:
        try:
            _lock(fd)
            _write_all(fd, data)
            tmp = _temp_name(target)
            try:
                os.link(f"/proc/self/fd/{fd}", tmp)
                linked = True
            except OSError:
                linked = False  # no /proc: fall through to the named temp file
            if linked:
                try:
                    os.replace(tmp, target)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
                    raise
                return
        finally:
            os.close(fd)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        _lock(fd)
        _write_all(fd, data)
        os.replace(name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    finally:
        os.close(fd)


def _sweep_stale_temps(target: Path) -> None:
    """Remove the temp files earlier saves to ``target`` left when they were killed: a
    writer holds an exclusive lock on its temp file until it is renamed, so a temp file
    whose lock can be taken has no live writer."""
    if fcntl is None:
        return
    prefix = f".{target.name}."
    try:
        names = [n for n in os.listdir(target.parent) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        if not name.endswith(".tmp"):
            continue
        candidate = target.parent / name
        try:
            fd = os.open(candidate, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.stat(candidate, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                os.unlink(candidate)
        except OSError:
            continue  # a live writer holds it, or it is gone already
        finally:
            os.close(fd)
