"""Agent.from_config / from_config_string: a YAML file plus overrides -> constructor kwargs.

The override rules (the API reference's):

* ``max_iterations``, ``max_tokens`` and ``temperature`` replace the ``constraints`` values;
* ``log_file`` and ``log_level`` apply only when the YAML has no ``logging`` block, and
  ``log_to_file`` only when that block has no ``to_file`` key;
* ``logger``, ``client``, ``deps`` and ``hooks`` are passed through as given;
* any other constructor parameter replaces the top-level YAML key of the same name (and is
  validated with it, so a bad ``max_tool_result_chars=-1`` fails at load);
* a keyword that is no Agent parameter is a provider keyword: it replaces the
  ``provider_overrides`` entry of the same name.

The whole configuration is validated before the Agent is constructed, so a bad file never
builds a half-configured Agent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from doc_processing_toolkit.application.config.constructor_errors import (
    constructor_error,
    mask_environment_in,
)
from doc_processing_toolkit.application.config.env_references import EnvReferences, remember
from doc_processing_toolkit.application.config.schema import CONFIG_FIELDS
from doc_processing_toolkit.application.config.settings import SETTING_NAMES
from doc_processing_toolkit.application.config.validation import check_keyword_names
from doc_processing_toolkit.application.config.yaml_loader import (
    interpolate_env,
    parse_yaml,
    read_config_text,
)
from doc_processing_toolkit.application.config.yaml_validation import (
    RegistryCheck,
    SourceMap,
)
from doc_processing_toolkit.application.config.yaml_validation import (
    validate_config as validate_config_shape,
)
from doc_processing_toolkit.application.deps import AgentDeps, with_user_registry
from doc_processing_toolkit.domain.errors import (
    ConfigValidationError,
    InvalidArgumentTypeError,
    MissingFileError,
)

__all__ = [
    "agent_from_file",
    "agent_from_string",
    "agent_kwargs_from_file",
    "agent_kwargs_from_string",
    "config_to_kwargs",
    "validate_config",
]

T = TypeVar("T")

DepsSource = Callable[[], AgentDeps]
"""Where the Agent's default adapters come from (the composition root's ``default_deps``;
it raises RuntimeError when no composition root is installed)."""

_CONSTRAINT_KEYS = ("max_iterations", "max_tokens", "temperature")
_LOGGING_KEYS = {"level": "log_level", "file": "log_file", "to_file": "log_to_file"}
_PASSTHROUGH = ("logger", "client", "deps", "hooks")
_PROVIDER_KEYWORDS = ("max_pause_turn_iterations", "mcp_remote_servers")
"""Settings fields that are spelled as provider keywords (under provider_overrides)."""

AGENT_PARAMETERS = frozenset(set(SETTING_NAMES) - {"provider_kwargs", *_PROVIDER_KEYWORDS}) | {
    "deps"
}
"""The Agent constructor's named parameters."""


def _normalise_tool(entry: Any) -> Any:
    if isinstance(entry, Mapping) and entry.get("type") == "mcp_remote":
        data = {k: v for k, v in entry.items() if k not in ("type", "url")}
        data = {"type": "mcp", "server_url": entry["url"], **data}
        if "name" not in data and "server_label" not in data:
            host = urlsplit(str(entry["url"])).hostname or "remote-mcp"
            data["server_label"] = re.sub(r"[^A-Za-z0-9_-]", "-", host)
        return data
    return entry


def config_to_kwargs(config: Mapping[str, Any]) -> dict[str, Any]:
    """The Agent constructor keywords of a validated configuration dict.

    Raises:
        ConfigValidationError: a provider_overrides key that is an Agent parameter.
    """
    kwargs: dict[str, Any] = {}
    provider: dict[str, Any] = {}
    for key, value in config.items():
        if key == "constraints":
            kwargs.update(value or {})
        elif key == "logging":
            for yaml_key, param in _LOGGING_KEYS.items():
                if yaml_key in (value or {}):
                    kwargs[param] = value[yaml_key]
        elif key == "provider_overrides":
            for name, item in (value or {}).items():
                if name in AGENT_PARAMETERS:
                    raise ConfigValidationError(
                        f"provider_overrides.{name}: is an Agent parameter, not a provider "
                        f"keyword; set it as the top-level key (or constraints.{name})"
                        if name in _CONSTRAINT_KEYS or name in CONFIG_FIELDS
                        else f"provider_overrides.{name}: is an Agent parameter; pass it "
                        "to from_config() as a keyword"
                    )
                provider[name] = item
        elif key == "tools":
            kwargs["tools"] = [_normalise_tool(entry) for entry in value or []]
        elif key in CONFIG_FIELDS:
            kwargs[key] = value
    return {**kwargs, **provider}


def _apply_overrides(
    config: dict[str, Any], overrides: Mapping[str, Any], sources: SourceMap
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config with the data overrides applied, keywords passed through as given)."""
    merged = dict(config)
    passthrough: dict[str, Any] = {}
    logging_block = merged.get("logging")

    def forget(path: str) -> None:
        sources.lines = {
            p: line
            for p, line in sources.lines.items()
            if not (p == path or p.startswith((path + ".", path + "[")))
        }

    for key, value in overrides.items():
        if key in _CONSTRAINT_KEYS:
            constraints = dict(merged.get("constraints") or {})
            constraints[key] = value
            merged["constraints"] = constraints
            forget(f"constraints.{key}")
        elif key in ("log_file", "log_level"):
            if not isinstance(logging_block, Mapping):
                passthrough[key] = value
        elif key == "log_to_file":
            if not isinstance(logging_block, Mapping) or "to_file" not in logging_block:
                passthrough[key] = value
        elif key in _PASSTHROUGH:
            passthrough[key] = value
        elif key in CONFIG_FIELDS:
            merged[key] = value
            forget(key)
        else:
            provider = dict(merged.get("provider_overrides") or {})
            provider[key] = value
            merged["provider_overrides"] = provider
            forget(f"provider_overrides.{key}")
    return merged, passthrough


def _registry_check(
    overrides: Mapping[str, Any], user_rows: Any, default_deps: DepsSource
) -> RegistryCheck | None:
    """The model-name check against the registry the Agent will use: the ``deps`` override's
    or the process default's, with the configuration's own ``registry`` rows merged in
    (None: no composition root is installed; the Agent checks the model itself)."""
    deps = overrides.get("deps")
    if deps is None:
        try:
            deps = default_deps()
        except RuntimeError:
            return None
    registry = with_user_registry(deps, user_rows).registry

    def check(model: str) -> str | None:
        try:
            registry.detect_provider(model)
        except ValueError as exc:  # names the model and the closest names
            return str(exc)
        return None

    return check


def validate_config(config: Mapping[str, Any], *, default_deps: DepsSource) -> dict[str, Any]:
    """Validate an agent configuration dictionary; return it with defaults applied.

    Checks the required ``model``, that the model name exists in the model registry (with
    the configuration's own ``registry`` rows), every value's type and range, unknown keys
    and contradicting combinations.

    Raises:
        ConfigValidationError: naming the key path and the problem (an unknown model with
            the closest registry names).
    """
    if not isinstance(config, Mapping):
        return validate_config_shape(config)  # raises, naming the type
    user_rows = config.get("registry")
    try:
        check = _registry_check({}, user_rows, default_deps)
    except ValueError as exc:
        raise ConfigValidationError(str(exc)) from exc
    return validate_config_shape(config, registry_check=check)


def agent_kwargs_from_string(
    yaml_content: str,
    overrides: Mapping[str, Any],
    *,
    default_deps: DepsSource,
    source: str = "<string>",
) -> dict[str, Any]:
    """The constructor keywords of ``yaml_content`` with ``overrides`` applied.

    Raises:
        ConfigParseError: the YAML does not parse.
        ConfigValidationError: the configuration (with the overrides) is invalid.
    """
    return _load(yaml_content, overrides, source, default_deps)[0]


def agent_from_string(
    factory: Callable[..., T],
    yaml_content: str,
    overrides: Mapping[str, Any],
    *,
    default_deps: DepsSource,
    source: str = "<string>",
) -> T:
    """``factory(**kwargs)`` of ``yaml_content``; the constructor's own refusals of a value
    (a ValueError, TypeError or FileNotFoundError) surface as ConfigValidationError naming
    the key path and line, so a bad file never yields a half-configured Agent.

    Raises:
        ConfigParseError: the YAML does not parse.
        ConfigValidationError: the configuration is invalid, or the constructor refused it.
    """
    kwargs, config, sources = _load(yaml_content, overrides, source, default_deps)
    try:
        built = factory(**kwargs)
    except (ConfigValidationError, NotImplementedError):
        raise
    except (ValueError, TypeError, FileNotFoundError) as exc:
        error = constructor_error(exc, config, sources)
        refused = exc
    else:
        remember(built, EnvReferences.of(sources))  # to_config() writes ${NAME}, not values
        return built
    # Raised outside the handler: the constructor's error is the cause, masked, and no
    # unmasked copy of it is left as the context.
    raise error from mask_environment_in(refused, config, sources)


def agent_from_file(
    factory: Callable[..., T],
    config_path: str | os.PathLike[str],
    overrides: Mapping[str, Any],
    *,
    default_deps: DepsSource,
) -> T:
    """As `agent_from_string`, for a file.

    Raises:
        FileNotFoundError: the file does not exist.
    """
    return agent_from_string(
        factory,
        _read(config_path),
        overrides,
        default_deps=default_deps,
        source=os.fspath(config_path),
    )


def _load(
    yaml_content: str, overrides: Mapping[str, Any], source: str, default_deps: DepsSource
) -> tuple[dict[str, Any], dict[str, Any], SourceMap]:
    """(constructor keywords, the validated YAML-shaped config, where each key sits)."""
    if not isinstance(yaml_content, str):
        raise InvalidArgumentTypeError(
            f"yaml_content must be a string, got {type(yaml_content).__name__}"
        )
    data, sources = parse_yaml(yaml_content, source)
    data = interpolate_env(data if data is not None else {}, "", sources)
    if not isinstance(data, dict):
        raise ConfigValidationError(
            f"the configuration must be a mapping of keys, got {type(data).__name__} ({source})"
        )
    # from_config(path, instruction=...) is the TypeError Agent(instruction=...) raises.
    check_keyword_names({k: v for k, v in overrides.items() if k not in CONFIG_FIELDS})
    merged, passthrough = _apply_overrides(data, overrides, sources)
    try:
        check = _registry_check(overrides, merged.get("registry"), default_deps)
    except (ValueError, TypeError) as exc:
        raise constructor_error(exc, merged, sources) from exc
    validated = validate_config_shape(merged, sources=sources, registry_check=check)
    return {**config_to_kwargs(validated), **passthrough}, validated, sources


def _read(config_path: str | os.PathLike[str]) -> str:
    path = os.fspath(config_path)
    if not os.path.isfile(path):
        raise MissingFileError(f"config file {path!r} does not exist")
    return read_config_text(path)


def agent_kwargs_from_file(
    config_path: str | os.PathLike[str], overrides: Mapping[str, Any], *, default_deps: DepsSource
) -> dict[str, Any]:
    """As `agent_kwargs_from_string`, for a file.

    Raises:
        FileNotFoundError: the file does not exist.
    """
    return agent_kwargs_from_string(
        _read(config_path), overrides, default_deps=default_deps, source=os.fspath(config_path)
    )
