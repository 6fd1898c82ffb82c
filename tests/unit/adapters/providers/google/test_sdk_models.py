"""The FastConfig the Google adapter hands the SDK builds the wire dict a plain config does.

The SDK's own request conversion (``_GenerateContentParameters_to_mldev``) is run on both:
a plain dict config, as a user of the SDK would pass it, and our ``config_model`` of the
same dict. Any difference in the JSON body sent would show here.
"""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from doc_processing_toolkit.adapters.providers.google.mapping import build_request
from doc_processing_toolkit.adapters.providers.google.sdk_models import (
    config_model,
    fast_models,
)
from doc_processing_toolkit.domain.messages import user_text
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolSpec

genai_types = pytest.importorskip("google.genai.types")
from google.genai import _api_client, models  # noqa: E402

ROW = ModelInfo(
    model="gemini-x",
    provider="google",
    supports_thinking=True,
    built_in_tools=("web_search", "code_execution"),
)
TOOLS = (
    ToolSpec("a", "A.", {"type": "object", "properties": {"k": {"type": "string"}}}),
    ToolSpec("b", "B.", {"type": "object", "properties": {}}),
)
REQUESTS = {
    "bare": {},
    "system": {"system": "Be brief."},
    "everything": {
        "system": "Be brief.",
        "tools": TOOLS,
        "tool_choice": ForcedTool(("a",)),
        "max_tokens": 256,
        "temperature": 0.3,
        "thinking": {"budget_tokens": 512},
        "output_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "service_tier": "priority",
        "built_in_tools": {"web_search": {"enabled": True, "config": {}}},
        "provider_options": {"media_resolution": "MEDIA_RESOLUTION_LOW"},
    },
}


def _wire_body(config: Any, contents: list[dict[str, Any]]) -> dict[str, Any]:
    api = _api_client.BaseApiClient(api_key="test-key", vertexai=False)
    params = genai_types._GenerateContentParameters(
        model="gemini-x", contents=contents, config=config
    )
    body: dict[str, Any] = models._GenerateContentParameters_to_mldev(api, params, None, params)
    return body


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_fast_config_sends_the_same_body_as_a_plain_config(name: str) -> None:
    wire = build_request(
        ModelRequest(model="gemini-x", messages=(user_text("hi"),), **REQUESTS[name]), ROW
    )
    fast = config_model(wire.config)
    assert type(fast) is fast_models().config
    assert _wire_body(fast, wire.contents) == _wire_body(dict(wire.config), wire.contents)


def test_the_sdk_keeps_the_fast_models_it_is_given() -> None:
    fast = config_model({"system_instruction": "Be brief.", "max_output_tokens": 5})
    params = genai_types._GenerateContentParameters(model="m", contents="hi", config=fast)
    assert params.config is fast  # not revalidated into a plain GenerateContentConfig
    system = fast.system_instruction
    assert type(system) is fast_models().content
    assert type(system.parts[0]) is fast_models().part
    assert (system.role, system.parts[0].text) == ("user", "Be brief.")
    # The fallback's answer is kept: a field name is never "in" a model.
    assert "max_output_tokens" not in fast and "text" not in system.parts[0]


def test_a_bad_field_is_the_sdks_validation_error() -> None:
    with pytest.raises(pydantic.ValidationError, match="max_output_tokens"):
        config_model({"max_output_tokens": "many"})
