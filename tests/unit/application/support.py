"""What several application tests share: one model row, an ``add`` tool and an Agent that
has it, over a FakeModel."""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import FakeModel

MODEL = "claude-sonnet-5-5"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


def agent_with_add(fake: FakeModel, **kwargs: Any) -> Agent:
    return Agent(MODEL, tools=[add], client=fake, log_to_file=False, **kwargs)
