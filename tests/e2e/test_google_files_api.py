"""Issue acceptance: large media to Gemini go through the Files API (upload, poll, cache)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers.google.files import (
    INLINE_LIMIT_BYTES,
    clear_upload_cache,
)
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.emulator.common import iso_z
from doc_processing_toolkit.testing.emulator.files_store import FILE_LIFETIME
from doc_processing_toolkit.testing.script import reply

MP4_HEAD = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def _video(size: int, seed: bytes = b"a") -> bytes:
    return MP4_HEAD + seed * (size - len(MP4_HEAD))


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


@pytest.fixture(autouse=True)
def _fresh(emulator: ProviderEmulator) -> Iterator[None]:
    clear_upload_cache()
    emulator.files.clear()
    yield
    clear_upload_cache()


def _agent(emulator: ProviderEmulator, **kwargs: Any) -> Agent:
    return Agent(
        "gemini-2.5-flash",
        api_key="offline-test-key",
        base_url=emulator.google_base_url,
        log_to_file=False,
        **kwargs,
    )


def _generate_requests(emulator: ProviderEmulator) -> list[Any]:
    return [r for r in emulator.requests if r.dialect != "google_files"]


def test_a_30_mb_video_uploads_once_polls_to_active_and_is_cached(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    video = tmp_path / "talk.mp4"
    video.write_bytes(_video(30 * 1024 * 1024))
    emulator.files.script_states("PROCESSING", "PROCESSING", "ACTIVE")
    emulator.reset([reply("a talk"), reply("still a talk")])
    agent = _agent(emulator, file_poll_interval_s=0.05)

    first = agent.run_sync("What is this?", files=[video])
    uploaded = emulator.files.uploaded
    assert len(uploaded) == 1
    assert uploaded[0].data == video.read_bytes() and uploaded[0].mime_type == "video/mp4"
    assert uploaded[0].display_name == "talk.mp4"
    assert uploaded[0].polls == 3  # PROCESSING, PROCESSING, ACTIVE
    part = _generate_requests(emulator)[0].body["contents"][-1]["parts"][0]
    file_data = part.get("file_data") or part.get("fileData")
    uri = file_data.get("file_uri") or file_data.get("fileUri")
    assert uri.startswith("https://generativelanguage.googleapis.com/v1")
    assert uri.endswith(f"/{uploaded[0].name}")
    [record] = first.media_uploads
    assert record["part_index"] == 0 and record["uri"] == uri
    assert record["name"] == uploaded[0].name and record["mime_type"] == "video/mp4"
    assert record["size"] == 30 * 1024 * 1024 and record["sha256"] == uploaded[0].sha256
    assert record["expiration_time"] == iso_z(uploaded[0].expires_at) and record["uploaded_at"]
    assert uploaded[0].expires_at - uploaded[0].created_at == FILE_LIFETIME

    second = agent.run_sync("And now?", files=[video])
    assert len(emulator.files.uploaded) == 1  # the cache: one upload for the same bytes
    assert second.media_uploads == first.media_uploads


def test_a_cached_upload_past_its_expiry_uploads_again(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    video = tmp_path / "old.mp4"
    video.write_bytes(_video(INLINE_LIMIT_BYTES + 1, b"e"))
    emulator.files.lifetime = timedelta(0)  # expired the moment it is stored
    emulator.reset([reply("one"), reply("two")])
    agent = _agent(emulator)
    first = agent.run_sync("What is this?", files=[video])
    second = agent.run_sync("And now?", files=[video])
    first_file, second_file = emulator.files.uploaded
    assert first_file.data == second_file.data == video.read_bytes()
    assert [r["name"] for r in first.media_uploads + second.media_uploads] == [
        first_file.name,
        second_file.name,
    ]


def test_small_media_stays_inline(emulator: ProviderEmulator) -> None:
    emulator.reset([reply("ok")])
    result = _agent(emulator).run_sync("Hi", files=[_video(1024)])
    assert emulator.files.uploaded == [] and result.media_uploads == []
    part = emulator.requests[0].body["contents"][-1]["parts"][0]
    assert "inline_data" in part or "inlineData" in part


def test_a_failed_upload_names_the_file_and_the_state(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    video = tmp_path / "broken.mp4"
    video.write_bytes(_video(INLINE_LIMIT_BYTES + 1, b"b"))
    emulator.files.script_states("PROCESSING", "FAILED")
    emulator.reset([reply("never")])
    with pytest.raises(ProviderError, match=r"broken\.mp4 .*FAILED"):
        _agent(emulator, file_poll_interval_s=0.05).run_sync("Hi", files=[video])
    assert _generate_requests(emulator) == []


def test_an_upload_that_stays_processing_times_out(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    video = tmp_path / "slow.mp4"
    video.write_bytes(_video(INLINE_LIMIT_BYTES + 1, b"c"))
    emulator.files.script_states("PROCESSING")
    emulator.reset([reply("never")])
    agent = _agent(emulator, file_active_timeout_s=1, file_poll_interval_s=0.3)
    with pytest.raises(ProviderError, match=r"slow\.mp4 .*still PROCESSING after 1 s"):
        agent.run_sync("Hi", files=[video])
    assert _generate_requests(emulator) == []


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"file_active_timeout_s": 0.5}, "file_active_timeout_s"),
        ({"file_poll_interval_s": 61}, "file_poll_interval_s"),
        ({"file_poll_backoff": 11}, "file_poll_backoff"),
    ],
)
def test_out_of_range_poll_settings_raise_at_construction(
    emulator: ProviderEmulator, kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        _agent(emulator, **kwargs)


def test_environment_defaults_are_bounds_checked_before_any_request(
    emulator: ProviderEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_GOOGLE_FILE_POLL_BACKOFF", "50")
    video = tmp_path / "v.mp4"
    video.write_bytes(_video(INLINE_LIMIT_BYTES + 1, b"d"))
    emulator.reset([reply("never")])
    with pytest.raises(ValueError, match="DPT_GOOGLE_FILE_POLL_BACKOFF"):
        _agent(emulator).run_sync("Hi", files=[video])
    assert emulator.request_count == 0
