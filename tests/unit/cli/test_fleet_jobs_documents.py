"""``dpt fleet run`` job lines take ``{"document": path, "pages": ...}`` files: read as a
Document with its page selection; a bad selection names the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doc_processing_toolkit.cli.fleet import read_jobs
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.domain.errors import InvalidInputError


def _jobs(tmp_path: Path, *files: object) -> Path:
    path = tmp_path / "jobs.jsonl"
    path.write_text(json.dumps({"id": "c1", "message": "Read.", "files": list(files)}) + "\n")
    return path


def test_a_document_entry_keeps_its_pages(tmp_path: Path) -> None:
    (job,) = read_jobs(str(_jobs(tmp_path, "a.pdf", {"document": "c.pdf", "pages": "41-60"})))
    plain, doc = job["files"]
    assert plain == "a.pdf" and isinstance(doc, Document)
    assert doc.to_payload() == {
        "document": "c.pdf",
        "pages": "41-60",
        "name": "c.pdf",
        "mime_type": None,
    }


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"document": "c.pdf", "pages": "30-10"}, "runs backwards"),
        ({"path": "c.pdf"}, "'files' must be a list of paths or URLs"),
    ],
)
def test_a_bad_document_entry_names_the_line(tmp_path: Path, entry: object, problem: str) -> None:
    with pytest.raises(InvalidInputError, match=r"jobs\.jsonl:1: ") as caught:
        read_jobs(str(_jobs(tmp_path, entry)))
    assert problem in str(caught.value)


def test_a_job_line_may_ask_for_a_schema_and_evidence(tmp_path: Path) -> None:
    path = tmp_path / "jobs.jsonl"
    lines = [
        {"id": "s", "message": "Extract.", "output_schema": "pydantic:BaseModel", "evidence": True},
        {"id": "t", "message": "Extract.", "output_schema": "no_such_module_xyz:Invoice"},
    ]
    path.write_text(json.dumps(lines[0]) + "\n")
    (job,) = read_jobs(str(path))
    assert job["output_schema"] == "pydantic:BaseModel" and job["evidence"] is True
    path.write_text(json.dumps(lines[1]) + "\n")
    with pytest.raises(InvalidInputError, match=r"jobs.jsonl:1: .*cannot import module"):
        read_jobs(str(path))
