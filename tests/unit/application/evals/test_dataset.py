"""`EvalDataset.load`: YAML and JSONL, files relative to the dataset, located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doc_processing_toolkit.domain.errors import EvalDatasetError
from doc_processing_toolkit.evals import EvalDataset
from doc_processing_toolkit.testing.pdf import text_pdf

SCHEMA_MODULE = """
from pydantic import BaseModel, Field

class Invoice(BaseModel):
    number: str
    total: float
    items: list[str] = Field(default_factory=list, json_schema_extra={"ordered": True})
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.pdf").write_bytes(text_pdf([["Invoice INV-1"], ["Total 10"]]))
    (tmp_path / "eval_schema_mod.py").write_text(SCHEMA_MODULE)
    return tmp_path


def _yaml(folder: Path, body: str) -> Path:
    path = folder / "set.yaml"
    path.write_text(body)
    return path


def test_yaml_with_defaults_pages_and_an_importable_schema(folder: Path) -> None:
    path = _yaml(
        folder,
        """
prompt: Extract the invoice.
output_schema: eval_schema_mod:Invoice
cases:
  - name: first
    files: [docs/a.pdf]
    expected: {number: INV-1, total: 10}
    tags: [simple]
  - name: second
    files: [{path: docs/a.pdf, pages: "2"}]
    prompt: Only the total.
    expected: {total: 10, items: [a, b]}
""",
    )
    dataset = EvalDataset.load(path)
    assert [c.name for c in dataset.cases] == ["first", "second"]
    first, second = dataset.cases
    assert first.prompt == "Extract the invoice." and second.prompt == "Only the total."
    assert first.output_schema.__name__ == "Invoice" and first.tags == ["simple"]
    assert first.files[0].source == str((folder / "docs" / "a.pdf").resolve())
    assert second.files[0].pages == "2"
    assert first.schema_json["properties"]["items"]["ordered"] is True


def test_a_single_file_may_be_given_without_a_list(folder: Path) -> None:
    path = _yaml(
        folder,
        "- {name: one, files: docs/a.pdf, prompt: p, output_schema: eval_schema_mod.Invoice,"
        " expected: {number: '1'}}\n",
    )
    (case,) = EvalDataset.load(path).cases
    assert [f.source for f in case.files] == [str((folder / "docs" / "a.pdf").resolve())]


def test_jsonl_with_an_inline_schema(folder: Path) -> None:
    schema = {
        "type": "object",
        "required": ["number"],
        "properties": {
            "number": {"type": "string"},
            "lines": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku": {"type": "string"}}},
            },
        },
    }
    lines = [
        {
            "name": "one",
            "files": ["docs/a.pdf"],
            "prompt": "p",
            "output_schema": schema,
            "expected": {"number": "1", "lines": [{"sku": "A"}]},
        },
        {"name": "two", "prompt": "p", "output_schema": schema, "expected": {"number": "2"}},
    ]
    path = folder / "set.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    dataset = EvalDataset.load(path)
    model = dataset.cases[0].output_schema
    assert dataset.cases[0].output_schema is dataset.cases[1].output_schema
    parsed = model.model_validate({"number": "1", "lines": [{"sku": "A"}]})
    assert parsed.model_dump() == {"number": "1", "lines": [{"sku": "A"}]}


def test_a_missing_file_names_the_case_and_key(folder: Path) -> None:
    path = _yaml(
        folder,
        """
- {name: ok, files: [docs/a.pdf], prompt: p, output_schema: eval_schema_mod.Invoice,
   expected: {number: "1"}}
- {name: broken, files: [docs/a.pdf, docs/nope.pdf], prompt: p,
   output_schema: eval_schema_mod.Invoice, expected: {number: "1"}}
""",
    )
    with pytest.raises(EvalDatasetError) as caught:
        EvalDataset.load(path)
    error = caught.value
    assert (error.case, error.key) == ("broken", "files[1]")
    assert "set.yaml" in str(error) and "'broken'" in str(error) and "nope.pdf" in str(error)


def test_an_unknown_schema_path_names_the_case(folder: Path) -> None:
    path = _yaml(
        folder,
        """
- {name: c1, prompt: p, output_schema: no_such_module.Invoice, expected: {number: "1"}}
""",
    )
    with pytest.raises(EvalDatasetError, match=r"case 'c1', key 'output_schema'.*no_such_module"):
        EvalDataset.load(path)
    path = _yaml(
        folder,
        """
- {name: c2, prompt: p, output_schema: eval_schema_mod.Nope, expected: {number: "1"}}
""",
    )
    with pytest.raises(EvalDatasetError, match=r"'c2'.*not a pydantic model"):
        EvalDataset.load(path)


def test_expected_fields_not_in_the_schema_are_named(folder: Path) -> None:
    path = _yaml(
        folder,
        """
- {name: c3, prompt: p, output_schema: eval_schema_mod.Invoice,
   expected: {number: "1", totl: 3}}
""",
    )
    with pytest.raises(EvalDatasetError) as caught:
        EvalDataset.load(path)
    assert (caught.value.case, caught.value.key) == ("c3", "expected.totl")
    assert "Invoice has no such field" in str(caught.value)


def test_other_bad_datasets(folder: Path) -> None:
    with pytest.raises(EvalDatasetError, match=r"no such dataset file"):
        EvalDataset.load(folder / "absent.yaml")
    with pytest.raises(EvalDatasetError, match=r"'dup'.*used twice"):
        EvalDataset.load(
            _yaml(
                folder,
                """
- {name: dup, prompt: p, output_schema: eval_schema_mod.Invoice, expected: {number: "1"}}
- {name: dup, prompt: p, output_schema: eval_schema_mod.Invoice, expected: {number: "1"}}
""",
            )
        )
    with pytest.raises(EvalDatasetError, match=r"key 'expectd'.*unknown key"):
        EvalDataset.load(_yaml(folder, "- {name: x, prompt: p, expectd: {}}\n"))
    with pytest.raises(EvalDatasetError, match=r"key 'files\[0\].pages'"):
        EvalDataset.load(
            _yaml(
                folder,
                """
- {name: x, prompt: p, output_schema: eval_schema_mod.Invoice, expected: {number: "1"},
   files: [{path: docs/a.pdf, pages: "0"}]}
""",
            )
        )
    with pytest.raises(EvalDatasetError, match=r"line 1 is not JSON"):
        (folder / "bad.jsonl").write_text("{nope\n")
        EvalDataset.load(folder / "bad.jsonl")
