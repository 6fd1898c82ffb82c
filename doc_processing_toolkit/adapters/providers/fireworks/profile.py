"""The Fireworks provider profile: the facts the core asks about it (ports/provider_profile.py)."""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers.fireworks import salvage as salvage_rules
from doc_processing_toolkit.adapters.providers.fireworks.options import (
    FIREWORKS_OPTIONS,
    FireworksOptions,
)
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import Position
from doc_processing_toolkit.domain.messages import ProviderPart, ReasoningPart

__all__ = ["FireworksProfile"]


@dataclass(frozen=True, slots=True)
class FireworksProfile(BaseProfile):
    """Fireworks's option rules, key variable, id convention, media and salvage rules."""

    name: str = "fireworks"
    api_key_env: tuple[str, ...] = ("FIREWORKS_API_KEY",)
    call_id_prefix: str | None = "call_"
    payload_artefact: str = "provider_part"
    options: FireworksOptions | None = FIREWORKS_OPTIONS
    sdk_distribution: str | None = "openai"

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Images in a user turn only (tool results and model turns are text)."""
        return position == "user" and mime_type.startswith("image/")

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """The neutral content of a Fireworks payload; a reasoning part is named as dropped
        (rules: ``fireworks/salvage.py``)."""
        return salvage_rules.salvage(part)
