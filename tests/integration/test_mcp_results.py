"""MCP call results and tool listings converted to ToolOutcome / ToolSpec."""

from __future__ import annotations

import base64
from typing import Any

import mcp_types as types
import pytest

from doc_processing_toolkit.adapters.mcp.results import outcome_from_call_result, spec_from_mcp_tool
from doc_processing_toolkit.domain.messages import MediaPart, TextPart

PNG = b"\x89PNG\r\n\x1a\nrest"
TEXT_TRUE = {"type": "text", "text": "true"}
SPEND_TEXT = '{"ok": 1, "_dpt_spend": {"usd": 0.02, "estimated": true}}'


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_text_image_audio_and_resources() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="hello"),
            types.ImageContent(type="image", data=b64(PNG), mime_type="image/png"),
            types.AudioContent(type="audio", data=b64(b"RIFF...."), mime_type="audio/wav"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///a.txt", text='{"k": 1}'),
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="file:///b.pdf", blob=b64(b"%PDF-1.7"), mime_type="application/pdf"
                ),
            ),
            types.ResourceLink(type="resource_link", uri="file:///c.md", name="notes"),
        ]
    )
    outcome = outcome_from_call_result(result)
    kinds = [type(p).__name__ for p in outcome.content]
    assert kinds == ["TextPart", "MediaPart", "MediaPart", "TextPart", "MediaPart", "TextPart"]
    image, audio, pdf = (p for p in outcome.content if isinstance(p, MediaPart))
    assert (image.mime_type, image.data) == ("image/png", PNG)
    assert (audio.mime_type, audio.data) == ("audio/wav", b"RIFF....")
    assert (pdf.mime_type, pdf.data, pdf.filename) == (
        "application/pdf",
        b"%PDF-1.7",
        "file:///b.pdf",
    )
    assert "file:///c.md" in outcome.content[-1].text  # type: ignore[union-attr]
    assert outcome.data[0] == "hello" and outcome.data[3] == {"k": 1}
    assert not outcome.is_error and outcome.meta == {}


@pytest.mark.parametrize(
    ("result", "data"),
    [
        # a dict result gives the dict
        ({"content": [{"type": "text", "text": '{"a": 1}'}]}, {"a": 1}),
        (
            {"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1, "b": 2}},
            {"a": 1, "b": 2},
        ),
        # a wrapped non-dict return gives its items, typed as the structured value has them
        ({"content": [{"type": "text", "text": "3"}], "structured_content": {"result": 3}}, [3]),
        (
            {
                "content": [{"type": "text", "text": "true"}],
                "structured_content": {"result": "true"},
            },
            ["true"],
        ),
        # other results give their content items, JSON text decoded
        ({"content": [{"type": "text", "text": "[1, 2]"}]}, [[1, 2]]),
        ({"content": [{"type": "text", "text": "plain"}]}, ["plain"]),
        ({"content": []}, None),
    ],
)
def test_result_data(result: dict[str, Any], data: Any) -> None:
    assert outcome_from_call_result(result).data == data


def test_structured_only_and_errors() -> None:
    only = outcome_from_call_result({"content": [], "structured_content": {"x": 1}})
    assert only.text == '{"x": 1}' and only.data == {"x": 1}
    error = outcome_from_call_result({"content": [], "isError": True})
    assert error.is_error and error.text
    bad = outcome_from_call_result({"content": [{"type": "image", "data": 5, "mimeType": "i/x"}]})
    assert isinstance(bad.content[0], TextPart)


def test_spend_marker_is_passed_through() -> None:
    marker = {"usd": 0.02, "estimated": True}
    in_text = outcome_from_call_result(
        {
            "content": [
                {
                    "type": "text",
                    "text": '{"ok": 1, "_dpt_spend": {"usd": 0.02, "estimated": true}}',
                }
            ]
        }
    )
    assert in_text.meta["dpt_spend"] == marker
    in_meta = outcome_from_call_result(
        types.CallToolResult(
            content=[types.TextContent(type="text", text="ok")], _meta={"_dpt_spend": marker}
        )
    )
    assert in_meta.meta["dpt_spend"] == marker


def test_spec_from_tool_normalises_the_schema() -> None:
    spec = spec_from_mcp_tool(
        types.Tool(name="t", description="d", input_schema={"$schema": "x", "properties": {}}),
        "srv",
    )
    assert (spec.name, spec.description, spec.server_name) == ("t", "d", "srv")
    assert spec.parameters == {"type": "object", "properties": {}}
    from_dict = spec_from_mcp_tool({"name": "u", "inputSchema": {"type": "object"}}, "srv")
    assert from_dict.parameters == {"type": "object", "properties": {}}
