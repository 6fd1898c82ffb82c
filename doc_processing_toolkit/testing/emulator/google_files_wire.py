"""The Gemini Files API as google-genai calls it: resumable upload, get (poll), delete.

* ``POST /upload/{version}/files`` with ``x-goog-upload-command: start`` answers an
  ``x-goog-upload-url``; the SDK then POSTs the bytes there in chunks (``upload``, the
  last ``upload, finalize``), and the final answer is ``{"file": {...}}``.
* ``GET /{version}/files/{id}`` returns the file with its next scripted state
  (``PROCESSING`` -> ``ACTIVE`` / ``FAILED``; see `FileStore`).
* ``DELETE /{version}/files/{id}`` forgets it.

File URIs use the real Files API host, as the service's do.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from starlette.responses import JSONResponse, Response

from doc_processing_toolkit.testing.emulator.common import DialectRoute, EmulatorCall, iso_z
from doc_processing_toolkit.testing.emulator.files_store import StoredFile

__all__ = ["DIALECT", "GOOGLE_FILES_ROUTES", "file_resource", "handle_file"]

DIALECT = "google_files"
_HOST = "https://generativelanguage.googleapis.com"


def file_resource(stored: StoredFile, state: str, version: str = "v1beta") -> dict[str, Any]:
    """The File JSON the service returns for ``stored`` in ``state``."""
    body: dict[str, Any] = {
        "name": stored.name,
        "mimeType": stored.mime_type,
        "sizeBytes": str(stored.size),
        "createTime": iso_z(stored.created_at),
        "updateTime": iso_z(stored.created_at),
        "expirationTime": iso_z(stored.expires_at),
        "sha256Hash": base64.b64encode(bytes.fromhex(stored.sha256)).decode("ascii"),
        "uri": f"{_HOST}/{version}/{stored.name}",
        "state": state,
        "source": "UPLOADED",
    }
    if stored.display_name:
        body["displayName"] = stored.display_name
    if state == "FAILED":
        body["error"] = {"code": 400, "message": "the emulator was scripted to fail this file"}
    return body


def _not_found(name: str) -> Response:
    return JSONResponse(
        {"error": {"code": 404, "message": f"File {name} not found", "status": "NOT_FOUND"}},
        status_code=404,
    )


async def handle_upload(call: EmulatorCall) -> Response:
    """The resumable upload: start, then the chunks."""
    request = call.request
    command = request.headers.get("x-goog-upload-command", "").lower()
    version = str(call.path_params.get("version", "v1beta"))
    store = call.state.files
    if "start" in command:
        raw_meta = call.body.get("file")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        mime = (
            meta.get("mimeType")
            or meta.get("mime_type")
            or request.headers.get("x-goog-upload-header-content-type", "application/octet-stream")
        )
        display = meta.get("displayName") or meta.get("display_name")
        upload_id = store.begin(str(mime), display if isinstance(display, str) else None)
        url = f"{request.base_url}upload/{version}/files?upload_id={upload_id}"
        return Response(b"", headers={"x-goog-upload-url": url, "x-goog-upload-status": "active"})
    upload_id = request.query_params.get("upload_id", "")
    final = "finalize" in command
    stored = store.append(upload_id, await request.body(), final=final)
    if stored is None:
        return _not_found(upload_id)
    if not final:
        return Response(b"", headers={"x-goog-upload-status": "active"})
    return JSONResponse(
        {"file": file_resource(stored, "PROCESSING" if stored.state != "ACTIVE" else "ACTIVE")},
        headers={"x-goog-upload-status": "final"},
    )


async def handle_file(call: EmulatorCall) -> Response:
    """GET (a state check) or DELETE one file."""
    name = f"files/{call.path_params.get('file_id', '')}"
    version = str(call.path_params.get("version", "v1beta"))
    store = call.state.files
    stored = store.get(name)
    if stored is None or stored.deleted:
        return _not_found(name)
    if call.request.method == "DELETE":
        store.delete(name)
        return JSONResponse({})
    return JSONResponse(file_resource(stored, stored.next_state(), version))


def decode_sha256(value: str) -> str | None:
    """The hex digest of a File's base64 ``sha256Hash`` (None when it is not base64)."""
    try:
        return base64.b64decode(value).hex()
    except (binascii.Error, ValueError):
        return None


GOOGLE_FILES_ROUTES: dict[str, DialectRoute] = {
    "/upload/{version}/files": DialectRoute(DIALECT, handle_upload),
}
"""The upload route (listed in `DIALECT_ROUTES`). ``/{version}/files/{id}``
is shared with Anthropic and OpenAI: `files_wire` dispatches it to
`handle_file`."""
