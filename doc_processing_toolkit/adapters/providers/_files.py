"""What the Files API code of the Stainless SDKs (anthropic, openai) shares.

`files_call` awaits one Files API call and translates the SDK's exceptions into
the toolkit's (``raise ... from exc``), with the endpoint redacted from the text.
`sdk_file` gives the ``(filename, content, mime)`` tuple both SDKs upload: the bytes, or
for a part backed by a local file an open binary file the SDK's multipart body streams
from disk (httpx reads it in 64 KiB chunks; it is never read whole).
"""

from __future__ import annotations

import mimetypes
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import IO, Any, Protocol

from doc_processing_toolkit.adapters.providers._source import open_part
from doc_processing_toolkit.domain.errors import ConfigurationError, ProviderError
from doc_processing_toolkit.domain.messages import MediaPart

__all__ = ["FilesErrorMapper", "files_call", "sdk_file"]


class FilesErrorMapper(Protocol):
    """The error plumbing of an `SdkModelClient`."""

    provider: str

    def _redact(self, text: str) -> str: ...

    def _api_status_error(
        self, exc: Any, text: str, *, error_type: str | None, before_stream: bool = True
    ) -> ProviderError: ...

    def _request_failed(self, exc: BaseException, *, timeout: bool) -> ProviderError: ...


async def files_call(owner: FilesErrorMapper, sdk: Any, call: Awaitable[Any], what: str) -> Any:
    """The result of ``call`` (a Files API call described by ``what``).

    Raises:
        ProviderError: the SDK's failure, translated.
    """
    try:
        return await call
    except sdk.APIStatusError as exc:
        detail = getattr(exc, "message", None) or str(exc)
        text = owner._redact(f"{owner.provider}: {what} failed: HTTP {exc.status_code}: {detail}")
        raise owner._api_status_error(
            exc, text, error_type=getattr(exc, "type", None), before_stream=True
        ) from exc
    except sdk.APITimeoutError as exc:
        raise owner._request_failed(exc, timeout=True) from exc
    except sdk.APIConnectionError as exc:
        raise owner._request_failed(exc, timeout=False) from exc


@contextmanager
def sdk_file(part: MediaPart) -> Iterator[tuple[str, bytes | IO[bytes], str]]:
    """``(filename, content, mime)`` for an SDK upload (a name made up when there is none);
    ``content`` is the bytes, or the part's file open for reading (closed on exit).

    Raises:
        ConfigurationError: a part with neither bytes nor a file (a URL).
        MissingFileError: the part's file cannot be opened.
    """
    if part.data is None and part.path is None:
        raise ConfigurationError("tool_files: only files with bytes can be uploaded (not URLs)")
    name = part.filename or f"file{mimetypes.guess_extension(part.mime_type) or ''}"
    if part.data is not None:
        yield name, part.data, part.mime_type
        return
    with open_part(part) as handle:
        yield name, handle, part.mime_type
