"""``dpt docs serve``: the documents MCP server over a directory, on stdio.

::

    dpt docs serve --root ./contracts            # for an MCP client's server command
    dpt docs serve --root ./contracts --no-ocr   # never OCR scanned pages

The same server as ``python -m doc_processing_toolkit.documents.mcp_server`` (its tools and
path rules: docs/guide/documents-mcp-server.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import MissingFileError

__all__ = ["add_commands"]


def _cmd_serve(args: argparse.Namespace) -> int:
    from doc_processing_toolkit.documents.mcp_server import serve

    if not Path(args.root).expanduser().is_dir():
        raise MissingFileError(f"--root {args.root}: not a directory")
    return serve(args)


def add_commands(sub: Any) -> None:
    """Adds ``dpt docs serve`` to the ``dpt`` parser's subcommands."""
    from doc_processing_toolkit.documents.mcp_server import add_arguments

    docs = sub.add_parser("docs", help="documents: serve a directory over MCP")
    docs_sub = docs.add_subparsers(dest="docs_command", required=True)
    serve = docs_sub.add_parser(
        "serve",
        help="serve the documents under --root as an MCP server on stdio",
        description="Serve the documents under a directory over MCP (stdio): list_documents, "
        "document_info, extract_text, convert_to_markdown and search. Paths outside --root "
        "(symlinks included) are refused.",
    )
    add_arguments(serve)
    serve.set_defaults(func=_cmd_serve)
