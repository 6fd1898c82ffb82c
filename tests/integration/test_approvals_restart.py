"""Issue 40 acceptance: process A defers and exits, process B approves (or refuses) and the
turn finishes; against the ProviderEmulator on loopback and a SQLite session store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit.domain.approvals import REFUSED_TOOL_TEXT
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply, ToolCall

SUPPORT = Path(__file__).parent / "approvals_process.py"
REPO = Path(__file__).parents[2]
TIMEOUT_S = 120


def _script() -> list[Reply]:
    return [
        Reply(tool_calls=(ToolCall("lookup", {"name": "bob"}, id="toolu_1"),), input_tokens=101),
        Reply(
            tool_calls=(ToolCall("pay", {"account": "acct-1", "amount": 5}, id="toolu_2"),),
            input_tokens=202,
        ),
        Reply(text="Bob was paid 5 euros.", input_tokens=303),
    ]


def _process(mode: str, emu: ProviderEmulator, tmp: Path, db: str = "s.db") -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            str(SUPPORT),
            mode,
            emu.anthropic_base_url,
            str(tmp / db),
            str(tmp / f"{db}.tools"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, "DPT_AGENT_LOG_TO_FILE": "0"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _tools(tmp: Path, db: str = "s.db") -> list[list[Any]]:
    return [json.loads(line) for line in (tmp / f"{db}.tools").read_text().splitlines()]


def _ledger(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(r) for r in records]  # request_index included: the turn's numbering goes on


def test_process_b_approves_what_process_a_deferred(emu: ProviderEmulator, tmp_path: Path) -> None:
    emu.push(*_script())
    waiting = _process("defer", emu, tmp_path)
    assert waiting["status"] == "awaiting_approval"
    assert [p["call_id"] for p in waiting["pending_approvals"]] == ["toolu_2"]
    assert emu.request_count == 2 and _tools(tmp_path) == [["lookup", "bob"]]

    done = _process("approve", emu, tmp_path)
    assert done["status"] == "completed" and done["output"] == "Bob was paid 5 euros."
    # one request per model step, none repeated: each carries a longer conversation
    assert emu.request_count == 3
    sizes = [len(r.body["messages"]) for r in emu.requests]
    assert sizes == [1, 3, 5]
    assert _tools(tmp_path) == [["lookup", "bob"], ["pay", "acct-1", 5]]  # once, as recorded

    emu.reset()
    emu.push(*_script())
    plain = _process("plain", emu, tmp_path, db="plain.db")
    assert _ledger(waiting["request_cost_records"] + done["request_cost_records"]) == _ledger(
        plain["request_cost_records"]
    )
    assert waiting["cost"] + done["cost"] == pytest.approx(plain["cost"])


def test_refusal_reaches_the_model_which_answers(emu: ProviderEmulator, tmp_path: Path) -> None:
    emu.push(*_script())
    _process("defer", emu, tmp_path)
    done = _process("refuse", emu, tmp_path)
    assert done["status"] == "completed" and done["output"] == "Bob was paid 5 euros."
    assert _tools(tmp_path) == [["lookup", "bob"]]
    last = emu.requests[-1].body["messages"][-1]
    (result,) = last["content"]
    assert result["type"] == "tool_result" and result["is_error"] is True
    text = json.dumps(result["content"])
    assert REFUSED_TOOL_TEXT in text and "over budget" in text
