"""The documents of a run that ask for citations, and their page maps, in the run's
settings (``application/run/loop/citations.py`` places each citation with them)."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from doc_processing_toolkit.application.documents.planner import PreparedFiles
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.application.run.policy.settings import RunSettings

__all__ = ["with_documents"]


def with_documents(
    settings: RunSettings, prepared: PreparedFiles, files: Any, logger: logging.Logger
) -> RunSettings:
    """``settings`` for a run with these ``files``: the PDFs' page maps by document name,
    and the documents that ask for citations (all under ``Agent(citations=True)``, else
    those built with ``Document(citations=True)``). Where the provider cannot cite
    documents and the run sends one that asks, one WARNING says so."""
    entries = files if isinstance(files, list | tuple) else []
    named = frozenset(f.name for f in entries if isinstance(f, DocumentSource) and f.citations)
    cited: bool | frozenset[str] = True if settings.citations else (named or False)
    has_documents = any(isinstance(f, DocumentSource) for f in entries) or bool(prepared.page_maps)
    if (named or (settings.citations and has_documents)) and not settings.cites_documents:
        logger.warning(
            "%s cannot cite the documents of a request: citations=True has no effect on "
            "them (web and file-search citations still fill AgentResult.citations)",
            settings.provider,
        )
    maps = {page_map.document: page_map for page_map in prepared.page_maps.values()}
    if not maps and cited == settings.cited_documents:
        return settings
    return dataclasses.replace(settings, cited_documents=cited, page_maps=maps)
