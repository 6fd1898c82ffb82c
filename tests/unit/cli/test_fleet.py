"""``dpt fleet status`` says how many requests may have been billed without being
recorded (issue 31.10), and says nothing of it when there are none."""

from __future__ import annotations

from doc_processing_toolkit.cli.fleet import _summary
from doc_processing_toolkit.domain.fleet import FleetStatus


def test_the_summary_names_the_unrecorded_requests_only_when_there_are_some() -> None:
    assert "billed without being recorded" not in _summary(FleetStatus(done=3, spend=0.1))
    one = _summary(FleetStatus(done=3, spend=0.1, unrecorded_requests=1))
    assert one.splitlines()[1].startswith("1 request may have been billed without being recorded")
    two = _summary(FleetStatus(done=3, spend=0.1, unrecorded_requests=2))
    assert two.splitlines()[1].startswith("2 requests may have been billed without being recorded")
