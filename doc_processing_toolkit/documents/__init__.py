"""Documents as values with pages: `Document`, `DocumentInfo`, `DocumentResult`, `Estimate`.

A `Document` goes everywhere ``files=`` does (``run``, ``run_sync``, ``stream``, session
turns); only its selected pages are sent, and every page number reported afterwards is the
original one. ``Agent.run_document`` reads a long document in page chunks and merges the
answers (`DocumentResult`); ``Agent.estimate`` says what a run would send and cost before
sending it (`Estimate`). See docs/guide/documents.md. The documents MCP server is
``doc_processing_toolkit.documents.mcp_server`` (docs/guide/documents-mcp-server.md).

Example::

    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.documents import Document

    contract = Document("contract.pdf", pages="41-60")
    print(contract.info().pages)            # the whole document's page count
    agent = Agent("claude-sonnet-5-5")
    agent.run_sync("Summarise these pages.", files=[contract])   # a 20-page PDF is sent
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from doc_processing_toolkit.application.documents.result import ChunkResult, DocumentResult
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.domain.documents import (
    Conflict,
    ConflictValue,
    ConvertedDocument,
    DocumentInfo,
    Estimate,
    OverLimit,
    PageMap,
)

if TYPE_CHECKING:
    from doc_processing_toolkit.ports.document_converter import PdfPages

__all__ = [
    "ChunkResult",
    "Conflict",
    "ConflictValue",
    "ConvertedDocument",
    "Document",
    "DocumentInfo",
    "DocumentResult",
    "Estimate",
    "OverLimit",
    "PageMap",
]


class Document(DocumentSource):
    """A document to send: a path, raw bytes or an http(s) URL, optionally cut to pages.

    Args:
        source (str | os.PathLike | bytes): The document.
        pages (str | range | list[int] | None): The 1-based, inclusive pages to send
            (``"1-20,25"``, ``range(41, 61)`` for pages 41 to 60, ``[1, 3]``); None sends
            every page. PDFs only. Default: None.
        name (str | None): The name errors and reports use. Default: the file name, or
            ``"<bytes>"``.
        mime_type (str | None): The media type. Default: from the content, then the name.
        citations (bool): Ask the provider to cite this document (Anthropic: its document
            block gets ``citations: {"enabled": true}``; a provider that cannot cite
            documents logs one WARNING). Default: False.

    Raises:
        TypeError: ``source`` is not a path, bytes or URL.
        DocumentError: ``pages`` is not a page selection (empty, page 0, a range that
            runs backwards), naming the document. A page beyond the end is found when
            the document is read, before anything is sent.
    """

    __slots__ = ()

    def info(self, *, pdf_pages: PdfPages | None = None) -> DocumentInfo:
        """The document's facts, read from its bytes without any request.

        Args:
            pdf_pages (PdfPages | None): The PDF adapter to read with. Default: the
                composition root's (pypdf, the ``documents`` extra).

        Returns:
            DocumentInfo: kind, mime_type, bytes, and for a PDF its page count, the pages
                with a text layer and the image-only (scanned) pages.

        Raises:
            FileNotFoundError: The path does not exist.
            DocumentError: A URL (not downloaded), an empty file, or a corrupt or
                encrypted PDF, naming the document.
            MissingDependencyError: pypdf is not installed (the ``documents`` extra).
        """
        from doc_processing_toolkit.application.documents.planner import DocumentPlanner

        if pdf_pages is None:
            from doc_processing_toolkit.application.container import default_container

            pdf_pages = default_container().pdf_pages()
        planner = DocumentPlanner(model="", provider="", row=None, pdf_pages=pdf_pages)
        return planner.info(self)
