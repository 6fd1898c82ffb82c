"""Configuration loading and validation for Agent (documented import path).

Handles loading agent configuration from YAML files, validating parameter combinations,
and environment variable interpolation. Thin re-exports of ``application.config``.
"""

from doc_processing_toolkit.agent import core as _core  # installs the default AgentDeps
from doc_processing_toolkit.application.config.from_config import validate_config
from doc_processing_toolkit.application.config.schema import config_json_schema
from doc_processing_toolkit.application.config.yaml_loader import (
    AgentConfig,
    load_config,
    load_config_from_string,
    merge_configs,
)
from doc_processing_toolkit.application.config.yaml_validation import (
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

del _core
