"""CodeExecutionFiles: a provider's Files API as its code execution sees it.

A model client whose provider runs code next to files implements this port besides
`ModelClient`: ``run(tool_files=...)``
uploads go through `CodeExecutionFiles.upload_tool_file`, and the files the code
execution wrote (the ``code_execution_files`` entries of a response's ``metadata``:
``{"file_id", "filename"?, "container_id"?}``) come back through
`CodeExecutionFiles.download_output_file`. A client without it (Fireworks, a
plug-in, ``FakeModel``) has ``tool_files`` filtered out with a log line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from doc_processing_toolkit.domain.messages import MediaPart, Part

__all__ = ["CodeExecutionFiles", "OutputFile", "UploadedToolFile"]


@dataclass(frozen=True, slots=True)
class UploadedToolFile:
    """One ``tool_files`` entry, uploaded."""

    file_id: str
    """The provider's id (or URI) of the uploaded file."""
    filename: str | None
    """The name the file carries in the container."""
    mime_type: str
    prompt_part: Part | None = None
    """What goes into the run's user turn to hand the file to code execution (an
    Anthropic ``container_upload`` block, a Gemini ``file_data`` part); None when the id
    travels in the code-execution tool's configuration instead (OpenAI ``file_ids``)."""


@dataclass(frozen=True, slots=True)
class OutputFile:
    """One file code execution wrote, downloaded."""

    filename: str
    """The name the provider gave it (unsanitised: the caller makes it safe)."""
    data: bytes
    mime_type: str | None = None


@runtime_checkable
class CodeExecutionFiles(Protocol):
    """Uploads for, and downloads from, a provider's code execution.

    Both methods raise a `ProviderError`
    on failure and never retry.
    """

    reuses_containers: bool
    """Whether a code-execution container can be named again on a later run
    (``run(anthropic_container_id=...)``)."""

    async def upload_tool_file(self, part: MediaPart) -> UploadedToolFile:
        """Upload ``part`` (bytes) through the provider's Files API."""
        ...

    async def download_output_file(self, ref: Mapping[str, Any]) -> OutputFile:
        """Download the file a ``code_execution_files`` entry names."""
        ...
