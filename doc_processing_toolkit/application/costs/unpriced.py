"""The one warning about a model with no known price.

An Agent holds one `UnpricedModelWarning` and hands it to every run, so a model the
registry cannot price is warned about once per Agent, at the first request it leaves
unpriced — not once per run.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["UnpricedModelWarning"]


class UnpricedModelWarning:
    """Logs "no known price for model" at WARNING the first time it is called."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._warned = False
        self._lock = threading.Lock()

    @property
    def warned(self) -> bool:
        """Whether the warning was logged."""
        return self._warned

    def __call__(self, logger: Any) -> None:
        """Log the warning on ``logger`` (a structlog-style logger) unless it was logged."""
        with self._lock:
            if self._warned:
                return
            self._warned = True
        logger.warning(
            "no known price for model; cost reported as 0.0 with cost_estimated=True",
            model=self.model,
        )
