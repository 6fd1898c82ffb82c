"""RemoteMediaFiles: a model client that can check and re-upload Files API media.

A restored session may hold a provider file URI (a Gemini ``file_data`` URI, which the
Files API forgets after 48 hours) that is no longer there. Before the first turn after a
restore the session asks the Agent's client, when it implements this port, whether each
such URI is still alive, and re-uploads the dead ones from the bytes the envelope or the
media store kept.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["RemoteMediaFiles"]


@runtime_checkable
class RemoteMediaFiles(Protocol):
    """Liveness check and re-upload for the provider's Files API."""

    async def media_file_alive(self, uri: str) -> bool:
        """Whether the file behind ``uri`` can still be referenced by a request.

        False for a file the Files API no longer holds (or holds as FAILED); a check that
        could not be made (any other error) raises.
        """
        ...

    async def reupload_media(self, data: bytes, mime_type: str) -> str:
        """Upload ``data`` again (waiting until it can be used) and return its new URI."""
        ...
