"""Citations through a run (application/run/loop/citations.py) on FakeModel: the result,
the complete event, the opt-in citation event, the cost report's count, original pages,
the request flag, and the WARNING of a provider that cannot cite documents."""

from __future__ import annotations

import logging

import pytest

from doc_processing_toolkit import Agent, AgentResult, Citation
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import FakeModel, reply
from doc_processing_toolkit.testing.pdf import text_pdf

MODEL = "claude-sonnet-5-5"

PAGE_2 = Citation(
    "It is 42.",
    quote="The Answer is 42.",
    document_index=0,
    page_start=2,
    page_end=2,
    char_start=0,
    char_end=9,
    provider="anthropic",
    kind="document",
    raw={"type": "page_location", "start_page_number": 2, "end_page_number": 3},
)
WEB = Citation("Rates held.", url="https://example.com/fed", kind="web", raw={"type": "url"})


def _pdf() -> bytes:
    return text_pdf([[f"Page {n}."] for n in range(1, 7)])


def _agent(fake: FakeModel, model: str = MODEL, **kwargs: object) -> Agent:
    return Agent(model, client=fake, log_to_file=False, **kwargs)  # type: ignore[arg-type]


def test_citations_reach_the_result_in_answer_order_on_original_pages() -> None:
    fake = FakeModel([reply("It is 42. Rates held.", citations=(PAGE_2, WEB))])
    document = Document(_pdf(), pages="4-6", name="report.pdf")
    result = _agent(fake).run_sync("Q?", files=[document])
    page, web = result.citations
    assert (page.document, page.page_start, page.page_end) == ("report.pdf", 5, 5)
    assert web == WEB
    assert fake.requests[0].cited_documents is False  # not asked: no request flag


def test_a_page_past_the_end_of_what_was_sent_is_kept_without_pages() -> None:
    past = Citation("x", document_index=0, page_start=9, page_end=9, kind="document")
    fake = FakeModel([reply("x", citations=(past,))])
    result = _agent(fake).run_sync("Q?", files=[Document(_pdf(), pages="1-2", name="r.pdf")])
    (citation,) = result.citations
    assert (citation.document, citation.page_start, citation.page_end) == ("r.pdf", None, None)


def test_citations_true_flags_the_request_and_streams_citation_events() -> None:
    fake = FakeModel([reply("It is 42.", citations=(PAGE_2,))])
    agent = _agent(fake, citations=True)

    async def events() -> list[object]:
        return [e async for e in agent.stream("Q?", files=[Document(_pdf(), name="r.pdf")])]

    import anyio

    seen = anyio.run(events)
    cited = [e for e in seen if e.event_type == "citation"]  # type: ignore[attr-defined]
    assert [(e.content, e.metadata["page_start"]) for e in cited] == [("It is 42.", 2)]
    complete = [e for e in seen if e.event_type == "complete"][-1]  # type: ignore[attr-defined]
    assert complete.metadata["citations"][0]["document"] == "r.pdf"
    assert fake.requests[0].cited_documents is True


def test_no_citation_event_unless_asked() -> None:
    fake = FakeModel([reply("It is 42.", citations=(PAGE_2,))])
    agent = _agent(fake)

    async def kinds() -> set[str]:
        return {e.event_type async for e in agent.stream("Q?")}

    import anyio

    assert "citation" not in anyio.run(kinds)


def test_a_document_with_citations_true_is_named_in_the_request() -> None:
    fake = FakeModel([reply("ok")])
    files = [Document(_pdf(), name="a.pdf", citations=True), Document(_pdf(), name="b.pdf")]
    _agent(fake).run_sync("Q?", files=files)
    assert fake.requests[0].cited_documents == frozenset({"a.pdf"})


def test_a_provider_that_cannot_cite_documents_warns_once_per_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeModel([reply("ok"), reply("ok")], provider="openai")
    agent = _agent(fake, model="gpt-4.1", logger=logging.getLogger("host.citations"))
    with caplog.at_level(logging.WARNING):
        agent.run_sync("Q?", files=[Document(_pdf(), name="a.pdf", citations=True)])
    warnings = [r for r in caplog.records if "cannot cite the documents" in r.getMessage()]
    assert len(warnings) == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        agent.run_sync("Q?")  # no document: nothing to say
    assert not [r for r in caplog.records if "cannot cite" in r.getMessage()]


def test_the_detailed_cost_report_counts_each_requests_citations(tmp_path: object) -> None:
    fake = FakeModel([reply("It is 42. Rates held.", citations=(PAGE_2, WEB))])
    result = _agent(fake, detailed_costs=True, cost_output_dir=str(tmp_path)).run_sync("Q?")
    assert [m.citation_count for m in result.iteration_metrics] == [2]


def test_the_result_round_trips_as_plain_data() -> None:
    fake = FakeModel([reply("It is 42.", citations=(PAGE_2,))])
    result = _agent(fake).run_sync("Q?")
    data = result.to_dict()
    assert data["citations"][0]["raw"] == PAGE_2.raw
    assert AgentResult.from_dict(data).citations == result.citations


def test_a_documents_citations_flag_survives_a_fleet_payload_and_a_new_page_selection(
    tmp_path: object,
) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "r.pdf"
    path.write_bytes(_pdf())
    document = Document(path, name="r.pdf", citations=True)
    assert Document.from_payload(document.to_payload()).citations is True
    assert document.with_pages("2").citations is True
    assert "citations" not in Document(path).to_payload()  # unchanged payload by default
