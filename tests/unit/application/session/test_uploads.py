"""Expired Files API URIs after a restore, with an in-process Files API fake: a failed
re-upload changes nothing and is retried; the per-turn store receives the refreshed history."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.agent.session import AgentSession, SqliteSessionStore
from doc_processing_toolkit.ports.remote_media import RemoteMediaFiles
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply

MODEL = "gemini-2.5-flash"
DEAD = "https://generativelanguage.googleapis.com/v1beta/files/dead01"
PDF = b"%PDF clause 4"


class FilesFake(FakeModel):
    """FakeModel plus a Files API that has forgotten every file but the ones it uploaded."""

    def __init__(self, steps: list[Any], *, fail_uploads: int = 0) -> None:
        super().__init__(steps)
        self.fail_uploads = fail_uploads
        self.uploaded: list[str] = []

    async def media_file_alive(self, uri: str) -> bool:
        return uri in self.uploaded

    async def reupload_media(self, data: bytes, mime_type: str) -> str:
        if self.fail_uploads:
            self.fail_uploads -= 1
            raise ConnectionError("upload refused")
        uri = f"https://generativelanguage.googleapis.com/v1beta/files/new{len(self.uploaded)}"
        self.uploaded.append(uri)
        return uri


def _envelope() -> dict[str, Any]:
    session = Agent(MODEL, client=FakeModel([])).session(session_id="s1")
    part = {"file_data": {"file_uri": DEAD, "mime_type": "application/pdf"}}
    session.messages = [
        {"role": "user", "parts": [part, {"text": "Read."}]},
        {"role": "model", "parts": [{"text": "Done."}]},
    ]
    envelope = session.to_dict()
    data = base64.b64encode(PDF).decode("ascii")
    envelope["media"][DEAD] = {"kind": "google_upload", "uri": DEAD, "data": data}
    return envelope


def test_the_fake_is_a_files_api() -> None:
    assert isinstance(FilesFake([]), RemoteMediaFiles)
    assert not isinstance(FakeModel([]), RemoteMediaFiles)


def test_a_failed_reupload_changes_nothing_and_the_next_turn_retries() -> None:
    fake = FilesFake([reply("30 days.")], fail_uploads=1)
    restored = AgentSession.from_dict(_envelope(), Agent(MODEL, client=fake))
    before = json.dumps(restored.messages)
    with pytest.raises(ConnectionError):
        restored.run_sync("Clause 4?")
    assert json.dumps(restored.messages) == before and restored.media_report == []
    assert fake.requests == []  # the turn never started
    restored.run_sync("Clause 4?")
    assert [e["reason"] for e in restored.media_report] == ["expired_reuploaded"]
    assert fake.uploaded[0] in json.dumps(restored.messages)


def test_the_store_holds_the_refreshed_history(tmp_path: Path) -> None:
    store = SqliteSessionStore(tmp_path / "s.db")
    first = AgentSession.from_dict(_envelope(), Agent(MODEL, client=FakeModel([])))
    store.append("s1", 0, first.messages, first._store_header())
    fake = FilesFake([reply("30 days.")])
    session = Agent(MODEL, client=fake).session(session_id="s1", store=store)
    session.run_sync("Clause 4?")
    exported = json.dumps(store.export("s1")["messages"])
    assert fake.uploaded[0] in exported and DEAD not in exported
    assert len(store.export("s1")["messages"]) == 4
