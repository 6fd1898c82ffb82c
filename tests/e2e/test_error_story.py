"""One error story: every error derives from DocProcessingToolkitError and is exported from
the package root; a missing API key is the same ConfigurationError, naming the variable, on
every provider, before any network attempt (the emulator sees no request)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

import doc_processing_toolkit
from doc_processing_toolkit import (
    Agent,
    ConfigurationError,
    DocProcessingToolkitError,
    StructuredOutputError,
)
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.domain import errors
from doc_processing_toolkit.testing import Reply
from doc_processing_toolkit.testing.emulator import ProviderEmulator

KEY_VARIABLES = {
    "claude-sonnet-5-5": ("anthropic", "ANTHROPIC_API_KEY"),
    "gpt-4o": ("openai", "OPENAI_API_KEY"),
    "gemini-2.5-flash": ("google", "GOOGLE_GEMINI_API_KEY"),
    "kimi-k2p6": ("fireworks", "FIREWORKS_API_KEY"),
}
EVERY_KEY_VARIABLE = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GOOGLE_GEMINI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "FIREWORKS_API_KEY",
)


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


def test_every_error_class_derives_from_the_base_and_is_exported() -> None:
    classes = [
        obj
        for _, obj in inspect.getmembers(errors, inspect.isclass)
        if issubclass(obj, BaseException) and obj.__module__ == errors.__name__
    ]
    assert len(classes) >= 20
    for cls in classes:
        assert issubclass(cls, DocProcessingToolkitError), cls
        assert getattr(doc_processing_toolkit, cls.__name__) is cls, cls
        assert cls.__name__ in doc_processing_toolkit.__all__
        assert cls.__name__ in (errors.__doc__ or ""), f"{cls.__name__} missing from the tree"
    # The documented extra bases stay.
    assert issubclass(errors.StructuredOutputError, ValueError)
    assert issubclass(errors.SessionCompatibilityError, ValueError)
    assert issubclass(errors.ConfigurationError, ValueError)


@pytest.mark.parametrize("model", sorted(KEY_VARIABLES))
def test_a_missing_key_is_one_configuration_error_naming_the_variable(
    model: str, emulator: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in EVERY_KEY_VARIABLE:
        monkeypatch.delenv(name, raising=False)
    provider, variable = KEY_VARIABLES[model]
    emulator.reset()
    agent = Agent(model, base_url=getattr(emulator, f"{provider}_base_url"), log_to_file=False)
    with pytest.raises(ConfigurationError) as caught:
        agent.run_sync("hello")
    assert variable in str(caught.value)
    assert f"{provider}: no API key" in str(caught.value)
    assert isinstance(caught.value, DocProcessingToolkitError)
    assert emulator.request_count == 0


class Verdict(BaseModel):
    label: str
    score: float


def test_path_b_text_instead_of_final_result_is_a_structured_output_error(
    emulator: ProviderEmulator,
) -> None:
    row = registry().row("kimi-k2p6")
    assert row is not None and not row.supports_structured_output  # Path B: final_result tool
    emulator.reset([Reply(text="not json at all")])
    agent = Agent(
        "kimi-k2p6",
        api_key="offline-test-key",
        base_url=emulator.fireworks_base_url,
        log_to_file=False,
    )
    with pytest.raises(StructuredOutputError, match="not valid JSON"):
        agent.run_sync("Classify: 'great product'", output_schema=Verdict)


def test_path_b_json_text_still_validates(emulator: ProviderEmulator) -> None:
    emulator.reset([Reply(text='{"label": "positive", "score": 0.97}')])
    agent = Agent(
        "kimi-k2p6",
        api_key="offline-test-key",
        base_url=emulator.fireworks_base_url,
        log_to_file=False,
    )
    result = agent.run_sync("Classify: 'great product'", output_schema=Verdict)
    assert result.output == {"label": "positive", "score": 0.97}
    emulator.reset([Reply(text='{"label": "positive"}')])
    with pytest.raises(StructuredOutputError):
        agent.run_sync("Classify again", output_schema=Verdict)
