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
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    InvalidArgumentTypeError,
    RegistryFileError,
)
from doc_processing_toolkit.domain.registry import PROVIDERS, ModelInfo, is_metadata_key

__all__ = [
    "REGISTRY_FILENAME",
    "JsonFileRegistry",
    "RegistryFileError",
    "default_registry",
    "default_registry_path",
    "detect_provider_by_prefix",
]

REGISTRY_FILENAME = "model_information.json"

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

    def __init__(self, path: str | Path | None = None) -> None:
        self._path = Path(path) if path is not None else None
        self._index: _Index | None = None
        self._lock = threading.Lock()

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
        name = model.strip()
        by_prefix = None if is_metadata_key(name) else detect_provider_by_prefix(name)
        if by_prefix is not None:
            return by_prefix
        known = ", ".join(self.providers())
        raise ConfigurationError(
            f"Unknown model {model!r}: it has no row in {self.path} and its name matches no "
            f"provider prefix. Known providers: {known}. Add a row under the provider's "
            "section of the registry, or use a model name the registry lists."
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
                self._index = _parse(path, _read(path))
                _log.debug("model registry loaded", path=str(path), rows=len(self._index.rows))
            return self._index


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


def _parse(path: Path, data: Any) -> _Index:
    if not isinstance(data, dict):
        raise RegistryFileError(path, "the top level must be an object keyed by provider")
    rows: list[ModelInfo] = []
    exact: dict[str, ModelInfo] = {}
    folded: dict[str, ModelInfo] = {}
    providers = list(PROVIDERS)
    for provider, section in data.items():
        if is_metadata_key(provider):
            continue
        if not isinstance(section, dict):
            raise RegistryFileError(path, "a provider section must be an object", key=provider)
        if provider not in providers:
            providers.append(provider)
        for key, raw in section.items():
            if is_metadata_key(key):
                continue
            where = f"{provider}.{key}"
            info = _build_row(path, where, provider, key, raw)
            rows.append(info)
            for name in (info.model, *info.aliases):
                _register(path, where, name, info, exact, folded)
    return _Index(tuple(rows), exact, folded, tuple(providers))


def _build_row(path: Path, where: str, provider: str, key: str, raw: Any) -> ModelInfo:
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
    path: Path,
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
