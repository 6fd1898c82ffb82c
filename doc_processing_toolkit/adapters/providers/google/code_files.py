"""Gemini code execution and files: ``tool_files`` in, the files it writes out.

* ``tool_files`` uploads: through the Files API (upload, then polled to ACTIVE like any
  large media part); the file reaches code execution as a ``file_data`` part of the run's
  user turn (`upload_tool_file`). Gemini has no container to name again, so
  ``anthropic_container_id`` does not apply.
* Output files: Gemini returns what its code execution wrote (a chart, a CSV) as
  ``inline_data`` parts of the response, after the ``executable_code`` /
  ``code_execution_result`` parts that made them. `output_file_refs` names each
  such part as a ``code_execution_files`` entry carrying its bytes, so
  `download_output_file` needs no further request. A part without a
  ``display_name`` is called ``code_execution_output_<n>.<ext>``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import mimetypes
from collections.abc import Mapping, Sequence
from typing import Any

from doc_processing_toolkit.adapters.providers.google.files import poll_settings, upload_part
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidInputError
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.ports.code_execution_files import OutputFile, UploadedToolFile

__all__ = ["download_output_file", "output_file_refs", "upload_tool_file"]

_CODE_KEYS = ("executable_code", "code_execution_result")


def _decode(data: Any) -> bytes | None:
    if isinstance(data, bytes):
        return data
    if not isinstance(data, str):
        return None
    padded = data + "=" * (-len(data) % 4)
    try:
        return base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
    except (binascii.Error, ValueError):
        return None


def output_file_refs(parts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``code_execution_files`` entries of a response's parts, in order.

    Only ``inline_data`` parts that follow a code-execution part count: an image the
    model produced otherwise is not a file its code wrote.
    """
    refs: list[dict[str, Any]] = []
    after_code = False
    for part in parts:
        if any(key in part for key in _CODE_KEYS):
            after_code = True
            continue
        inline = part.get("inline_data")
        if not after_code or not isinstance(inline, Mapping):
            continue
        data = _decode(inline.get("data"))
        if data is None:
            continue
        mime = str(inline.get("mime_type") or "application/octet-stream")
        name = inline.get("display_name")
        if not isinstance(name, str) or not name:
            extension = mimetypes.guess_extension(mime) or ".bin"
            name = f"code_execution_output_{len(refs) + 1}{extension}"
        refs.append(
            {
                "file_id": f"inline-{hashlib.sha256(data).hexdigest()[:24]}",
                "filename": name,
                "mime_type": mime,
                "inline_bytes": data,
            }
        )
    return refs


def download_output_file(ref: Mapping[str, Any]) -> OutputFile:
    """The file a ``code_execution_files`` entry names (its bytes ride on the entry).

    Raises:
        InvalidInputError: the entry carries no bytes.
    """
    data = ref.get("inline_bytes")
    if not isinstance(data, bytes):
        raise InvalidInputError(f"google: code-execution file {ref.get('file_id')!r} has no bytes")
    return OutputFile(
        filename=str(ref.get("filename") or ref["file_id"]),
        data=data,
        mime_type=str(ref.get("mime_type") or "application/octet-stream"),
    )


async def upload_tool_file(
    client: Any, part: MediaPart, options: Mapping[str, Any] | None = None
) -> UploadedToolFile:
    """Upload one ``tool_files`` entry; its prompt part is a ``file_data`` part.

    Raises:
        ConfigurationError: a part without bytes (a URL cannot be uploaded).
        MediaUploadError: the upload FAILED or did not become ACTIVE in time.
    """
    if part.data is None and part.path is None:
        raise ConfigurationError("tool_files: only files with bytes can be uploaded (not URLs)")
    record = await upload_part(client, part, poll_settings(options or {}))
    return UploadedToolFile(
        file_id=str(record["uri"]),
        filename=part.filename,
        mime_type=str(record["mime_type"]),
        prompt_part=MediaPart(
            mime_type=str(record["mime_type"]),
            file_uri=str(record["uri"]),
            filename=part.filename,
            provider_ref={"google_file": dict(record)},
        ),
    )
