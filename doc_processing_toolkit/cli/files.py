"""``dpt run --file``: refuse, before any request, a path that is missing or whose type the
toolkit does not know (a model's "does not take document input" would blame the model);
``--pages`` makes each PDF given a ``Document(path, pages=...)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.media.detect import (
    OCTET_STREAM,
    guess_from_name,
    sniff_media_type,
)
from doc_processing_toolkit.application.media.validation import OFFICE_TYPES
from doc_processing_toolkit.domain.errors import InvalidInputError, MissingFileError
from doc_processing_toolkit.domain.media import media_key

__all__ = ["check_input_file", "input_files"]

_KNOWN_KEYS = ("image", "pdf", "audio", "video", "text")
_KNOWN_DOCUMENTS = {*OFFICE_TYPES, "application/json", "application/xml", "application/rtf"}


def check_input_file(item: str) -> str | None:
    """Raise for a local ``--file`` that does not exist or has an unknown type (URLs pass:
    the provider fetches them). Returns the file's media type (None for a URL).

    Raises:
        MissingFileError: the path does not exist or is not a file.
        InvalidInputError: neither its content nor its extension names a type the
            toolkit sends (PDF, image, text, audio, video, Office, JSON, XML).
    """
    if "://" in item:
        return None
    path = Path(item).expanduser()
    if not path.is_file():
        raise MissingFileError(f"file not found: {item}")
    with path.open("rb") as handle:
        head = handle.read(8192)
    sniffed = sniff_media_type(head)
    by_name = guess_from_name(path.name)
    # The rule of MediaTransformer.detect_media_type: the content's signature, unless it
    # is only "text" and the extension names a type.
    mime = sniffed if sniffed not in (None, "text/plain") else (by_name or sniffed)
    if (
        mime is None
        or mime == OCTET_STREAM
        or (media_key(mime) not in _KNOWN_KEYS and mime not in _KNOWN_DOCUMENTS)
    ):
        named = f" ({mime}, from its extension)" if mime and mime != OCTET_STREAM else ""
        raise InvalidInputError(
            f"{item}: unknown file type{named}; --file takes PDF, images, text, audio, "
            "video, Office documents, JSON and XML"
        )
    return mime


def input_files(items: list[str] | None, pages: str | None) -> list[Any] | None:
    """The ``--file`` values as ``run(files=...)`` takes them, each checked
    (`check_input_file`); with ``pages`` (``"1-20,25"``), every local PDF among them becomes
    ``Document(path, pages=pages)``, its selection checked against its page count here,
    before any request. Other files (and URLs, which are never downloaded) are sent whole.

    Raises:
        MissingFileError, InvalidInputError: see `check_input_file`.
        InvalidInputError: ``pages`` without a local PDF among the files.
        DocumentError: a bad selection, or a page beyond the end of a PDF.
    """
    types = [check_input_file(item) for item in items or []]
    if pages is None:
        return items
    from doc_processing_toolkit.documents import Document

    files: list[Any] = []
    for item, mime in zip(items or [], types, strict=True):
        if mime != "application/pdf":
            files.append(item)
            continue
        document = Document(Path(item).expanduser(), pages=pages)
        document.selection(document.info().pages)  # a page beyond the end fails here
        files.append(document)
    if not any(isinstance(f, Document) for f in files):
        raise InvalidInputError(
            f"--pages {pages!r} applies to the PDF files given with --file, and there is none"
        )
    return files
