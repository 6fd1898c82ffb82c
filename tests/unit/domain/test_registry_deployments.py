"""ModelInfo.for_deployment: a row as a cloud serves it (its id, its prices, its gaps)."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.domain.registry import DeploymentInfo, ModelInfo, Pricing

ROW = ModelInfo(
    model="m",
    provider="anthropic",
    input_types=("text", "image", "pdf"),
    built_in_tools=("web_search", "code_execution", "tool_search"),
    pricing=Pricing(input_per_mtok=3, output_per_mtok=15),
    batch=Pricing(input_per_mtok=1.5, output_per_mtok=7.5),
    max_upload_bytes=500,
    deployments={
        "bedrock": DeploymentInfo(
            model_id="anthropic.m-v1:0",
            pricing=Pricing(input_per_mtok=3.3, output_per_mtok=16.5),
            unsupported=("pdf", "web_search", "files_api", "batch_api"),
        )
    },
)


def test_a_deployment_row_has_its_id_prices_and_gaps() -> None:
    served = ROW.for_deployment("bedrock")
    assert served.deployment == "bedrock"
    assert served.api_model == "anthropic.m-v1:0"
    assert served.pricing == Pricing(input_per_mtok=3.3, output_per_mtok=16.5)
    assert served.batch is None and served.max_upload_bytes is None
    assert served.input_types == ("text", "image")
    assert served.built_in_tools == ("code_execution", "tool_search")
    assert served.lacks("files_api") and not served.lacks("count_tokens")
    assert not ROW.lacks("files_api")  # the provider's own API lacks nothing


def test_the_provider_api_is_the_row_itself_and_an_unlisted_deployment_is_a_key_error() -> None:
    assert ROW.for_deployment(None) is ROW
    assert ROW.deployment_names == ("api", "bedrock")
    with pytest.raises(KeyError):
        ROW.for_deployment("azure")


def test_metadata_keys_of_a_deployment_entry_are_ignored() -> None:
    info = DeploymentInfo.model_validate({"model_id": "x", "_source": "D-AZURE"})
    assert info.model_id == "x"
