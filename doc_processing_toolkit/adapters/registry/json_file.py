"""The model registry read from ``model_information.json``.

The file maps provider -> model name -> row (see ``registry/model_information.schema.json``
and ``docs/design/registry.md``). Keys starting with ``_`` are metadata at every level
and never resolve as models. The file is read once, on first use, and the parsed rows
are kept for the life of the instance; `default_registry` shares one instance per
process.

Resolution order for `JsonFileRegistry.row`: the exact key, then an alias, then a
case-insensitive match, then the name without a dated snapshot suffix
(``claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``), then the name without a
``provider/`` prefix (``anthropic/claude-sonnet-4-5``, ``models/gemini-2.5-flash``).
A name no row resolves is unknown: `JsonFileRegistry.detect_provider` raises
ValueError with the closest names ("did you mean").

User rows: the file named by ``DPT_REGISTRY_FILE`` (read by the default registry) and the
sources given as ``overlays`` (``Agent(registry=...)``: a file path, a mapping in the
file's shape, or rows) are merged over the packaged file, later over earlier: a row under
the same provider and key replaces the packaged one, a new key adds a row. Every user row
is checked against ``model_information.schema.json`` (with ``jsonschema`` when it is
installed, else by its property names) and parsed as a `ModelInfo`; a bad row
raises `RegistryFileError` naming its source and key.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters import _environment
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    InvalidArgumentTypeError,
    RegistryFileError,
)
from doc_processing_toolkit.domain.registry import (
    PROVIDERS,
    ModelInfo,
    is_metadata_key,
    suggested_model_names,
)
from doc_processing_toolkit.ports.registry import ModelRegistry

__all__ = [
    "REGISTRY_FILENAME",
    "REGISTRY_FILE_ENV",
    "JsonFileRegistry",
    "RegistryFileError",
    "RegistrySource",
    "default_registry",
    "default_registry_path",
    "detect_provider_by_prefix",
    "overlay_registry",
]

REGISTRY_FILENAME = "model_information.json"

REGISTRY_FILE_ENV = "DPT_REGISTRY_FILE"
"""The environment variable naming a user registry file merged over the packaged one."""

SCHEMA_FILENAME = "model_information.schema.json"

RegistrySource = (
    str | os.PathLike[str] | Mapping[str, Any] | Iterable[ModelInfo | Mapping[str, Any]]
)
"""User rows: a JSON file in the packaged file's shape, that shape as a mapping
(provider -> model -> row), or rows (ModelInfo or dicts carrying ``model`` and ``provider``)."""

_log = get_logger(__name__)

_PREFIXES: tuple[tuple[str, str], ...] = (
    ("claude", "anthropic"),
    ("anthropic/", "anthropic"),
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("chatgpt", "openai"),
    ("codex", "openai"),
    ("computer-use", "openai"),
    ("gemini", "google"),
    ("models/gemini", "google"),
    ("gemma", "google"),
    ("accounts/fireworks/", "fireworks"),
    ("fireworks/", "fireworks"),
)
"""Model-name prefix -> provider, for a name the registry has no row for."""

_DATED_SUFFIX = re.compile(r"^(?P<base>.+?)[-@](?:\d{8}|\d{4}-\d{2}-\d{2})$")


def detect_provider_by_prefix(model: str) -> str | None:
    """Guess the provider from a model name's prefix; None when nothing matches."""
    name = model.strip().lower()
    for prefix, provider in _PREFIXES:
        if name.startswith(prefix):
            return provider
    return None


def default_registry_path() -> Path:
    """The packaged ``model_information.json``, else the source tree's copy.

    The wheel force-includes the file as ``doc_processing_toolkit/_registry/``; an editable
    install or a checkout reads ``<repo>/registry/model_information.json``.
    """
    packaged = importlib.resources.files("doc_processing_toolkit") / "_registry" / REGISTRY_FILENAME
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[3] / "registry" / REGISTRY_FILENAME


@dataclass(frozen=True, slots=True)
class _Index:
    """The parsed file: rows in file order and the name lookups built from them."""

    rows: tuple[ModelInfo, ...]
    exact: Mapping[str, ModelInfo]
    folded: Mapping[str, ModelInfo]
    providers: tuple[str, ...]


class JsonFileRegistry:
    """A `ModelRegistry` over a JSON file.

    Args:
        path: The registry file; None reads the packaged file (see
            `default_registry_path`).

    The file is parsed on first use, so constructing a registry does no I/O; a malformed
    file raises `RegistryFileError` (naming the file and the bad key) from that
    first call.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        overlays: Iterable[RegistrySource] = (),
        environment: bool | None = None,
    ) -> None:
        """Args:
        path: The registry file; None reads the packaged file.
        overlays: User rows merged over the file, in order (see `RegistrySource`).
        environment: Merge the file named by ``DPT_REGISTRY_FILE`` first (default: only
            when reading the packaged file, ``path`` None).
        """
        self._environment = path is None if environment is None else environment
        self._path = Path(path) if path is not None else None
        self._overlays = tuple(_materialise(source) for source in overlays)
        self._index: _Index | None = None
        self._lock = threading.Lock()

    def with_rows(self, source: RegistrySource) -> JsonFileRegistry:
        """A new registry: this one's file and overlays with ``source`` merged over them.

        Raises:
            RegistryFileError: a user row that is malformed (naming its source and key) -
                checked now, so a bad ``Agent(registry=...)`` fails at construction.
            TypeError: a source of none of the accepted forms.
        """
        merged = JsonFileRegistry(self._path, environment=self._environment)
        merged._overlays = (*self._overlays, _materialise(source))
        merged._load()
        return merged

    @property
    def path(self) -> Path:
        """The file this registry reads."""
        if self._path is None:
            self._path = default_registry_path()
        return self._path

    def row(self, model: str) -> ModelInfo | None:
        """The row for ``model`` or one of its spellings; None when unknown.

        Raises:
            TypeError: when ``model`` is not a string.
        """
        index = self._index
        if index is not None and type(model) is str:  # every request asks: one dict read
            found = index.exact.get(model)
            if found is not None:
                return found
        name = _checked_name(model)
        index = self._load()
        found = _lookup(index, name)
        if found is not None or "/" not in name:
            return found
        for candidate in (name.partition("/")[2], name.rpartition("/")[2]):
            found = _lookup(index, candidate)
            if found is not None:
                return found
        return None

    def detect_provider(self, model: str) -> str:
        """The provider serving ``model``: its row's, else the one its prefix names.

        Raises:
            TypeError: when ``model`` is not a string (None included).
            ValueError: when no row and no known prefix matches; the message names the
                model and the known providers.
        """
        found = self.row(model)
        if found is not None:
            return found.provider
        close = suggested_model_names(
            model, [n for r in self.models() for n in (r.model, *r.aliases)]
        )
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        known = ", ".join(self.providers())
        raise ConfigurationError(
            f"Unknown model {model!r}: it has no row in the model registry ({self.path}).{hint} "
            f"Known providers: {known}. To use a model the registry does not list yet, add "
            f"its row in a file named by {REGISTRY_FILE_ENV} or pass Agent(registry=...) "
            "(see docs/design/registry.md)."
        )

    def models(self) -> list[ModelInfo]:
        """Every row, in file order."""
        return list(self._load().rows)

    def providers(self) -> tuple[str, ...]:
        """Every provider this registry knows: the built-in four and the file's sections."""
        return self._load().providers

    def _load(self) -> _Index:
        index = self._index
        if index is not None:
            return index
        with self._lock:
            if self._index is None:
                path = self.path
                layers: list[tuple[str, Any]] = [(str(path), _read(path))]
                user_file = (_environment.variable(REGISTRY_FILE_ENV) or "").strip()
                if self._environment and user_file:
                    layers.append(_checked_layer(user_file, _read(Path(user_file))))
                layers.extend(self._overlays)
                self._index = _parse(layers)
                _log.debug("model registry loaded", path=str(path), rows=len(self._index.rows))
            return self._index


class LayeredRegistry:
    """User rows over any `ModelRegistry`
    (a host's own catalogue, a plug-in's StaticRegistry): a name the rows resolve is
    theirs, every other name is the base registry's."""

    def __init__(self, base: ModelRegistry, source: RegistrySource) -> None:
        self._base = base
        self._rows = _parse([_materialise(source)])

    def row(self, model: str) -> ModelInfo | None:
        """The user row for ``model``, else the base registry's."""
        found = _lookup(self._rows, _checked_name(model))
        return found if found is not None else self._base.row(model)

    def detect_provider(self, model: str) -> str:
        """The user row's provider, else the base registry's answer."""
        found = _lookup(self._rows, _checked_name(model))
        return found.provider if found is not None else self._base.detect_provider(model)

    def models(self) -> list[ModelInfo]:
        """The user rows, then the base rows they do not replace."""
        mine = {(r.provider, r.model) for r in self._rows.rows}
        return [
            *self._rows.rows,
            *(r for r in self._base.models() if (r.provider, r.model) not in mine),
        ]


def overlay_registry(base: ModelRegistry, source: RegistrySource) -> ModelRegistry:
    """``base`` with the user rows of ``source`` merged over it (``Agent(registry=...)``).

    Raises:
        RegistryFileError: a malformed user row, naming its source and key.
        TypeError: a source of none of the accepted forms.
    """
    if isinstance(base, JsonFileRegistry):
        return base.with_rows(source)
    return LayeredRegistry(base, source)


@functools.lru_cache(maxsize=1)
def default_registry() -> JsonFileRegistry:
    """The process-wide registry over the packaged file (created once, parsed lazily)."""
    return JsonFileRegistry()


def _checked_name(model: object) -> str:
    if not isinstance(model, str):
        raise InvalidArgumentTypeError(f"model name must be a string, got {type(model).__name__}")
    return model.strip()


def _lookup(index: _Index, name: str) -> ModelInfo | None:
    """Exact / alias, then case-insensitive, then without a dated snapshot suffix."""
    if not name or is_metadata_key(name):
        return None
    found = index.exact.get(name) or index.folded.get(name.casefold())
    if found is not None:
        return found
    dated = _DATED_SUFFIX.match(name)
    if dated is None:
        return None
    base = dated.group("base")
    return index.exact.get(base) or index.folded.get(base.casefold())


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RegistryFileError(path, f"cannot be read ({exc.strerror or exc})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RegistryFileError(
            path, f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from exc


def _parse(layers: list[tuple[str, Any]]) -> _Index:
    """Rows of the packaged file with each user layer merged over it (label, data)."""
    chosen: dict[tuple[str, str], tuple[str, Any]] = {}
    providers = list(PROVIDERS)
    for label, data in layers:
        if not isinstance(data, dict):
            raise RegistryFileError(label, "the top level must be an object keyed by provider")
        for provider, section in data.items():
            if is_metadata_key(provider):
                continue
            if not isinstance(section, dict):
                raise RegistryFileError(label, "a provider section must be an object", key=provider)
            if provider not in providers:
                providers.append(provider)
            for key, raw in section.items():
                if not is_metadata_key(key):
                    chosen[(provider, key)] = (label, raw)
    rows: list[ModelInfo] = []
    exact: dict[str, ModelInfo] = {}
    folded: dict[str, ModelInfo] = {}
    for (provider, key), (label, raw) in chosen.items():
        where = f"{provider}.{key}"
        info = _build_row(label, where, provider, key, raw)
        rows.append(info)
        for name in (info.model, *info.aliases):
            _register(label, where, name, info, exact, folded)
    return _Index(tuple(rows), exact, folded, tuple(providers))


def _materialise(source: RegistrySource) -> tuple[str, Any]:
    """A user source as (label, data in the file's shape), checked against the schema."""
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        return _checked_layer(str(path), _read(path))
    if isinstance(source, Mapping):
        return _checked_layer("registry=", _plain(source))
    if isinstance(source, Iterable) and not isinstance(source, bytes):
        data: dict[str, dict[str, Any]] = {}
        for index, row in enumerate(source):
            fields = (
                row.model_dump(mode="json", exclude_none=True)
                if isinstance(row, ModelInfo)
                else _plain(row)
            )
            if not isinstance(fields, dict) or not all(
                isinstance(fields.get(k), str) for k in ("model", "provider")
            ):
                raise RegistryFileError(
                    "registry=", "a row needs string 'model' and 'provider'", key=f"[{index}]"
                )
            data.setdefault(fields["provider"], {})[fields["model"]] = fields
        return _checked_layer("registry=", data)
    raise InvalidArgumentTypeError(
        "registry must be a file path, a mapping provider -> model -> row, or a list of rows, "
        f"got {type(source).__name__}"
    )


def _plain(value: Any) -> Any:
    """A mapping / sequence tree as plain dicts and lists (the JSON shape)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _checked_layer(label: str, data: Any) -> tuple[str, Any]:
    """``(label, data)`` once ``data`` passes the registry's JSON schema."""
    problems = _schema_problems(data)
    if problems:
        key, message = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise RegistryFileError(label, f"{message}{more}", key=key or None)
    return label, data


@functools.lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    packaged = importlib.resources.files("doc_processing_toolkit") / "_registry" / SCHEMA_FILENAME
    path = (
        Path(str(packaged))
        if packaged.is_file()
        else Path(__file__).resolve().parents[3] / "registry" / SCHEMA_FILENAME
    )
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def _schema_problems(data: Any) -> list[tuple[str, str]]:
    """(JSON path, message) per schema violation of ``data``.

    With ``jsonschema`` installed (the ``dev`` group has it) the whole schema is applied;
    without it, the property names of every row and pricing object are checked against the
    schema's (types and bounds are then checked by ModelInfo).
    """
    try:  # imported by name: a dev-group tool without stubs, optional at run time
        jsonschema = importlib.import_module("jsonschema")
    except ImportError:
        return _property_problems(data, _schema())
    validator = jsonschema.Draft202012Validator(_schema())
    return [
        (".".join(str(part) for part in error.absolute_path), error.message)
        for error in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    ]


def _property_problems(data: Any, schema: dict[str, Any]) -> list[tuple[str, str]]:
    if not isinstance(data, dict):
        return []
    defs = schema.get("$defs", {})
    row_keys = set(defs.get("row", {}).get("properties", {}))
    pricing_keys = set(defs.get("pricing", {}).get("properties", {}))
    problems: list[tuple[str, str]] = []
    for provider, section in data.items():
        if is_metadata_key(provider) or not isinstance(section, dict):
            continue
        for key, row in section.items():
            if is_metadata_key(key) or not isinstance(row, dict):
                continue
            for name in sorted(set(row) - row_keys):
                if not is_metadata_key(name):
                    problems.append((f"{provider}.{key}", f"unknown row key {name!r}"))
            pricing = row.get("pricing")
            for name in sorted(set(pricing) - pricing_keys if isinstance(pricing, dict) else ()):
                if not is_metadata_key(name):
                    problems.append((f"{provider}.{key}.pricing", f"unknown key {name!r}"))
    return problems


def _build_row(path: Path | str, where: str, provider: str, key: str, raw: Any) -> ModelInfo:
    if not isinstance(raw, dict):
        raise RegistryFileError(path, "a model row must be an object", key=where)
    fields = _strip_metadata(raw)
    for name, expected in (("model", key), ("provider", provider)):
        given = fields.setdefault(name, expected)
        if given != expected:
            raise RegistryFileError(
                path, f"{name} {given!r} disagrees with its place in the file", key=where
            )
    try:
        return ModelInfo.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in err['loc']) or '(row)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise RegistryFileError(path, f"invalid row: {problems}", key=where) from exc


def _strip_metadata(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The row without ``_`` keys, also inside its pricing, batch and service-tier objects."""
    fields = {k: v for k, v in raw.items() if not is_metadata_key(k)}
    if isinstance(fields.get("pricing"), dict):
        fields["pricing"] = _drop_meta(fields["pricing"])
    if isinstance(fields.get("batch"), dict):
        fields["batch"] = _drop_meta(fields["batch"])
    tiers = fields.get("service_tiers")
    if isinstance(tiers, dict):
        fields["service_tiers"] = {
            name: _drop_meta(tier) if isinstance(tier, dict) else tier
            for name, tier in tiers.items()
            if not is_metadata_key(name)
        }
    return fields


def _drop_meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if not is_metadata_key(k)}


def _register(
    path: Path | str,
    where: str,
    name: str,
    info: ModelInfo,
    exact: dict[str, ModelInfo],
    folded: dict[str, ModelInfo],
) -> None:
    if not name.strip() or is_metadata_key(name) or name != name.strip():
        raise RegistryFileError(path, f"{name!r} cannot be a model name or alias", key=where)
    for table, lookup in ((exact, name), (folded, name.casefold())):
        other = table.get(lookup)
        if other is not None and other is not info:
            raise RegistryFileError(
                path,
                f"name {name!r} is already used by {other.provider}.{other.model}",
                key=where,
            )
        table[lookup] = info
