"""The model registry: the shipped data file and the JSON-file adapter."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit.adapters.registry import (
    JsonFileRegistry,
    RegistryFileError,
    default_registry,
    default_registry_path,
)
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo, Pricing
from doc_processing_toolkit.ports.registry import ModelRegistry

REPO = Path(__file__).resolve().parents[4]
DATA = REPO / "registry" / "model_information.json"
SCHEMA = REPO / "registry" / "model_information.schema.json"
SPEC_DIR = REPO.parent / "shared" / "spec"

# Every model name the spec (agent-api.txt, tools.txt) uses. test_spec_names_are_listed
# re-extracts them from the spec text when it is present, so this list cannot drift.
SPEC_ANTHROPIC = (
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-6",
    "claude-opus-4-8",
    "claude-sonnet-5",
    "claude-fable-5-1",
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
)
SPEC_OTHERS = {
    "gpt-4o": "openai",
    "gpt-5.4": "openai",
    "gpt-5.6-luna": "openai",
    "gpt-6-luna": "openai",
    "gpt-6-astra": "openai",
    "gemini-2.5-flash": "google",
    "gemini-3.5-flash-lite": "google",
    "gemini-3.7-flash": "google",
    "kimi-k3": "fireworks",
}
# Named in the spec only as a row that was removed from the catalogue.
SPEC_RETIRED = {"muse-glimmer-30b"}
_SPEC_NAME = re.compile(
    r"\b(claude-[a-z0-9-]+|gpt-[0-9][a-z0-9.-]*|gemini-[0-9][a-z0-9.-]*|kimi-[a-z0-9.-]+"
    r"|deepseek[a-z0-9.-]*|llama[a-z0-9.-]*|qwen[a-z0-9.-]*|glm-[a-z0-9.-]+|o[134]-[a-z]+"
    r"|accounts/fireworks/models/[a-z0-9._-]+|muse-[a-z0-9-]+)"
)

FORCED_TOOL_CHOICE_OFF = {"claude-fable-5-1", "claude-opus-5-5", "claude-sonnet-5-5"}
PREFIX_CHECK_ON = {"claude-fable-5-1", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"}


@pytest.fixture(scope="module")
def registry() -> JsonFileRegistry:
    return JsonFileRegistry(DATA)


def _write(tmp_path: Path, data: Any, name: str = "registry.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _metadata_keys(node: Any) -> Iterator[str]:
    """Every ``_`` key anywhere in the file."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.startswith("_"):
                yield key
            yield from _metadata_keys(value)


def _all_pricings(info: ModelInfo) -> Iterator[tuple[str, Pricing]]:
    yield "standard", info.pricing
    yield from info.service_tiers.items()


# --- the spec's models ---------------------------------------------------------------


@pytest.mark.parametrize("model", SPEC_ANTHROPIC)
def test_spec_anthropic_models_have_full_rows(registry: JsonFileRegistry, model: str) -> None:
    info = registry.row(model)
    assert info is not None, model
    assert info.model == model
    assert info.provider == "anthropic"
    assert info.context_window_tokens and info.context_window_tokens >= 200_000
    assert info.max_output_tokens and info.max_output_tokens >= 64_000
    assert "text" in info.input_types and "image" in info.input_types
    assert info.supports_thinking
    assert info.supports_structured_output
    assert info.pricing.known, f"{model}: sourced input/output prices expected"
    assert info.supports_forced_tool_choice is (model not in FORCED_TOOL_CHOICE_OFF)
    assert info.enforces_thinking_prefix_check is (model in PREFIX_CHECK_ON)


@pytest.mark.parametrize("model", [*SPEC_ANTHROPIC, *SPEC_OTHERS])
def test_spec_models_detect_their_provider(registry: JsonFileRegistry, model: str) -> None:
    expected = SPEC_OTHERS.get(model, "anthropic")
    assert registry.detect_provider(model) == expected
    info = registry.row(model)
    assert info is not None and info.provider == expected
    assert info.context_window_tokens, f"{model}: a detection row needs a window"


@pytest.mark.skipif(not SPEC_DIR.is_dir(), reason="the spec is not beside this checkout")
def test_spec_names_are_listed() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SPEC_DIR.glob("*.txt")))
    found = {m.rstrip(".-") for m in _SPEC_NAME.findall(text)}
    listed = set(SPEC_ANTHROPIC) | set(SPEC_OTHERS) | SPEC_RETIRED
    assert found, "no model names found in the spec"
    assert found <= listed, f"model names in the spec missing from this test: {found - listed}"


def test_thinking_off_follows_each_model(registry: JsonFileRegistry) -> None:
    def off(model: str) -> tuple[str | None, str | None]:
        info = registry.row(model)
        assert info is not None
        return info.thinking_off_type, info.thinking_off_max_effort

    assert off("claude-sonnet-5-5") == ("between_tools", None)
    assert off("claude-opus-5-5") == (None, None)  # thinking cannot be turned off
    assert off("claude-fable-5-1") == (None, None)
    assert off("claude-haiku-5-5") == ("disabled", "high")
    assert off("claude-opus-4-6") == ("disabled", None)
    opus = registry.row("claude-opus-4-6")
    sonnet = registry.row("claude-sonnet-4-5")
    assert opus is not None and opus.supports_adaptive_thinking
    assert sonnet is not None and not sonnet.supports_adaptive_thinking


def test_service_tiers_follow_the_spec_multipliers(registry: JsonFileRegistry) -> None:
    def ratio(model: str, tier: str) -> Decimal:
        info = registry.row(model)
        assert info is not None and info.pricing.input_per_mtok is not None
        tier_price = info.service_tiers[tier].input_per_mtok
        assert tier_price is not None
        return Decimal(str(tier_price)) / Decimal(str(info.pricing.input_per_mtok))

    assert ratio("gpt-6-astra", "ultrafast") == 6
    assert ratio("gpt-6-astra", "priority") == 2
    assert ratio("gpt-6-luna", "flex") == Decimal("0.5")
    assert ratio("gemini-3.7-flash", "priority") == Decimal("1.8")
    luna = registry.row("gpt-6-luna")
    assert luna is not None and "ultrafast" not in luna.service_tiers
    assert luna.cache_write_billing == "subset" and luna.cache_write_input_multiplier == 1.25


def test_concurrent_built_in_tools_flag(registry: JsonFileRegistry) -> None:
    def concurrent(model: str) -> bool:
        info = registry.row(model)
        assert info is not None
        return info.supports_concurrent_built_in_and_custom_tools

    assert concurrent("claude-sonnet-4-5") and concurrent("gpt-6-luna")
    assert concurrent("gemini-3.7-flash") and not concurrent("gemini-2.5-flash")
    assert not concurrent("kimi-k3")
    kimi = registry.row("kimi-k3")
    assert kimi is not None and kimi.built_in_tools == ()


# --- the data file ---------------------------------------------------------------------


def test_prices_are_null_or_positive(registry: JsonFileRegistry) -> None:
    for info in registry.models():
        for tier, pricing in _all_pricings(info):
            for field, value in pricing.model_dump().items():
                if field == "long_context_threshold_tokens":
                    assert value is None or (isinstance(value, int) and value > 0)
                else:
                    assert value is None or value > 0, f"{info.model} {tier} {field}={value}"
        multiplier = info.cache_write_input_multiplier
        assert multiplier is None or multiplier > 0


def test_every_row_cites_sources_listed_in_sources_md() -> None:
    sources = (REPO / "registry" / "SOURCES.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"^\| ([A-Z][A-Z0-9-]*) \|", sources, flags=re.MULTILINE))
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for provider, section in data.items():
        if provider.startswith("_"):
            continue
        for model, row in section.items():
            if model.startswith("_"):
                continue
            codes = set(row.get("_source", "").split())
            assert codes, f"{provider}.{model} cites no source"
            assert codes <= defined, f"{provider}.{model}: undefined {codes - defined}"


def test_file_validates_against_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = [
        f"{e.json_path}: {e.message}" for e in validator.iter_errors(json.loads(DATA.read_text()))
    ]
    assert errors == []


def test_schema_rejects_a_typo_and_a_negative_price() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    typo = {"anthropic": {"claude-x": {"suports_thinking": True}}}
    negative = {"openai": {"gpt-x": {"pricing": {"input_per_mtok": -1}}}}
    assert list(validator.iter_errors(typo))
    assert list(validator.iter_errors(negative))


def test_every_row_parses_as_model_info(registry: JsonFileRegistry) -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    expected = [
        (provider, key)
        for provider, section in data.items()
        if not provider.startswith("_")
        for key in section
        if not key.startswith("_")
    ]
    assert [(m.provider, m.model) for m in registry.models()] == expected


# --- resolution ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),  # alias
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),  # alias
        ("claude-opus-4-8-20260528", "claude-opus-4-8"),  # dated snapshot
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),  # Vertex-style snapshot
        ("gpt-4o-2024-08-06", "gpt-4o"),  # ISO-dated snapshot
        ("Claude-Opus-4-6", "claude-opus-4-6"),  # case-insensitive
        ("  gpt-6-luna  ", "gpt-6-luna"),  # surrounding whitespace
        ("anthropic/claude-haiku-5-5", "claude-haiku-5-5"),  # provider/ prefix
        ("openai/GPT-6-ASTRA", "gpt-6-astra"),
        ("models/gemini-2.5-flash", "gemini-2.5-flash"),
        ("accounts/fireworks/models/kimi-k3", "kimi-k3"),  # Fireworks id (alias)
        ("fireworks/kimi-k3", "kimi-k3"),
    ],
)
def test_spellings_resolve(registry: JsonFileRegistry, name: str, canonical: str) -> None:
    info = registry.row(name)
    assert info is not None and info.model == canonical


def test_metadata_keys_never_resolve(registry: JsonFileRegistry) -> None:
    keys = set(_metadata_keys(json.loads(DATA.read_text(encoding="utf-8"))))
    assert {"_meta", "_comment", "_source"} <= keys
    for key in keys:
        assert registry.row(key) is None
        assert registry.row(f"anthropic/{key}") is None
        with pytest.raises(ValueError):
            registry.detect_provider(key)
    assert not any(m.model.startswith("_") for m in registry.models())


def test_metadata_at_every_level_is_ignored(tmp_path: Path) -> None:
    model_like = {"context_window_tokens": 5, "provider": "openai"}
    path = _write(
        tmp_path,
        {
            "_meta": {"updated": "2026-11-30"},
            "_comments": {"gpt-fake": model_like},
            "openai": {
                "_comment": "provider-level note",
                "_gpt-hidden": model_like,
                "gpt-real": {
                    "_source": "row-level note",
                    "context_window_tokens": 1000,
                    "pricing": {"_note": "pricing-level note", "input_per_mtok": 1},
                    "service_tiers": {"_x": {}, "flex": {"_n": 1, "input_per_mtok": 0.5}},
                },
            },
        },
    )
    reg = JsonFileRegistry(path)
    assert [m.model for m in reg.models()] == ["gpt-real"]
    real = reg.row("gpt-real")
    assert real is not None and real.model_extra == {}
    assert real.pricing.input_per_mtok == 1 and list(real.service_tiers) == ["flex"]
    for key in ("_meta", "_comments", "_comment", "_gpt-hidden", "_source", "_note"):
        assert reg.row(key) is None
    assert reg.row("gpt-fake") is None  # only reachable through a _ key
    assert reg.providers() == ("anthropic", "openai", "google", "fireworks")


def test_unknown_model(registry: JsonFileRegistry) -> None:
    assert registry.row("mystery-model-9") is None
    assert registry.row("") is None
    with pytest.raises(
        ValueError, match=r"'mystery-model-9'.*anthropic, openai, google, fireworks"
    ):
        registry.detect_provider("mystery-model-9")


@pytest.mark.parametrize(
    "name", ["claude-opus-9", "claude-imaginary-9", "gemini-9-ultra", "accounts/fireworks/x"]
)
def test_unlisted_models_are_unknown_whatever_their_prefix(
    registry: JsonFileRegistry, name: str
) -> None:
    """detect_provider: "ValueError — If model not found in configuration" (a provider
    prefix alone does not make a model known)."""
    assert registry.row(name) is None
    with pytest.raises(ValueError, match=rf"Unknown model '{re.escape(name)}'.*Did you mean"):
        registry.detect_provider(name)


def test_a_non_string_name_is_a_type_error(registry: JsonFileRegistry) -> None:
    with pytest.raises(TypeError):
        registry.detect_provider(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        registry.row(42)  # type: ignore[arg-type]


# --- the adapter -----------------------------------------------------------------------


def test_explicit_path_and_derived_fields(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "acme": {"acme-1": {"context_window_tokens": 8000, "aliases": ["acme-one"]}},
            "anthropic": {
                "claude-test-1": {"pricing": {"input_per_mtok": 1, "output_per_mtok": 5}}
            },
        },
    )
    reg = JsonFileRegistry(str(path))
    assert isinstance(reg, ModelRegistry)
    assert reg.path == path
    acme = reg.row("acme-one")
    assert acme is not None and (acme.model, acme.provider) == ("acme-1", "acme")
    assert reg.detect_provider("ACME-1") == "acme"
    assert reg.providers() == ("anthropic", "openai", "google", "fireworks", "acme")
    claude = reg.row("claude-test-1")
    assert claude is not None and claude.pricing.known
    assert [m.model for m in reg.models()] == ["acme-1", "claude-test-1"]


def test_rows_are_parsed_once(tmp_path: Path) -> None:
    path = _write(tmp_path, {"openai": {"gpt-x": {}}})
    reg = JsonFileRegistry(path)
    first = reg.row("gpt-x")
    path.write_text("not json any more", encoding="utf-8")
    assert reg.row("gpt-x") is first
    assert reg.models()[0] is first


def test_construction_does_no_io(tmp_path: Path) -> None:
    reg = JsonFileRegistry(tmp_path / "missing.json")
    with pytest.raises(RegistryFileError, match=r"missing\.json.*cannot be read"):
        reg.models()


@pytest.mark.parametrize(
    ("content", "message", "key"),
    [
        ("{not json", r"not valid JSON.*line 1", None),
        ("[]", "top level must be an object", None),
        ({"openai": []}, "provider section must be an object", "openai"),
        ({"openai": {"gpt-x": 3}}, "model row must be an object", "openai.gpt-x"),
        (
            {"openai": {"gpt-x": {"context_window_tokens": "big"}}},
            "context_window_tokens",
            "openai.gpt-x",
        ),
        (
            {"openai": {"gpt-x": {"pricing": {"input_per_mtok": 1, "bogus": 2}}}},
            r"pricing\.bogus",
            "openai.gpt-x",
        ),
        (
            {"openai": {"gpt-x": {"provider": "google"}}},
            "provider 'google' disagrees",
            "openai.gpt-x",
        ),
        ({"openai": {"gpt-x": {"model": "gpt-y"}}}, "model 'gpt-y' disagrees", "openai.gpt-x"),
        (
            {"openai": {"gpt-x": {}, "gpt-y": {"aliases": ["GPT-X"]}}},
            "already used by openai.gpt-x",
            "openai.gpt-y",
        ),
        ({"openai": {"gpt-x": {"aliases": ["_hidden"]}}}, "cannot be a model name", "openai.gpt-x"),
    ],
)
def test_malformed_files_name_the_file_and_key(
    tmp_path: Path, content: Any, message: str, key: str | None
) -> None:
    path = _write(tmp_path, content, name="broken.json")
    with pytest.raises(RegistryFileError, match=message) as caught:
        JsonFileRegistry(path).row("gpt-x")
    err = caught.value
    assert isinstance(err, ConfigurationError) and isinstance(err, ValueError)
    assert err.path == str(path) and "broken.json" in str(err)
    assert err.key == key
    if key is not None:
        assert repr(key) in str(err)


def test_default_registry_is_shared_and_packaged() -> None:
    assert default_registry() is default_registry()
    assert default_registry_path().is_file()
    assert default_registry_path().name == "model_information.json"
    info = default_registry().row("claude-sonnet-4-5")
    assert info is not None and info.provider == "anthropic"
