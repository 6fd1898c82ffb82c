"""DocumentPlanner: what a run's documents become before anything is sent.

One per Agent, handed the PDF adapter (`PdfPages`) by the composition root. For each
run it turns ``files=`` into what the media room sends:

* a `DocumentSource` (the public ``Document``) is read, its page selection checked against
  its page count, and cut to the selected pages through ``PdfPages.cut`` (only those pages
  are sent); the `PageMap` of the cut is kept, so every page number reported later is the
  original one. A path with no selection over the row's inline limit, where the provider
  uploads larger media (Gemini), is not read: the uploader streams it from disk (its
  pages are then not counted here);
* a PDF given as a path, bytes or dict is counted (``PdfPages.info``); one that cannot be
  read is sent unchecked with a WARNING (the provider decides, as before page limits), while
  a `DocumentSource` that cannot be read fails before sending;
* every PDF, and the PDFs of the request together, are checked against the row's
  ``max_pdf_pages``, and a document's bytes against ``max_request_bytes`` (unless the
  provider uploads it through its Files API): over a limit, `DocumentLimitError` is
  raised before any request, naming the document and the two ways out.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.documents.conversion import (
    ConversionCache,
    RunConversions,
)
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.application.media.inputs import media_part
from doc_processing_toolkit.application.media.limits import prompt_file_limit, prompt_stream_over
from doc_processing_toolkit.domain.documents.archive import ArchiveEntry, archive_problem
from doc_processing_toolkit.domain.documents.info import DocumentInfo
from doc_processing_toolkit.domain.documents.kinds import PDF_MIME, document_kind, office_key
from doc_processing_toolkit.domain.documents.limits import check_limits
from doc_processing_toolkit.domain.documents.page_map import PageMap
from doc_processing_toolkit.domain.errors import DocumentError
from doc_processing_toolkit.domain.media import accepts_input_type
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.document_converter import DocumentConverter, PdfPages
from doc_processing_toolkit.ports.ocr import OcrEngine

__all__ = ["DocumentPlanner", "PreparedDocument", "PreparedFiles"]


@dataclass(frozen=True, slots=True)
class PreparedDocument:
    """A document ready to send."""

    part: MediaPart
    """What is sent: the cut PDF, or the document as it is."""
    page_map: PageMap | None = None
    """Sent page -> original page (PDFs only)."""
    info: DocumentInfo | None = None
    """The whole document's facts (PDFs only)."""


@dataclass(slots=True)
class PreparedFiles:
    """``files=`` with every document prepared."""

    files: Any
    """What the media room takes: documents replaced by their prepared `MediaPart`."""
    page_maps: dict[int, PageMap] = field(default_factory=dict)
    """The page map of each PDF, by its position in ``files``."""


class DocumentPlanner:
    """See the module docstring."""

    def __init__(
        self,
        *,
        model: str,
        provider: str,
        row: ModelInfo | None,
        pdf_pages: PdfPages | None,
        converter: DocumentConverter | None = None,
        ocr: OcrEngine | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.model = model
        self.provider = provider
        self.row = row
        self.pdf_pages = pdf_pages
        self.converter = converter
        self.ocr = ocr
        self.logger = logger or logging.getLogger(__name__)
        self._conversions = ConversionCache()

    # ------------------------------------------------------------------ reading
    def pdf_pages_port(self, name: str) -> PdfPages:
        """The PDF adapter (raises naming ``name`` when the Agent was given none)."""
        if self.pdf_pages is None:
            raise DocumentError(
                f"document {name!r}: cannot read its pages: this Agent was given no PDF "
                "adapter (AgentDeps.pdf_pages)",
                document=name,
            )
        return self.pdf_pages

    def read(self, document: DocumentSource, *, stream: bool = False) -> MediaPart:
        """``document`` as a MediaPart with its bytes (a URL: as a URL).

        With ``stream``, a path with no page selection that is over the row's inline limit
        where the provider uploads larger media (Gemini's Files API) is not read: the part
        carries its ``path`` and ``size`` and the uploader streams it from disk.

        Raises:
            FileNotFoundError: the path does not exist.
            FileTooLargeError: the file is larger than the provider takes.
            DocumentError: the document is empty, or ``pages=`` on a URL or a non-PDF.
        """
        part = media_part(
            document.source,
            media_type=document.mime_type,
            filename=document.name,
            limit=prompt_file_limit(self.row, self.provider),
            stream_over=prompt_stream_over(self.row) if stream and document.pages is None else None,
        )
        if part.path is not None:  # over the inline limit: uploaded, never read whole
            return part
        if part.url is not None:
            if document.pages is not None:
                raise DocumentError(
                    f"document {document.name!r}: pages= needs the document's bytes, and a URL "
                    "is sent as it is; download it and pass the path or the bytes",
                    document=document.name,
                )
            return part
        if not part.data:
            raise DocumentError(
                f"document {document.name!r} is empty (0 bytes)", document=document.name
            )
        if document.pages is not None and part.mime_type != PDF_MIME:
            raise DocumentError(
                f"document {document.name!r}: pages= applies to PDFs, and this is "
                f"{part.mime_type} ({document_kind(part.mime_type)})",
                document=document.name,
            )
        return part

    def info(self, document: DocumentSource) -> DocumentInfo:
        """The document's facts, read from its bytes (no request).

        Raises:
            DocumentError: a URL (not read here), a corrupt, encrypted or empty PDF.
        """
        if document.is_url:
            raise DocumentError(
                f"document {document.name!r} is a URL: the toolkit does not download it; "
                "pass the path or the bytes to read its pages",
                document=document.name,
            )
        part = self.read(document)
        assert part.data is not None  # read() returned bytes for a non-URL
        if part.mime_type == PDF_MIME:
            return self.pdf_pages_port(document.name).info(part.data, document.name)
        return DocumentInfo(
            kind=document_kind(part.mime_type), mime_type=part.mime_type, bytes=len(part.data)
        )

    # ------------------------------------------------------------------ preparing
    def check_office(self, part: MediaPart, name: str) -> None:
        """Refuse an Office file the model takes natively (it would be sent as it is) that
        is not a readable zip or is a possible zip bomb, from the zip's directory alone.

        Raises:
            DocumentError: naming the document and the problem.
        """
        if part.data is None or office_key(part.mime_type) is None:
            return
        if self.row is None or not accepts_input_type(self.row.input_types, part.mime_type):
            return  # dropped, or converted by a converter that checks it itself
        try:
            with zipfile.ZipFile(io.BytesIO(part.data)) as archive:
                entries = [
                    ArchiveEntry(e.filename, e.file_size, e.compress_size)
                    for e in archive.infolist()
                ]
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
            raise DocumentError(
                f"document {name!r} is a corrupt Office file: not a readable zip ({exc})",
                document=name,
            ) from exc
        if (problem := archive_problem(entries)) is not None:
            raise DocumentError(
                f"document {name!r} is refused as a possible zip bomb: {problem}; nothing was sent",
                document=name,
            )

    def _uploaded(self, size: int) -> bool:
        row = self.row
        return bool(
            row is not None
            and row.max_inline_bytes is not None
            and row.max_upload_bytes is not None
            and size > row.max_inline_bytes
        )

    def prepare(self, document: DocumentSource) -> PreparedDocument:
        """``document`` read, its selection checked, cut and checked against the limits.

        Raises:
            DocumentError: a bad document or page selection (naming it).
            DocumentLimitError: over the row's page or byte limit (nothing was sent).
        """
        part = self.read(document, stream=True)
        if part.data is None and part.path is not None and part.mime_type == PDF_MIME:
            # Streamed to a Files API, never read whole: its pages are counted from the file.
            count = self.pdf_pages_port(document.name).page_count(part.path, document.name)
            check_limits(document=document.name, pages=count, size=None, row=self.row)
            return PreparedDocument(part, PageMap(document.name, tuple(range(1, count + 1))))
        if part.data is None or part.mime_type != PDF_MIME:
            self.check_office(part, document.name)
            if part.data is not None:
                check_limits(
                    document=document.name,
                    pages=None,
                    size=len(part.data),
                    row=self.row,
                    uploaded=self._uploaded(len(part.data)),
                )
            return PreparedDocument(part)
        port = self.pdf_pages_port(document.name)
        info = port.info(part.data, document.name)
        pages = document.selection(info.pages) or tuple(range(1, (info.pages or 0) + 1))
        page_map = PageMap(document.name, pages)
        check_limits(document=document.name, pages=len(pages), size=None, row=self.row)
        if not (page_map.is_identity and len(pages) == info.pages):
            part = dataclasses.replace(part, data=port.cut(part.data, pages, document.name))
        assert part.data is not None
        size = len(part.data)
        check_limits(
            document=document.name,
            pages=None,
            size=size,
            row=self.row,
            uploaded=self._uploaded(size),
        )
        return PreparedDocument(part, page_map, info)

    def converter_for_run(self, policy: str, prepared: PreparedFiles) -> RunConversions | None:
        """The run's converter under ``on_unsupported_part="convert"`` (None otherwise);
        its ``records`` become ``AgentResult.converted_parts``."""
        if policy != "convert":
            return None
        return RunConversions(
            row=self.row,
            pdf_pages=self.pdf_pages,
            converter=self.converter,
            ocr=self.ocr,
            cache=self._conversions,
            page_maps=prepared.page_maps,
            logger=self.logger,
        )

    def _pdf_pages_of(self, part: MediaPart, name: str) -> int | None:
        # A plain file (not a Document) that pypdf cannot read is sent unchecked, as before
        # page limits existed: the provider decides. A Document is strict (prepare()).
        if part.mime_type != PDF_MIME or self.pdf_pages is None:
            return None
        try:
            if part.data is None:  # over the inline limit: counted from the file, streamed
                return self.pdf_pages.page_count(part.path, name) if part.path else None
            return self.pdf_pages.info(part.data, name).pages
        except DocumentError as exc:
            self.logger.warning("cannot count the pages of %s (%s); sent unchecked", name, exc)
            return None

    def prepare_files(self, files: Sequence[Any] | None) -> PreparedFiles:
        """``files=`` with each document prepared and every PDF counted and checked.

        Entries of a malformed ``files`` (not a list) are left for the media room to
        refuse with its own message.

        Raises:
            DocumentError, DocumentLimitError: see `prepare`; also for a plain PDF (or
                the PDFs together) over the row's page limit.
        """
        if (
            files is None
            or isinstance(files, str | bytes | dict)
            or not isinstance(files, Sequence)
        ):
            return PreparedFiles(files)
        has_documents = any(isinstance(value, DocumentSource) for value in files)
        limit = self.row.max_pdf_pages if self.row is not None else None
        if not has_documents and (limit is None or self.pdf_pages is None):
            return PreparedFiles(list(files))
        out: list[Any] = []
        prepared = PreparedFiles(out)
        counted: list[tuple[str, int]] = []
        for index, value in enumerate(files):
            if isinstance(value, DocumentSource):
                ready = self.prepare(value)
                out.append(ready.part)
                if ready.page_map is not None:
                    prepared.page_maps[index] = ready.page_map
                    counted.append((value.name, len(ready.page_map)))
                continue
            part = media_part(
                value,
                limit=prompt_file_limit(self.row, self.provider),
                stream_over=prompt_stream_over(self.row),
            )
            name = part.filename or f"files[{index}]"
            self.check_office(part, name)
            pages = self._pdf_pages_of(part, name)
            if pages is not None:
                check_limits(document=name, pages=pages, size=None, row=self.row)
                prepared.page_maps[index] = PageMap(name, tuple(range(1, pages + 1)))
                counted.append((name, pages))
            out.append(part)
        if len(counted) > 1:
            names = ", ".join(repr(name) for name, _ in counted)
            check_limits(
                document=f"the {len(counted)} PDFs together ({names})",
                pages=sum(pages for _, pages in counted),
                size=None,
                row=self.row,
            )
        return prepared
