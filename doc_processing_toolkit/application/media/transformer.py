"""MediaTransformer: file inputs in one provider's wire format (``agent.media``).

What a provider takes is not a table here: it is the union of its registry rows'
``input_types`` (`accepts_input_type`) narrowed
by its profile's ``accepts_media`` (what its wire format carries in a user turn). The wire
shapes come from the provider's history codec, so a transformed part is exactly what a
run sends (Anthropic ``image`` / ``document`` blocks, OpenAI ``input_image`` /
``input_file``, Gemini ``inline_data`` / ``file_data``, Fireworks ``image_url``).
"""

from __future__ import annotations

import base64
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.deps import AgentDeps, no_default_deps
from doc_processing_toolkit.application.media.detect import (
    OCTET_STREAM,
    guess_from_name,
    sniff_media_type,
)
from doc_processing_toolkit.application.media.inputs import media_part, read_path
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.media import accepts_input_type
from doc_processing_toolkit.domain.messages import MediaPart, Message
from doc_processing_toolkit.ports.dialect import HistoryCodec

__all__ = ["KNOWN_MEDIA_TYPES", "MediaTransformer"]

KNOWN_MEDIA_TYPES: tuple[str, ...] = (
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/heic",
    "image/heif",
    "application/pdf",
    "text/plain",
    "text/csv",
    "text/markdown",
    "text/html",
    "application/json",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "audio/wav",
    "audio/mpeg",
    "audio/mp4",
    "audio/ogg",
    "audio/flac",
    "video/mp4",
    "video/quicktime",
    "video/webm",
    "video/x-msvideo",
    "video/3gpp",
)
"""The media types detection names, the candidates `get_supported_types` filters."""

_OPTIONS = frozenset({"media_type", "filename"})


class MediaTransformer:
    """Transformer for converting media inputs to provider-specific formats.

    Example:
        transformer = MediaTransformer(provider="anthropic", logger=logger)
        parts = transformer.transform(["image.png", "document.pdf"])
    """

    _default_deps = staticmethod(no_default_deps)
    """The adapters of a transformer built without ``deps=`` (none here; the documented
    ``agent.media.MediaTransformer`` passes the composition root's)."""

    def __init__(
        self,
        provider: str,
        logger: logging.Logger | None = None,
        *,
        deps: AgentDeps | None = None,
    ) -> None:
        """Initialize the MediaTransformer.

        Args:
            provider: Target provider (a registry provider name).
            logger: Logger instance for warnings/errors.
            deps: The adapters to read rows, profiles and codecs from (default: the
                composition root's, passed in by the documented ``agent.media`` class).

        Raises:
            ValueError: If provider is not supported.
        """
        self._deps = deps if deps is not None else self._default_deps()
        self.logger = logger or logging.getLogger("doc_processing_toolkit.media")
        self.provider = self._check_provider(provider)

    # ------------------------------------------------------------------ facts
    def _providers(self) -> list[str]:
        return list(dict.fromkeys(row.provider for row in self._deps.registry.models()))

    def _check_provider(self, provider: Any) -> str:
        known = self._providers()
        if (
            not isinstance(provider, str)
            or provider not in known
            or self._deps.history_codecs(provider) is None
        ):
            raise ConfigurationError(f"unsupported provider {provider!r}; expected one of {known}")
        return provider

    def _codec(self, provider: str) -> HistoryCodec:
        codec = self._deps.history_codecs(provider)
        if codec is None:  # pragma: no cover - _check_provider refused it
            raise ConfigurationError(f"unsupported provider {provider!r}")
        return codec

    def _supports(self, mime_type: str, provider: str, *, has_bytes: bool = True) -> bool:
        profile = self._deps.provider_profiles(provider)
        rows = [r for r in self._deps.registry.models() if r.provider == provider]
        listed = any(accepts_input_type(r.input_types, mime_type) for r in rows)
        return listed and profile.accepts_media(mime_type, "user", has_bytes=has_bytes)

    # ------------------------------------------------------------------ documented API
    def detect_media_type(self, file_path: str | os.PathLike[str]) -> str:
        """Detect the MIME type of a file: its content's signature, else its extension.

        Returns ``application/octet-stream`` when neither names one.

        Raises:
            FileNotFoundError: the file does not exist.
        """
        file, data = read_path(file_path)
        sniffed = sniff_media_type(data)
        by_name = guess_from_name(file.name)
        if sniffed is None or (sniffed == "text/plain" and by_name is not None):
            return by_name or sniffed or OCTET_STREAM
        return sniffed

    def encode_base64(self, file_path: str | os.PathLike[str]) -> str:
        """Read a file and encode it as base64.

        Raises:
            FileNotFoundError: the file does not exist.
        """
        _, data = read_path(file_path)
        return base64.b64encode(data).decode("ascii")

    def get_supported_types(self, provider: str | None = None) -> list[str]:
        """The MIME types ``provider`` (default: this transformer's) takes in a prompt."""
        name = self.provider if provider is None else self._check_provider(provider)
        return [mime for mime in KNOWN_MEDIA_TYPES if self._supports(mime, name)]

    def is_supported(self, file_path: str | os.PathLike[str], provider: str | None = None) -> bool:
        """Whether the file's type is one ``provider`` (default: this one) takes.

        Raises:
            FileNotFoundError: the file does not exist.
        """
        name = self.provider if provider is None else self._check_provider(provider)
        return self._supports(self.detect_media_type(file_path), name)

    def transform(self, files: Sequence[Any], **kwargs: Any) -> list[dict[str, Any]]:
        """Transform a list of files to the provider's content-part format.

        Args:
            files: Paths (str / Path), URLs, raw bytes or the documented dicts.
            **kwargs: ``media_type`` and ``filename`` for raw bytes and URLs.

        Raises:
            FileNotFoundError: If a file doesn't exist.
            ValueError: If a file type is not supported by the provider (or unknown).
        """
        for key in sorted(set(kwargs) - _OPTIONS):
            self.logger.debug("MediaTransformer(%s): option %r ignored", self.provider, key)
        options = {k: v for k, v in kwargs.items() if k in _OPTIONS}
        parts = [media_part(value, **options) for value in files]
        for value, part in zip(files, parts, strict=True):
            if not self._supports(part.mime_type, self.provider, has_bytes=part.data is not None):
                raise CompatibilityError(
                    f"{self.provider} does not take {part.mime_type} "
                    f"({_name(value, part)}); supported: {self.get_supported_types()}"
                )
        return [item for part in parts for item in self._render(part)]

    def transform_files(
        self, files: Sequence[str | os.PathLike[str]], provider: str, **kwargs: Any
    ) -> list[dict[str, Any]]:
        """Alias for `transform` (``provider`` is ignored: this instance's is used)."""
        return self.transform(files, **kwargs)

    # ------------------------------------------------------------------ rendering
    def _render(self, part: MediaPart) -> list[dict[str, Any]]:
        native = self._codec(self.provider).render([Message(role="user", parts=(part,))])
        items: list[dict[str, Any]] = []
        for message in native:
            content = message.get("content", message.get("parts"))
            if isinstance(content, list):
                items.extend(c for c in content if isinstance(c, dict))
        if part.filename:
            for item in items:
                _label_blob(item, part.filename)
        return items

    def __repr__(self) -> str:
        return f"MediaTransformer(provider={self.provider!r})"


def _name(value: Any, part: MediaPart) -> str:
    if isinstance(value, str | os.PathLike):
        return os.fspath(value) if not isinstance(value, Path) else str(value)
    return part.filename or type(value).__name__


_BLOB_KEYS = ("inline_data", "file_data")
"""Content parts that carry media as a blob object (Gemini's ``Blob`` / ``FileData``)."""


def _label_blob(item: dict[str, Any], filename: str) -> None:
    """Keep a supplied filename on a blob-shaped part as its ``display_name``.

    Anthropic's and OpenAI's renderings carry the filename in their own fields (``title``,
    ``filename``); a Gemini ``Blob`` / ``FileData`` has ``display_name`` for it (google-genai
    ``types.Blob.display_name``: "Used to provide a label or filename"). The run path does not
    go through here, so what the Agent sends is unchanged.
    """
    for key in _BLOB_KEYS:
        blob = item.get(key)
        if isinstance(blob, dict):
            blob.setdefault("display_name", filename)
