"""The files a provider's code execution wrote, downloaded into ``code_execution_output_dir``.

A response names what its code execution wrote in ``metadata["code_execution_files"]``
(``{"file_id", "filename"?, "container_id"?}``, in order); after the run
`download_output_files` fetches each one through the client's
`CodeExecutionFiles` port and
writes it:

* into ``code_execution_output_dir`` when set (shared across runs: a file an earlier run
  left there is overwritten), else into a fresh
  ``./<provider>_code_execution_files_<timestamp>_<random>/``, created only when the run
  produced a file;
* under its provider name made safe (the last path component, no control or reserved
  characters, never ``.``/``..``), as ``name (2).ext`` when this run already wrote that
  name; a name longer than the file system takes (`NAME_MAX_BYTES` bytes of UTF-8,
  or less where the directory says so) is shortened in its stem, so the extension and the
  `` (2)`` suffix stay inside the cap. The provider's own name is kept on
  ``downloaded_files`` as ``original_filename``: no file the provider created is dropped
  for its name;
* atomically (a temporary file in the directory, then a rename).

A download that fails is a WARNING naming the file; the run's result stands.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.ports.code_execution_files import CodeExecutionFiles

__all__ = [
    "NAME_MAX_BYTES",
    "OutputFiles",
    "default_output_dir",
    "download_output_files",
    "fit_name",
    "safe_filename",
    "unique_name",
    "write_atomic",
]

_UNSAFE = re.compile(r"[\x00-\x1f\x7f<>:\"|?*]")

NAME_MAX_BYTES = 255
"""The longest file name written, in bytes of UTF-8 (ext4, XFS, APFS, NTFS: 255)."""
_EXT_MAX_BYTES = 32
"""A longer "extension" is part of the stem (``a.<200 characters>`` has none)."""


def _cut(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` bytes of UTF-8, never inside a character."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    return data[: max(max_bytes, 0)].decode("utf-8", "ignore")


def _split_ext(name: str) -> tuple[str, str]:
    """``(stem, ".ext")``; ``ext`` empty when there is none or it is implausibly long."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or len(ext.encode("utf-8", "surrogatepass")) > _EXT_MAX_BYTES:
        return name, ""
    return stem, f".{ext}"


def fit_name(stem: str, tail: str, max_bytes: int = NAME_MAX_BYTES) -> str:
    """``stem + tail`` within ``max_bytes`` bytes of UTF-8, shortening the stem only (the
    tail is the `` (n)`` suffix and the extension)."""
    room = max_bytes - len(tail.encode("utf-8", "surrogatepass"))
    cut = _cut(stem, room).rstrip()
    return f"{cut or 'file'}{tail}"


@dataclass
class OutputFiles:
    """What `download_output_files` wrote."""

    files_created: list[str] = field(default_factory=list)
    """The paths written (``AgentResult.files_created``)."""
    downloaded_files: list[dict[str, Any]] = field(default_factory=list)
    """One record per file (``AgentResult.downloaded_files``): ``file_id``, ``filename``
    (the name written), ``original_filename``, ``path``, ``size``, ``mime_type`` and
    ``container_id`` when the provider named one."""


def safe_filename(name: str, fallback: str, max_bytes: int = NAME_MAX_BYTES) -> str:
    """``name`` reduced to a plain file name (no directories, no traversal) of at most
    ``max_bytes`` bytes of UTF-8, its extension kept."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE.sub("_", base).strip().lstrip(".").strip()
    if not base:
        base = _UNSAFE.sub("_", fallback.replace("/", "_").replace("\\", "_")).lstrip(".")
    if not base:
        return "output"
    stem, ext = _split_ext(base)
    return fit_name(stem, ext, max_bytes)


def unique_name(name: str, taken: set[str], max_bytes: int = NAME_MAX_BYTES) -> str:
    """``name``, or ``stem (n).ext`` with the first n >= 2 not in ``taken``; the stem is
    shortened so the whole stays within ``max_bytes`` bytes of UTF-8."""
    if name not in taken and len(name.encode("utf-8", "surrogatepass")) <= max_bytes:
        return name
    stem, ext = _split_ext(name)
    candidate = fit_name(stem, ext, max_bytes)
    n = 1
    while candidate in taken:
        n += 1
        candidate = fit_name(stem, f" ({n}){ext}", max_bytes)
    return candidate


def _name_max(directory: Path) -> int:
    """The longest file name ``directory`` takes, in bytes (at most `NAME_MAX_BYTES`)."""
    try:
        limit = os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows), or unknown
        return NAME_MAX_BYTES
    return min(limit, NAME_MAX_BYTES) if limit > 0 else NAME_MAX_BYTES


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".dpt-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def default_output_dir(provider: str) -> Path:
    """A fresh ``./<provider>_code_execution_files_<timestamp>_<random>`` (not created)."""
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    return Path(f"./{provider}_code_execution_files_{stamp}_{secrets.token_hex(4)}")


def _distinct(refs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    seen: set[str] = set()
    out = []
    for ref in refs:
        file_id = ref.get("file_id")
        if isinstance(file_id, str) and file_id not in seen:
            seen.add(file_id)
            out.append(ref)
    return out


async def download_output_files(
    client: object,
    refs: Sequence[Mapping[str, Any]],
    *,
    provider: str,
    output_dir: str | None,
    logger: logging.Logger,
) -> OutputFiles:
    """Download and write every file ``refs`` names (see the module docstring)."""
    out = OutputFiles()
    refs = _distinct(refs)
    if not refs:
        return out
    if not isinstance(client, CodeExecutionFiles):
        logger.warning(
            "code execution wrote %d file(s) but the %s client has no Files API to download "
            "them: %s",
            len(refs),
            provider,
            ", ".join(str(r["file_id"]) for r in refs),
        )
        return out
    directory = Path(output_dir) if output_dir else default_output_dir(provider)
    taken: set[str] = set()
    name_max: int | None = None
    for ref in refs:
        file_id = str(ref["file_id"])
        try:
            file = await client.download_output_file(ref)
        except ProviderError as exc:
            logger.warning("could not download code-execution file %s: %s", file_id, exc)
            continue
        name = "?"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            if name_max is None:
                name_max = _name_max(directory)
            name = unique_name(safe_filename(file.filename, file_id, name_max), taken, name_max)
            path = directory / name
            write_atomic(path, file.data)
        except OSError as exc:
            logger.warning("could not write code-execution file %s to %s: %s", name, directory, exc)
            continue
        taken.add(name)
        record: dict[str, Any] = {
            "file_id": file_id,
            "filename": name,
            "original_filename": file.filename,
            "path": str(path),
            "size": len(file.data),
            "mime_type": file.mime_type,
        }
        if isinstance(ref.get("container_id"), str):
            record["container_id"] = ref["container_id"]
        out.files_created.append(str(path))
        out.downloaded_files.append(record)
        logger.info("code execution file written: %s (%d bytes)", path, len(file.data))
    return out
