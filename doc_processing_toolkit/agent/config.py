"""Configuration loading and validation for Agent (documented import path).

Handles loading agent configuration from YAML files, validating parameter combinations,
and environment variable interpolation. Thin re-exports of ``application.config``; the
loaders below check the model name against the composition root's registry (handed in
for the call: nothing is installed when this module is imported).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.application import from_config as _from_config
from doc_processing_toolkit.application.config import yaml_loader as _yaml_loader
from doc_processing_toolkit.application.config.schema import config_json_schema
from doc_processing_toolkit.application.config.yaml_loader import merge_configs
from doc_processing_toolkit.application.config.yaml_validation import (
    RegistryCheck,
    validate_max_tool_result_chars,
    validate_tool_result_preview_chars,
    validate_truncated_result_read_chars,
)
from doc_processing_toolkit.domain.errors import ConfigParseError, ConfigValidationError

__all__ = [
    "AgentConfig",
    "ConfigParseError",
    "ConfigValidationError",
    "config_json_schema",
    "load_config",
    "load_config_from_string",
    "merge_configs",
    "validate_config",
    "validate_max_tool_result_chars",
    "validate_tool_result_preview_chars",
    "validate_truncated_result_read_chars",
]


def default_registry_check(model: str) -> str | None:
    """Whether the composition root's registry knows which provider serves ``model``."""
    try:
        registry = container_deps().registry
    except RuntimeError:
        return None  # no composition root installed: the Agent checks the model itself
    try:
        registry.detect_provider(model)
    except ValueError:
        return f"unknown model {model!r}: no provider in the model registry serves it"
    return None


class AgentConfig(_yaml_loader.AgentConfig):
    """Agent configuration container: attribute-style access to a validated dict.

    ``config.model``, ``config.constraints["max_tokens"]``; a documented key the file
    leaves out reads as None (``tools`` as [], ``instructions`` as ""). `from_string` and
    `from_yaml` check the model name against the composition root's registry.
    """

    registry_check = staticmethod(default_registry_check)


def load_config_from_string(
    yaml_content: str,
    *,
    source: str = "<string>",
    registry_check: RegistryCheck | None = default_registry_check,
) -> dict[str, Any]:
    """Load agent configuration from a YAML string: parse, interpolate, validate.

    Raises:
        ConfigParseError: the YAML does not parse.
        ConfigValidationError: a value is invalid (naming its key path and line).
    """
    return _yaml_loader.load_config_from_string(
        yaml_content, source=source, registry_check=registry_check
    )


def load_config(
    file_path: str | os.PathLike[str],
    *,
    registry_check: RegistryCheck | None = default_registry_check,
) -> dict[str, Any]:
    """Load agent configuration from a YAML file: parse, interpolate, validate.

    Raises:
        FileNotFoundError: the file does not exist.
        ConfigParseError: the YAML does not parse.
        ConfigValidationError: a value is invalid (naming its key path, file and line).
    """
    return _yaml_loader.load_config(file_path, registry_check=registry_check)


def validate_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Validate an agent configuration dictionary; return it with defaults applied.

    Checks the required ``model``, that the model name exists in the model registry (with
    the configuration's own ``registry`` rows), every value's type and range, unknown keys
    and contradicting combinations.

    Raises:
        ConfigValidationError: naming the key path and the problem (an unknown model with
            the closest registry names).
    """
    return _from_config.validate_config(config, default_deps=container_deps)
