"""The Agent's document methods: ``run_document``, ``run_document_sync`` and ``estimate``.

A mixin of `Agent` that composes through the Agent's public seams only
(``document_planner``, ``run_turn``, ``release_loop_resources``, ``settings``,
``service_tier``); the work is in `run_document` and `estimate`.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.documents.estimate import estimate_run
from doc_processing_toolkit.application.documents.planner import DocumentPlanner
from doc_processing_toolkit.application.documents.result import DocumentResult
from doc_processing_toolkit.application.documents.run_document import run_document
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.run_input import RunInput, TurnHistory
from doc_processing_toolkit.application.run.stream.streaming import run_blocking
from doc_processing_toolkit.domain.documents.estimate import Estimate

__all__ = ["DocumentMethods"]


class _Host(Protocol):
    @property
    def document_planner(self) -> DocumentPlanner: ...

    @property
    def settings(self) -> AgentSettings: ...

    @property
    def service_tier(self) -> str | None: ...

    async def run_turn(
        self, run_input: RunInput, history: TurnHistory | None = None
    ) -> tuple[AgentResult, BaseException | None]: ...

    async def release_loop_resources(self) -> None: ...


class DocumentMethods:
    """``Agent.run_document``, ``run_document_sync`` and ``estimate``."""

    async def run_document(
        self: _Host,
        document: Any,
        prompt: str,
        *,
        output_schema: type[BaseModel] | None = None,
        chunk_pages: int | None = None,
        concurrency: int = 4,
        on_chunk_error: str = "return",
        evidence: bool = False,
    ) -> DocumentResult:
        """Run ``prompt`` over a long document in page chunks and merge the answers.

        The selected pages (``Document(pages=...)``, else every page) are split in
        consecutive chunks of ``chunk_pages`` (default: the row's ``max_pdf_pages``, so a
        document within the limit is one chunk); each chunk is one ordinary run (its first
        request's purpose ``"document_chunk"``: retried, costed, seen by hooks), at most
        ``concurrency`` at a time. With ``output_schema`` the chunk answers are merged
        field by field (lists concatenated in page order without duplicates; scalars the
        first non-empty value in page order, disagreements in ``conflicts``) and
        validated; without one, one reduce request (purpose ``"document_reduce"``)
        combines the chunk answers. Every page number reported is the original one.

        Args:
            document (Document | str | os.PathLike | bytes): The document (a path, bytes
                or URL is read whole).
            prompt (str): What to ask of each chunk (and of the reduce request).
            output_schema (type[BaseModel] | None): The schema of the answer. Default: None.
            chunk_pages (int | None): Pages per chunk. Default: the row's
                ``max_pdf_pages`` (the whole selection when the row has none).
            concurrency (int): Chunks run at once. Default: 4.
            on_chunk_error (str): ``"return"`` reports a chunk that still fails after the
                retry layer in ``missing_pages``, and a reduce request that still fails in
                ``reduce_error`` (``output`` None); ``"raise"`` raises its error (the other
                chunks are cancelled). A raised error carries the DocumentResult so far
                (the chunks that answered, every request's cost) on ``document_result``.
                Default: ``"return"``.
            evidence (bool): With ``output_schema``: each chunk run asks for every leaf
                field's quote and page (as ``run(evidence=True)``); the merged answer's
                evidence (ORIGINAL pages) is in ``evidence`` and ``unverified_fields``.
                Default: False.

        Returns:
            DocumentResult: The merged output, the chunks, conflicts, provenance, the
                exact cost of every request, usage and the missing pages.

        Raises:
            DocumentError: A bad document or page selection, or a bad ``chunk_pages``
                (before any request).
            DocumentLimitError: A chunk over the row's byte limit (before any request).
            ValueError: A bad ``concurrency`` or ``on_chunk_error``.
            StructuredOutputError: The merged answer does not validate.
            ProviderError: A chunk or the reduce request failed under
                ``on_chunk_error="raise"`` (``document_result`` holds the work done).
        """
        return await run_document(
            self,
            document,
            prompt,
            output_schema=output_schema,
            chunk_pages=chunk_pages,
            concurrency=concurrency,
            on_chunk_error=on_chunk_error,
            evidence=evidence,
        )

    def run_document_sync(
        self: _Host,
        document: Any,
        prompt: str,
        *,
        output_schema: type[BaseModel] | None = None,
        chunk_pages: int | None = None,
        concurrency: int = 4,
        on_chunk_error: str = "return",
        evidence: bool = False,
    ) -> DocumentResult:
        """Synchronous `run_document` (same arguments, result and errors); works inside a
        running loop (Jupyter) too."""

        async def run_and_release() -> DocumentResult:
            try:
                return await run_document(
                    self,
                    document,
                    prompt,
                    output_schema=output_schema,
                    chunk_pages=chunk_pages,
                    concurrency=concurrency,
                    on_chunk_error=on_chunk_error,
                    evidence=evidence,
                )
            finally:
                await self.release_loop_resources()

        return run_blocking(run_and_release)

    def estimate(
        self: _Host,
        prompt: str,
        *,
        files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
    ) -> Estimate:
        """What ``run(prompt, files=files, output_schema=output_schema)`` would send and
        roughly cost, without any network call (an estimate: the rule is in
        docs/guide/documents.md).

        Pages come from the documents (after ``pages=``), tokens from the row's
        ``pdf_tokens_per_page`` (or the text length for parts that would be converted),
        prices from the row (long-context rates where a request is over the threshold).
        A single PDF over the row's page limit is counted as ``run_document`` would send
        it: one request per chunk (plus the reduce request without a schema).

        Args:
            prompt (str): The message.
            files (list | None): As ``run(files=...)``; ``Document`` values included.
            output_schema (type[BaseModel] | None): The schema the run would use.

        Returns:
            Estimate: input_tokens, pages, requests, cost_usd (None when the row has no
                price), over_limits, long_context and the assumptions made.

        Raises:
            TypeError: ``files`` is not a list.
            DocumentError: A bad document or page selection.
        """
        return estimate_run(
            self.document_planner,
            prompt,
            files=files,
            output_schema=output_schema,
            instructions=self.settings.instructions,
            service_tier=self.service_tier,
        )
