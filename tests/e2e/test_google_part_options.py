"""video_metadata and media_resolution_list reach Gemini's wire parts (google-genai, the
emulator); other providers ignore media_resolution_list."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import reply

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"v" * 64


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


def _parts(emulator: ProviderEmulator) -> list[dict[str, Any]]:
    body = next(r.body for r in emulator.requests if r.dialect == "google")
    parts: list[dict[str, Any]] = body["contents"][-1]["parts"]
    return parts


def _get(part: dict[str, Any], snake: str, camel: str) -> Any:
    return part.get(snake, part.get(camel))


def test_video_metadata_and_per_part_resolution_are_sent(emulator: ProviderEmulator) -> None:
    emulator.reset([reply("seen")])
    agent = Agent(
        "gemini-2.5-flash",
        api_key="offline-test-key",
        base_url=emulator.google_base_url,
        log_to_file=False,
        video_metadata={"start_offset": "1s", "end_offset": "5s", "fps": 2.0},
    )
    agent.run_sync(
        "describe",
        files=[PNG, MP4],
        media_resolution_list=["MEDIA_RESOLUTION_HIGH", None],
    )
    image, video, text = _parts(emulator)
    assert _get(image, "media_resolution", "mediaResolution") == {"level": "MEDIA_RESOLUTION_HIGH"}
    assert _get(video, "media_resolution", "mediaResolution") is None
    meta = _get(video, "video_metadata", "videoMetadata")
    assert meta is not None
    assert _get(meta, "start_offset", "startOffset") == "1s"
    assert _get(meta, "end_offset", "endOffset") == "5s" and meta["fps"] == 2.0
    assert _get(image, "video_metadata", "videoMetadata") is None
    assert text["text"] == "describe"


def test_media_resolution_list_is_ignored_elsewhere(emulator: ProviderEmulator) -> None:
    emulator.reset([reply("ok")])
    agent = Agent(
        "gpt-5",
        api_key="offline-test-key",
        base_url=emulator.openai_base_url,
        log_to_file=False,
    )
    agent.run_sync("describe", files=[PNG], media_resolution_list=["MEDIA_RESOLUTION_LOW"])
    body = next(r.body for r in emulator.requests if r.path == "/v1/responses")
    assert "MEDIA_RESOLUTION" not in str(body)
