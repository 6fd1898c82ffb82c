"""StaticRegistry: an in-memory ModelRegistry for tests and hosts with their own catalogue."""

from __future__ import annotations

from collections.abc import Iterable

from doc_processing_toolkit.adapters.registry.json_file import detect_provider_by_prefix
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["StaticRegistry"]


class StaticRegistry:
    """Rows given in code; provider detection falls back to the model-name prefix."""

    def __init__(self, rows: Iterable[ModelInfo]) -> None:
        self._rows = {row.model: row for row in rows}

    def row(self, model: str) -> ModelInfo | None:
        """The row named ``model`` (or one listing it as an alias)."""
        if model in self._rows:
            return self._rows[model]
        return next((r for r in self._rows.values() if model in r.aliases), None)

    def detect_provider(self, model: str) -> str:
        """The row's provider, else the prefix guess."""
        row = self.row(model)
        if row is not None:
            return row.provider
        provider = detect_provider_by_prefix(model)
        if provider is None:
            raise ConfigurationError(
                f"unknown model {model!r}: no registry row and no known prefix"
            )
        return provider

    def models(self) -> list[ModelInfo]:
        """Every row."""
        return list(self._rows.values())
