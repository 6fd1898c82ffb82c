"""on_unsupported_part="convert" is a setting like "drop" and "raise": accepted by the
constructor and YAML, exported by to_config, and a bad value names the three."""

from __future__ import annotations

import pytest

from doc_processing_toolkit import Agent, ConfigurationError


def test_convert_is_accepted_by_the_constructor_and_yaml() -> None:
    agent = Agent.from_config_string(
        "model: claude-sonnet-5-5\non_unsupported_part: convert\n", log_to_file=False
    )
    assert agent.settings.media.on_unsupported_part == "convert"
    assert agent.to_config()["on_unsupported_part"] == "convert"


def test_a_bad_value_names_the_three() -> None:
    with pytest.raises(ConfigurationError, match='"drop", "raise" or "convert"'):
        Agent("claude-sonnet-5-5", on_unsupported_part="nope", log_to_file=False)
