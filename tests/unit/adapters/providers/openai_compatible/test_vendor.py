"""A second OpenAI-compatible vendor is a profile, a codec name and a client's endpoint.

The base (``adapters/providers/openai_compatible/``) carries no vendor fact: a vendor's
name, label, option rules and request-id headers come from its profile.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from doc_processing_toolkit.adapters.providers.fireworks import FireworksModelClient
from doc_processing_toolkit.adapters.providers.openai_compatible.client import (
    ChatCompletionsModelClient,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.codec import (
    ChatCompletionsCodec,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.mapping import build_request
from doc_processing_toolkit.adapters.providers.openai_compatible.options import (
    ChatCompletionsOptions,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.profile import (
    ChatCompletionsProfile,
)
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    ReasoningPart,
    TextPart,
    user_text,
)
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.domain.tools.specs import ForcedTool

LOCAL_OPTIONS = ChatCompletionsOptions("local", "Local")


@dataclass(frozen=True, slots=True)
class LocalProfile(ChatCompletionsProfile):
    name: str = "local"
    label: str = "Local"
    api_key_env: tuple[str, ...] = ("LOCAL_API_KEY",)
    options: ChatCompletionsOptions | None = LOCAL_OPTIONS
    prompt_caching_note: str = "prompt_caching ignored: Local has none"


class LocalCodec(ChatCompletionsCodec):
    provider = "local"
    label = "Local"


class LocalModelClient(ChatCompletionsModelClient):
    profile = LocalProfile()
    codec = LocalCodec()
    sdk_extra = "openai"
    DPT_BASE_URL_ENV = "DPT_LOCAL_BASE_URL"
    DEFAULT_URL = "http://127.0.0.1:8000/v1"
    API_KEY_ENVS = ("LOCAL_API_KEY",)


def _request(**fields: object) -> ModelRequest:
    return ModelRequest(model="local-1", messages=(user_text("Hi"),), **fields)  # type: ignore[arg-type]


def test_the_request_is_mapped_with_the_vendor_s_rules() -> None:
    wire = build_request(
        _request(thinking={"effort": "low"}, prompt_caching={"ttl": "5m"}),
        profile=LocalModelClient.profile,
        codec=LocalModelClient.codec,
    )
    assert wire.params == {
        "model": "local-1",
        "messages": [{"role": "user", "content": "Hi"}],
        "reasoning_effort": "low",
    }
    assert wire.notes == ("prompt_caching ignored: Local has none",)


def test_errors_and_drops_name_the_vendor() -> None:
    with pytest.raises(CompatibilityError, match="Local forces one tool by name"):
        build_request(
            _request(tools=(), tool_choice=ForcedTool(name=("a", "b"))),
            profile=LocalModelClient.profile,
            codec=LocalModelClient.codec,
        )
    with pytest.raises(CompatibilityError, match="provider 'local' does not support remote"):
        build_request(
            _request(remote_mcp_servers=({"server_label": "s", "server_url": "https://x"},)),
            profile=LocalModelClient.profile,
            codec=LocalModelClient.codec,
        )
    pdf = MediaPart(mime_type="application/pdf", data=b"%PDF")
    _, drops = LocalCodec().render_with_drops([Message("user", (TextPart("x"), pdf))])
    assert [d.reason for d in drops] == ["Local takes images only"]


def test_the_codec_keeps_its_own_reasoning_and_drops_another_vendor_s() -> None:
    mine = Message("assistant", (ReasoningPart("r", "local"), TextPart("a")), provider="local")
    theirs = Message("assistant", (ReasoningPart("r", "fireworks"), TextPart("a")))
    native, drops = LocalCodec().render_with_drops([mine, theirs])
    assert native[0] == {"role": "assistant", "content": "a", "reasoning_content": "r"}
    assert native[1] == {"role": "assistant", "content": "a"}
    assert [d.kind for d in drops] == ["reasoning"]
    assert LocalCodec().parse(native[:1]) == [mine]


def test_each_vendor_client_has_its_name_and_its_own_shared_cache() -> None:
    local = LocalModelClient()
    assert local.provider == "local"
    assert repr(local) == "LocalModelClient(base_url=None, own_key=False)"
    assert LocalModelClient._shared is not FireworksModelClient._shared
    assert FireworksModelClient().provider == "fireworks"


def test_a_missing_key_names_the_vendor_s_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCAL_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="local: no API key: set LOCAL_API_KEY"):
        LocalModelClient()._require_api_key()
