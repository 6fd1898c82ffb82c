"""Issue 8: Gemini code execution - tool_files in through the Files API, the files it
writes (returned inline) out into code_execution_output_dir (real SDK, the emulator)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers.google.files import clear_upload_cache
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import GeneratedFile, reply

PNG = b"\x89PNG\r\n\x1a\n" + b"chart" * 20
CSV = b"month,total\njan,10\n"


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
        built_in_tools={"code_execution": {"enabled": True}},
        **kwargs,
    )


def test_files_the_code_wrote_land_on_disk_with_unique_names(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    emulator.reset(
        [
            reply(
                "Here is the chart.",
                code_execution_files=(
                    GeneratedFile("chart.png", PNG, "image/png"),
                    GeneratedFile("chart.png", PNG + b"2", "image/png"),
                    GeneratedFile("totals.csv", CSV, "text/csv"),
                ),
            )
        ]
    )
    out = tmp_path / "out"
    result = _agent(emulator, code_execution_output_dir=str(out)).run_sync("plot it")
    assert result.output == "Here is the chart."
    assert result.files_created == [
        str(out / "chart.png"),
        str(out / "chart (2).png"),
        str(out / "totals.csv"),
    ]
    assert (out / "chart.png").read_bytes() == PNG
    assert (out / "chart (2).png").read_bytes() == PNG + b"2"
    assert (out / "totals.csv").read_bytes() == CSV
    assert [d["original_filename"] for d in result.downloaded_files] == [
        "chart.png",
        "chart.png",
        "totals.csv",
    ]
    assert all("inline_bytes" not in d for d in result.downloaded_files)
    assert "code_execution" in result.built_in_tools_invoked
    assert result.container_id is None  # Gemini has no container to name again


def test_default_directory_is_created_only_when_files_come(
    emulator: ProviderEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    emulator.reset(
        [reply("no files"), reply("a file", code_execution_files=(GeneratedFile("a.csv", CSV),))]
    )
    agent = _agent(emulator)
    assert agent.run_sync("nothing").files_created == []
    assert list(tmp_path.iterdir()) == []
    [written] = agent.run_sync("one").files_created
    assert Path(written).parent.name.startswith("google_code_execution_files_")
    assert Path(written).read_bytes() == CSV


def test_tool_files_reach_gemini_as_uploaded_file_data(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    data = tmp_path / "sales.csv"
    data.write_bytes(CSV)
    emulator.reset([reply("summed")])
    _agent(emulator).run_sync("sum the totals", tool_files=[data])
    [uploaded] = emulator.files.uploaded
    assert uploaded.data == CSV and uploaded.display_name == "sales.csv"
    request = next(r for r in emulator.requests if r.dialect != "google_files")
    parts = request.body["contents"][-1]["parts"]
    uris = [
        (p.get("file_data") or p.get("fileData") or {}).get("file_uri")
        or (p.get("file_data") or p.get("fileData") or {}).get("fileUri")
        for p in parts
    ]
    assert any(u and u.endswith(uploaded.name.split("/")[-1]) for u in uris)
