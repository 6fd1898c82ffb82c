"""Issue acceptance: the files a provider's code execution writes land on disk, and
tool_files / anthropic_container_id reach the provider (real SDKs, the emulator)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.application.media.outputs import safe_filename, unique_name
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import GeneratedFile, reply

XLSX = b"PK\x03\x04" + b"first workbook" * 10
XLSX_2 = b"PK\x03\x04" + b"second workbook" * 10
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

MODELS = {"anthropic": "claude-sonnet-5", "openai": "gpt-5"}


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


@pytest.fixture(autouse=True)
def _fresh(emulator: ProviderEmulator) -> None:
    emulator.files.clear()


def _base_url(emulator: ProviderEmulator, provider: str) -> str:
    return emulator.anthropic_base_url if provider == "anthropic" else emulator.openai_base_url


def _agent(emulator: ProviderEmulator, provider: str, **kwargs: Any) -> Agent:
    return Agent(
        MODELS[provider],
        api_key="offline-test-key",
        base_url=_base_url(emulator, provider),
        log_to_file=False,
        built_in_tools={"code_execution": {"enabled": True}},
        **kwargs,
    )


def _twice() -> Any:
    return reply(
        "Both workbooks are written.",
        code_execution_files=(
            GeneratedFile("report.xlsx", XLSX, XLSX_MIME),
            GeneratedFile("report.xlsx", XLSX_2, XLSX_MIME),
        ),
    )


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_report_written_twice_gives_two_files_on_disk(
    emulator: ProviderEmulator, provider: str, tmp_path: Path
) -> None:
    emulator.reset([_twice()])
    out = tmp_path / "out"
    result = _agent(emulator, provider, code_execution_output_dir=str(out)).run_sync("report")
    assert result.files_created == [str(out / "report.xlsx"), str(out / "report (2).xlsx")]
    assert (out / "report.xlsx").read_bytes() == XLSX
    assert (out / "report (2).xlsx").read_bytes() == XLSX_2
    assert [d["filename"] for d in result.downloaded_files] == ["report.xlsx", "report (2).xlsx"]
    assert all(d["original_filename"] == "report.xlsx" for d in result.downloaded_files)
    assert [p.name for p in out.iterdir()] == sorted(["report.xlsx", "report (2).xlsx"]) or len(
        list(out.iterdir())
    ) == 2
    downloads = [r for r in emulator.requests if r.path.endswith("/content")]
    assert len(downloads) == 2
    if provider == "anthropic":
        assert result.container_id is not None and result.container_id.startswith("container_")


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_default_directory_is_fresh_per_run_and_only_when_files_come(
    emulator: ProviderEmulator, provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    emulator.reset([reply("no files"), _twice(), _twice()])
    agent = _agent(emulator, provider)
    assert agent.run_sync("nothing").files_created == []
    assert list(tmp_path.iterdir()) == []
    first = agent.run_sync("one")
    second = agent.run_sync("two")
    dirs = {Path(p).parent for p in first.files_created} | {
        Path(p).parent for p in second.files_created
    }
    assert len(dirs) == 2
    for folder in dirs:
        assert folder.name.startswith(f"{provider}_code_execution_files_")
        assert sorted(p.name for p in folder.iterdir()) == ["report (2).xlsx", "report.xlsx"]


def test_anthropic_container_id_is_surfaced_and_reused(emulator: ProviderEmulator) -> None:
    agent = Agent(
        MODELS["anthropic"],
        api_key="offline-test-key",
        base_url=emulator.anthropic_base_url,
        log_to_file=False,
    )
    emulator.reset([reply("reused")])
    result = agent.run_sync("continue", anthropic_container_id="container_abc123")
    body = next(r.body for r in emulator.requests if r.path == "/v1/messages")
    assert body["container"] == "container_abc123"
    assert any(t.get("name") == "code_execution" for t in body["tools"])
    assert result.container_id == "container_abc123"
    assert "code_execution" in result.built_in_tools_used


def test_container_id_is_ignored_where_containers_do_not_carry_over(
    emulator: ProviderEmulator,
) -> None:
    emulator.reset([reply("fine")])
    result = _agent(emulator, "openai").run_sync("hi", anthropic_container_id="container_x")
    body = next(r.body for r in emulator.requests if r.path == "/v1/responses")
    assert "container_x" not in str(body)
    assert result.container_id is None


def test_tool_files_reach_anthropic_as_container_uploads(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    data = tmp_path / "sales.csv"
    data.write_text("region,total\nnorth,3\n")
    emulator.reset([reply("read it")])
    agent = Agent(
        MODELS["anthropic"],
        api_key="offline-test-key",
        base_url=emulator.anthropic_base_url,
        log_to_file=False,
    )
    agent.run_sync("summarise", tool_files=[data])
    [uploaded] = emulator.files.uploaded
    assert uploaded.display_name == "sales.csv" and uploaded.data == data.read_bytes()
    body = next(r.body for r in emulator.requests if r.path == "/v1/messages")
    first = body["messages"][-1]["content"][0]
    assert first == {"type": "container_upload", "file_id": uploaded.name}
    assert any(t.get("name") == "code_execution" for t in body["tools"])


def test_tool_files_reach_openai_in_the_code_interpreter_container(
    emulator: ProviderEmulator,
) -> None:
    emulator.reset([reply("read it")])
    _agent(emulator, "openai").run_sync(
        "summarise", tool_files=[{"type": "document", "media_type": "text/csv", "data": b"a,b\n"}]
    )
    [uploaded] = emulator.files.uploaded
    assert uploaded.purpose == "user_data"
    body = next(r.body for r in emulator.requests if r.path == "/v1/responses")
    [tool] = [t for t in body["tools"] if t["type"] == "code_interpreter"]
    assert tool["container"]["file_ids"] == [uploaded.name]


def test_tool_files_are_filtered_on_fireworks_with_a_log_line(
    emulator: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    emulator.reset([reply("ok")])
    agent = Agent(
        "kimi-k3",
        api_key="offline-test-key",
        base_url=emulator.fireworks_base_url,
        log_to_file=False,
        logger=logging.getLogger("tool-files-filtered"),
    )
    with caplog.at_level("WARNING"):
        agent.run_sync("hi", tool_files=[b"%PDF-1.4 tiny"])
    assert emulator.files.uploaded == []
    assert any("tool_files" in r.getMessage() for r in caplog.records)


def test_a_missing_tool_file_raises_before_any_request(emulator: ProviderEmulator) -> None:
    emulator.reset([reply("never")])
    with pytest.raises(FileNotFoundError, match=r"nope\.csv"):
        _agent(emulator, "anthropic").run_sync("x", tool_files=["nope.csv"])
    assert emulator.request_count == 0


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../../etc/passwd", "passwd"),
        ("..\\..\\boot.ini", "boot.ini"),
        ("/abs/path/out.csv", "out.csv"),
        ("..", "file_1"),
        ("a\x00b<c>.txt", "a_b_c_.txt"),
        (".hidden", "hidden"),
    ],
)
def test_provider_file_names_are_made_safe(name: str, expected: str) -> None:
    assert safe_filename(name, "file_1") == expected


def test_unique_names() -> None:
    assert unique_name("report.xlsx", set()) == "report.xlsx"
    taken = {"report.xlsx", "report (2).xlsx"}
    assert unique_name("report.xlsx", taken) == "report (3).xlsx"
    assert unique_name("README", {"README"}) == "README (2)"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_long_utf8_names_are_capped_by_bytes_and_never_dropped(
    emulator: ProviderEmulator, provider: str, tmp_path: Path
) -> None:
    """A 200-character UTF-8 name is 400 bytes: both files land, within 255 bytes, with the
    extension and the `` (2)`` suffix kept, and the provider's name on downloaded_files."""
    long_name = "é" * 200 + ".xlsx"
    emulator.reset(
        [
            reply(
                "Both workbooks are written.",
                code_execution_files=(
                    GeneratedFile(long_name, XLSX, XLSX_MIME),
                    GeneratedFile(long_name, XLSX_2, XLSX_MIME),
                ),
            )
        ]
    )
    out = tmp_path / "out"
    result = _agent(emulator, provider, code_execution_output_dir=str(out)).run_sync("report")
    assert len(result.files_created) == 2
    first, second = (Path(p) for p in result.files_created)
    assert first.read_bytes() == XLSX and second.read_bytes() == XLSX_2
    for path in (first, second):
        assert len(path.name.encode()) <= 255
        assert path.name.startswith("éé")
    assert first.name.endswith(".xlsx") and second.name.endswith(" (2).xlsx")
    assert [d["original_filename"] for d in result.downloaded_files] == [long_name, long_name]
    assert [d["filename"] for d in result.downloaded_files] == [first.name, second.name]


def test_name_caps_count_bytes_and_keep_extension_and_suffix() -> None:
    name = safe_filename("ü" * 300 + ".csv", "file_1")
    assert len(name.encode()) <= 255 and name.endswith(".csv")
    assert unique_name(name, {name}).endswith(" (2).csv")
    assert len(unique_name(name, {name}).encode()) <= 255
    no_ext = safe_filename("a" * 300, "file_1")
    assert unique_name(no_ext, {no_ext}).endswith(" (2)")
    assert len(unique_name(no_ext, {no_ext}).encode()) <= 255
    assert safe_filename("x" * 10, "f", max_bytes=8) == "xxxxxxxx"
