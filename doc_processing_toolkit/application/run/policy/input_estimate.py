"""The pre-flight input-token estimate (``Agent(estimate_input_tokens=...)``).

Before each provider request the loop estimates the request's input tokens. The figure is
read by one thing only: the cost record of a request whose stream failed after the
provider started answering but before it reported usage (``run.results.failed_request``: the input
estimate plus an estimate of the streamed text, or ``"billable_error_input_only"`` when no
text had streamed; the cost is marked estimated). A request refused before streaming is
never charged the estimate.

Modes:

* ``"lazy"`` (the default): `local_estimate`, a local approximation - no API call,
  and on Google no Files API upload.
* ``True``: the provider's own token-counting API (``count_tokens`` on a client that has
  one; a client without one falls back to the local figure). A count that fails gives 0.
* ``False``: no estimate (0).
"""

from __future__ import annotations

import json
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from doc_processing_toolkit.domain.requests import ModelRequest

log = get_logger(__name__)

__all__ = [
    "ESTIMATE_MODES",
    "estimate_request_tokens",
    "local_estimate",
    "validate_estimate_mode",
]

ESTIMATE_MODES: tuple[Any, ...] = ("lazy", True, False)
"""The accepted values of ``estimate_input_tokens``."""

CHARS_PER_TOKEN = 4
"""The local estimate's characters per token (text, JSON arguments, tool schemas)."""
IMAGE_TOKENS = 1_000
"""Tokens assumed per image (between Gemini's 258 and a large image on Anthropic)."""
PDF_PAGE_TOKENS = 1_500
"""Tokens assumed per PDF page (the page text plus its rendered image)."""
BYTES_PER_MEDIA_TOKEN = 1_000
"""Other media (audio, video, documents without page markers): one token per KB."""


def validate_estimate_mode(value: Any) -> str | bool:
    """``value`` when it is ``"lazy"``, ``True`` or ``False``.

    Raises:
        ConfigurationError: any other value (naming the parameter).
    """
    if value is True or value is False or value == "lazy":
        return value if isinstance(value, bool) else "lazy"
    raise ConfigurationError(f"estimate_input_tokens must be 'lazy', True or False, got {value!r}")


def _media_tokens(part: MediaPart) -> int:
    if part.mime_type.startswith("image/"):
        return IMAGE_TOKENS
    if part.data is None and part.size is not None:  # a file left on disk (streamed)
        return part.size // BYTES_PER_MEDIA_TOKEN + 1
    if part.data is None:  # a URL or an uploaded file: the size is not known here
        return IMAGE_TOKENS
    if part.mime_type == "application/pdf":
        pages = part.data.count(b"/Type /Page") - part.data.count(b"/Type /Pages")
        pages = max(pages, part.data.count(b"/Type/Page") - part.data.count(b"/Type/Pages"))
        if pages > 0:
            return pages * PDF_PAGE_TOKENS
    if part.mime_type.startswith("text/"):
        return len(part.data) // CHARS_PER_TOKEN + 1
    return len(part.data) // BYTES_PER_MEDIA_TOKEN + 1


def _part_chars(part: Any) -> tuple[int, int]:
    """(characters, media tokens) of one part."""
    if isinstance(part, TextPart | ReasoningPart):
        return len(part.text), 0
    if isinstance(part, MediaPart):
        return 0, _media_tokens(part)
    if isinstance(part, ToolCallPart):
        return len(part.name) + len(json.dumps(part.arguments, default=str)), 0
    if isinstance(part, ToolResultPart):
        chars, media = 0, 0
        for inner in part.content:
            c, m = _part_chars(inner)
            chars, media = chars + c, media + m
        return chars, media
    if isinstance(part, ProviderPart):
        return len(json.dumps(part.payload, default=str)), 0
    return 0, 0


def _messages_estimate(messages: tuple[Message, ...]) -> tuple[int, int]:
    chars, media = 0, 0
    for message in messages:
        for part in message.parts:
            c, m = _part_chars(part)
            chars, media = chars + c, media + m
    return chars, media


def local_estimate(request: ModelRequest) -> int:
    """A local approximation of ``request``'s input tokens (no I/O).

    Text, tool arguments and tool schemas count one token per
    `CHARS_PER_TOKEN` characters; an image `IMAGE_TOKENS`; a PDF
    `PDF_PAGE_TOKENS` per page it declares; other media one token per KB.
    """
    chars, media = _messages_estimate(request.messages)
    chars += len(request.system)
    for spec in request.tools:
        chars += len(spec.name) + len(spec.description)
        chars += len(json.dumps(spec.parameters, default=str))
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN + media


async def estimate_request_tokens(
    mode: str | bool, client: object, request: ModelRequest, logger: Any = None
) -> int:
    """The pre-flight estimate of ``request``'s input tokens under ``mode``."""
    if mode is False:
        return 0
    count = getattr(client, "count_tokens", None)
    if mode is True and callable(count):
        try:
            return int(await count(request))
        except Exception as exc:  # the estimate is best effort: a failed count is 0
            (logger or log).debug("input token count failed; no estimate", error=type(exc).__name__)
            return 0
    return local_estimate(request)
