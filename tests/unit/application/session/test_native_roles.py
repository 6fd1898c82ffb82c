"""A restored history is checked against the roles its provider's codec declares."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.application.container import default_deps
from doc_processing_toolkit.application.session.native import NativeHistory, check_native_messages
from doc_processing_toolkit.domain.session import MalformedEnvelopeError


def _message(provider: str, role: str) -> dict[str, object]:
    if provider == "google":
        return {"role": role, "parts": [{"text": "x"}]}
    return {"role": role, "content": "x"}


@pytest.mark.parametrize(
    ("provider", "foreign_role"),
    [("anthropic", "model"), ("google", "assistant"), ("openai", "tool"), ("fireworks", "model")],
)
def test_a_role_the_codec_does_not_declare_is_named(provider: str, foreign_role: str) -> None:
    native = NativeHistory(default_deps().history_codecs(provider))
    with pytest.raises(MalformedEnvelopeError, match=r"messages\.1.*role"):
        check_native_messages(
            [_message(provider, "user"), _message(provider, foreign_role)],
            provider,
            native,
        )
