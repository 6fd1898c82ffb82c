"""Grounding: evidence for extracted fields (`Evidence`, the schema that asks for each
leaf's quote and page, the matching rules). Pure: the page texts are handed in."""

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
    "DEFAULT_EVIDENCE_THRESHOLD",
    "MAX_QUOTE_CHARS",
    "Claim",
    "DocumentText",
    "Evidence",
    "EvidenceMethod",
    "check_claims",
    "evidence_model",
    "evidence_of",
    "evidence_schema",
    "merge_evidence",
    "normalise_text",
    "split_evidence",
    "value_errors",
    "value_in_quote",
]
