"""The OpenAI provider profile: the facts the core asks about it (ports/provider_profile.py)."""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers.openai import salvage as salvage_rules
from doc_processing_toolkit.adapters.providers.openai.options import OPENAI_OPTIONS, OpenAIOptions
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import Position
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
    sdk_distribution: str | None = "openai"

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Images and files but no audio or video, and none in a model turn."""
        if position == "assistant":
            return False
        return not mime_type.startswith(("audio/", "video/"))

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """The neutral content of an OpenAI payload; a reasoning part is named as dropped
        (rules: ``openai/salvage.py``)."""
        return salvage_rules.salvage(part)
