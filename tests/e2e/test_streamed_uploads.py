"""Issue 32 item 7: a file that goes to a Files API is streamed from disk, never read whole.

A 300 MB file in ``files=`` for Gemini (over the row's ``max_inline_bytes``) is uploaded
through the resumable Files API of the loopback emulator while a child process measures
its own peak memory: the growth stays far below the file's size, and the request names
the uploaded file by its URI. Tool files for Anthropic / OpenAI code execution are
handed to the SDK as an open file (streamed by its multipart body) and arrive intact.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit.adapters.providers.google.files import clear_upload_cache
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import reply

MP4_HEAD = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
BIG = 300 * 1024 * 1024

_PEAK_RSS = """
def peak_rss():
    # VmHWM, this process's own peak: ru_maxrss survives fork and exec on Linux, so a
    # child of a larger pytest would report the parent's size and hide any growth.
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""

_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from doc_processing_toolkit import Agent

    {peak_rss}
    base_url, path = sys.argv[1], sys.argv[2]
    agent = Agent(
        "gemini-2.5-flash", api_key="offline-test-key", base_url=base_url, log_to_file=False
    )
    before = peak_rss()
    result = agent.run_sync("What is in this video?", files=[path])
    after = peak_rss()
    print(json.dumps({
        "growth_bytes": (after - before) * 1024,
        "text": result.output, "n_messages": len(result.messages),
        "uploads": result.media_uploads,
    }))
    """
).replace("{peak_rss}", _PEAK_RSS)


_TOOL_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from doc_processing_toolkit import Agent

    {peak_rss}
    model, base_url, path = sys.argv[1], sys.argv[2], sys.argv[3]
    agent = Agent(model, api_key="offline-test-key", base_url=base_url, log_to_file=False)
    before = peak_rss()
    result = agent.run_sync("Sum the column.", tool_files=[path])
    after = peak_rss()
    print(json.dumps({"growth_bytes": (after - before) * 1024, "text": result.output}))
    """
).replace("{peak_rss}", _PEAK_RSS)


def _sparse_video(path: Path, size: int) -> Path:
    with open(path, "wb") as handle:
        handle.write(MP4_HEAD)
        handle.truncate(size)  # sparse: no disk blocks, reads as zeros
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def _file_uris(body: dict[str, Any]) -> list[str]:
    uris = []
    for content in body.get("contents", []):
        for part in content["parts"]:
            data = part.get("file_data") or part.get("fileData")
            if data:
                uris.append(data.get("file_uri") or data.get("fileUri"))
    return uris


@pytest.fixture
def emulator() -> Iterator[ProviderEmulator]:
    clear_upload_cache()
    with ProviderEmulator() as emu:
        yield emu
    clear_upload_cache()


def _run_child(script: str, *args: str) -> dict[str, Any]:
    """Run ``script`` in a fresh process (its own peak RSS) and return its JSON report."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPT_")}
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def test_a_300_mb_file_uploads_to_gemini_streamed_from_disk(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    video = _sparse_video(tmp_path / "huge.mp4", BIG)
    emulator.reset([reply("a very long video")])
    report = _run_child(_CHILD, emulator.google_base_url, str(video))
    assert report["text"] == "a very long video"
    # Memory, not time: reading the file whole would grow the process by >= 300 MB.
    assert report["growth_bytes"] < 100 * 1024 * 1024, report["growth_bytes"]
    [uploaded] = emulator.files.uploaded
    assert uploaded.size == BIG and uploaded.sha256 == _sha256(video)
    assert uploaded.mime_type == "video/mp4" and uploaded.display_name == "huge.mp4"
    [record] = report["uploads"]
    assert record["size"] == BIG and record["sha256"] == uploaded.sha256
    generate = [r for r in emulator.requests if r.dialect != "google_files"]
    assert _file_uris(generate[-1].body) == [record["uri"]]
    assert record["uri"].endswith(f"/{uploaded.name}")


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_300_mb_tool_file_is_streamed_to_the_files_api(
    emulator: ProviderEmulator, tmp_path: Path, provider: str
) -> None:
    data = tmp_path / "table.csv"
    with open(data, "wb") as handle:
        handle.write(b"region,total\n")
        handle.truncate(BIG)
    emulator.reset([reply("summed")])
    model, base_url = {
        "anthropic": ("claude-sonnet-5", emulator.anthropic_base_url),
        "openai": ("gpt-5", emulator.openai_base_url),
    }[provider]
    report = _run_child(_TOOL_CHILD, model, base_url, str(data))
    assert report["text"] == "summed"
    assert report["growth_bytes"] < 100 * 1024 * 1024, report["growth_bytes"]
    [uploaded] = emulator.files.uploaded
    assert uploaded.size == BIG and uploaded.sha256 == _sha256(data)
    assert uploaded.display_name == "table.csv"
