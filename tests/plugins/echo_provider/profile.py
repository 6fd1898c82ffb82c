"""EchoProfile: the echo provider's facts for the toolkit (its ProviderProfile).

Registered under the entry-point group ``doc_processing_toolkit.provider_profiles`` as
``echo = echo_provider:EchoProfile`` (a zero-argument factory). It keeps the toolkit's
defaults (option checks, any tool-call id, media anywhere but in a model turn) and adds
the echo provider's salvage rules: when an echo history crosses to another provider, a
verbatim ``{"quote": {"text", "source"}}`` item keeps its text and reports its source as
dropped, and a sealed thought is named as dropped reasoning.
"""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.messages import ProviderPart, ReasoningPart, TextPart

from .codec import PROVIDER

__all__ = ["EchoProfile"]


@dataclass(frozen=True, slots=True)
class EchoProfile(BaseProfile):
    """The echo provider: default option checks, its own salvage rules."""

    name: str = PROVIDER
    api_key_env: tuple[str, ...] = ("ECHO_API_KEY",)
    payload_artefact: str = "provider_part"

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """A quote's text crosses (its source is dropped); a sealed thought never does."""
        if isinstance(part, ReasoningPart):
            detail = f"a sealed echo thought ({len(part.text)} chars)"
            return Salvage(drops=(("reasoning", detail),))
        quote = part.payload.get("quote")
        if isinstance(quote, dict) and isinstance(quote.get("text"), str):
            source = quote.get("source")
            drops = (("provider_part", f"the source of a quote ({source})"),) if source else ()
            return Salvage((TextPart(quote["text"]),), drops)
        return None
