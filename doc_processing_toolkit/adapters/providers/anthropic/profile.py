"""The Anthropic provider profile: the facts the core asks about it (ports/provider_profile.py)."""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers.anthropic import salvage as salvage_rules
from doc_processing_toolkit.adapters.providers.anthropic.citations import map_citations
from doc_processing_toolkit.adapters.providers.anthropic.dialect import part_to_block
from doc_processing_toolkit.adapters.providers.anthropic.options import (
    ANTHROPIC_OPTIONS,
    AnthropicOptions,
)
from doc_processing_toolkit.domain.grounding import Citation
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import Position
from doc_processing_toolkit.domain.messages import ProviderPart, ReasoningPart, TextPart

__all__ = ["IMAGE_TYPES", "AnthropicProfile"]

IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image types the Anthropic Messages API takes."""


@dataclass(frozen=True, slots=True)
class AnthropicProfile(BaseProfile):
    """Anthropic's option rules, key variable, id convention, media and salvage rules."""

    name: str = "anthropic"
    api_key_env: tuple[str, ...] = ("ANTHROPIC_API_KEY",)
    call_id_prefix: str | None = "toolu_"
    payload_artefact: str = "provider_block"
    options: AnthropicOptions | None = ANTHROPIC_OPTIONS
    sdk_distribution: str | None = "anthropic"
    code_execution_containers: bool = True
    thinking_binding: bool = True
    cites_documents: bool = True

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Its four image types, PDFs and (as bytes) plain text, and none in a model turn; a
        generic ``image/*`` only by URL (bytes are sniffed to an exact type first)."""
        if position == "assistant":
            return False
        if mime_type in IMAGE_TYPES or mime_type == "application/pdf":
            return True
        if mime_type == "image/*":
            return not has_bytes
        return mime_type == "text/plain" and has_bytes

    def text_citations(self, part: TextPart) -> tuple[Citation, ...]:
        """The Anthropic citations riding on a text part (``provider_details``)."""
        block = part_to_block(part)
        return map_citations([block]) if block is not None else ()

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """The neutral content of an Anthropic payload; a reasoning part is named as dropped
        (rules: ``anthropic/salvage.py``)."""
        return salvage_rules.salvage(part)
