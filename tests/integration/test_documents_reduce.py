"""A reduce request that fails loses nothing that was paid for: against the loopback
emulator (real Anthropic SDK on the wire), ``run_document`` without a schema returns the
chunks' answers with ``output=None`` and ``reduce_error`` (``on_chunk_error="return"``), or
raises the reduce error carrying the DocumentResult on ``document_result`` ("raise"); the
cost is the exact sum of every record, the failed reduce attempts' included."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from document_samples import numbered_pdf

from doc_processing_toolkit import Agent, BadRequestError
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.domain.costs.pricing import round_usd
from doc_processing_toolkit.testing import Fault, ProviderEmulator, Reply, ScriptStep

CLAUDE_200K = "claude-haiku-4-5"
GENERATE = "/v1/messages"


@pytest.fixture(scope="module")
def contract() -> Document:
    return Document(numbered_pdf(300), name="contract.pdf")


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")


def _agent(emu: ProviderEmulator) -> Agent:
    provider = registry().detect_provider(CLAUDE_200K)
    return Agent(
        CLAUDE_200K,
        api_key="offline-test-key",
        base_url=getattr(emu, f"{provider}_base_url"),
        log_to_file=False,
    )


def _responder(reduce_fault: Fault) -> Any:
    """Each chunk answers with its first page; every reduce request gets ``reduce_fault``."""

    def answer(body: dict[str, Any]) -> ScriptStep:
        text = json.dumps(body)
        if "was read in 3 parts" in text:
            return reduce_fault
        first = re.search(r"its pages (\d+)-", text)
        return Reply(f"part from page {first.group(1) if first else '?'}", input_tokens=2_000)

    return answer


def _reduce_requests(emu: ProviderEmulator) -> int:
    return sum(
        1 for r in emu.requests if r.path.endswith(GENERATE) and "read in 3" in json.dumps(r.body)
    )


def test_a_failed_reduce_returns_the_chunks_and_their_cost(
    emu: ProviderEmulator, contract: Document
) -> None:
    emu.responder = _responder(Fault(status=400, message="reduce refused"))
    result = _agent(emu).run_document_sync(contract, "Summarise.", concurrency=1)

    assert result.output is None and not result.success and result.missing_pages == ()
    assert result.reduce_error is not None
    assert "BadRequestError" in result.reduce_error and "reduce refused" in result.reduce_error
    assert [c.output for c in result.chunks] == [
        "part from page 1",
        "part from page 101",
        "part from page 201",
    ]
    assert all(c.cost > 0 for c in result.chunks)
    assert _reduce_requests(emu) == 1  # a 400 is not retried
    assert result.cost == round_usd(sum(r["cost"] for r in result.request_records))
    assert result.cost == round_usd(sum(c.cost for c in result.chunks))  # a 400 bills nothing


def test_a_reduce_that_exhausts_its_retries_keeps_what_it_spent(
    emu: ProviderEmulator, contract: Document
) -> None:
    emu.responder = _responder(Fault(kind="stream_error", input_tokens=40_000))
    result = _agent(emu).run_document_sync(contract, "Summarise.", concurrency=1)

    assert result.output is None and result.reduce_error is not None
    assert _reduce_requests(emu) > 1  # retried, then given up
    assert result.reduce is not None
    reduce_records = result.reduce.request_cost_records
    assert reduce_records and all(r["purpose"] == "document_reduce" for r in reduce_records)
    reduce_cost = round_usd(sum(r["cost"] for r in reduce_records))
    assert reduce_cost > 0  # the partial attempts were billed
    chunk_cost = round_usd(sum(c.cost for c in result.chunks))
    assert result.cost == round_usd(chunk_cost + reduce_cost)
    assert result.cost == round_usd(sum(r["cost"] for r in result.request_records))
    assert result.usage["input_tokens"] >= 3 * 2_000 + 40_000


def test_on_chunk_error_raise_raises_the_reduce_error_with_the_document_result(
    emu: ProviderEmulator, contract: Document
) -> None:
    emu.responder = _responder(Fault(status=400, message="reduce refused"))
    with pytest.raises(BadRequestError, match="reduce refused") as caught:
        _agent(emu).run_document_sync(contract, "Summarise.", concurrency=1, on_chunk_error="raise")
    document = caught.value.document_result
    assert document is not None and document.output is None
    assert [c.page_range for c in document.chunks] == ["1-100", "101-200", "201-300"]
    assert all(c.ok and c.output for c in document.chunks)
    assert document.cost == round_usd(sum(r["cost"] for r in document.request_records)) > 0
    assert caught.value.partial_result is document.reduce


def test_on_chunk_error_raise_on_a_chunk_carries_the_chunks_that_answered(
    emu: ProviderEmulator, contract: Document
) -> None:
    def answer(body: dict[str, Any]) -> ScriptStep:
        text = json.dumps(body)
        if "its pages 201-" in text:
            return Fault(status=400, message="chunk refused")
        first = re.search(r"its pages (\d+)-", text)
        return Reply(f"part from page {first.group(1) if first else '?'}", input_tokens=2_000)

    emu.responder = answer
    with pytest.raises(BadRequestError, match="chunk refused") as caught:
        _agent(emu).run_document_sync(contract, "Summarise.", concurrency=1, on_chunk_error="raise")
    document = caught.value.document_result
    assert document is not None
    assert [c.output for c in document.chunks[:2]] == ["part from page 1", "part from page 101"]
    assert document.missing_pages == tuple(range(201, 301))
    assert document.cost == round_usd(sum(c.cost for c in document.chunks[:2])) > 0
