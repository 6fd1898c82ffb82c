"""A constructor's refusal of a YAML value, as the ConfigValidationError of its key path.

YAML validation checks each key's shape; the Agent constructor then checks what only it
can (a tool file exists, a built-in tool is offered by the model's provider, ...). When
it refuses a value loaded from YAML, `constructor_error` names the key path that
holds it, and the file and line, in the same form as every other configuration error:
``built_in_tools.frobnicate: unknown built-in tool 'frobnicate'; ... (agent.yaml:7)``.

The key is found from the message: a parameter it starts with (``max_tokens must be
...``), else the deepest key or string value of the configuration it quotes (``tool path
'x.py' does not exist`` -> ``tools[0]``). A value read from the environment is never
echoed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from doc_processing_toolkit._logging import redact
from doc_processing_toolkit.application.config.schema import SECRET_KEYS
from doc_processing_toolkit.application.config.yaml_validation import SourceMap
from doc_processing_toolkit.domain.errors import ConfigValidationError

__all__ = ["constructor_error", "key_path_of", "mask_environment_in"]

_PARAMETER_PATHS = {
    "max_iterations": "constraints.max_iterations",
    "max_tokens": "constraints.max_tokens",
    "temperature": "constraints.temperature",
    "log_level": "logging.level",
    "log_file": "logging.file",
    "log_to_file": "logging.to_file",
}
_LEADING_NAME = re.compile(r"^(?:Agent\()?([A-Za-z_][A-Za-z0-9_]*)")
_MIN_MASKED = 4
"""Environment values shorter than this are not masked (they would garble the text)."""


def _entries(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(key path, token) for every mapping key and string value under ``value``."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            yield child, str(key)
            yield from _entries(item, child)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _entries(item, f"{path}[{index}]")
    elif isinstance(value, str) and path:
        yield path, value


def _parameter_path(message: str, config: Mapping[str, Any]) -> str | None:
    match = _LEADING_NAME.match(message)
    if match is None:
        return None
    name = match.group(1)
    if name in _PARAMETER_PATHS:
        return _PARAMETER_PATHS[name]
    if name in config:
        return name
    overrides = config.get("provider_overrides")
    if isinstance(overrides, Mapping) and name in overrides:
        return f"provider_overrides.{name}"
    return None


def key_path_of(message: str, config: Mapping[str, Any]) -> str | None:
    """The key path of ``config`` that ``message`` is about, or None when none fits."""
    named = _parameter_path(message, config)
    if named is not None:
        return named
    best: str | None = None
    for path, token in _entries(config, ""):
        if not token or (f"'{token}'" not in message and f'"{token}"' not in message):
            continue
        if best is None or path.count(".") + path.count("[") > best.count(".") + best.count("["):
            best = path
    return best


def _is_secret(path: str) -> bool:
    return any(part in SECRET_KEYS for part in re.split(r"[.\[\]]+", path))


def _mask_environment(message: str, config: Mapping[str, Any], sources: SourceMap) -> str:
    """``message`` without the values read from ``${ENV}`` or held under a secret key."""
    for path, token in _entries(config, ""):
        if len(token) < _MIN_MASKED or token not in message:
            continue
        if path in sources.interpolated:
            message = message.replace(token, "<from the environment>")
        elif _is_secret(path) and not path.endswith(f".{token}") and path != token:
            message = message.replace(token, "<redacted>")
    return message


def mask_environment_in(
    exc: BaseException, config: Mapping[str, Any], sources: SourceMap
) -> BaseException:
    """``exc`` (the constructor's own error, kept as the cause) with the values read from
    ``${ENV}`` masked in its message, in place; its type is kept."""

    def masked(text: str) -> str:
        return _mask_environment(redact(text), config, sources)

    try:
        if isinstance(exc, OSError):
            for attr in ("filename", "filename2", "strerror"):
                value = getattr(exc, attr, None)
                if isinstance(value, str):
                    setattr(exc, attr, masked(value))
        exc.args = tuple(masked(a) if isinstance(a, str) else a for a in exc.args)
    except (AttributeError, TypeError):  # pragma: no cover - read-only attributes
        pass
    return exc


def constructor_error(
    exc: BaseException, config: Mapping[str, Any], sources: SourceMap
) -> ConfigValidationError:
    """The ConfigValidationError of the constructor's ``exc`` for the loaded ``config``."""
    path = key_path_of(str(exc), config)  # found on the raw text; only the masked one is shown
    message = _mask_environment(redact(str(exc)), config, sources)
    if path is None:
        return ConfigValidationError(f"the configuration: {message}{sources.where('')}")
    return ConfigValidationError(f"{path}: {message}{sources.where(path)}")
