"""Configuration loading and validation for Agent (documented import path).

Handles loading agent configuration from YAML files, validating parameter combinations,
and environment variable interpolation. Thin re-exports of ``application.config``; the
loaders below check the model name against the composition root's registry (bound for the
duration of the call: nothing is installed when this module is imported).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.application.config import from_config as _from_config
from doc_processing_toolkit.application.config import yaml_loader as _yaml
from doc_processing_toolkit.application.config.schema import config_json_schema
from doc_processing_toolkit.application.config.yaml_loader import AgentConfig, merge_configs
from doc_processing_toolkit.application.config.yaml_validation import (
    RegistryCheck,
    validate_max_tool_result_chars,
    validate_tool_result_preview_chars,
    validate_truncated_result_read_chars,
)
from doc_processing_toolkit.application.deps import default_deps_from
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


def validate_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Validate an agent configuration dictionary; return it with defaults applied.

    Checks the required ``model``, that the model name exists in the model registry (with
    the configuration's own ``registry`` rows), every value's type and range, unknown keys
    and contradicting combinations.

    Raises:
        ConfigValidationError: naming the key path and the problem (an unknown model with
            the closest registry names).
    """
    with default_deps_from(container_deps):
        return _from_config.validate_config(config)


def load_config_from_string(
    yaml_content: str,
    *,
    source: str = "<string>",
    registry_check: RegistryCheck | None = _yaml.default_registry_check,
) -> dict[str, Any]:
    """Load agent configuration from a YAML string: parse, interpolate, validate.

    Raises:
        ConfigParseError: the YAML does not parse.
        ConfigValidationError: a value is invalid (naming its key path and line).
    """
    with default_deps_from(container_deps):
        return _yaml.load_config_from_string(
            yaml_content, source=source, registry_check=registry_check
        )


def load_config(
    file_path: str | os.PathLike[str],
    *,
    registry_check: RegistryCheck | None = _yaml.default_registry_check,
) -> dict[str, Any]:
    """Load agent configuration from a YAML file: parse, interpolate, validate.

    Raises:
        FileNotFoundError: the file does not exist.
        ConfigParseError: the YAML does not parse.
        ConfigValidationError: a value is invalid (naming its key path, file and line).
    """
    with default_deps_from(container_deps):
        return _yaml.load_config(file_path, registry_check=registry_check)
