"""Issue 9: a Gemini session whose Files API upload expired re-uploads on restore.

The session keeps the bytes of a part it sent by upload (inline in the stored history,
or in the media store under ``media_policy="externalize"``), never only the 48-hour URI;
a restore in a fresh process, after the provider forgot the file, uploads the same bytes
again and the next request names the new URI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, AgentSession
from doc_processing_toolkit.adapters.providers.google import files as google_files
from doc_processing_toolkit.adapters.registry.json_file import JsonFileRegistry
from doc_processing_toolkit.agent.media_policy import DirectoryMediaStore
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import reply

MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"v" * 6_000

_FLASH = JsonFileRegistry().row("gemini-2.5-flash")
assert _FLASH is not None
# A small inline limit (the row's max_inline_bytes) stands in for the 20 MB one, so a
# 6 KB part goes by upload.
SMALL_INLINE_ROW = _FLASH.model_copy(update={"max_inline_bytes": 1_000})


@pytest.fixture
def emulator() -> Iterator[ProviderEmulator]:
    google_files.clear_upload_cache()
    with ProviderEmulator() as emu:
        yield emu
    google_files.clear_upload_cache()


def _agent(emulator: ProviderEmulator, **kwargs: Any) -> Agent:
    return Agent(
        "gemini-2.5-flash",
        api_key="offline-test-key",
        base_url=emulator.google_base_url,
        log_to_file=False,
        registry=[SMALL_INLINE_ROW],
        **kwargs,
    )


def _file_uris(body: dict[str, Any]) -> list[str]:
    uris = []
    for content in body["contents"]:
        for part in content["parts"]:
            data = part.get("file_data") or part.get("fileData")
            if data:
                uris.append(data.get("file_uri") or data.get("fileUri"))
    return uris


@pytest.mark.parametrize("policy", ["auto", "externalize"])
def test_restore_after_the_upload_expired_uploads_the_kept_bytes_again(
    emulator: ProviderEmulator, tmp_path: Path, policy: str
) -> None:
    store = DirectoryMediaStore(tmp_path / "media")
    kwargs: dict[str, Any] = {"media_policy": policy}
    if policy == "externalize":
        kwargs["media_store"] = store
    emulator.reset([reply("a short clip"), reply("still a short clip")])
    session = _agent(emulator, **kwargs).session()
    first = session.run_sync("What is this?", files=[MP4])
    [record] = first.media_uploads
    path = tmp_path / "session.json"
    session.to_json(path=path)
    saved = path.read_text()
    if policy == "externalize":
        assert "mp42isom" not in json.dumps(json.loads(saved))  # the bytes live in the store
        assert any((tmp_path / "media").iterdir())

    # A fresh process, two days later: no upload cache, and the provider forgot the file.
    google_files.clear_upload_cache()
    emulator.files.clear()
    restored = AgentSession.from_json(path, agent=_agent(emulator, **kwargs))
    restored.run_sync("And now?")

    [again] = emulator.files.uploaded
    assert again.data == MP4
    last = [r for r in emulator.requests if r.dialect != "google_files"][-1]
    uris = _file_uris(last.body)
    assert uris == [f"{record['uri'].rsplit('/', 1)[0]}/{again.name.split('/')[-1]}"]
    assert record["uri"] not in uris  # the expired URI is never sent again
    assert restored.dropped_parts == []  # the video is kept, not dropped as unsupported


@pytest.mark.parametrize("policy", ["auto", "externalize"])
def test_a_file_streamed_from_disk_saves_its_reference_and_restores_from_the_file(
    emulator: ProviderEmulator, tmp_path: Path, policy: str
) -> None:
    """A path over the inline limit is uploaded from disk (never held); the session keeps
    the uploaded file's reference and, once it expired, uploads the file again."""
    video = tmp_path / "clip.mp4"
    video.write_bytes(MP4)
    kwargs: dict[str, Any] = {"media_policy": policy}
    if policy == "externalize":
        kwargs["media_store"] = DirectoryMediaStore(tmp_path / "media")
    emulator.reset([reply("a short clip"), reply("still a short clip")])
    session = _agent(emulator, **kwargs).session()
    first = session.run_sync("What is this?", files=[video])
    [record] = first.media_uploads
    assert record["path"] == str(video.resolve()) and record["size"] == len(MP4)
    [sent] = emulator.files.uploaded
    assert sent.data == MP4
    # The history names the uploaded file; it does not carry the bytes.
    assert _file_uris({"contents": first.messages}) == [record["uri"]]
    path = tmp_path / "session.json"
    session.to_json(path=path)

    google_files.clear_upload_cache()
    emulator.files.clear()
    restored = AgentSession.from_json(path, agent=_agent(emulator, **kwargs))
    restored.run_sync("And now?")

    [again] = emulator.files.uploaded
    assert again.data == MP4
    last = [r for r in emulator.requests if r.dialect != "google_files"][-1]
    uris = _file_uris(last.body)
    assert uris == [f"{record['uri'].rsplit('/', 1)[0]}/{again.name.split('/')[-1]}"]


def test_a_streamed_file_changed_after_the_save_is_not_sent_as_the_old_one(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    video = tmp_path / "clip.mp4"
    video.write_bytes(MP4)
    emulator.reset([reply("a short clip"), reply("no video any more")])
    session = _agent(emulator).session()
    session.run_sync("What is this?", files=[video])
    path = tmp_path / "session.json"
    session.to_json(path=path)
    video.write_bytes(MP4[:-10] + b"x" * 10)  # same size, other bytes

    google_files.clear_upload_cache()
    emulator.files.clear()
    restored = AgentSession.from_json(path, agent=_agent(emulator))
    restored.run_sync("And now?")
    assert emulator.files.uploaded == []  # nothing re-uploaded from the changed file
    last = [r for r in emulator.requests if r.dialect != "google_files"][-1]
    assert _file_uris(last.body) == []
