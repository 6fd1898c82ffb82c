"""Documents as values with pages: what a document is (`DocumentInfo`), what a converter
made of it (`ConvertedDocument`), and (added with issue 35) page selections, limits, chunk
plans, page maps and merge rules. Pure: no bytes are read here."""

from doc_processing_toolkit.domain.documents.info import (
    ConvertedDocument,
    DocumentInfo,
    DocumentKind,
)

__all__ = ["ConvertedDocument", "DocumentInfo", "DocumentKind"]
