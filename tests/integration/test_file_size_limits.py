"""A file larger than the model's provider takes is refused from its size on disk, before
a byte of it is read and before any request: ``FileTooLargeError`` names the file, its
size and the limit, which come from the registry's byte facts. Sparse files: a 2 GiB
file costs no disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from doc_processing_toolkit import Agent, FileTooLargeError, InvalidInputError
from doc_processing_toolkit.adapters.registry.json_file import default_registry
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply

TWO_GIB = 2 * 1024**3


def sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.write(b"%PDF-1.7\n")
        handle.truncate(size)
    return path


def _row_fact(model: str, key: str) -> int:
    row = default_registry().row(model)
    assert row is not None
    value = getattr(row, key)
    assert isinstance(value, int)
    return value


@pytest.mark.parametrize(
    ("model", "fact"),
    [
        ("claude-sonnet-5-5", "max_request_bytes"),
        ("gemini-2.5-flash", "max_upload_bytes"),
        ("gpt-4o", "max_request_bytes"),
    ],
)
def test_a_2_gib_file_is_refused_before_it_is_read(tmp_path: Path, model: str, fact: str) -> None:
    big = sparse(tmp_path / "huge.pdf", TWO_GIB)
    model_client = FakeModel([reply("never")])
    agent = Agent(model, client=model_client, log_to_file=False)
    with pytest.raises(FileTooLargeError) as caught:
        agent.run_sync("summarise", files=[str(big)])
    error = caught.value
    limit = _row_fact(model, fact)
    assert isinstance(error, InvalidInputError)
    assert (error.path, error.size, error.limit) == (str(big), TWO_GIB, limit)
    assert str(big) in str(error) and f"{TWO_GIB:,}" in str(error) and f"{limit:,}" in str(error)
    assert model_client.requests == []


def test_a_file_just_over_the_anthropic_request_limit_is_refused(tmp_path: Path) -> None:
    limit = _row_fact("claude-sonnet-5-5", "max_request_bytes")
    big = sparse(tmp_path / "over.pdf", limit + 1)
    model_client = FakeModel([reply("never")])
    agent = Agent("claude-sonnet-5-5", client=model_client, log_to_file=False)
    with pytest.raises(FileTooLargeError, match=r"over\.pdf"):
        agent.run_sync("summarise", files=[big])
    assert model_client.requests == []


def test_a_2_gib_tool_file_is_refused_against_the_files_api_limit(tmp_path: Path) -> None:
    big = sparse(tmp_path / "data.csv", TWO_GIB)
    model_client = FakeModel([reply("never")])
    agent = Agent("claude-sonnet-5-5", client=model_client, log_to_file=False)
    with pytest.raises(FileTooLargeError) as caught:
        agent.run_sync("analyse", tool_files=[str(big)])
    assert caught.value.limit == _row_fact("claude-sonnet-5-5", "max_upload_bytes")
    assert "data.csv" in str(caught.value)
    assert model_client.requests == []


def test_bytes_over_the_limit_are_refused_and_a_small_file_passes(tmp_path: Path) -> None:
    limit = _row_fact("claude-sonnet-5-5", "max_request_bytes")
    model_client = FakeModel([reply("read it")])
    agent = Agent("claude-sonnet-5-5", client=model_client, log_to_file=False)
    with pytest.raises(FileTooLargeError, match="<bytes>"):
        agent.run_sync("x", files=[b"%PDF-1.7\n" + bytes(limit)])
    small = tmp_path / "small.pdf"
    small.write_bytes(b"%PDF-1.7\n%%EOF\n")
    assert agent.run_sync("x", files=[str(small)]).output == "read it"
