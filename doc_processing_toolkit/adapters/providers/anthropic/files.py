"""The Anthropic Files API as code execution uses it.

* ``tool_files`` uploads: ``client.files.upload`` (``POST /v1/files``); the file reaches
  the code-execution container as a ``container_upload`` block in the run's user turn.
* Output files: a ``bash_code_execution_tool_result`` (or ``code_execution_tool_result``)
  names each file code execution wrote by ``file_id`` (`output_file_refs`); the
  name comes from ``client.files.retrieve_metadata`` and the bytes from
  ``client.files.download`` (``GET /v1/files/{id}/content``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers._files import (
    FilesErrorMapper,
    files_call,
    sdk_file,
)
from doc_processing_toolkit.adapters.providers.anthropic.dialect import PROVIDER
from doc_processing_toolkit.domain.messages import MediaPart, ProviderPart
from doc_processing_toolkit.ports.code_execution_files import OutputFile, UploadedToolFile

__all__ = ["download_output_file", "output_file_refs", "upload_tool_file"]

_RESULT_BLOCKS = frozenset({"bash_code_execution_tool_result", "code_execution_tool_result"})
_OUTPUT_BLOCKS = frozenset({"bash_code_execution_output", "code_execution_output"})


def output_file_refs(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``code_execution_files`` entries of a response's content blocks, in order."""
    refs: list[dict[str, Any]] = []
    for block in blocks:
        if block.get("type") not in _RESULT_BLOCKS:
            continue
        result = block.get("content")
        outputs = result.get("content") if isinstance(result, Mapping) else None
        for output in outputs if isinstance(outputs, list) else []:
            if (
                isinstance(output, Mapping)
                and output.get("type") in _OUTPUT_BLOCKS
                and isinstance(output.get("file_id"), str)
            ):
                refs.append({"file_id": output["file_id"]})
    return refs


async def upload_tool_file(
    owner: FilesErrorMapper, sdk: Any, client: Any, part: MediaPart
) -> UploadedToolFile:
    """Upload one ``tool_files`` entry; its prompt part is a ``container_upload`` block."""
    with sdk_file(part) as (name, content, mime):  # a file is streamed from disk
        meta = await files_call(
            owner, sdk, client.files.upload(file=(name, content, mime)), f"uploading {name}"
        )
    return UploadedToolFile(
        file_id=str(meta.id),
        filename=name,
        mime_type=mime,
        prompt_part=ProviderPart(
            provider=PROVIDER, payload={"type": "container_upload", "file_id": str(meta.id)}
        ),
    )


async def download_output_file(
    owner: FilesErrorMapper, sdk: Any, client: Any, ref: Mapping[str, Any]
) -> OutputFile:
    """The name and bytes of a file code execution wrote."""
    file_id = str(ref["file_id"])
    meta = await files_call(
        owner, sdk, client.files.retrieve_metadata(file_id), f"reading file {file_id}"
    )
    response = await files_call(
        owner, sdk, client.files.download(file_id), f"downloading file {file_id}"
    )
    data = await response.read()
    return OutputFile(filename=str(meta.filename), data=bytes(data), mime_type=meta.mime_type)
