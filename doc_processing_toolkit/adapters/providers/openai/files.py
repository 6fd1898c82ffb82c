"""The OpenAI Files and container-files APIs as the code interpreter uses them.

* ``tool_files`` uploads: ``client.files.create(purpose="user_data")`` (``POST /files``);
  the ids travel in the code_interpreter tool's ``container.file_ids``.
* Output files: each file the code interpreter wrote is a ``container_file_citation``
  annotation on the message text (``container_id``, ``file_id``, ``filename``;
  `output_file_refs`); the bytes come from
  ``client.containers.files.content.retrieve`` (``GET /containers/{c}/files/{id}/content``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers._files import (
    FilesErrorMapper,
    files_call,
    sdk_file,
)
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.ports.code_execution_files import OutputFile, UploadedToolFile

__all__ = ["download_output_file", "output_file_refs", "upload_tool_file"]


def output_file_refs(output: list[Any]) -> list[dict[str, Any]]:
    """The ``code_execution_files`` entries of a response's output items, in order."""
    refs: list[dict[str, Any]] = []
    for item in output:
        content = item.get("content") if isinstance(item, Mapping) else None
        if not isinstance(item, Mapping) or item.get("type") != "message":
            continue
        for entry in content if isinstance(content, list) else []:
            notes = entry.get("annotations") if isinstance(entry, Mapping) else None
            for note in notes if isinstance(notes, list) else []:
                if (
                    isinstance(note, Mapping)
                    and note.get("type") == "container_file_citation"
                    and isinstance(note.get("file_id"), str)
                    and isinstance(note.get("container_id"), str)
                ):
                    refs.append(
                        {
                            "file_id": note["file_id"],
                            "container_id": note["container_id"],
                            "filename": str(note.get("filename") or note["file_id"]),
                        }
                    )
    return refs


async def upload_tool_file(
    owner: FilesErrorMapper, sdk: Any, client: Any, part: MediaPart
) -> UploadedToolFile:
    """Upload one ``tool_files`` entry (its id goes into the tool's ``file_ids``)."""
    with sdk_file(part) as (name, content, mime):  # a file is streamed from disk
        created = await files_call(
            owner,
            sdk,
            client.files.create(file=(name, content, mime), purpose="user_data"),
            f"uploading {name}",
        )
    return UploadedToolFile(file_id=str(created.id), filename=name, mime_type=mime)


async def download_output_file(
    owner: FilesErrorMapper, sdk: Any, client: Any, ref: Mapping[str, Any]
) -> OutputFile:
    """The bytes of a container file the code interpreter wrote."""
    file_id, container = str(ref["file_id"]), str(ref["container_id"])
    response = await files_call(
        owner,
        sdk,
        client.containers.files.content.retrieve(file_id, container_id=container),
        f"downloading container file {file_id}",
    )
    return OutputFile(filename=str(ref.get("filename") or file_id), data=bytes(response.content))
