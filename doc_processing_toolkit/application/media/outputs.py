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
  name;
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
    "OutputFiles",
    "default_output_dir",
    "download_output_files",
    "safe_filename",
    "unique_name",
    "write_atomic",
]

_UNSAFE = re.compile(r"[\x00-\x1f\x7f<>:\"|?*]")


@dataclass
class OutputFiles:
    """What `download_output_files` wrote."""

    files_created: list[str] = field(default_factory=list)
    """The paths written (``AgentResult.files_created``)."""
    downloaded_files: list[dict[str, Any]] = field(default_factory=list)
    """One record per file (``AgentResult.downloaded_files``): ``file_id``, ``filename``
    (the name written), ``original_filename``, ``path``, ``size``, ``mime_type`` and
    ``container_id`` when the provider named one."""


def safe_filename(name: str, fallback: str) -> str:
    """``name`` reduced to a plain file name (no directories, no traversal)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE.sub("_", base).strip().lstrip(".").strip()
    if not base:
        base = _UNSAFE.sub("_", fallback.replace("/", "_").replace("\\", "_")).lstrip(".")
    return base[:255] or "output"


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``stem (n).ext`` with the first n >= 2 not in ``taken``."""
    if name not in taken:
        return name
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    suffix = f".{ext}" if ext else ""
    n = 2
    while f"{stem} ({n}){suffix}" in taken:
        n += 1
    return f"{stem} ({n}){suffix}"


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
    for ref in refs:
        file_id = str(ref["file_id"])
        try:
            file = await client.download_output_file(ref)
        except ProviderError as exc:
            logger.warning("could not download code-execution file %s: %s", file_id, exc)
            continue
        name = unique_name(safe_filename(file.filename, file_id), taken)
        try:
            directory.mkdir(parents=True, exist_ok=True)
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
