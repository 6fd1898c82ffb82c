"""Local token estimates, for the one case the provider reports nothing a request used.

A request that fails after part of its reply has streamed, on a provider whose stream
carries usage only in its final event (OpenAI's Responses API), was billed for the output
it generated, yet no count of it ever arrives. Its cost record then counts the streamed
text locally: roughly four characters per token, rounded up, the usual approximation for
English text and code. The record says it is an estimate (``estimated: True``,
``cost_estimated``), so nothing downstream mistakes it for a provider's figure.
"""

from __future__ import annotations

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens_from_chars"]

CHARS_PER_TOKEN = 4
"""Characters per token of the local estimate."""


def estimate_tokens_from_chars(chars: int) -> int:
    """Tokens in ``chars`` characters of streamed text: ceil(chars / 4), 0 for none."""
    if chars <= 0:
        return 0
    return -(-chars // CHARS_PER_TOKEN)
