"""Sessions under hostile conditions: concurrent writers, a full disk, corrupt stores and
envelopes, wrong metadata types, a save killed mid-write (issue 32, items 1 to 4).

Every case fails typed (a class of the tree, naming the file, the session, the row or
the key) and, where a turn was billed, keeps its spend: on ``partial_result`` and in the
session's totals.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import (
    Agent,
    AgentSession,
    InvalidInputError,
    SessionConflictError,
    SessionStoreError,
)
from doc_processing_toolkit.agent.session import MalformedEnvelopeError, SqliteSessionStore
from doc_processing_toolkit.testing import FakeModel, reply

MODEL = "claude-sonnet-5-5"


def _agent(*texts: str, model: str = MODEL) -> tuple[Agent, FakeModel]:
    fake = FakeModel([reply(t) for t in texts])
    return Agent(model, client=fake, log_to_file=False), fake


def _comparable(envelope: dict[str, Any]) -> dict[str, Any]:
    envelope = dict(envelope)
    envelope.pop("saved_at", None)
    return envelope


# ---------------------------------------------------------------- 1. concurrent writers

_WRITER = """
import json, sys, time
from pathlib import Path
from doc_processing_toolkit import Agent, SessionConflictError
from doc_processing_toolkit.agent.session import SqliteSessionStore
from doc_processing_toolkit.testing import FakeModel, reply

db, tag, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
store = SqliteSessionStore(db)
agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("answer " + tag)] * 200),
              log_to_file=False)
deadline = time.monotonic() + 60
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.001)
session = agent.session(session_id="shared", store=store)
done = conflicts = 0
billed = 0.0
while done < 15:
    try:
        session.run_sync(f"turn {done} from {tag}")
        done += 1
    except SessionConflictError as exc:
        conflicts += 1
        assert exc.session_id == "shared" and "shared" in str(exc)
        billed += exc.partial_result.cost
        assert exc.partial_result.cost > 0 and session.interrupted_turn is not None
        session = agent.session(session_id="shared", store=store)  # reload, then resend
print(json.dumps({"done": done, "conflicts": conflicts, "billed": billed}))
"""


def test_two_processes_appending_to_one_session_never_lose_a_turn(tmp_path: Path) -> None:
    db, go = tmp_path / "s.db", tmp_path / "go"
    SqliteSessionStore(db).close()
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(db), tag, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("A", "B")
    ]
    go.touch()
    reports = []
    for proc in writers:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert [r["done"] for r in reports] == [15, 15]
    stored = SqliteSessionStore(db).export("shared")
    # Every successful turn is stored, each pair from one writer, in commit order.
    assert len(stored["messages"]) == 60
    assert stored["metadata"]["run_count"] == 30
    pairs = zip(stored["messages"][::2], stored["messages"][1::2], strict=True)
    per_writer = {"A": 0, "B": 0}
    for user, assistant in pairs:
        tag = user["content"][-1]
        assert user["content"] == f"turn {per_writer[tag]} from {tag}"
        assert assistant["content"][0]["text"] == f"answer {tag}"
        per_writer[tag] += 1
    boundaries = stored["metadata"]["run_boundaries"]
    assert [(b["start"], b["end"]) for b in boundaries] == [(i, i + 2) for i in range(0, 60, 2)]


def test_a_stale_session_raises_conflict_with_the_turns_spend(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    first, _ = _agent("one", "two", "three")
    stale_agent, stale_fake = _agent("stale answer", "retried answer")
    live = first.session(session_id="doc-7", store=SqliteSessionStore(db))
    live.run_sync("hello")
    stale = stale_agent.session(session_id="doc-7", store=SqliteSessionStore(db))
    live.run_sync("second")  # the other writer commits first
    before = (stale.get_history(), stale.run_boundaries, stale.metadata["run_count"])
    with pytest.raises(SessionConflictError, match="'doc-7'") as caught:
        stale.run_sync("from the stale copy")
    error = caught.value
    assert isinstance(error, SessionStoreError) and error.session_id == "doc-7"
    assert error.path == str(db) and (error.expected, error.found) == (2, 4)
    assert error.partial_result.output == "stale answer" and error.partial_result.cost > 0
    assert len(stale_fake.requests) == 1  # the turn really was sent and billed
    # Nothing of the stale turn was written; the stale copy kept its history, banked the
    # spend and names the message to resend.
    assert (stale.get_history(), stale.run_boundaries, stale.metadata["run_count"]) == before
    assert stale.metadata["total_cost"] == pytest.approx(
        live.metadata["total_cost"] / 2 + error.partial_result.cost
    )
    assert stale.interrupted_turn["message"] == "from the stale copy"  # type: ignore[index]
    stored = SqliteSessionStore(db).export("doc-7")
    assert len(stored["messages"]) == 4 and stored["metadata"]["run_count"] == 2
    # Reload and retry (what docs/guide/sessions.md says to do).
    again = stale_agent.session(session_id="doc-7", store=SqliteSessionStore(db))
    again.run_sync("from the stale copy")
    assert len(SqliteSessionStore(db).export("doc-7")["messages"]) == 6


def test_a_cut_and_regrowth_by_another_writer_is_still_a_conflict(tmp_path: Path) -> None:
    """Same message count, different history: the store's revision tells them apart."""
    db = tmp_path / "s.db"
    agent_a, _ = _agent("one", "two", "three")
    agent_b, _ = _agent("b-one", "b-two")
    a = agent_a.session(session_id="k", store=SqliteSessionStore(db))
    a.run_sync("first")
    b = agent_b.session(session_id="k", store=SqliteSessionStore(db))
    a.truncate_to(0)
    a.run_sync("replacement")  # the store holds 2 messages again, but other ones
    with pytest.raises(SessionConflictError):
        b.truncate_to(0)
    with pytest.raises(SessionConflictError):
        b.run_sync("b's turn")
    assert SqliteSessionStore(db).export("k")["messages"][0]["content"] == "replacement"


def test_a_store_written_before_revisions_is_upgraded_and_checked(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    envelope = _envelope()
    envelope["session_id"] = "old"
    messages = envelope.pop("messages")
    with sqlite3.connect(db) as con:  # the schema this store had before the check
        con.executescript(
            "CREATE TABLE sessions (session_id TEXT PRIMARY KEY, header TEXT NOT NULL, "
            "message_count INTEGER NOT NULL);"
            "CREATE TABLE messages (session_id TEXT NOT NULL, position INTEGER NOT NULL, "
            "body TEXT NOT NULL, PRIMARY KEY (session_id, position));"
        )
        con.execute("INSERT INTO sessions VALUES ('old', ?, 2)", (json.dumps(envelope),))
        con.executemany(
            "INSERT INTO messages VALUES ('old', ?, ?)",
            [(n, json.dumps(m)) for n, m in enumerate(messages)],
        )
    agent, _ = _agent("three", "four")
    first = agent.session(session_id="old", store=SqliteSessionStore(db))
    second = agent.session(session_id="old", store=SqliteSessionStore(db))
    first.run_sync("next")
    with pytest.raises(SessionConflictError):
        second.run_sync("also next")
    assert len(SqliteSessionStore(db).export("old")["messages"]) == 4


def test_export_does_not_vouch_for_a_stale_session(tmp_path: Path) -> None:
    """Reading the store for a report is not the session reloading it."""
    store = SqliteSessionStore(tmp_path / "s.db")
    agent, _ = _agent("one", "two", "three")
    stale = agent.session(session_id="k", store=store)
    other = agent.session(session_id="k", store=SqliteSessionStore(tmp_path / "s.db"))
    other.run_sync("first")
    other.truncate_to(0)  # the store is back to 0 messages, at a newer revision
    store.export("k")
    with pytest.raises(SessionConflictError):
        stale.run_sync("stale turn")


# ---------------------------------------------------------------- 2. a full disk


class _SmallDisk(SqliteSessionStore):
    """SQLite's own size cap (PRAGMA max_page_count): writes past it fail with SQLITE_FULL,
    exactly as on a full disk."""

    def cap(self, pages: int | None) -> None:
        if pages is None:
            pages = 1_073_741_823
        else:
            pages += int(self._db.execute("PRAGMA page_count").fetchone()[0])
        self._db.execute(f"PRAGMA max_page_count={pages}")


def test_a_turn_whose_save_hits_a_full_disk_keeps_its_spend(tmp_path: Path) -> None:
    store = _SmallDisk(tmp_path / "s.db")
    agent, fake = _agent("x" * 20_000, "y" * 20_000, "after")
    session = agent.session(session_id="k", store=store)
    session.run_sync("first")
    store.cap(2)
    with pytest.raises(SessionStoreError, match="full") as caught:
        session.run_sync("second")
    error = caught.value
    assert not isinstance(error, SessionConflictError) and str(store.path) in str(error)
    assert error.session_id == "k" and "'k'" in str(error)
    assert error.partial_result.output == "y" * 20_000 and error.partial_result.cost > 0
    assert len(fake.requests) == 2
    # Memory and disk hold the same history; the failed save's spend is banked like a
    # failed turn's, and named for a resend.
    on_disk = store.export("k")
    assert on_disk["messages"] == session.messages
    assert on_disk["metadata"]["run_boundaries"] == session.run_boundaries
    assert on_disk["metadata"]["run_count"] == session.metadata["run_count"] == 1
    assert session.metadata["total_cost"] == pytest.approx(
        on_disk["metadata"]["total_cost"] + error.partial_result.cost
    )
    assert session.interrupted_turn["message"] == "second"  # type: ignore[index]
    # Space comes back: the next turn runs and stores everything, the banked spend too.
    store.cap(None)
    session.run_sync("third")
    assert _comparable(store.export("k")) == _comparable(session.to_dict())
    assert len(session.messages) == 4


def test_a_cut_the_store_refuses_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    agent, _ = _agent("one", "two", "three")
    session = agent.session(session_id="k", store=SqliteSessionStore(db))
    session.run_sync("first")
    other = agent.session(session_id="k", store=SqliteSessionStore(db))
    other.run_sync("second")
    metadata = session.metadata
    before = (session.get_history(), session.run_boundaries, dict(metadata))
    with pytest.raises(SessionConflictError):
        session.clear()
    with pytest.raises(SessionConflictError):
        session.truncate_to(0)
    assert (session.get_history(), session.run_boundaries, dict(metadata)) == before
    assert session.metadata is metadata
    assert len(SqliteSessionStore(db).export("k")["messages"]) == 4


@pytest.mark.anyio
async def test_a_streamed_turn_whose_save_fails_raises_typed_with_its_spend(
    tmp_path: Path,
) -> None:
    store = _SmallDisk(tmp_path / "s.db")
    agent, _ = _agent("x" * 20_000, "y" * 20_000)
    session = agent.session(session_id="k", store=store)
    await session.run("first")
    store.cap(2)
    events: list[str] = []
    with pytest.raises(SessionStoreError) as caught:
        async for event in session.stream("second"):
            events.append(event.event_type)
    assert caught.value.partial_result.cost > 0 and "complete" not in events
    assert store.export("k")["messages"] == session.messages
    assert session.metadata["total_cost"] > store.export("k")["metadata"]["total_cost"]


_TMPFS_CHILD = """
import json, subprocess, sys
from doc_processing_toolkit import Agent, SessionStoreError
from doc_processing_toolkit.agent.session import SqliteSessionStore
from doc_processing_toolkit.testing import FakeModel, reply
disk = sys.argv[1]
store = SqliteSessionStore(disk + "/s.db")
agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("x" * 30_000)] * 100),
              log_to_file=False)
session = agent.session(session_id="k", store=store)
report = {"turns": 0}
for n in range(100):
    try:
        session.run_sync("turn %d " % n + "y" * 30_000)
        report["turns"] += 1
    except SessionStoreError as exc:
        report.update(error=str(exc), cost=exc.partial_result.cost)
        break
on_disk = SqliteSessionStore(disk + "/s.db").export("k")
report["same"] = on_disk["messages"] == session.messages
subprocess.run(["mount", "-o", "remount,size=16m", disk], check=True)
session.run_sync("after")
report["after"] = len(SqliteSessionStore(disk + "/s.db").export("k")["messages"])
report["live"] = len(session.messages)
print(json.dumps(report))
"""


def test_a_real_full_filesystem_fails_typed_and_recovers(tmp_path: Path) -> None:
    """A tmpfs of 512 KiB in a private mount namespace (skipped where none can be made)."""
    unshare = shutil.which("unshare")
    if unshare is None or not sys.platform.startswith("linux"):
        pytest.skip("needs unshare(1) on Linux")
    disk = tmp_path / "disk"
    disk.mkdir()
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    probe = subprocess.run(
        [unshare, *flags, "mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(disk)],
        capture_output=True,
        timeout=30,
    )
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.decode(errors='replace')}")
    script = f'mount -t tmpfs -o size=512k tmpfs {disk} && exec {sys.executable} -c "$0" {disk}'
    out = subprocess.run(
        [unshare, *flags, "sh", "-c", script, _TMPFS_CHILD],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["turns"] >= 1 and "full" in report["error"] and str(disk) in report["error"]
    assert report["cost"] > 0 and report["same"]
    assert report["after"] == report["live"] == 2 * (report["turns"] + 1)


# ---------------------------------------------------------------- 3. corrupt stores, files


def _store_with_turns(db: Path, turns: int = 3) -> None:
    agent, _ = _agent(*(["z" * 3000] * turns))
    session = agent.session(session_id="k", store=SqliteSessionStore(db))
    for n in range(turns):
        session.run_sync(f"turn {n} " + "q" * 3000)


def test_a_garbage_or_truncated_store_file_is_a_typed_error_naming_it(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database\n" * 200)
    with pytest.raises(SessionStoreError, match=r"garbage\.db") as caught:
        SqliteSessionStore(garbage)
    assert caught.value.path == str(garbage)
    with pytest.raises(SessionStoreError, match=re.escape(str(garbage))):
        SqliteSessionStore(garbage / "under-a-file.db")  # its parent is a regular file
    with pytest.raises(SessionStoreError, match=re.escape(str(tmp_path))):
        SqliteSessionStore(tmp_path)  # a directory
    half = tmp_path / "half.db"
    _store_with_turns(half, turns=8)
    with sqlite3.connect(half) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with open(half, "r+b") as handle:
        handle.truncate(half.stat().st_size // 2)
    _, fake = _agent("never")
    with pytest.raises(SessionStoreError, match=r"half\.db"):
        Agent(MODEL, client=fake, log_to_file=False).session(
            session_id="k", store=SqliteSessionStore(half)
        )
    assert fake.requests == []


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('{"role": "user", "content": ', "not JSON"),
        ("[" * 200_000 + "]" * 200_000, "nested"),
        ('{"role": "user", "content": ' + "7" * 5000 + "}", "refuse"),
        ('{"role": "user", "content": NaN}', "not a JSON number"),
    ],
    ids=["truncated-json", "deep", "5000-digits", "nan"],
)
def test_a_tampered_store_row_names_the_file_the_session_and_the_row(
    tmp_path: Path, body: str, problem: str
) -> None:
    db = tmp_path / "s.db"
    _store_with_turns(db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE messages SET body = ? WHERE position = 3", (body,))
    agent, fake = _agent("never")
    with pytest.raises(MalformedEnvelopeError, match=problem) as caught:
        agent.session(session_id="k", store=SqliteSessionStore(db))
    message = str(caught.value)
    assert str(db) in message and "'k'" in message
    assert caught.value.key.startswith("messages.3")
    assert fake.requests == []


def test_a_tampered_store_header_names_the_file(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _store_with_turns(db)
    with sqlite3.connect(db) as con:
        header = json.loads(con.execute("SELECT header FROM sessions").fetchone()[0])
        header["metadata"]["total_cost"] = "abc"
        con.execute("UPDATE sessions SET header = ?", (json.dumps(header),))
    agent, fake = _agent("never")
    with pytest.raises(MalformedEnvelopeError, match=r"metadata\.total_cost") as caught:
        agent.session(session_id="k", store=SqliteSessionStore(db))
    assert str(db) in str(caught.value) and fake.requests == []


def _envelope() -> dict[str, Any]:
    agent, _ = _agent("hello there")
    session = agent.session(session_id="env")
    session.run_sync("hi")
    return session.to_dict()


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"[" * 200_000 + b"]" * 200_000, "nested"),
        (b'{"session_id": "s", "metadata": {"total_tokens": ' + b"9" * 5000 + b"}}", "refuse"),
        (b'{"session_id": "caf\xe9"}', "not UTF-8"),
        (b'{"session_id": "s"', "not JSON"),
        (b"[1, 2]", "object"),
    ],
    ids=["deep", "5000-digits", "bad-utf8", "truncated", "not-object"],
)
def test_a_hostile_envelope_file_is_a_typed_error_naming_the_file(
    tmp_path: Path, raw: bytes, problem: str
) -> None:
    path = tmp_path / "hostile.json"
    path.write_bytes(raw)
    agent, fake = _agent("never")
    with pytest.raises(MalformedEnvelopeError, match=problem) as caught:
        AgentSession.from_json(path, agent=agent)
    assert str(path) in str(caught.value) and fake.requests == []
    with pytest.raises(MalformedEnvelopeError, match=problem):
        AgentSession.from_json(raw, agent=agent)


def test_a_deep_or_huge_envelope_dict_is_refused_naming_the_key() -> None:
    agent, fake = _agent("never")
    deep: Any = "leaf"
    for _ in range(200_000):
        deep = {"d": deep}
    envelope = _envelope()
    envelope["metadata"]["extra"] = deep
    with pytest.raises(MalformedEnvelopeError, match="nested") as caught:
        AgentSession.from_dict(envelope, agent)
    assert caught.value.key.startswith("metadata.extra.d.d")
    envelope = _envelope()
    envelope["messages"][0]["content"] = [{"type": "text", "text": "x", "n": 10**5000}]
    with pytest.raises(MalformedEnvelopeError) as caught:
        AgentSession.from_dict(envelope, agent)
    assert caught.value.key == "messages.0.content.0.n" and fake.requests == []


def test_to_json_under_a_regular_file_or_from_a_directory_is_typed(tmp_path: Path) -> None:
    agent, _ = _agent("hello")
    session = agent.session()
    session.run_sync("hi")
    blocker = tmp_path / "blocker"
    blocker.write_text("a regular file")
    target = blocker / "sub" / "s.json"
    with pytest.raises(SessionStoreError, match="blocker") as caught:
        session.to_json(path=target)
    assert caught.value.path == str(target)
    with pytest.raises(SessionStoreError, match=re.escape(str(tmp_path))):
        AgentSession.from_json(tmp_path, agent=agent)


# ---------------------------------------------------------------- 4. metadata, messages


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("total_cost", "abc"),
        ("total_tokens", None),
        ("run_count", "x"),
        ("compaction_count", {}),
        ("total_input_tokens", -1),
        ("total_output_tokens", True),
        ("total_retry_cost", [1]),
        ("created_at", 5),
        ("pending_injections", ["ok", 3]),
        ("served_models", ["not a record"]),
        ("interrupted_turn", "yesterday"),
        ("total_cost", math.nan),
        ("total_cost", math.inf),
    ],
)
def test_wrong_metadata_types_are_refused_at_load(key: str, value: Any) -> None:
    envelope = _envelope()
    envelope["metadata"][key] = value
    agent, fake = _agent("never")
    with pytest.raises(MalformedEnvelopeError, match=re.escape(f"metadata.{key}")):
        AgentSession.from_dict(envelope, agent)
    assert fake.requests == []


@pytest.mark.parametrize("literal", ["NaN", "1e400", "-Infinity"])
def test_non_finite_totals_in_json_are_refused(literal: str) -> None:
    text = json.dumps(_envelope()).replace('"total_cost": ', f'"total_cost": {literal}, "x": ', 1)
    agent, _ = _agent("never")
    with pytest.raises(MalformedEnvelopeError, match=r"metadata\.total_cost"):
        AgentSession.from_json(text, agent=agent)


def test_to_json_never_writes_bare_nan(tmp_path: Path) -> None:
    agent, _ = _agent("hello")
    session = agent.session()
    session.run_sync("hi")
    text = session.to_json()

    def refuse(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name}")

    json.loads(text, parse_constant=refuse)
    session.metadata["total_cost"] = math.nan  # a live session a host corrupted
    with pytest.raises(InvalidInputError, match="strict JSON"):
        session.to_json(path=tmp_path / "s.json")
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(
    "model",
    [
        "claude-sonnet-5-5",
        "gpt-5",
        "gemini-2.5-flash",
        "accounts/fireworks/models/kimi-k3",
    ],
)
@pytest.mark.parametrize(
    "bad",
    [{"role": "user", "content": 5}, {"role": "wizard", "content": "x"}],
    ids=["content", "role"],
)
def test_a_malformed_message_is_refused_at_load_not_after_billing(
    model: str, bad: dict[str, Any]
) -> None:
    agent, _ = _agent("hello", model=model)
    session = agent.session()
    session.run_sync("hi")
    envelope = session.to_dict()
    envelope["messages"].append(bad)
    target, fake = _agent("never", model=model)
    with pytest.raises(MalformedEnvelopeError) as caught:
        AgentSession.from_dict(envelope, target)
    assert caught.value.key == "messages.2" and fake.requests == []


def test_a_malformed_history_config_is_refused_at_load() -> None:
    envelope = _envelope()
    envelope["session_history_config"] = {"mode": "everything"}
    agent, _ = _agent("never")
    with pytest.raises(MalformedEnvelopeError, match="session_history_config"):
        AgentSession.from_dict(envelope, agent)


# ---------------------------------------------------------------- 4. a save killed mid-write

_SAVER = """
import os, sys
from doc_processing_toolkit import Agent, AgentSession
from doc_processing_toolkit.testing import FakeModel
seed, path = sys.argv[1], sys.argv[2]
session = AgentSession.from_json(seed, agent=Agent("claude-sonnet-5-5", client=FakeModel([]),
                                                  log_to_file=False))
for line in sys.stdin:  # one round per line: a child that saves until it is killed
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        session.to_json(path=path)
        os.write(ready_w, b"x")  # one whole save done (it swept what earlier kills left)
        while True:
            session.to_json(path=path)
    os.close(ready_w)
    os.read(ready_r, 1)
    os.close(ready_r)
    print(pid, flush=True)
    os.waitpid(pid, 0)
    print("reaped", flush=True)
"""


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a saver per round")
def test_a_save_killed_mid_write_leaves_no_temp_file(tmp_path: Path) -> None:
    """30 savers killed at whatever point of a 600 KB save they reached. The bytes go to an
    unnamed file that gets a name only in the instant before the rename, and a name a kill
    strands there is removed by the next save to the path: so at most the killed save's
    own file can remain, and none once anything saves again."""
    seed = tmp_path / "seed" / "seed.json"
    agent, _ = _agent("x" * 300_000)
    session = agent.session()
    session.run_sync("y" * 300_000)
    session.to_json(path=seed)
    saves = tmp_path / "saves"
    saves.mkdir()
    path = saves / "s.json"
    saver = subprocess.Popen(
        [sys.executable, "-c", _SAVER, str(seed), str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert saver.stdin is not None and saver.stdout is not None
    try:
        for attempt in range(30):
            saver.stdin.write("go\n")
            saver.stdin.flush()
            pid = int(saver.stdout.readline())
            time.sleep((attempt % 10) * 0.015)  # vary where in a save cycle the kill lands
            os.kill(pid, signal.SIGKILL)
            assert saver.stdout.readline().strip() == "reaped"
            assert len(_temps(saves)) <= 1, _temps(saves)
            restored = AgentSession.from_json(path, agent=_agent()[0])  # the last good one
            assert len(restored.messages) == 2
    finally:
        saver.stdin.close()
        saver.wait(timeout=30)
    session.to_json(path=path)
    assert _temps(saves) == []
