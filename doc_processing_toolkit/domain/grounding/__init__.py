"""Grounding: where an answer comes from. `Citation` and its pure helpers (page mapping
to original pages, plain data, text for another provider); each provider's mapping
lives in its adapter."""

from doc_processing_toolkit.domain.grounding.citations import (
    CITATION_KINDS,
    Citation,
    CitationKind,
    citation_from_dict,
    citation_to_dict,
    citations_as_text,
    to_original_pages,
)

__all__ = [
    "CITATION_KINDS",
    "Citation",
    "CitationKind",
    "citation_from_dict",
    "citation_to_dict",
    "citations_as_text",
    "to_original_pages",
]
