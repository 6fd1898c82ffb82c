"""Model registry adapters: the JSON-file registry the toolkit ships with."""

from __future__ import annotations

from doc_processing_toolkit.adapters.registry.json_file import (
    REGISTRY_FILENAME,
    JsonFileRegistry,
    RegistryFileError,
    default_registry,
    default_registry_path,
)

__all__ = [
    "REGISTRY_FILENAME",
    "JsonFileRegistry",
    "RegistryFileError",
    "default_registry",
    "default_registry_path",
]
