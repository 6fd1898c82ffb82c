"""The OpenAI provider profile: the facts the core asks about it (ports/provider_profile.py)."""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers import _salvage
from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers.openai.options import OPENAI_OPTIONS, OpenAIOptions
from doc_processing_toolkit.domain.history.crossing import reasoning_artefact
from doc_processing_toolkit.domain.history.filtering import Salvage
from doc_processing_toolkit.domain.media import Position, dialect_takes
from doc_processing_toolkit.domain.messages import ProviderPart, ReasoningPart

__all__ = ["OpenAIProfile"]


@dataclass(frozen=True, slots=True)
class OpenAIProfile(BaseProfile):
    """OpenAI's option rules, key variable, id convention, media and salvage rules."""

    name: str = "openai"
    api_key_env: tuple[str, ...] = ("OPENAI_API_KEY",)
    call_id_prefix: str | None = "call_"
    payload_artefact: str = "provider_item"
    options: OpenAIOptions | None = OPENAI_OPTIONS

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Which media OpenAI's wire format carries at each message position."""
        return dialect_takes(self.name, mime_type, position, has_bytes=has_bytes)

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """The neutral content of a OpenAI payload; a reasoning part is named as dropped."""
        if isinstance(part, ReasoningPart):
            return Salvage(drops=(reasoning_artefact(part),))
        return _salvage.salvage(part)
