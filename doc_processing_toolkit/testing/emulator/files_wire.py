"""The Files APIs the Anthropic and OpenAI SDKs call, and the paths they share with Gemini's.

* ``POST /v1/files`` (multipart ``file``; OpenAI adds ``purpose``): Anthropic answers a
  ``FileMetadata`` (``file_...``), OpenAI a ``FileObject`` (``file-...``).
* ``GET /{version}/files/{id}``: the file's metadata; ``DELETE`` forgets it. Gemini polls
  this path too (``files/<id>``): a request carrying ``x-goog-api-key`` goes to
  `handle_file`.
* ``GET /v1/files/{id}/content``: the bytes (Anthropic ``files.download``; OpenAI
  ``files.content``).
* ``GET /v1/containers/{container}/files/{id}`` and ``.../content``: OpenAI's container
  files, where code interpreter output lives.

Which SDK asked is read from its headers (``anthropic-version``, ``x-goog-api-key``);
otherwise OpenAI. Every file lives in the emulator's one
`FileStore`; files a scripted code execution wrote are stored there
with ``origin="generated"`` (`store_generated`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from doc_processing_toolkit.testing.emulator import google_files_wire
from doc_processing_toolkit.testing.emulator.common import DialectRoute, EmulatorCall, iso_z
from doc_processing_toolkit.testing.emulator.files_store import KEEP_BYTES, FileStore, StoredFile
from doc_processing_toolkit.testing.script import GeneratedFile

__all__ = ["FILES_ROUTES", "files_dialect", "store_generated"]


def files_dialect(request: Request) -> str:
    """``anthropic_files``, ``google_files`` or ``openai_files``, from the SDK's headers."""
    headers = request.headers
    if "anthropic-version" in headers:
        return "anthropic_files"
    if "x-goog-api-key" in headers or request.url.path.startswith("/upload/"):
        return google_files_wire.DIALECT
    return "openai_files"


def store_generated(
    store: FileStore, file: GeneratedFile, *, prefix: str, container_id: str | None
) -> StoredFile:
    """Keep a file a scripted code execution wrote, for the SDK to download."""
    return store.add(
        prefix,
        file.mime_type,
        file.data,
        file.filename,
        origin="generated",
        container_id=container_id,
    )


def _anthropic_metadata(stored: StoredFile) -> dict[str, Any]:
    return {
        "id": stored.name,
        "type": "file",
        "filename": stored.display_name or "unnamed",
        "mime_type": stored.mime_type,
        "size_bytes": stored.size,
        "created_at": iso_z(stored.created_at),
        "downloadable": stored.origin == "generated",
    }


def _openai_file(stored: StoredFile) -> dict[str, Any]:
    return {
        "id": stored.name,
        "object": "file",
        "bytes": stored.size,
        "created_at": int(stored.created_at.timestamp()),
        "filename": stored.display_name or "unnamed",
        "purpose": stored.purpose or "user_data",
        "status": "processed",
    }


def _container_file(stored: StoredFile) -> dict[str, Any]:
    return {
        "id": stored.name,
        "object": "container.file",
        "bytes": stored.size,
        "container_id": stored.container_id or "",
        "created_at": int(stored.created_at.timestamp()),
        "path": f"/mnt/data/{stored.display_name or stored.name}",
        "source": "assistant" if stored.origin == "generated" else "user",
    }


def _not_found(dialect: str, file_id: str) -> Response:
    message = f"File {file_id} not found"
    if dialect == "anthropic_files":
        body: dict[str, Any] = {
            "type": "error",
            "error": {"type": "not_found_error", "message": message},
        }
    else:
        body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return JSONResponse(body, status_code=404)


async def handle_upload(call: EmulatorCall) -> Response:
    """POST /v1/files (multipart)."""
    dialect = files_dialect(call.request)
    form = await call.request.form()
    upload = form.get("file")
    if upload is None or isinstance(upload, str):
        return JSONResponse(
            {"error": {"message": "a multipart 'file' field is required"}}, status_code=400
        )
    digest, size, kept = hashlib.sha256(), 0, bytearray()
    while chunk := await upload.read(1024 * 1024):  # counted and hashed, kept up to a cap
        digest.update(chunk)
        size += len(chunk)
        if size <= KEEP_BYTES:
            kept += chunk
    mime = upload.content_type or "application/octet-stream"
    purpose = form.get("purpose")
    stored = call.state.files.add(
        "file_" if dialect == "anthropic_files" else "file-",
        mime,
        bytes(kept) if size <= KEEP_BYTES else b"",
        upload.filename,
        purpose=purpose if isinstance(purpose, str) else None,
    )
    if size > KEEP_BYTES:
        stored.truncated, stored.streamed_size = True, size
        stored.streamed_sha256 = digest.hexdigest()
    if dialect == "anthropic_files":
        return JSONResponse(_anthropic_metadata(stored))
    return JSONResponse(_openai_file(stored))


async def handle_file(call: EmulatorCall) -> Response:
    """GET (metadata) or DELETE ``/{version}/files/{id}``, for whichever SDK asked."""
    dialect = files_dialect(call.request)
    if dialect == google_files_wire.DIALECT:
        return await google_files_wire.handle_file(call)
    file_id = str(call.path_params.get("file_id", ""))
    store = call.state.files
    stored = store.get(file_id)
    if stored is None or stored.deleted:
        return _not_found(dialect, file_id)
    if call.request.method == "DELETE":
        store.delete(file_id)
        if dialect == "anthropic_files":
            return JSONResponse({"id": file_id, "type": "file_deleted"})
        return JSONResponse({"id": file_id, "object": "file", "deleted": True})
    if dialect == "anthropic_files":
        return JSONResponse(_anthropic_metadata(stored))
    return JSONResponse(_openai_file(stored))


async def handle_content(call: EmulatorCall) -> Response:
    """GET ``/v1/files/{id}/content`` and ``/v1/containers/{c}/files/{id}/content``."""
    dialect = files_dialect(call.request)
    file_id = str(call.path_params.get("file_id", ""))
    container = call.path_params.get("container_id")
    stored = call.state.files.get(file_id)
    if (
        stored is None
        or stored.deleted
        or (container is not None and stored.container_id != container)
    ):
        return _not_found(dialect, file_id)
    return Response(stored.data, media_type=stored.mime_type)


async def handle_container_file(call: EmulatorCall) -> Response:
    """GET ``/v1/containers/{c}/files/{id}`` (OpenAI container file metadata)."""
    file_id = str(call.path_params.get("file_id", ""))
    stored = call.state.files.get(file_id)
    if (
        stored is None
        or stored.deleted
        or stored.container_id != call.path_params.get("container_id")
    ):
        return _not_found("openai_files", file_id)
    return JSONResponse(_container_file(stored))


FILES_ROUTES: dict[str, DialectRoute] = {
    "/v1/files": DialectRoute("files", handle_upload, ("POST",), files_dialect),
    "/{version}/files/{file_id}": DialectRoute(
        "files", handle_file, ("GET", "DELETE"), files_dialect
    ),
    "/v1/files/{file_id}/content": DialectRoute("files", handle_content, ("GET",), files_dialect),
    "/v1/containers/{container_id}/files/{file_id}": DialectRoute(
        "openai_files", handle_container_file, ("GET",)
    ),
    "/v1/containers/{container_id}/files/{file_id}/content": DialectRoute(
        "openai_files", handle_content, ("GET",)
    ),
}
"""The shared Files API routes (listed in `DIALECT_ROUTES`)."""
