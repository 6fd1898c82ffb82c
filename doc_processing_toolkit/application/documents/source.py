"""DocumentSource: a document as the user names it (path, bytes or URL, a page selection).

The public ``doc_processing_toolkit.documents.Document`` is this value plus ``info()``
read through the default PDF adapter. The page selection's syntax is checked when the
value is built (``pages="30-10"`` fails at once); its range against the page count when
the document is read, before anything is sent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.media.detect import is_web_url
from doc_processing_toolkit.domain.documents.pages import PageSpec, describe_pages, select_pages
from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError

__all__ = ["DocumentSource"]


def _default_name(source: Any) -> str:
    if isinstance(source, bytes | bytearray):
        return "<bytes>"
    text = str(os.fspath(source))
    if is_web_url(text):
        tail = text.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        return tail or text
    return Path(text).name or text


class DocumentSource:
    """A document to send: a path, raw bytes or an http(s) URL, optionally cut to pages.

    Args:
        source (str | os.PathLike | bytes): The document.
        pages (str | range | list[int] | None): The 1-based, inclusive pages to send
            (``"1-20,25"``, ``range(41, 61)``, ``[1, 3]``); None sends every page. PDFs
            only. Default: None.
        name (str | None): The name errors and reports use. Default: the file name, or
            ``"<bytes>"``.
        mime_type (str | None): The media type; default: from the content, then the name.
        citations (bool): Ask the provider to cite this document (Anthropic: its document
            block gets ``citations: {"enabled": true}``); see docs/guide/grounding.md.
            Default: False.

    Raises:
        TypeError: ``source`` is not a path, bytes or URL, or ``name`` / ``mime_type``
            are not strings.
        DocumentError: ``pages`` cannot be a page selection (empty, page 0, a range
            that runs backwards), naming the document.
    """

    __slots__ = ("_selection", "citations", "mime_type", "name", "pages", "source")

    def __init__(
        self,
        source: str | os.PathLike[str] | bytes,
        *,
        pages: PageSpec | None = None,
        name: str | None = None,
        mime_type: str | None = None,
        citations: bool = False,
    ) -> None:
        if not isinstance(source, str | bytes | bytearray | os.PathLike):
            raise InvalidArgumentTypeError(
                f"Document source must be a path, bytes or a URL, got {type(source).__name__}"
            )
        for label, value in (("name", name), ("mime_type", mime_type)):
            if value is not None and not isinstance(value, str):
                raise InvalidArgumentTypeError(f"Document {label} must be a string or None")
        self.source: str | os.PathLike[str] | bytes = (
            bytes(source) if isinstance(source, bytearray) else source
        )
        self.name: str = name or _default_name(source)
        self.mime_type: str | None = mime_type
        self.pages: PageSpec | None = pages
        self.citations: bool = bool(citations)
        self._selection: tuple[int, ...] | None = (
            None if pages is None else select_pages(pages, document=self.name, page_count=None)
        )

    @property
    def is_url(self) -> bool:
        """Whether the source is an http(s) URL (sent as a URL; never read here)."""
        return isinstance(self.source, str) and is_web_url(self.source)

    def selection(self, page_count: int | None) -> tuple[int, ...] | None:
        """The selected pages checked against ``page_count`` (None: every page).

        Raises:
            DocumentError: a selected page beyond ``page_count``.
        """
        if self.pages is None:
            return None
        return select_pages(self.pages, document=self.name, page_count=page_count)

    def to_payload(self) -> dict[str, Any]:
        """This document as JSON data a fleet job stores (``from_payload`` reads it back).

        Raises:
            TypeError: the source is bytes (a queued job names a file its workers read).
        """
        if isinstance(self.source, bytes):
            raise InvalidArgumentTypeError(
                f"document {self.name!r}: a fleet job's Document must be a path or a URL its "
                "workers can read, not bytes"
            )
        return {
            "document": os.fspath(self.source),
            "pages": None if self._selection is None else describe_pages(self._selection),
            "name": self.name,
            "mime_type": self.mime_type,
            **({"citations": True} if self.citations else {}),
        }

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> DocumentSource:
        """The document `to_payload` wrote."""
        return cls(
            data["document"], pages=data.get("pages"), name=data.get("name"),
            mime_type=data.get("mime_type"), citations=bool(data.get("citations")),
        )  # fmt: skip

    @staticmethod
    def is_payload(value: Any) -> bool:
        """Whether ``value`` is what `to_payload` writes."""
        return isinstance(value, dict) and isinstance(value.get("document"), str)

    def with_pages(self, pages: PageSpec | None) -> DocumentSource:
        """This document with another page selection (same source, name and type)."""
        return type(self)(
            self.source, pages=pages, name=self.name, mime_type=self.mime_type,
            citations=self.citations,
        )  # fmt: skip

    def __repr__(self) -> str:
        if isinstance(self.source, bytes):
            source = f"<{len(self.source)} bytes>"
        elif self.is_url:  # a URL's query string may hold a credential: never shown
            source = f"<url {self.name}>"
        else:
            source = repr(os.fspath(self.source))
        pages = "" if self._selection is None else f", pages={describe_pages(self._selection)!r}"
        return f"{type(self).__name__}({source}{pages}, name={self.name!r})"
