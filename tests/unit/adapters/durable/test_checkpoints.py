"""The fleet's own step checkpoints (issue 41): one table beside DBOS's, a job's rows read
once per execution, a step's outcome written when it completes, the first outcome kept
when two executions of one job race. Real SQLite (and Postgres with
``DPT_TEST_POSTGRES_URL``); each "execution" is an `OwnSteps` over the rows loaded from
the table, as a resumed job gets them, and a new store is a new process."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit.adapters.durable.checkpoints import (
    STEPS_TABLE,
    CheckpointStore,
    OwnSteps,
)
from doc_processing_toolkit.adapters.durable.dbos import system_database_url
from doc_processing_toolkit.domain.errors import BadRequestError, StateError


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield system_database_url(str(tmp_path / "fleet.sqlite"), "fleet")
        return
    pg = os.environ.get("DPT_TEST_POSTGRES_URL")
    if not pg:
        pytest.skip("DPT_TEST_POSTGRES_URL is not set")
    yield system_database_url(pg, "fleet")


@pytest.fixture
def job() -> str:
    return f"job-{uuid.uuid4().hex[:8]}"  # a fresh job on a shared Postgres too


async def _no_permit(lane: str) -> None:
    raise AssertionError(f"no lane here: {lane}")


def execution(store: CheckpointStore, job: str) -> OwnSteps:
    """One execution of ``job``: its checkpoints loaded in one query, as a workflow starts."""
    return OwnSteps(store, job, store.call_sync(store.load, job), _no_permit)


class Calls:
    """A step body that counts its runs and returns (or raises) what it is given."""

    def __init__(self, result: Any = None, error: BaseException | None = None) -> None:
        self.runs = 0
        self.result, self.error = result, error

    async def __call__(self) -> Any:
        self.runs += 1
        if self.error is not None:
            raise self.error
        return self.result


def test_a_completed_step_is_replayed_from_its_checkpoint_in_a_new_process(
    url: str, job: str
) -> None:
    async def first(store: CheckpointStore) -> list[Any]:
        steps = execution(store, job)
        return [
            await steps.marked_step("model:generation", Calls({"answer": 1})),
            await steps.step("tool:lookup#abc", Calls(("total", 42))),
        ]

    store = CheckpointStore(url)
    assert store.call_sync(store.load, job) == {}  # a fresh job: no row
    assert asyncio.run(first(store)) == [{"answer": 1}, ("total", 42)]
    store.close()

    again = CheckpointStore(url)  # the worker restarted
    model, tool, followup = Calls("not again"), Calls("not again"), Calls("new")

    async def replay() -> list[Any]:
        steps = execution(again, job)
        out = [
            await steps.marked_step("model:generation", model),
            await steps.step("tool:lookup#abc", tool),
            await steps.marked_step("model:tool_followup", followup),
        ]
        out.append(await steps.unrecorded_starts())
        return out

    assert asyncio.run(replay()) == [{"answer": 1}, ("total", 42), "new", 0]
    assert (model.runs, tool.runs, followup.runs) == (0, 0, 1)
    rows = again.call_sync(again.load, job)
    assert [(n, r.name, r.starts, r.failed) for n, r in sorted(rows.items())] == [
        (0, "model:generation", 1, False),
        (1, "tool:lookup#abc", 0, False),
        (2, "model:tool_followup", 1, False),
    ]
    again.close()


def test_a_checkpointed_exception_is_raised_again_on_replay(url: str, job: str) -> None:
    store = CheckpointStore(url)
    refused = Calls(error=BadRequestError("bad document", provider="anthropic", status_code=400))

    async def run(body: Calls) -> None:
        await execution(store, job).marked_step("model:generation", body)

    with pytest.raises(BadRequestError, match="bad document"):
        asyncio.run(run(refused))
    again = Calls("would succeed now")
    with pytest.raises(BadRequestError, match="bad document") as replayed:
        asyncio.run(run(again))
    assert again.runs == 0 and replayed.value.status_code == 400
    store.close()


def test_a_step_replayed_under_another_name_fails_naming_the_job_the_step_and_both_names(
    url: str, job: str
) -> None:
    store = CheckpointStore(url)

    async def run(first_tool: str) -> None:
        steps = execution(store, job)
        await steps.marked_step("model:generation", Calls("answer"))
        await steps.step(first_tool, Calls("ok"))

    asyncio.run(run("tool:lookup#aaa"))
    with pytest.raises(StateError) as failed:
        asyncio.run(run("tool:lookup#bbb"))  # the round's calls came in another order
    message = str(failed.value)
    assert job in message and "step 1" in message
    assert "'tool:lookup#bbb'" in message and "'tool:lookup#aaa'" in message
    store.close()


def test_racing_executions_keep_the_first_outcome_written(url: str, job: str) -> None:
    """A worker declared dead that was not: two executions of one job, both loaded with
    no checkpoint, run the same steps; the first outcome written wins and both go on
    with it."""
    store = CheckpointStore(url)

    async def race() -> tuple[list[Any], list[Any], Calls]:
        alive, resumed = execution(store, job), execution(store, job)
        first = [await alive.step("tool:lookup#abc", Calls("alive's result"))]
        second = [await resumed.step("tool:lookup#abc", Calls("resumed's result"))]
        # A model request: the resumed execution starts it before the other checkpoints
        # it, then both finish; the later one gets the first one's answer.
        started = Calls("resumed's answer")
        entered, body = asyncio.Event(), asyncio.Event()

        async def slow() -> str:
            entered.set()  # its start is recorded: the request is out
            await body.wait()
            return "alive's answer"

        task = asyncio.create_task(alive.marked_step("model:tool_followup", slow))
        await entered.wait()
        second.append(await resumed.marked_step("model:tool_followup", started))
        body.set()
        first.append(await task)
        # A third execution starting after both: the step's outcome, no run.
        late = execution(store, job)
        await late.step("tool:lookup#abc", Calls("x"))
        third = Calls("late's answer")
        first.append(await late.marked_step("model:tool_followup", third))
        return first, second, third

    first, second, third = asyncio.run(asyncio.wait_for(race(), timeout=60))
    assert first == ["alive's result", "resumed's answer", "resumed's answer"]
    assert second == ["alive's result", "resumed's answer"]
    assert third.runs == 0
    row = store.call_sync(store.load, job)[1]
    assert row.starts == 2  # both executions started it: one start went unrecorded
    store.close()


def test_a_cancelled_step_is_not_checkpointed_and_its_start_is_counted(url: str, job: str) -> None:
    """The worker stops with a request in flight (a cancellation): no outcome is stored,
    the next execution sends it again, and the job counts one start without a checkpoint."""
    store = CheckpointStore(url)

    async def stopped() -> None:
        await execution(store, job).marked_step(
            "model:generation", Calls(error=asyncio.CancelledError())
        )

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(stopped())
    (row,) = store.call_sync(store.load, job).values()
    assert row.outcome is None and row.starts == 1

    again = Calls("answer")

    async def resumed() -> tuple[Any, int]:
        steps = execution(store, job)
        return await steps.marked_step("model:generation", again), await steps.unrecorded_starts()

    assert asyncio.run(resumed()) == ("answer", 1)
    assert again.runs == 1
    store.close()


def test_a_fresh_job_counts_no_unrecorded_start_without_a_query(tmp_path: Path) -> None:
    url = system_database_url(str(tmp_path / "fleet.sqlite"), "fleet")
    store = CheckpointStore(url)

    async def run() -> int:
        steps = execution(store, "job-1")
        await steps.marked_step("model:generation", Calls("a"))
        await steps.marked_step("model:tool_followup", Calls("b"))
        store.close()  # a query now would fail: the fast path makes none
        return await steps.unrecorded_starts()

    assert asyncio.run(run()) == 0
    with pytest.raises(StateError, match="closed"):
        store.call_sync(store.load, "job-1")


def test_checkpoints_live_in_the_system_database_with_completion_times(tmp_path: Path) -> None:
    path = tmp_path / "fleet.sqlite"
    store = CheckpointStore(system_database_url(str(path), "fleet"))

    async def run() -> None:
        await execution(store, "job-1").step("tool:lookup#abc", Calls(b"x" * 10))

    asyncio.run(run())
    store.close()
    with sqlite3.connect(path) as db:
        journal = db.execute("PRAGMA journal_mode").fetchone()[0]
        started, done = db.execute(f"SELECT started_at, done_at FROM {STEPS_TABLE}").fetchone()
    assert journal == "wal" and started <= done
