"""Agent.run_document through the real container and FakeModel: chunks of the row's page
limit (or chunk_pages), each an ordinary run that hooks see, a failed chunk reported as
missing pages (or raised), the reduce request without a schema, and a cost that is the
exact sum of every record."""

from __future__ import annotations

from typing import Any

import pytest
from document_samples import numbered_pdf
from pydantic import BaseModel

from doc_processing_toolkit import Agent, BadRequestError, ConfigurationError, DocumentError
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import FakeModel, Fault, reply

CLAUDE_200K = "claude-haiku-4-5"


class Terms(BaseModel):
    parties: list[str]
    title: str


def _agent(fake: FakeModel, **kwargs: Any) -> Agent:
    return Agent(CLAUDE_200K, client=fake, log_to_file=False, **kwargs)


def _json(parties: list[str], title: str) -> Any:
    return reply(Terms(parties=parties, title=title).model_dump_json(), input_tokens=700)


def test_without_a_schema_one_reduce_request_combines_the_chunks() -> None:
    fake = FakeModel([reply("A", input_tokens=900), reply("B"), reply("C"), reply("ABC")])
    agent = _agent(fake)
    result = agent.run_document_sync(numbered_pdf(300), "Summarise.", concurrency=1)
    assert result.output == "ABC"
    assert [r.purpose for r in fake.requests] == ["document_chunk"] * 3 + ["document_reduce"]
    reduce_prompt = fake.requests[-1].messages[-1].parts[-1].text  # type: ignore[union-attr]
    assert "### Pages 1-100\nA" in reduce_prompt and "### Pages 201-300\nC" in reduce_prompt
    records = result.request_records
    assert [r["purpose"] for r in records] == ["document_chunk"] * 3 + ["document_reduce"]
    assert result.cost == pytest.approx(sum(r["cost"] for r in records), abs=1e-12)
    assert result.cost > 0 and result.usage["input_tokens"] == 900 + 3 * 10
    assert result.reduce is not None and result.reduce.output == "ABC"


def test_chunk_pages_and_a_selection_set_the_chunks() -> None:
    fake = FakeModel(default=reply("x"))
    result = _agent(fake).run_document_sync(
        Document(numbered_pdf(50), pages="11-40"), "Read.", chunk_pages=12, concurrency=2
    )
    assert [c.page_range for c in result.chunks] == ["11-22", "23-34", "35-40"]
    assert len(fake.requests) == 4  # three chunks and the reduce


def test_a_document_within_the_limit_is_one_chunk_and_no_reduce() -> None:
    fake = FakeModel([reply("all of it")])
    result = _agent(fake).run_document_sync(numbered_pdf(40), "Read.")
    assert result.output == "all of it" and result.reduce is None
    assert [c.page_range for c in result.chunks] == ["1-40"] and len(fake.requests) == 1


def test_a_chunk_that_still_fails_is_missing_pages() -> None:
    fake = FakeModel(
        [_json(["Acme"], "MSA"), Fault(status=400, message="bad chunk"), _json(["Zed"], "")]
    )
    result = _agent(fake).run_document_sync(
        numbered_pdf(300), "Extract.", output_schema=Terms, concurrency=1
    )
    assert result.missing_pages == tuple(range(101, 201)) and not result.success
    assert result.output == Terms(parties=["Acme", "Zed"], title="MSA")
    assert result.chunks[1].error is not None and "bad chunk" in result.chunks[1].error
    assert result.cost == pytest.approx(sum(c.cost for c in result.chunks), abs=1e-12)


def test_on_chunk_error_raise_raises_the_chunk_error() -> None:
    fake = FakeModel([Fault(status=400, message="bad chunk")], default=_json(["A"], "T"))
    with pytest.raises(BadRequestError, match="bad chunk"):
        _agent(fake).run_document_sync(
            numbered_pdf(300),
            "Extract.",
            output_schema=Terms,
            concurrency=1,
            on_chunk_error="raise",
        )


def test_hooks_see_every_chunk_request() -> None:
    seen: list[str] = []

    def hook(event: Any) -> None:
        if event.event_type == "request_start":
            seen.append(event.metadata["purpose"])

    fake = FakeModel(default=_json(["A"], "T"))
    agent = _agent(fake, hooks=hook, emit_request_start=True)
    agent.run_document_sync(numbered_pdf(250), "Extract.", output_schema=Terms)
    assert seen == ["document_chunk"] * 3


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"concurrency": 0}, ConfigurationError),
        ({"on_chunk_error": "ignore"}, ConfigurationError),
        ({"chunk_pages": 0}, DocumentError),
    ],
)
def test_bad_arguments_fail_before_any_request(kwargs: dict[str, Any], error: type) -> None:
    fake = FakeModel([reply("never")])
    with pytest.raises(error):
        _agent(fake).run_document_sync(numbered_pdf(10), "Read.", **kwargs)
    assert fake.requests == []


def test_the_reduce_request_is_told_which_pages_are_missing() -> None:
    fake = FakeModel([reply("A"), Fault(status=400, message="bad chunk"), reply("C"), reply("AC")])
    result = _agent(fake).run_document_sync(numbered_pdf(300), "Summarise.", concurrency=1)
    assert result.output == "AC" and result.missing_pages == tuple(range(101, 201))
    reduce_prompt = fake.requests[-1].messages[-1].parts[-1].text  # type: ignore[union-attr]
    assert "Pages 101-200 could not be read" in reduce_prompt
    assert "### Pages 1-100\nA" in reduce_prompt and "101-200\n" not in reduce_prompt


def test_at_most_concurrency_chunks_run_at_once() -> None:
    running, peak = [0], [0]

    def hook(event: Any) -> None:
        if event.event_type == "run_start":
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        elif event.event_type == "run_end":
            running[0] -= 1

    fake = FakeModel(default=reply("x", chunk_size=1))
    agent = _agent(fake, hooks=hook)
    result = agent.run_document_sync(numbered_pdf(50), "Read.", chunk_pages=5, concurrency=2)
    assert len(result.chunks) == 10 and 1 <= peak[0] <= 2 and running[0] == 0
