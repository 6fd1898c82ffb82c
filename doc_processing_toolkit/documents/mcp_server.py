"""The documents MCP server: the documents under one directory, for any MCP client.

::

    python -m doc_processing_toolkit.documents.mcp_server --root ./contracts
    dpt docs serve --root ./contracts

Tools (docs/guide/documents-mcp-server.md):

- ``list_documents()``: every visible file under the root: path, kind, media type, size.
- ``document_info(path)``: kind, type, size; for a PDF its pages and its scanned pages.
- ``extract_text(path, pages)``: the text of the selected pages (``"1-3,5"``; empty for all)
  under ``--- page N ---`` headers that carry the ORIGINAL page numbers.
- ``convert_to_markdown(path)``: the document as Markdown (MarkItDown for Office and HTML).
- ``search(query)``: case-insensitive matches: path, page and a snippet.

Every path is relative to ``--root``; one that leads outside it (``..``, an absolute path,
a symlink to elsewhere) or to a hidden file is refused with a tool error naming it. Page
texts are extracted once per document content. Served over stdio; built on the mcp SDK
(the ``mcp`` extra), reading with the ``documents`` extra and, when installed, OCR from the
``ocr`` extra. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from doc_processing_toolkit.adapters.documents import default_converter, default_ocr
from doc_processing_toolkit.adapters.documents.library import DEFAULT_MAX_BYTES, DocumentLibrary
from doc_processing_toolkit.adapters.mcp._sdk import MCP_EXTRA_HINT
from doc_processing_toolkit.domain.errors import DocProcessingToolkitError, MissingDependencyError

__all__ = ["add_arguments", "build_server", "main", "serve"]

_T = TypeVar("_T")

INSTRUCTIONS = (
    "Documents under one directory. Paths are relative to it. Use list_documents to see "
    "them, document_info for a PDF's page count and scanned pages, extract_text(path, "
    "pages) for page texts (pages like '1-3,5'; page headers give the original page "
    "numbers), convert_to_markdown for Office files and HTML, search to find a phrase."
)


def _server_class() -> Any:
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        raise MissingDependencyError(
            f"the documents MCP server needs the mcp SDK: {MCP_EXTRA_HINT}"
        ) from exc
    return MCPServer


def _tool_error() -> Any:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError


def build_server(
    root: str | Path,
    *,
    name: str = "documents",
    max_bytes: int = DEFAULT_MAX_BYTES,
    ocr: bool = True,
) -> Any:
    """The server (an ``mcp`` SDK ``MCPServer``) over the documents under ``root``.

    Args:
        root: The directory served.
        name: The server's name as clients see it.
        max_bytes: The largest file read.
        ocr: Read scanned pages with the ``ocr`` extra when it is installed.
    """
    server_class = _server_class()
    tool_error = _tool_error()
    library = DocumentLibrary(
        root,
        converter=default_converter(),
        ocr=default_ocr() if ocr else None,
        max_bytes=max_bytes,
    )
    server = server_class(name, instructions=INSTRUCTIONS, log_level="WARNING")

    def refusing(fn: Callable[..., _T]) -> Callable[..., _T]:
        """The toolkit's errors become tool errors whose text the client reads."""

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> _T:
            try:
                return fn(*args, **kwargs)
            except DocProcessingToolkitError as exc:
                raise tool_error(str(exc)) from exc

        return wrapper

    def list_documents() -> dict[str, Any]:
        """Every document under the served directory: path (relative), kind (pdf, office,
        html, text, image, other), media type and size in bytes."""
        return {"documents": library.list_documents()}

    def document_info(path: str) -> dict[str, Any]:
        """A document's kind, media type and size; for a PDF also its page count, the
        pages with a text layer and the scanned (image-only) pages."""
        return library.info(path)

    def extract_text(path: str, pages: str = "") -> str:
        """The text of a document. For a PDF, the pages selected by `pages` (1-based,
        e.g. "1-3,5"; empty for every page), each under a "--- page N ---" header with its
        original page number; scanned pages are read by OCR when it is installed."""
        return library.extract_text(path, pages)

    def convert_to_markdown(path: str) -> str:
        """The whole document as Markdown: Word, PowerPoint, Excel and HTML converted with
        MarkItDown (what could not be converted, such as images, is noted at the end), a
        PDF as its page texts under page headers, a text file as it is."""
        return library.convert_to_markdown(path)

    def search(query: str, max_results: int = 50) -> dict[str, Any]:
        """Case-insensitive search for `query` in every document's text: each match's
        path, page (null for a document without pages) and a snippet around it."""
        return library.search(query, max_results=max(1, min(max_results, 500)))

    for tool in (list_documents, document_info, extract_text, convert_to_markdown, search):
        server.add_tool(refusing(tool))
    return server


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The server's command-line options (shared with ``dpt docs serve``)."""
    parser.add_argument("--root", required=True, help="the directory whose documents to serve")
    parser.add_argument(
        "--name", default="documents", help="the server's name (default: documents)"
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        help=f"the largest file read, in bytes (default: {DEFAULT_MAX_BYTES:,})",
    )
    parser.add_argument(
        "--no-ocr", action="store_true", help="never OCR scanned pages, even with the ocr extra"
    )


def serve(args: argparse.Namespace) -> int:
    """Serve over stdio until the client closes the connection."""
    server = build_server(args.root, name=args.name, max_bytes=args.max_bytes, ocr=not args.no_ocr)
    server.run("stdio")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m doc_processing_toolkit.documents.mcp_server --root DIR``."""
    parser = argparse.ArgumentParser(
        prog="python -m doc_processing_toolkit.documents.mcp_server",
        description="Serve the documents under a directory over MCP (stdio).",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    if not Path(args.root).expanduser().is_dir():
        parser.error(f"--root {args.root}: not a directory")
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
