"""The DBOS adapter's record of marked-step starts (issue 31.10): one upsert per start,
kept in the system database, so a start that never reached its checkpoint is still
there when the job resumes, in this process or another."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("dbos")

from doc_processing_toolkit.adapters.durable.dbos import StepStarts, system_database_url


def test_a_start_without_its_checkpoint_is_counted_once_per_extra_start(tmp_path: Path) -> None:
    url = system_database_url(str(tmp_path / "fleet.sqlite"), "fleet")
    worker = StepStarts.open(url)
    worker.start("job-1", 1, "model:generation")  # answered and checkpointed
    worker.start("job-1", 3, "model:tool_followup")  # in flight when the worker died
    worker.start("job-2", 1, "model:generation")
    assert (worker.unrecorded("job-1"), worker.unrecorded("job-2")) == (0, 0)
    worker.close()

    # The worker starts again (a new process: a new engine on the same file) and resumes
    # job-1: the step in flight starts a second time.
    again = StepStarts.open(url)
    again.start("job-1", 3, "model:tool_followup")
    assert (again.unrecorded("job-1"), again.unrecorded("job-2")) == (1, 0)
    again.start("job-1", 3, "model:tool_followup")  # and a third time, after another crash
    assert again.unrecorded("job-1") == 2
    assert again.unrecorded("never-ran") == 0
    again.close()


def test_a_start_returns_the_steps_starts_so_far(tmp_path: Path) -> None:
    """What lets a job whose every request started for the first time skip the count."""
    url = system_database_url(str(tmp_path / "fleet.sqlite"), "fleet")
    starts = StepStarts.open(url)
    assert starts.start("job-1", 1, "model:generation") == 1
    assert starts.start("job-1", 3, "model:tool_followup") == 1
    assert starts.start("job-1", 3, "model:tool_followup") == 2  # a replay's second start
    assert starts.start("job-2", 3, "model:tool_followup") == 1
    starts.close()
