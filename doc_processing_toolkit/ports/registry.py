"""ModelRegistry: model rows and provider detection."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["ModelRegistry"]


@runtime_checkable
class ModelRegistry(Protocol):
    """Answers what a model is and what it costs."""

    def row(self, model: str) -> ModelInfo | None:
        """The row for ``model`` (or an alias of it); None when unknown."""
        ...

    def detect_provider(self, model: str) -> str:
        """The provider serving ``model``.

        Raises:
            ValueError: when no row and no known prefix matches.
        """
        ...

    def models(self) -> list[ModelInfo]:
        """Every row, in file order."""
        ...
