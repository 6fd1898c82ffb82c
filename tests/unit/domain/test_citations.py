"""Citation markers: strip_citation_markers and Agent(remove_citations=...)."""

from __future__ import annotations

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.domain.citations import strip_citation_markers
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The sky is blue【4:0†source】.", "The sky is blue."),
        (
            "Paris is the capital ([wikipedia.org](https://en.wikipedia.org/wiki/Paris)).",
            "Paris is the capital.",
        ),
        ("Rates rose [1][2]. Costs fell.[3, 4]", "Rates rose. Costs fell."),
        ('<cite index="0-1">Revenue grew 5%</cite> in Q3.', "Revenue grew 5% in Q3."),
        (
            "Use `items[0]` or a [link](https://x.org).",
            "Use `items[0]` or a [link](https://x.org).",
        ),
        ("```\nx = a[1]\n```", "```\nx = a[1]\n```"),
        ("plain text", "plain text"),
    ],
)
def test_strip_citation_markers(text: str, expected: str) -> None:
    assert strip_citation_markers(text) == expected


def test_remove_citations_strips_the_output_and_keeps_the_history() -> None:
    answer = "Paris is the capital【3:1†source】 of France [1]."
    fake = FakeModel([reply(answer)])
    result = Agent("claude-sonnet-5-5", client=fake, remove_citations=True).run_sync("Capital?")
    assert result.output == "Paris is the capital of France."
    # The provider-native history keeps what the provider returned.
    assert answer in str(result.messages[-1])
    plain = Agent("claude-sonnet-5-5", client=FakeModel([reply(answer)])).run_sync("Capital?")
    assert plain.output == answer
