"""The Fireworks provider profile: the facts the core asks about it (ports/provider_profile.py)
and those the chat-completions base reads (``openai_compatible/profile.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers.fireworks.dialect import LABEL, PROVIDER
from doc_processing_toolkit.adapters.providers.fireworks.options import (
    FIREWORKS_OPTIONS,
    FireworksOptions,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.profile import (
    ChatCompletionsProfile,
)

__all__ = ["FIREWORKS_PROFILE", "FireworksProfile"]


@dataclass(frozen=True, slots=True)
class FireworksProfile(ChatCompletionsProfile):
    """Fireworks's option rules, key variable, id convention, media and salvage rules."""

    name: str = PROVIDER
    api_key_env: tuple[str, ...] = ("FIREWORKS_API_KEY",)
    options: FireworksOptions | None = FIREWORKS_OPTIONS
    label: str = LABEL
    request_id_headers: tuple[str, ...] = ("x-request-id", "fireworks-request-id")
    prompt_caching_note: str = "prompt_caching ignored: Fireworks caches prompts server-side"


FIREWORKS_PROFILE = FireworksProfile()
"""Fireworks' facts (stateless; shared)."""
