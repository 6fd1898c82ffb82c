"""``dpt docs serve``: its options and usage errors (the served tools themselves are tested
over stdio in tests/integration/test_documents_mcp_server.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from doc_processing_toolkit.cli.main import main


def test_a_missing_root_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["docs", "serve", "--root", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpt: --root ") and err.rstrip().endswith("nowhere: not a directory")


def test_serve_needs_a_root(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["docs", "serve"])
    assert exited.value.code == 2
    assert "--root" in capsys.readouterr().err


def test_the_help_names_the_tools(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["docs", "serve", "--help"])
    out = capsys.readouterr().out
    assert "extract_text" in out and "--no-ocr" in out and "--max-bytes" in out
