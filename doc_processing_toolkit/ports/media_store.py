"""MediaStore: where a session's externalised media bytes live."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["MediaStore"]


@runtime_checkable
class MediaStore(Protocol):
    """Keeps media bytes outside a session envelope, behind an opaque reference.

    ``put`` is called at save time with the SHA-256 hex digest of ``data``; a store may
    de-duplicate by returning the reference it already holds for that digest. The
    returned reference is written into the envelope as ``$media:<ref>``.

    ``get`` is called at restore time with a reference read back from an envelope. That
    reference is data, never a path: a store accepts only references its own ``put``
    returned (the bundled directory store accepts ``<sha256>.<ext>`` names and nothing
    else). ``get`` may raise anything (KeyError, FileNotFoundError, ...); the session
    reports a missing blob instead of failing the restore.
    """

    def put(self, sha256: str, mime_type: str, data: bytes) -> str:
        """Store ``data`` (whose digest is ``sha256``) and return its reference."""
        ...

    def get(self, ref: str) -> bytes:
        """The bytes behind ``ref``; raises when the store does not hold them."""
        ...
