"""Grounding: where an answer comes from, and evidence for what was extracted.

- `Citation` and its pure helpers (page mapping to original pages, plain data, text for
  another provider); each provider's mapping lives in its adapter.
- `Evidence`, the schema that asks for each leaf's quote and page, and the matching rules.

Pure: the page texts are handed in."""

from doc_processing_toolkit.domain.grounding.citations import (
    CITATION_KINDS,
    Citation,
    CitationKind,
    citation_from_dict,
    citation_to_dict,
    citations_as_text,
    to_original_pages,
)
from doc_processing_toolkit.domain.grounding.evidence import (
    DEFAULT_EVIDENCE_THRESHOLD,
    Claim,
    Evidence,
    EvidenceMethod,
    evidence_model,
    evidence_of,
    evidence_schema,
    split_evidence,
)
from doc_processing_toolkit.domain.grounding.matching import (
    MAX_QUOTE_CHARS,
    DocumentText,
    check_claims,
    normalise_text,
    value_errors,
    value_in_quote,
)
from doc_processing_toolkit.domain.grounding.merge import merge_evidence

__all__ = [
    "CITATION_KINDS",
    "DEFAULT_EVIDENCE_THRESHOLD",
    "MAX_QUOTE_CHARS",
    "Citation",
    "CitationKind",
    "Claim",
    "DocumentText",
    "Evidence",
    "EvidenceMethod",
    "check_claims",
    "citation_from_dict",
    "citation_to_dict",
    "citations_as_text",
    "evidence_model",
    "evidence_of",
    "evidence_schema",
    "merge_evidence",
    "normalise_text",
    "split_evidence",
    "to_original_pages",
    "value_errors",
    "value_in_quote",
]
