"""Restored Files API URIs that expired: re-uploaded from the kept bytes, or placeholders.

A Gemini ``file_data`` URI lives 48 hours. A restored session remembers, from the
envelope's media table (bytes inline up to ``media_max_inline_bytes``, or in the media
store), what each upload held. Before the first turn after a restore the session asks the
Agent's client (when it implements
`RemoteMediaFiles`) whether each URI in
the history is still alive. A dead one is re-uploaded from the kept bytes (media report
reason ``expired_reuploaded``) or, with nothing to re-upload, becomes a text placeholder
(``expired_no_bytes``). Everything is built aside; nothing is assigned when a check or an
upload fails.
"""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.session.media_policy import iter_slots, replace_slot
from doc_processing_toolkit.ports.native_media import NativeMediaShapes
from doc_processing_toolkit.ports.remote_media import RemoteMediaFiles

__all__ = ["UploadRefresh", "refresh_expired_uploads"]

_URI_KINDS = ("google_file_uri",)


@dataclass
class UploadRefresh:
    """What a refresh changed (``changed`` False: assign nothing)."""

    messages: list[dict[str, Any]]
    table: dict[str, dict[str, Any]]
    report: list[dict[str, Any]] = field(default_factory=list)
    changed: bool = False


def _swap(value: Any, old: str, new: str) -> Any:
    """``value`` with every string equal to ``old`` replaced by ``new`` (a copy)."""
    if isinstance(value, dict):
        return {k: _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, old, new) for v in value]
    return new if value == old else value


async def refresh_expired_uploads(
    messages: list[dict[str, Any]],
    kept: dict[str, tuple[str, str]],
    table: dict[str, dict[str, Any]],
    shapes: NativeMediaShapes,
    files: RemoteMediaFiles,
) -> UploadRefresh:
    """Check every Files API URI in ``messages``; re-upload or replace the dead ones.

    Args:
        messages: The provider-native history (not modified).
        kept: URI -> (mime type, base64 bytes) the envelope or the media store kept.
        table: The envelope's media table (not modified; the new one is returned).
        shapes: The native media shapes.
        files: The Agent's client, as a Files API.

    Raises:
        Whatever the client raises for a check or an upload that could not be made.
    """
    out = copy.deepcopy(messages)
    refresh = UploadRefresh(out, copy.deepcopy(table))
    verdicts: dict[str, str | None] = {}  # uri -> its new URI (None: no bytes)
    for slot in list(iter_slots(out, shapes)):
        uri = slot.ref
        if slot.kind not in _URI_KINDS or not isinstance(uri, str):
            continue
        if uri not in verdicts:
            if await files.media_file_alive(uri):
                verdicts[uri] = uri
                continue
            mime, data = kept.get(uri, (slot.mime_type or "application/octet-stream", ""))
            new = await files.reupload_media(base64.b64decode(data), mime) if data else None
            verdicts[uri] = new
            entry: dict[str, Any] = {
                "reason": "expired_reuploaded" if new else "expired_no_bytes",
                "uri": uri,
                "message_index": slot.message_index,
                "mime_type": mime,
            }
            if new:
                entry.update(new_uri=new, size=len(base64.b64decode(data)))
                record = refresh.table.pop(uri, {"kind": "google_upload", "mime_type": mime})
                moved = {k: new if k in ("uri", "file_uri") else v for k, v in record.items()}
                refresh.table[new] = moved
            refresh.report.append(entry)
        new = verdicts[uri]
        if new == uri:
            continue
        if new:
            replace_slot(out, slot, _swap(slot.part, uri, new))
        else:
            replace_slot(out, slot, shapes.placeholder(slot, "expired from the Files API"))
        refresh.changed = True
    return refresh
