"""The classes built on every request are ordinary frozen, slotted dataclasses (no
generated ``__init__``), and stay frozen values: replaced, pickled and compared as such.

(This file tested ``quick_init``, the ``exec``-generated ``__init__`` these classes had;
its value assertions are kept.)
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

from doc_processing_toolkit.adapters.providers._options import ThinkingTransform
from doc_processing_toolkit.adapters.providers._wire import WireRequest
from doc_processing_toolkit.domain import messages, requests
from doc_processing_toolkit.domain.costs.pricing import CostRecord

HOT = [
    requests.Usage,
    requests.ModelRequest,
    requests.TextDelta,
    requests.ModelResponse,
    messages.Message,
    messages.TextPart,
    messages.ToolCallPart,
    CostRecord,
    WireRequest,
    ThinkingTransform,
]


@pytest.mark.parametrize("cls", HOT)
def test_the_hot_classes_are_plain_frozen_slotted_dataclasses(cls: Any) -> None:
    assert cls.__dataclass_params__.frozen
    assert "__slots__" in cls.__dict__
    # the __init__ is the one dataclasses wrote, from the class's own declaration
    assert "_set0" not in cls.__init__.__globals__


@pytest.mark.parametrize("cls", HOT)
def test_the_hot_classes_stay_frozen_values(cls: Any) -> None:
    instance = _example(cls)
    assert dataclasses.replace(instance) == instance
    assert pickle.loads(pickle.dumps(instance)) == instance
    name = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(instance, name, None)


def _example(cls: Any) -> Any:
    examples: dict[Any, Any] = {
        requests.Usage: lambda: requests.Usage(input_tokens=3, output_tokens=2),
        requests.ModelRequest: lambda: requests.ModelRequest(model="m", messages=[]),
        requests.TextDelta: lambda: requests.TextDelta(text="hi"),
        requests.ModelResponse: lambda: requests.ModelResponse(
            message=messages.Message(role="assistant"),
            usage=requests.Usage(input_tokens=1),
            stop_reason="end_turn",
            model="m",
            provider="p",
        ),
        messages.Message: lambda: messages.Message(role="user", parts=(messages.TextPart("a"),)),
        messages.TextPart: lambda: messages.TextPart("a"),
        messages.ToolCallPart: lambda: messages.ToolCallPart(id="c", name="t", arguments={}),
        CostRecord: lambda: CostRecord(input_tokens=1, output_tokens=2, cost=0.5),
        WireRequest: lambda: WireRequest(params={"model": "m"}),
        ThinkingTransform: lambda: ThinkingTransform(provider="p", param="thinking"),
    }
    return examples[cls]()
