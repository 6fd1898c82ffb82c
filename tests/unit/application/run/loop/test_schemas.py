"""A structured run's output schema is built once per model class."""

from __future__ import annotations

from typing import Any

import pytest

from doc_processing_toolkit.testing import FakeModel, reply, tool_call
from tests.unit.application.support import agent_with_add as _agent


def test_a_structured_runs_schema_is_built_once_per_model_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pydantic import BaseModel

    from doc_processing_toolkit.application.run.loop.schemas import (
        final_result_spec,
        output_json_schema,
    )

    class Invoice(BaseModel):
        number: str
        total: float

    built: list[int] = []
    real = Invoice.model_json_schema

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(Invoice, "model_json_schema", counting)
    first = output_json_schema(Invoice)
    first["title"] = "changed by a caller"
    assert output_json_schema(Invoice)["title"] == "Invoice"  # each caller gets its own copy
    spec = final_result_spec(Invoice, "final_result")
    assert final_result_spec(Invoice, "final_result") is spec
    assert spec.parameters["properties"].keys() == {"number", "total"}
    for _ in range(3):
        fake = FakeModel([tool_call("add", {"a": 1, "b": 2}), reply('{"number": "7", "total": 3}')])
        result = _agent(fake).run_sync("go", output_schema=Invoice)
        assert result.output == {"number": "7", "total": 3}  # validated against Invoice
    assert built == [1]
