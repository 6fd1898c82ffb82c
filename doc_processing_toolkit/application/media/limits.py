"""How large one input file may be, from the model's registry row.

The registry's byte facts (``max_request_bytes``, ``max_inline_bytes``,
``max_upload_bytes``; registry/SOURCES.md) decide; nothing here is a number:

* a file in ``files=`` travels inside the request, so it may be at most
  ``max_request_bytes`` — except where the provider uploads media too large to send inline
  (a row with ``max_inline_bytes``: Gemini), where the Files API's ``max_upload_bytes``
  bounds it. With neither fact, ``max_upload_bytes`` still bounds it (no route takes a
  larger file);
* a file in ``tool_files=`` is uploaded: ``max_upload_bytes``.

A row with no fact (or no row) gives no limit: the file is read and the provider decides.

`prompt_stream_over` says which files of ``files=`` are left on disk and streamed by the
uploader instead of read: those over ``max_inline_bytes`` where the provider uploads them.
"""

from __future__ import annotations

from doc_processing_toolkit.application.media.inputs import ByteLimit
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["prompt_file_limit", "prompt_stream_over", "upload_file_limit"]


def upload_file_limit(row: ModelInfo | None, provider: str) -> ByteLimit | None:
    """The limit of one file uploaded to the provider's Files API (``tool_files``)."""
    if row is None or row.max_upload_bytes is None:
        return None
    return ByteLimit(row.max_upload_bytes, f"the {provider} Files API's limit for one file")


def prompt_file_limit(row: ModelInfo | None, provider: str) -> ByteLimit | None:
    """The limit of one file in ``files=`` for ``row``'s model (see the module docstring)."""
    if row is None:
        return None
    if row.max_inline_bytes is not None and row.max_upload_bytes is not None:
        return ByteLimit(
            row.max_upload_bytes,
            f"the {provider} Files API's limit for one file ({row.model} uploads media over "
            f"{row.max_inline_bytes:,} bytes)",
        )
    if row.max_request_bytes is not None:
        return ByteLimit(row.max_request_bytes, f"the {provider} request size limit ({row.model})")
    return upload_file_limit(row, provider)


def prompt_stream_over(row: ModelInfo | None) -> int | None:
    """The size over which a path in ``files=`` is streamed from disk rather than read:
    ``max_inline_bytes`` where the provider uploads larger media (None: every file is
    read, it travels inside the request)."""
    if row is None or row.max_inline_bytes is None or row.max_upload_bytes is None:
        return None
    return row.max_inline_bytes
