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
from collections.abc import Iterable, Mapping
from typing import Any, Self

from doc_processing_toolkit._logging import register_secret
from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.config.yaml_validation import (
    RegistryCheck,
    SourceMap,
    config_problems,
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
    "config_file_problems",
    "interpolate_env",
    "load_config",
    "load_config_from_string",
    "merge_configs",
    "parse_yaml",
    "read_config_text",
]

_PLACEHOLDER = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


MAX_DEPTH = 100
"""Deepest nesting a configuration may have (aliases expanded); deeper is refused."""
MAX_ALIAS_NODES = 10_000
"""How many nodes aliases may add to a configuration when expanded (a few anchors reused
in a few places add tens; the nine-by-nine "billion laughs" shape adds 387 million)."""


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


def _bomb_error(source: str, mark: Any, problem: str) -> ConfigParseError:
    where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
    return ConfigParseError(f"{where}: invalid YAML: {problem}")


def _check_events(events: Iterable[Any], source: str) -> None:
    """Refuse, from the event stream alone, a document nested deeper than
    `MAX_DEPTH` or whose aliases expand to more than `MAX_ALIAS_NODES` extra
    nodes, or refer to the node they sit in; linear in the text.

    An alias stands for its anchor's whole expanded node, so a document expands to the
    nodes it writes plus, for every alias, its anchor's expanded size.

    Raises:
        ConfigParseError: naming ``source``, the line and the column.
    """
    import yaml

    stack: list[list[Any]] = []  # per open collection: [expanded size, height, anchor]
    anchors: dict[str, tuple[int, int] | None] = {}  # None: the anchored node is still open
    extra = 0

    def close(size: int, height: int, anchor: str | None) -> None:
        if anchor is not None:
            anchors[anchor] = (size, height)
        if stack:
            stack[-1][0] += size
            stack[-1][1] = max(stack[-1][1], height)

    for event in events:
        if isinstance(event, yaml.CollectionStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise _bomb_error(
                    source, event.start_mark, f"nested deeper than {MAX_DEPTH} levels"
                )
            if event.anchor is not None:
                anchors[event.anchor] = None
            stack.append([1, 0, event.anchor])
        elif isinstance(event, yaml.CollectionEndEvent):
            size, height, anchor = stack.pop()
            close(size, height + 1, anchor)
        elif isinstance(event, yaml.ScalarEvent):
            close(1, 1, event.anchor)
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in anchors:
                continue  # undefined: the composer names it
            target = anchors[event.anchor]
            if target is None:
                raise _bomb_error(
                    source, event.start_mark, f"alias *{event.anchor} refers to the node it is in"
                )
            size, height = target
            extra += size
            if extra > MAX_ALIAS_NODES:
                raise _bomb_error(
                    source,
                    event.start_mark,
                    f"aliases expand to more than {MAX_ALIAS_NODES:,} extra nodes (a YAML bomb?)",
                )
            if len(stack) + height > MAX_DEPTH:
                raise _bomb_error(
                    source,
                    event.start_mark,
                    f"alias *{event.anchor} nests deeper than {MAX_DEPTH} levels when expanded",
                )
            close(size, height, None)
        elif isinstance(event, yaml.DocumentStartEvent):
            anchors.clear()


def _check_bounds(text: str, source: str) -> None:
    """`_check_events` over libyaml's event stream when pyyaml has it (fast, C), else
    over pyyaml's own.

    Raises:
        ConfigParseError: a bound is passed.
        yaml.MarkedYAMLError: the text is malformed (pyyaml's own message).
    """
    import yaml

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            _check_events(yaml.parse(text, Loader=fast), source)
            return
        except yaml.MarkedYAMLError as exc:
            if "nesting depth" in str(exc.problem):  # libyaml's own bound (1,000 flow levels)
                raise _bomb_error(
                    source, exc.problem_mark, f"nested deeper than {MAX_DEPTH} levels"
                ) from None
        except yaml.YAMLError:  # pragma: no cover - an unmarked libyaml error
            pass
    # No libyaml, or it refused the text: pyyaml's parser reports what is malformed in its
    # usual words, or reads a document the bounds still apply to.
    _check_events(yaml.parse(text, Loader=_bounded_loader()), source)


_LOADER: Any = None


def _bounded_loader() -> Any:
    """pyyaml's SafeLoader composing at most `MAX_DEPTH` levels (its composer recurses:
    a deeper document would end in a RecursionError)."""
    global _LOADER
    if _LOADER is None:
        import yaml

        class BoundedSafeLoader(yaml.SafeLoader):
            _depth = 0

            def compose_node(self, parent: Any, index: Any) -> Any:
                if self._depth >= MAX_DEPTH:
                    event: Any = self.peek_event()  # type: ignore[no-untyped-call]
                    raise yaml.composer.ComposerError(
                        None, None, f"nested deeper than {MAX_DEPTH} levels", event.start_mark
                    )
                self._depth += 1
                try:
                    return super().compose_node(parent, index)
                finally:
                    self._depth -= 1

        _LOADER = BoundedSafeLoader
    return _LOADER


def parse_yaml(text: str, source: str) -> tuple[Any, SourceMap]:
    """Parse ``text`` with pyyaml's safe loader; return the data and where each key sits.

    Nesting is bounded by `MAX_DEPTH` and alias expansion by
    `MAX_ALIAS_NODES`: a "billion laughs" file fails at once instead of expanding.

    Raises:
        ConfigParseError: the YAML is malformed, nested too deep or an alias bomb (naming
            ``source`` and the line).
    """
    try:
        import yaml
    except ImportError as exc:  # pragma: no cover - pyyaml is a dependency
        raise MissingDependencyError("YAML configuration needs pyyaml: pip install pyyaml") from exc
    sources = SourceMap(source=source)
    loader = _bounded_loader()(text)
    try:
        _check_bounds(text, source)
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
    except RecursionError:  # pragma: no cover - the bounds above come first
        raise ConfigParseError(f"{source}: invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    return data, sources


def _no_secret(path: str, value: str) -> bool:
    """Whether a value read from the environment is plainly no secret: the model name, or
    one of the choices a key allows (``logging.level: ${LEVEL}``). Masking those in every
    log line would make the logs useless and hide nothing."""
    if path == "model":
        return True
    from doc_processing_toolkit.application.config.schema import CONFIG_FIELDS

    spec: Any = None
    for part in path.split("."):
        name = part.split("[", 1)[0]
        fields = CONFIG_FIELDS if spec is None else (spec.properties or {})
        spec = fields.get(name)
        if spec is None or "[" in part:
            return False
    return spec.enum is not None and value in spec.enum


def interpolate_env(
    value: Any,
    path: str,
    sources: SourceMap,
    *,
    problems: list[ConfigValidationError] | None = None,
) -> Any:
    """``value`` with ``${NAME}`` / ``${NAME:-default}`` replaced in every string.

    Every value read from the environment is recorded in ``sources`` (its key path, its
    text in the file, the variable) and registered as a secret: no log line shows it,
    and ``to_config()`` writes the ``${NAME}`` reference, never the value.

    With ``problems`` given, an unset variable is appended there (the string is kept as
    written) instead of raised, so that every problem of a file can be reported at once.

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
            found = environment.variable(name)
            if found is None or (found == "" and default is not None):
                if default is None:
                    problem = ConfigValidationError(
                        f"{path or '<root>'}: environment variable {name} is not set and "
                        f"has no default (write ${{{name}:-default}}){sources.where(path)}"
                    )
                    if problems is None:
                        raise problem
                    problems.append(problem)
                    return match.group(0)
                return default
            used_env = True
            sources.environment[name] = found
            if not _no_secret(path, found):
                register_secret(found)
            return found

        result = _PLACEHOLDER.sub(replace, value)
        if used_env:
            sources.interpolated.add(path)
            sources.references.setdefault(result, value)
        return result
    if isinstance(value, Mapping):
        return {
            k: interpolate_env(v, _child(path, k), sources, problems=problems)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [
            interpolate_env(v, _child(path, i), sources, problems=problems)
            for i, v in enumerate(value)
        ]
    return value


def load_config_from_string(
    yaml_content: str,
    *,
    source: str = "<string>",
    registry_check: RegistryCheck | None,
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


def config_file_problems(
    file_path: str | os.PathLike[str],
    *,
    registry_check: RegistryCheck | None,
) -> tuple[dict[str, Any] | None, list[ConfigParseError | ConfigValidationError], SourceMap]:
    """Every problem of a YAML configuration file at once (``dpt config check``).

    Returns (the validated configuration, or None when there are problems; the problems,
    unset variables first and then the rest in file order, each naming its key path and
    line; where each key sits and what was read from the environment). A file that does
    not parse has that one problem.

    Raises:
        FileNotFoundError: the file does not exist.
    """
    path = os.fspath(file_path)
    sources = SourceMap(source=path)
    try:
        data, sources = parse_yaml(read_config_text(path), path)
    except ConfigParseError as exc:
        return None, [exc], sources
    problems: list[ConfigParseError | ConfigValidationError] = []
    unset: list[ConfigValidationError] = []
    data = interpolate_env(data if data is not None else {}, "", sources, problems=unset)
    problems.extend(unset)
    problems.extend(config_problems(data, sources=sources, registry_check=registry_check))
    if problems:
        return None, problems, sources
    return validate_config(data, sources=sources, registry_check=None), [], sources


def load_config(
    file_path: str | os.PathLike[str],
    *,
    registry_check: RegistryCheck | None,
) -> dict[str, Any]:
    """Load agent configuration from a YAML file: parse, interpolate, validate.

    Raises:
        FileNotFoundError: the file does not exist.
        ConfigParseError: the YAML does not parse.
        ConfigValidationError: a value is invalid (naming its key path, file and line).
    """
    path = os.fspath(file_path)
    return load_config_from_string(
        read_config_text(path), source=path, registry_check=registry_check
    )


def read_config_text(file_path: str | os.PathLike[str]) -> str:
    """The text of a configuration file.

    Raises:
        FileNotFoundError: the file does not exist (a MissingFileError).
        ConfigParseError: the file is not UTF-8 text (naming it and the byte offset).
    """
    path = os.fspath(file_path)
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        raise MissingFileError(f"config file {path!r} does not exist") from None
    except UnicodeDecodeError as exc:
        raise ConfigParseError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None


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

    registry_check: RegistryCheck | None = None
    """The model-name check of `from_string` / `from_yaml` (None: none; the documented
    ``agent.config.AgentConfig`` checks against the process default registry)."""

    def __init__(self, config_dict: dict[str, Any]) -> None:
        """Initialize from a configuration dictionary (validated as load_config does,
        without the registry check)."""
        self._data = validate_config(config_dict)

    @classmethod
    def from_string(cls, yaml_content: str) -> Self:
        """Load configuration from a YAML string."""
        return cls(load_config_from_string(yaml_content, registry_check=cls.registry_check))

    @classmethod
    def from_yaml(cls, file_path: str) -> Self:
        """Load configuration from a YAML file."""
        return cls(load_config(file_path, registry_check=cls.registry_check))

    def merge(self, overrides: dict[str, Any]) -> Self:
        """A new config with ``overrides`` merged on top (see `merge_configs`)."""
        return type(self)(merge_configs(self._data, overrides))

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
