"""A misspelt Agent parameter is a TypeError naming the parameter meant, as Python's own.

Spec (agent-api.txt, Agent ``**provider_kwargs``): "Provider-specific parameters passed
directly to provider functions. A keyword this provider's entry points do not accept, or
one the Agent supplies itself (system_prompt, client, logger and similar), is still passed
through but logs one WARNING at construction naming it". The pass-through is for
provider-specific keywords; ``instruction=`` or ``max_token=`` is a typo of a named
parameter, and passing it through would silently run without instructions or cap.
"""

from __future__ import annotations

import logging

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers.options import (
    AGENT_OWNED_KWARGS,
    COMMON_PROVIDER_KWARGS,
    PROVIDER_KWARGS,
)
from doc_processing_toolkit.domain.errors import ConfigValidationError
from doc_processing_toolkit.testing import FakeModel

MODEL = "claude-sonnet-4-5"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _logger(name: str) -> tuple[logging.Logger, _Records]:
    logger = logging.getLogger(f"tests.keyword_typos.{name}")
    handler = _Records()
    logger.addHandler(handler)
    logger.propagate = False
    return logger, handler


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("instruction", "instructions"),
        ("max_token", "max_tokens"),
        ("temprature", "temperature"),
        ("max_iteration", "max_iterations"),
        ("tool", "tools"),
        ("compaction_configs", "compaction_config"),
    ],
)
def test_a_near_miss_of_a_parameter_is_a_type_error(typo: str, meant: str) -> None:
    """**provider_kwargs: "Provider-specific parameters" — a near miss of a named Agent
    parameter is not one; Python would raise TypeError for it, and so does Agent."""
    with pytest.raises(TypeError, match=rf"'{typo}'.*Did you mean '{meant}'\?"):
        Agent(MODEL, client=FakeModel(), log_to_file=False, **{typo: 1})


def test_a_provider_keyword_still_passes_through_with_a_warning() -> None:
    """**provider_kwargs: "A keyword this provider's entry points do not accept ... is
    still passed through but logs one WARNING at construction naming it"."""
    logger, records = _logger("top_k")
    agent = Agent(MODEL, client=FakeModel(), logger=logger, log_to_file=False, top_k=3)
    assert agent.provider_kwargs == {"top_k": 3}
    assert any("'top_k'" in message for message in records.messages)


def test_system_prompt_keeps_its_documented_warning() -> None:
    """**provider_kwargs: "(with the Agent parameter to use instead where there is one, e.g.
    instructions= for system_prompt=)" — a warning, not an error."""
    logger, records = _logger("system_prompt")
    Agent(MODEL, client=FakeModel(), logger=logger, log_to_file=False, system_prompt="be brief")
    assert any("Agent(instructions=...)" in message for message in records.messages)


def test_no_documented_provider_keyword_is_taken_for_a_typo() -> None:
    """**provider_kwargs: "Supported parameters by provider" — every documented keyword of
    every provider (and the Agent-owned ones that warn) still constructs."""
    documented = set(COMMON_PROVIDER_KWARGS) | set(AGENT_OWNED_KWARGS)
    for names in PROVIDER_KWARGS.values():
        documented |= set(names)
    from doc_processing_toolkit.application.config.validation import check_keyword_names

    for name in sorted(documented):
        check_keyword_names({name: object()})


def test_the_builder_refuses_the_same_typo_at_build() -> None:
    """AgentBuilder builds the Agent the constructor builds (agent-api.txt, AgentBuilder:
    "Provides a fluent interface for configuring agents")."""
    builder = Agent.builder().model(MODEL).client(FakeModel())
    builder._kwargs["instruction"] = "x"  # what a hand-rolled pass-through would send
    with pytest.raises(TypeError, match="Did you mean 'instructions'"):
        builder.build()


def test_from_config_overrides_refuse_a_typo_as_a_type_error() -> None:
    """Agent.from_config(config_path, **overrides): an override is a keyword like the
    constructor's; a misspelt one raises the same TypeError."""
    with pytest.raises(TypeError, match="Did you mean 'instructions'"):
        Agent.from_config_string(f"model: {MODEL}", instruction="x", log_to_file=False)


def test_yaml_provider_overrides_name_the_key_of_a_typo() -> None:
    """agent-api.txt, from_config: "ConfigValidationError — If config is invalid"; the
    error names the key path and line."""
    yaml = f"model: {MODEL}\nprovider_overrides:\n  max_token: 5\n"
    with pytest.raises(ConfigValidationError, match=r"provider_overrides\.max_token.*max_tokens"):
        Agent.from_config_string(yaml, log_to_file=False)
