"""Loading an Agent's configuration from YAML: parse, interpolate ``${ENV}``, validate.

`load_config` and `load_config_from_string` return the validated dict;
`AgentConfig` wraps one with attribute access. pyyaml is imported inside the
parser, so importing the package does not import it.

Interpolation: ``${NAME}`` is replaced by the environment variable NAME, and
``${NAME:-default}`` by NAME or, when NAME is unset or empty, ``default``. A variable
that is unset and has no default is an error naming it and the key it sits under.
Substituted values are strings (``max_tokens: ${MAX_TOKENS}`` is refused as a string);
``$${`` writes a literal ``${``.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.application.config.yaml_validation import (
    RegistryCheck,
    SourceMap,
    validate_config,
)
from doc_processing_toolkit.domain.errors import (
    ConfigParseError,
    ConfigValidationError,
    MissingDependencyError,
    MissingFileError,
)

__all__ = [
    "AgentConfig",
    "default_registry_check",
    "interpolate_env",
    "load_config",
    "load_config_from_string",
    "merge_configs",
    "parse_yaml",
]

_PLACEHOLDER = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _record_lines(node: Any, path: str, lines: dict[str, int]) -> None:
    import yaml

    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = getattr(key_node, "value", None)
            sub = _child(path, key)
            lines[sub] = key_node.start_mark.line + 1
            _record_lines(value_node, sub, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record_lines(item, _child(path, index), lines)


def parse_yaml(text: str, source: str) -> tuple[Any, SourceMap]:
    """Parse ``text`` with pyyaml's safe loader; return the data and where each key sits.

    Raises:
        ConfigParseError: the YAML is malformed (naming ``source`` and the line).
    """
    try:
        import yaml
    except ImportError as exc:  # pragma: no cover - pyyaml is a dependency
        raise MissingDependencyError("YAML configuration needs pyyaml: pip install pyyaml") from exc
    sources = SourceMap(source=source)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, sources
        _record_lines(node, "", sources.lines)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        problem = exc.problem or exc.context or "malformed YAML"
        raise ConfigParseError(f"{where}: invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigParseError(f"{source}: invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, sources


def interpolate_env(value: Any, path: str, sources: SourceMap) -> Any:
    """``value`` with ``${NAME}`` / ``${NAME:-default}`` replaced in every string.

    Raises:
        ConfigValidationError: an unset variable without a default (naming it).
    """
    if isinstance(value, str):
        if "$" not in value:
            return value
        used_env = False

        def replace(match: re.Match[str]) -> str:
            nonlocal used_env
            if match.group(0) == "$${":
                return "${"
            name, default = match.group(1), match.group(2)
            found = os.environ.get(name)
            if found is None or (found == "" and default is not None):
                if default is None:
                    raise ConfigValidationError(
                        f"{path or '<root>'}: environment variable {name} is not set and "
                        f"has no default (write ${{{name}:-default}}){sources.where(path)}"
                    )
                return default
            used_env = True
            return found

        result = _PLACEHOLDER.sub(replace, value)
        if used_env:
            sources.interpolated.add(path)
        return result
    if isinstance(value, Mapping):
        return {k: interpolate_env(v, _child(path, k), sources) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate_env(v, _child(path, i), sources) for i, v in enumerate(value)]
    return value


def default_registry_check(model: str) -> str | None:
    """Whether the process default registry knows which provider serves ``model``."""
    from doc_processing_toolkit.application.deps import default_deps

    try:
        registry = default_deps().registry
    except RuntimeError:
        return None  # no composition root installed: the Agent checks the model itself
    try:
        registry.detect_provider(model)
    except ValueError:
        return f"unknown model {model!r}: no provider in the model registry serves it"
    return None


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
    data, sources = parse_yaml(yaml_content, source)
    data = interpolate_env(data, "", sources)
    return validate_config(
        data if data is not None else {}, sources=sources, registry_check=registry_check
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
    path = os.fspath(file_path)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise MissingFileError(f"config file {path!r} does not exist") from None
    return load_config_from_string(text, source=path, registry_check=registry_check)


def merge_configs(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: ``base`` with ``overrides`` on top, nested mappings merged recursively.

    Neither argument is modified; lists and scalars in ``overrides`` replace.
    """
    merged: dict[str, Any] = {k: copy.deepcopy(v) for k, v in base.items()}
    for key, value in overrides.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = merge_configs(current, value)
        else:
            merged[key] = copy.deepcopy(value) if _is_data(value) else value
    return merged


def _is_data(value: Any) -> bool:
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, Mapping):
        return all(_is_data(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_is_data(v) for v in value)
    return False


class AgentConfig:
    """Agent configuration container: attribute-style access to a validated dict.

    ``config.model``, ``config.constraints["max_tokens"]``; a documented key the file
    leaves out reads as None (``tools`` as [], ``instructions`` as "").
    """

    def __init__(self, config_dict: dict[str, Any]) -> None:
        """Initialize from a configuration dictionary (validated as load_config does,
        without the registry check)."""
        self._data = validate_config(config_dict)

    @classmethod
    def from_string(cls, yaml_content: str) -> AgentConfig:
        """Load configuration from a YAML string."""
        return cls(load_config_from_string(yaml_content))

    @classmethod
    def from_yaml(cls, file_path: str) -> AgentConfig:
        """Load configuration from a YAML file."""
        return cls(load_config(file_path))

    def merge(self, overrides: dict[str, Any]) -> AgentConfig:
        """A new config with ``overrides`` merged on top (see `merge_configs`)."""
        return AgentConfig(merge_configs(self._data, overrides))

    def to_dict(self) -> dict[str, Any]:
        """The configuration as a (deep-copied) dictionary."""
        return copy.deepcopy(self._data)

    @property
    def model(self) -> str:
        """The model name."""
        return str(self._data["model"])

    @property
    def instructions(self) -> str:
        """The system prompt."""
        return str(self._data.get("instructions") or "")

    @property
    def tools(self) -> list[Any]:
        """The tools entries."""
        return list(self._data.get("tools") or [])

    @property
    def constraints(self) -> dict[str, Any]:
        """max_iterations, max_tokens, temperature."""
        return dict(self._data.get("constraints") or {})

    def __getattr__(self, name: str) -> Any:
        from doc_processing_toolkit.application.config.schema import CONFIG_FIELDS

        if name.startswith("_") or name not in CONFIG_FIELDS:
            raise AttributeError(f"AgentConfig has no key {name!r}")
        return self._data.get(name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentConfig) and other._data == self._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"AgentConfig(model={self.model!r}, keys={sorted(self._data)})"
