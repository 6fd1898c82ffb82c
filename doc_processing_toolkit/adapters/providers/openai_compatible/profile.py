"""`ChatCompletionsProfile`: what an OpenAI-compatible chat-completions vendor is.

One frozen value holds every fact that tells one such vendor from another: what the core
asks of any provider (``ports/provider_profile.py``: name, key variables, id convention,
media, salvage, option rules) and what the shared chat-completions base reads (the label
its messages show, the response headers that carry a request id, the output cap used as
a default, the structured-output schema name, what prompt caching does there). A vendor
subclasses it and sets its values; the codec, mapping, stream and client of
``openai_compatible/`` do the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers._profile import BaseProfile
from doc_processing_toolkit.adapters.providers.openai_compatible import salvage as salvage_rules
from doc_processing_toolkit.adapters.providers.openai_compatible.options import (
    ChatCompletionsOptions,
)
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import Position
from doc_processing_toolkit.domain.messages import ProviderPart, ReasoningPart

__all__ = ["ChatCompletionsProfile"]


@dataclass(frozen=True, slots=True)
class ChatCompletionsProfile(BaseProfile):
    """An OpenAI-compatible chat-completions vendor's facts (defaults: the common case)."""

    call_id_prefix: str | None = "call_"
    payload_artefact: str = "provider_part"
    options: ChatCompletionsOptions | None = None
    sdk_distribution: str | None = "openai"
    label: str = "the provider"
    """How messages name the vendor (``"Fireworks"``)."""
    request_id_headers: tuple[str, ...] = ("x-request-id",)
    """Response headers that may carry the request id, first found wins."""
    max_default_max_tokens: int = 32_000
    """The registry's max_output_tokens is capped to this when used as a default."""
    structured_output_name: str = "structured_output"
    """The ``json_schema.name`` sent with a native structured-output schema."""
    prompt_caching_note: str = "prompt_caching ignored: the server caches prompts itself"
    """The debug note for a request that asks for prompt caching (there is no switch)."""

    def rules(self) -> ChatCompletionsOptions:
        """The option rules (this vendor's, else the chat-completions defaults)."""
        return self.options or ChatCompletionsOptions(self.name, self.label)

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Images in a user turn only (tool results and model turns are text)."""
        return position == "user" and mime_type.startswith("image/")

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """The neutral content of a chat-completions payload; a reasoning part is named as
        dropped (rules: ``openai_compatible/salvage.py``)."""
        return salvage_rules.salvage(part)
