"""Documents as values with pages: what a document is (`DocumentInfo`), what a converter
made of it (`ConvertedDocument`), page selections (`select_pages`), the page map every
page number crosses (`PageMap`, `plan_chunks`), registry limits (`find_over_limits`),
the merge rules of structured chunk outputs (`merge_chunk_outputs`) and the arithmetic of
estimates (`Estimate`). Pure: no bytes are read here."""

from doc_processing_toolkit.domain.documents.estimate import Estimate
from doc_processing_toolkit.domain.documents.info import (
    ConvertedDocument,
    DocumentInfo,
    DocumentKind,
)
from doc_processing_toolkit.domain.documents.limits import OverLimit, check_limits, find_over_limits
from doc_processing_toolkit.domain.documents.merge import (
    ChunkOutput,
    Conflict,
    ConflictValue,
    MergeResult,
    merge_chunk_outputs,
)
from doc_processing_toolkit.domain.documents.page_map import PageMap, plan_chunks
from doc_processing_toolkit.domain.documents.pages import PageSpec, describe_pages, select_pages

__all__ = [
    "ChunkOutput",
    "Conflict",
    "ConflictValue",
    "ConvertedDocument",
    "DocumentInfo",
    "DocumentKind",
    "Estimate",
    "MergeResult",
    "OverLimit",
    "PageMap",
    "PageSpec",
    "check_limits",
    "describe_pages",
    "find_over_limits",
    "merge_chunk_outputs",
    "plan_chunks",
    "select_pages",
]
