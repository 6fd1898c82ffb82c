"""The Google provider profile: the facts the core asks about it (ports/provider_profile.py)."""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers.google import media as google_media
from doc_processing_toolkit.adapters.providers.google import salvage as salvage_rules
from doc_processing_toolkit.adapters.providers.google.options import GOOGLE_OPTIONS, GoogleOptions
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import MediaLookup, Position
from doc_processing_toolkit.domain.messages import MediaPart, ProviderPart, ReasoningPart

__all__ = ["GoogleProfile"]


@dataclass(frozen=True, slots=True)
class GoogleProfile(BaseProfile):
    """Google's option rules, key variable, id convention, media and salvage rules."""

    name: str = "google"
    api_key_env: tuple[str, ...] = ("GOOGLE_GEMINI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
    call_id_prefix: str | None = None
    payload_artefact: str = "provider_part"
    options: GoogleOptions | None = GOOGLE_OPTIONS
    sdk_distribution: str | None = "google-genai"

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Any media anywhere, a model turn included."""
        return True

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """The neutral content of a Google payload; a reasoning part is named as dropped
        (rules: ``google/salvage.py``)."""
        return salvage_rules.salvage(part)

    def resolve_file_reference(self, part: MediaPart, lookup: MediaLookup | None) -> MediaPart:
        """A Files API reference as bytes (through ``lookup``), a web URI as a URL."""
        return google_media.resolve_file_reference(part, lookup)
