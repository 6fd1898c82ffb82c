"""quick_init: the frozen dataclasses built per request keep their exact __init__."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from doc_processing_toolkit.adapters.providers._options import ThinkingTransform
from doc_processing_toolkit.adapters.providers._wire import WireRequest
from doc_processing_toolkit.domain import messages, requests
from doc_processing_toolkit.domain._dataclass import quick_init
from doc_processing_toolkit.domain.costs.pricing import CostRecord


def _pair() -> tuple[type, type]:
    def make() -> type:
        @dataclass(frozen=True, slots=True)
        class Sample:
            a: int
            b: str = "x"
            c: list[int] = field(default_factory=list)
            d: int = field(default=3, init=False)
            e: dict[str, int] = field(default_factory=dict, init=False)
            f: int = field(default=9, kw_only=True)

            def __post_init__(self) -> None:
                object.__setattr__(self, "d", self.d + self.a)

        return Sample

    return make(), quick_init(make())


def test_the_quick_init_builds_what_the_dataclass_init_builds() -> None:
    plain, quick = _pair()
    assert inspect.signature(quick.__init__) == inspect.signature(plain.__init__)
    for args, kwargs in [((1,), {}), ((2, "q", [5]), {"f": 4}), ((), {"a": 7, "c": [1]})]:
        made, expected = quick(*args, **kwargs), plain(*args, **kwargs)
        assert dataclasses.asdict(made) == dataclasses.asdict(expected)
    assert quick(1).c is not quick(1).c  # a fresh default per instance
    assert quick(1).d == 4  # __post_init__ ran
    with pytest.raises(TypeError):
        quick(1, 2, 3, 4)  # f is keyword-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick(1).a = 2  # type: ignore[misc]


def test_a_class_it_cannot_reproduce_is_refused() -> None:
    @dataclass(slots=True)
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    for cls in (Mutable, NoSlots):
        with pytest.raises(TypeError, match="frozen, slotted"):
            quick_init(cls)


@pytest.mark.parametrize(
    "cls",
    [
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
    ],
)
def test_the_hot_classes_use_it_and_stay_frozen_values(cls: Any) -> None:
    assert "_set0" in cls.__init__.__globals__  # the descriptor init, not the dataclass's
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
