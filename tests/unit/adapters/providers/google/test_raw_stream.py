"""The Google adapter's chunk conversion gives what the SDK's model + model_dump give.

Each chunk is the Gemini API's JSON (camelCase), run through the SDK's own key renames
(``_GenerateContentResponse_from_mldev``) and then both ways: :func:`dump_chunk` and the
SDK's ``GenerateContentResponse._from_response(...).model_dump(mode="json",
exclude_none=True)``. The two dicts must be equal, whether the table converted the chunk
or sent it the SDK's way.
"""

from __future__ import annotations

import copy
from typing import Any

import pydantic
import pytest

from doc_processing_toolkit.adapters.providers.google import _sdk_private, raw_stream

genai = pytest.importorskip("google.genai")
from google.genai import models, types  # noqa: E402

USAGE = {
    "promptTokenCount": 12,
    "candidatesTokenCount": 3,
    "totalTokenCount": 20,
    "thoughtsTokenCount": 5,
    "cachedContentTokenCount": 4,
    "promptTokensDetails": [
        {"modality": "TEXT", "tokenCount": 8},
        {"modality": "IMAGE", "tokenCount": 4},
    ],
    "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 4}],
    "trafficType": "ON_DEMAND",
}


def _chunk(*parts: dict[str, Any], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": list(parts)}, "index": 0, **candidate}
        ],
        "usageMetadata": USAGE,
        "modelVersion": "gemini-3.8-flash",
        "responseId": "resp-1",
    }


FAST = {
    "text": _chunk({"text": "Hello, "}),
    "last text": _chunk({"text": "world."}, finishReason="STOP", avgLogprobs=-0.25),
    "float given as an int": _chunk({"text": "x"}, avgLogprobs=-1),
    "thought with a signature": _chunk(
        {"text": "Weighing", "thought": True, "thoughtSignature": "AAEC/+8="}
    ),
    "function call (args keep their own keys and nulls)": _chunk(
        {
            "functionCall": {
                "id": "call-1",
                "name": "lookup",
                "args": {"camelKey": {"innerKey": None, "list": [1, {"deepKey": "v"}]}, "n": None},
            },
            "thoughtSignature": "c2lnbmF0dXJl",
        },
        finishReason="STOP",
    ),
    "code execution and its files": _chunk(
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {
            "inlineData": {
                "mimeType": "image/png",
                "data": "iVBORw0KGgo=",
                "displayName": "plot.png",
            }
        },
    ),
    "file data": _chunk(
        {"fileData": {"mimeType": "application/pdf", "fileUri": "https://x/files/a"}}
    ),
    "citations (citationSources is renamed)": _chunk(
        {"text": "quoted"},
        citationMetadata={
            "citationSources": [
                {"startIndex": 0, "endIndex": 6, "uri": "https://example.com", "license": "mit"}
            ]
        },
    ),
    "grounding and safety": _chunk(
        {"text": "grounded"},
        finishReason="STOP",
        groundingMetadata={
            "webSearchQueries": ["q"],
            "groundingChunks": [{"web": {"uri": "https://a", "title": "A"}}],
            "groundingSupports": [
                {
                    "segment": {"startIndex": 0, "endIndex": 8, "text": "grounded"},
                    "groundingChunkIndices": [0],
                    "confidenceScores": [0.9],
                }
            ],
            "searchEntryPoint": {"renderedContent": "<div/>"},
        },
        safetyRatings=[{"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}],
        urlContextMetadata={
            "urlMetadata": [
                {"retrievedUrl": "https://a", "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"}
            ]
        },
    ),
    "blocked prompt": {
        "promptFeedback": {
            "blockReason": "SAFETY",
            "safetyRatings": [
                {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "HIGH", "blocked": True}
            ],
        },
        "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3},
    },
    "keys the SDK does not know are dropped": {
        **_chunk({"text": "x", "futurePartField": 1}, futureCandidateField={"a": 1}),
        "futureTopLevel": [1, 2],
        "usageMetadata": {**USAGE, "serviceTier": "standard", "futureCount": 3},
    },
    "empty parts and content": {
        "candidates": [{"content": {}, "finishReason": "STOP"}],
        "usageMetadata": {},
    },
    "empty chunk": {},
    "a timestamp (the SDK's renames drop it)": {
        **_chunk({"text": "x"}),
        "createTime": "2026-12-03T06:00:00.123Z",
    },
}

SDK_WAY = {
    "unknown enum value": _chunk({"text": "x"}, finishReason="SOMETHING_NEW"),
    "lower-case enum value": _chunk({"text": "x"}, finishReason="stop"),
    "an int sent as a string": {
        **_chunk({"text": "x"}),
        "usageMetadata": {"promptTokenCount": "12"},
    },
    "URL-safe signature": _chunk({"text": "x", "thoughtSignature": "AAEC_-8="}),
    "unpadded signature": _chunk({"text": "x", "thoughtSignature": "AAE"}),
}


def _renamed(chunk: dict[str, Any]) -> dict[str, Any]:
    return models._GenerateContentResponse_from_mldev(copy.deepcopy(chunk), None, None)


def _sdk_way(chunk: dict[str, Any]) -> dict[str, Any]:
    model = types.GenerateContentResponse._from_response(response=_renamed(chunk), kwargs={})
    return model.model_dump(mode="json", exclude_none=True, exclude=set(raw_stream.DUMP_EXCLUDE))


@pytest.mark.parametrize("name", sorted(FAST))
def test_common_chunks_convert_through_the_table_exactly(name: str) -> None:
    chunk = FAST[name]
    raw_stream._convert(_renamed(chunk), types.GenerateContentResponse)  # no _SdkWay
    assert raw_stream.dump_chunk(_renamed(chunk)) == _sdk_way(chunk)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(SDK_WAY))
def test_unusual_chunks_go_the_sdks_way_with_the_same_result(name: str) -> None:
    chunk = SDK_WAY[name]
    with pytest.raises(raw_stream._SdkWay):
        raw_stream._convert(_renamed(chunk), types.GenerateContentResponse)
    assert raw_stream.dump_chunk(_renamed(chunk)) == _sdk_way(chunk)


def test_the_dump_leaves_out_the_fields_the_adapter_never_reads() -> None:
    chunk = {**FAST["text"], "sdkHttpResponse": {"headers": {"a": "b"}}}
    dumped = raw_stream.dump_chunk(_renamed(chunk))
    assert "sdk_http_response" not in dumped
    assert dumped["candidates"][0]["content"]["parts"] == [{"text": "Hello, "}]
    assert dumped["usage_metadata"]["prompt_tokens_details"][1] == {
        "modality": "IMAGE",
        "token_count": 4,
    }


@pytest.mark.parametrize(
    "chunk",
    [
        {"candidates": [{"content": {"parts": "not a list"}}]},
        {"candidates": [{"safetyRatings": [{"blocked": "perhaps"}]}]},
        {"candidates": [{"content": {"parts": [{"text": 7}]}}]},
        {"usageMetadata": {"promptTokenCount": "many"}},
        {"candidates": [{"content": {"parts": [{"thoughtSignature": "AAEC/+9="}]}}]},
    ],
)
def test_a_chunk_that_does_not_fit_the_model_fails_as_the_sdk_fails(chunk: dict[str, Any]) -> None:
    with pytest.raises(pydantic.ValidationError):
        _sdk_way(chunk)
    with pytest.raises(pydantic.ValidationError):
        raw_stream.dump_chunk(_renamed(chunk))


def test_a_model_with_a_validator_of_its_own_is_never_converted_by_the_table() -> None:
    class Guarded(types.Part):
        @pydantic.model_validator(mode="before")
        @classmethod
        def _rewrite(cls, data: Any) -> Any:
            return data

    assert raw_stream._table(Guarded) is None
    assert raw_stream._table(types.CitationMetadata) is not None  # its rename is reproduced


def test_an_sdk_without_one_of_the_functions_is_not_used_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="doc_processing_toolkit.adapters.providers.google._sdk_private")
    monkeypatch.delattr(models, "_GenerateContentResponse_from_mldev")
    _sdk_private.available.cache_clear()
    try:
        assert _sdk_private.available() is False
    finally:
        monkeypatch.undo()
        _sdk_private.available.cache_clear()
    (record,) = [r for r in caplog.records if "own stream path" in r.getMessage()]
    assert "_GenerateContentResponse_from_mldev" in record.getMessage()
    assert _sdk_private.available() is True
