"""Validation of a configuration dict (YAML plus overrides) against `CONFIG_FIELDS`.

Every problem is a `ConfigValidationError` whose message names the key path
(``tools[2].allowed_tools``), what is wrong with the value and, when the dict came from
a file, where: ``agent.yaml:14``. A value under a secret key (api_key, headers, env,
tokens) or one that came from ``${ENV}`` interpolation is never echoed.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.config.schema import (
    CONFIG_FIELDS,
    IGNORED_KEYS,
    SECRET_KEYS,
    TOOL_TYPES,
    Spec,
)
from doc_processing_toolkit.domain.errors import ConfigValidationError

__all__ = [
    "SourceMap",
    "config_problems",
    "validate_config",
    "validate_max_tool_result_chars",
    "validate_tool_result_preview_chars",
    "validate_truncated_result_read_chars",
]

RegistryCheck = Callable[[str], str | None]
"""model -> None when known, else the problem (e.g. "no provider serves it")."""


@dataclass
class SourceMap:
    """Where each key path of a parsed file sits, and which values came from ``${ENV}``."""

    source: str | None = None
    """The file name ("<string>" for a string)."""
    lines: dict[str, int] = field(default_factory=dict)
    """key path -> 1-based line."""
    interpolated: set[str] = field(default_factory=set)
    """Key paths whose value was (partly) read from the environment."""
    references: dict[str, str] = field(default_factory=dict)
    """Each value (partly) read from the environment -> its text in the file (the
    ``${NAME}`` references intact): what ``to_config()`` writes in its place."""
    environment: dict[str, str] = field(default_factory=dict)
    """Variable name -> value, for every variable whose value the file used."""

    def where(self, path: str) -> str:
        """`` (file:line)`` for ``path`` or its nearest parent with a line, else ''."""
        if self.source is None:
            return ""
        probe = path
        while probe:
            if probe in self.lines:
                return f" ({self.source}:{self.lines[probe]})"
            cut = max(probe.rfind("."), probe.rfind("["))
            probe = probe[:cut] if cut > 0 else ""
        return f" ({self.source})"


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, Mapping),
    "array": lambda v: isinstance(v, list | tuple),
    "null": lambda v: v is None,
}
_TYPE_WORDS = {
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
    "object": "a mapping",
    "array": "a list",
    "null": "null",
}


def _is_secret(path: str) -> bool:
    for piece in path.replace("[", ".").split("."):
        if piece in SECRET_KEYS:
            return True
    return False


class _Checker:
    def __init__(
        self, sources: SourceMap | None, problems: list[ConfigValidationError] | None = None
    ) -> None:
        self.sources = sources or SourceMap()
        self.problems = problems
        """None: raise the first problem; a list: collect every problem there."""
        self.failed: set[str] = set()
        """The key paths a problem was found at."""

    def each(self, check: Callable[..., None], *args: Any) -> None:
        """``check(*args)``: one independent part; when collecting, its problem is kept
        and the checking goes on with the next part."""
        if self.problems is None:
            check(*args)
            return
        try:
            check(*args)
        except ConfigValidationError as exc:
            self.problems.append(exc)

    def fail(self, path: str, problem: str) -> ConfigValidationError:
        self.failed.add(path)
        return ConfigValidationError(f"{path}: {problem}{self.sources.where(path)}")

    def show(self, path: str, value: Any) -> str:
        if _is_secret(path):
            return f"a value of type {type(value).__name__} (hidden)"
        if any(path == p or path.startswith((p + ".", p + "[")) for p in self.sources.interpolated):
            return f"a value of type {type(value).__name__} from the environment (hidden)"
        text = repr(value)
        return text if len(text) <= 80 else text[:77] + "..."

    def check(self, value: Any, spec: Spec, path: str) -> None:
        matching = [t for t in spec.types if _TYPE_CHECKS[t](value)]
        if not matching:
            words = " or ".join(_TYPE_WORDS[t] for t in spec.types)
            raise self.fail(path, f"must be {words}, got {self.show(path, value)}")
        kind = matching[0]
        if kind == "null":
            return
        if spec.enum is not None and kind in ("string", "boolean") and value not in spec.enum:
            choices = ", ".join(repr(c) for c in spec.enum if c is not None)
            raise self.fail(path, f"must be one of {choices}, got {self.show(path, value)}")
        if kind == "string" and spec.non_empty and not value.strip():
            raise self.fail(path, "must not be empty")
        if kind in ("integer", "number"):
            if spec.minimum is not None and value < spec.minimum:
                bound = "positive" if spec.minimum == 1 else f">= {spec.minimum:g}"
                if spec.minimum == 0:
                    bound = "non-negative"
                raise self.fail(path, f"must be {bound}, got {self.show(path, value)}")
            if spec.maximum is not None and value > spec.maximum:
                raise self.fail(
                    path, f"must be at most {spec.maximum:g}, got {self.show(path, value)}"
                )
        if kind == "array" and spec.items is not None:
            for index, item in enumerate(value):
                self.each(self.check, item, spec.items, f"{path}[{index}]")
        if kind == "object":
            self.check_object(value, spec, path)

    def check_object(self, value: Mapping[str, Any], spec: Spec, path: str) -> None:
        for key, item in value.items():
            self.each(self.check_entry, key, item, spec, path)
        for key in spec.required:
            if key not in value:
                self.each(self.raise_, self.fail(path, f"missing required key {key!r}"))

    def check_entry(self, key: Any, item: Any, spec: Spec, path: str) -> None:
        known = spec.properties or {}
        sub = f"{path}.{key}" if path else str(key)
        if not isinstance(key, str):
            raise self.fail(path, f"keys must be strings, got {key!r}")
        if key in known:
            self.check(item, known[key], sub)
        elif isinstance(spec.additional, Spec):
            self.check(item, spec.additional, sub)
        elif spec.additional is False:
            raise self.fail(sub, f"unknown key{_suggest(key, known)}")

    @staticmethod
    def raise_(problem: ConfigValidationError) -> None:
        raise problem


def _suggest(key: str, known: Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_tools(checker: _Checker, tools: Any) -> None:
    spec = CONFIG_FIELDS["tools"]
    if not isinstance(tools, list | tuple):
        checker.check(tools, spec, "tools")
        return
    for index, entry in enumerate(tools):
        checker.each(_check_tool, checker, entry, f"tools[{index}]")


def _check_tool(checker: _Checker, entry: Any, path: str) -> None:
    spec = CONFIG_FIELDS["tools"].items
    assert spec is not None
    if isinstance(entry, Mapping) and ("session" in entry or entry.get("type") == "fastmcp"):
        return  # a live object given as an override; the Agent checks it
    if entry is None or isinstance(entry, bool | int | float | list | tuple):
        raise checker.fail(
            path, f"must be a tool file path or a tool mapping, got {type(entry).__name__}"
        )
    if not isinstance(entry, str | Mapping):
        return  # a @tool function or server object given as an override
    checker.check(entry, spec, path)
    kind = entry.get("type") if isinstance(entry, Mapping) else None
    if isinstance(kind, str) and kind in TOOL_TYPES:  # else reported above (when collecting)
        for key in TOOL_TYPES[kind]:
            if key not in entry and not (kind == "mcp_remote_client" and "server_url" in entry):
                checker.each(_Checker.raise_, checker.fail(path, f"a {kind!r} tool needs {key!r}"))


def _check_combinations(checker: _Checker, config: Mapping[str, Any]) -> None:
    binding = config.get("anthropic_block_binding")
    if config.get("strict_prefix_binding") and binding not in (None, "error"):
        checker.each(
            _Checker.raise_,
            checker.fail(
                "strict_prefix_binding",
                f"is anthropic_block_binding='error'; it contradicts anthropic_block_binding="
                f"{binding!r}",
            ),
        )
    if config.get("prefix_strip_fallback") and binding == "error":
        checker.each(
            _Checker.raise_,
            checker.fail(
                "prefix_strip_fallback",
                "strips the thinking that anthropic_block_binding='error' would check; set one",
            ),
        )


def validate_config(
    config: Mapping[str, Any],
    *,
    sources: SourceMap | None = None,
    registry_check: RegistryCheck | None = None,
) -> dict[str, Any]:
    """Validate an agent configuration dictionary; return it with defaults applied.

    Checks the required ``model``, the model name against the registry (when
    ``registry_check`` is given; `load_config` passes the default
    one), every value's type and range, unknown keys, and contradicting combinations.

    Raises:
        ConfigValidationError: naming the key path, the problem and, for a file, the line.
    """
    checker = _Checker(sources)
    _check_config(checker, config, registry_check)
    validated = {key: value for key, value in config.items() if key not in IGNORED_KEYS}
    validated.setdefault("instructions", "")
    validated.setdefault("tools", [])
    constraints = dict(validated.get("constraints") or {})
    constraints.setdefault("max_iterations", 10)
    validated["constraints"] = constraints
    return validated


def config_problems(
    config: Any,
    *,
    sources: SourceMap | None = None,
    registry_check: RegistryCheck | None = None,
) -> list[ConfigValidationError]:
    """Every problem `validate_config` would raise the first of, in file order (a
    value that is wrong is reported once; what sits under it is not checked further)."""
    problems: list[ConfigValidationError] = []
    checker = _Checker(sources, problems)
    checker.each(_check_config, checker, config, registry_check)
    return problems


def _check_config(checker: _Checker, config: Any, registry_check: RegistryCheck | None) -> None:
    if not isinstance(config, Mapping):
        raise ConfigValidationError(
            f"the configuration must be a mapping of keys, got {type(config).__name__}"
            f"{checker.sources.where('')}"
        )
    if "model" not in config:
        checker.each(
            _Checker.raise_,
            ConfigValidationError(
                f"model: missing required key (the model name){checker.sources.where('')}"
            ),
        )
    for key, value in config.items():
        if key not in IGNORED_KEYS:
            checker.each(_check_key, checker, key, value)
    _check_combinations(checker, config)
    if registry_check is not None and "model" in config and "model" not in checker.failed:
        problem = registry_check(str(config["model"]).strip())
        if problem is not None:
            raise checker.fail("model", problem)


def _check_key(checker: _Checker, key: Any, value: Any) -> None:
    if key not in CONFIG_FIELDS:
        raise checker.fail(str(key), f"unknown key{_suggest(str(key), CONFIG_FIELDS)}")
    if key == "tools":
        _check_tools(checker, value)
    elif key == "built_in_tools" and isinstance(value, Mapping):
        spec = CONFIG_FIELDS["built_in_tools"].additional
        assert isinstance(spec, Spec)
        for name, entry in value.items():
            if hasattr(entry, "enabled") and hasattr(entry, "config"):
                continue  # a BuiltInToolConfig given as an override
            checker.each(checker.check, entry, spec, f"{key}.{name}")
    elif key in ("defer_tools", "media_store") and not isinstance(
        value, str | list | tuple | type(None)
    ):
        return  # a predicate or a store object given as an override
    else:
        checker.check(value, CONFIG_FIELDS[key], str(key))


def _single(key: str, config: Mapping[str, Any]) -> None:
    if key in config:
        _Checker(None).check(config[key], CONFIG_FIELDS[key], key)


def validate_max_tool_result_chars(config: Mapping[str, Any]) -> None:
    """Validate the optional top-level ``max_tool_result_chars`` key.

    Absent, None or a non-negative int passes (0 turns the cap off).

    Raises:
        ConfigValidationError: a negative value, a bool or a non-integer.
    """
    _single("max_tool_result_chars", config)


def validate_tool_result_preview_chars(config: Mapping[str, Any]) -> None:
    """Validate the optional top-level ``tool_result_preview_chars`` key.

    Absent or a non-negative int passes (0: events carry the whole result).

    Raises:
        ConfigValidationError: a negative value, a bool, null or a non-integer.
    """
    _single("tool_result_preview_chars", config)


def validate_truncated_result_read_chars(config: Mapping[str, Any]) -> None:
    """Validate the optional top-level ``truncated_result_read_chars`` key.

    Absent, null or a non-negative int passes (null and 0 are off).

    Raises:
        ConfigValidationError: a negative value, a bool or a non-integer.
    """
    _single("truncated_result_read_chars", config)
