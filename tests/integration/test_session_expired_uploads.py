"""A restored Gemini session whose Files API URIs expired, through google-genai against the
emulator's Files API: a dead URI with kept bytes is re-uploaded (``expired_reuploaded``),
one without becomes a placeholder (``expired_no_bytes``), a live one is left alone."""

from __future__ import annotations

import base64
import json
from typing import Any

from doc_processing_toolkit import Agent
from doc_processing_toolkit.agent.session import AgentSession
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import reply

MODEL = "gemini-2.5-flash"
HOST = "https://generativelanguage.googleapis.com/v1beta/"
PDF = b"%PDF-1.4 clause 4: pay within 30 days"


def _agent(emu: ProviderEmulator) -> Agent:
    return Agent(MODEL, api_key="offline-test-key", base_url=emu.google_base_url)


def _file_part(uri: str, mime: str = "application/pdf") -> dict[str, Any]:
    return {"file_data": {"file_uri": uri, "mime_type": mime}}


def _envelope(emu: ProviderEmulator, live: str, kept: str, lost: str) -> dict[str, Any]:
    session = _agent(emu).session()
    session.messages = [
        {"role": "user", "parts": [_file_part(kept), _file_part(lost), {"text": "Read."}]},
        {"role": "model", "parts": [{"text": "Read both."}]},
        {"role": "user", "parts": [_file_part(live), _file_part(kept), {"text": "And this?"}]},
        {"role": "model", "parts": [{"text": "Also read."}]},
    ]
    envelope = session.to_dict()
    envelope["media"][kept] = {
        "kind": "google_upload",
        "uri": kept,
        "mime_type": "application/pdf",
        "data": base64.b64encode(PDF).decode("ascii"),
    }
    return envelope


def test_expired_uris_are_reuploaded_or_reported(emu: ProviderEmulator) -> None:
    live_file = emu.files.add("files/", "application/pdf", b"%PDF live", None)
    live = HOST + live_file.name
    kept, lost = HOST + "files/expiredkept0001", HOST + "files/expiredlost0001"
    envelope = _envelope(emu, live, kept, lost)
    emu.push(reply("Clause 4 says 30 days."), reply("Still 30 days."))
    restored = AgentSession.from_dict(json.loads(json.dumps(envelope)), _agent(emu))
    assert restored.media_report == []  # nothing is checked until a turn needs the history
    restored.run_sync("What does clause 4 say?")

    [upload] = [f for f in emu.files.uploaded if f.data == PDF]
    new = HOST + upload.name
    reasons = {(e["reason"], e["uri"]) for e in restored.media_report}
    assert reasons == {("expired_reuploaded", kept), ("expired_no_bytes", lost)}
    [entry] = [e for e in restored.media_report if e["reason"] == "expired_reuploaded"]
    assert entry["new_uri"] == new and entry["size"] == len(PDF)

    sent = json.dumps(emu.requests[-1].body)
    assert new in sent and live in sent  # re-uploaded once, used in both places
    assert kept not in sent and lost not in sent
    history = json.dumps(restored.messages)
    assert history.count(new) == 2 and lost not in history
    # The new URI's bytes stay in the table, so a later expiry can re-upload again.
    saved = restored.to_dict()
    assert saved["media"][new]["data"] == envelope["media"][kept]["data"]
    assert {e["reason"] for e in saved["media_report"]} >= {"expired_reuploaded"}

    restored.run_sync("Again?")  # checked once per restore: no second upload
    assert len([f for f in emu.files.uploaded if f.data == PDF]) == 1
