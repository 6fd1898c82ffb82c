"""``run(tool_files=...)`` and ``anthropic_container_id=``: files and a container for the
provider's code execution.

`check_tool_files` reads the inputs (the same forms as ``files=``; every bad input
raises before any request). `upload_tool_files` uploads them through the client's
`CodeExecutionFiles` port; a
client without one (Fireworks) has them filtered out with one log line. Each upload gives
a part for the run's user turn (an Anthropic ``container_upload`` block, a Gemini
``file_data`` part) or a file id for the code-execution tool's configuration (OpenAI).

`with_code_execution` turns code execution on for a run that needs it (tool files,
or a container to reuse), keeping the Agent's own configuration of the tool.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.media.inputs import ByteLimit, media_parts
from doc_processing_toolkit.application.media.source import part_size
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.messages import MediaPart, Part
from doc_processing_toolkit.domain.tools.built_in import (
    BuiltInToolConfig,
    normalize_built_in_tools,
)
from doc_processing_toolkit.ports.code_execution_files import CodeExecutionFiles

__all__ = [
    "ToolFiles",
    "check_tool_files",
    "container_to_reuse",
    "upload_tool_files",
    "with_code_execution",
]


@dataclass
class ToolFiles:
    """The run's uploaded tool files."""

    prompt_parts: list[Part] = field(default_factory=list)
    """Parts to put first in the run's user turn."""
    file_ids: list[str] = field(default_factory=list)
    """Ids for the code-execution tool's configuration."""
    uploads: list[dict[str, Any]] = field(default_factory=list)
    """``{"file_id", "filename", "mime_type", "size"}`` per upload, in order."""


def check_tool_files(
    tool_files: Sequence[Any] | None, limit: ByteLimit | None = None
) -> list[MediaPart]:
    """The ``tool_files`` as media parts (bytes only: a URL cannot be uploaded), each no
    larger than ``limit`` (checked from the size on disk, before reading). A path is not
    read: its part carries the path, and the upload streams it from disk.

    Raises:
        FileNotFoundError, ValueError, TypeError: as for ``files=``, naming the input.
        FileTooLargeError: a file larger than ``limit``.
    """
    if tool_files is None:
        return []
    parts = media_parts(tool_files, limit, stream_over=0)
    for index, part in enumerate(parts):
        if part.data is None and part.path is None:
            raise ConfigurationError(
                f"tool_files[{index}]: a URL cannot be uploaded for code execution; pass a "
                "path, bytes or a dict with data"
            )
    return parts


async def upload_tool_files(
    client: object, parts: Sequence[MediaPart], *, provider: str, logger: logging.Logger
) -> ToolFiles:
    """Upload ``parts`` for code execution (filtered with a log line where unsupported).

    Raises:
        ProviderError: an upload failed.
    """
    out = ToolFiles()
    if not parts:
        return out
    if not isinstance(client, CodeExecutionFiles):
        logger.warning(
            "tool_files: the %s client does not upload files for code execution; %d file(s) "
            "not sent",
            provider,
            len(parts),
        )
        return out
    for part in parts:
        uploaded = await client.upload_tool_file(part)
        if uploaded.prompt_part is not None:
            out.prompt_parts.append(uploaded.prompt_part)
        else:
            out.file_ids.append(uploaded.file_id)
        out.uploads.append(
            {
                "file_id": uploaded.file_id,
                "filename": uploaded.filename,
                "mime_type": uploaded.mime_type,
                "size": part_size(part) or 0,
            }
        )
        logger.info("tool file uploaded: %s (%s)", uploaded.filename, uploaded.file_id)
    return out


def container_to_reuse(
    client: object, container_id: str | None, *, provider: str, logger: logging.Logger
) -> str | None:
    """``container_id`` when the client's provider can reuse a container, else None.

    Raises:
        TypeError: ``container_id`` is not a string.
    """
    if container_id is None:
        return None
    if not isinstance(container_id, str) or not container_id.strip():
        raise InvalidArgumentTypeError(
            f"anthropic_container_id must be a non-empty string, got {container_id!r}"
        )
    if isinstance(client, CodeExecutionFiles) and client.reuses_containers:
        return container_id.strip()
    logger.debug("anthropic_container_id ignored: %s does not reuse containers", provider)
    return None


def with_code_execution(
    built_in_tools: Mapping[str, Any] | None, container_id: str | None
) -> dict[str, Any]:
    """``built_in_tools`` with code execution enabled (and reusing ``container_id``)."""
    tools: dict[str, Any] = dict(normalize_built_in_tools(built_in_tools))
    current = tools.get("code_execution")
    config = dict(current.config) if isinstance(current, BuiltInToolConfig) else {}
    if container_id is not None:
        config["container_id"] = container_id
    tools["code_execution"] = BuiltInToolConfig(enabled=True, config=config)
    return tools
