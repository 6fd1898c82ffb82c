"""Citations in sessions: kept in the envelope across save / restore and rebind, and
crossing to another provider as text, which the conversion report records."""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit import Agent, Citation
from doc_processing_toolkit.agent import AgentSession
from doc_processing_toolkit.domain.messages import TextPart
from doc_processing_toolkit.testing import FakeModel, reply

WEB = Citation(
    "Rates held.",
    quote="The committee held rates.",
    url="https://example.com/fed",
    title="Fed minutes",
    provider="anthropic",
    kind="web",
    raw={"type": "web_search_result_location", "url": "https://example.com/fed"},
)


def _agent(model: str, *steps: Any) -> Agent:
    return Agent(model, client=FakeModel(list(steps)), log_to_file=False)


def test_a_saved_and_restored_session_keeps_its_citations() -> None:
    session = _agent("claude-sonnet-5-5", reply("Rates held.", citations=(WEB,))).session()
    session.run_sync("What happened?")
    assert session.citations == [WEB]
    restored = AgentSession.from_dict(session.to_dict(), _agent("claude-sonnet-5-5"))
    assert restored.citations == [WEB]
    assert restored.citations[0].raw == WEB.raw
    moved = AgentSession.from_dict(session.to_dict(), _agent("gpt-5"))
    assert moved.citations == [WEB]  # the structured form stays in the envelope


def test_cited_history_crosses_to_another_provider_as_text() -> None:
    citation = {
        "type": "web_search_result_location",
        "cited_text": "The committee held rates.",
        "url": "https://example.com/fed",
        "title": "Fed minutes",
        "encrypted_index": "Eo8BCioIAhgBIiQ",
    }
    envelope = {
        "session_id": "s",
        "schema_version": 3,
        "provider": "anthropic",
        "messages": [
            {"role": "user", "content": "What happened?"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Rates held.", "citations": [citation]}],
            },
        ],
        "metadata": {"citations": [{"run": 1, "citations": [{"cited_text": "Rates held."}]}]},
    }
    session = AgentSession.from_dict(envelope, _agent("claude-sonnet-5-5"))
    target = _agent("gpt-5", reply("ok"))
    session.rebind(target)
    [entry] = [e for e in session.conversion_report if e.get("as_text")]
    assert entry["detail"] == "1 citation on the text, kept as text"
    session.run_sync("And then?")
    sent = target.settings.client.requests[-1].messages  # type: ignore[union-attr]
    texts = [p.text for m in sent if m.role == "assistant" for p in m.parts]
    assert texts[0] == "Rates held."
    assert texts[1].startswith("\n\nSources:\n[1] Fed minutes (https://example.com/fed)")
    assert [c.cited_text for c in session.citations] == ["Rates held."]
    assert all(isinstance(p, TextPart) for m in sent if m.role == "assistant" for p in m.parts)
