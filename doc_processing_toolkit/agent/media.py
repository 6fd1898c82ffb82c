"""MediaTransformer: file paths, URLs, bytes and pre-encoded content in each provider's format.

Provider media support (from the registry rows' ``input_types`` and each wire format):

* Anthropic: images and PDFs (base64); filename preserved when provided
* OpenAI: images and PDFs (base64); filename preserved when provided
* Google: images, PDFs, video and audio (bytes), YouTube URLs; filename preserved
* Fireworks: images only (base64), on the models whose row lists ``image``
"""

from __future__ import annotations

from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.application.media.transformer import (
    MediaTransformer as ApplicationMediaTransformer,
)

__all__ = ["MediaTransformer"]


class MediaTransformer(ApplicationMediaTransformer):
    """Transformer for converting media inputs to provider-specific formats.

    Example:
        transformer = MediaTransformer(provider="anthropic", logger=logger)
        parts = transformer.transform(["image.png", "document.pdf"])
    """

    _default_deps = staticmethod(container_deps)  # the composition root's, built on first use
