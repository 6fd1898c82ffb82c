"""The user turn of a run: the message text and the ``files=`` media, checked.

`build_prompt` turns ``files=`` into media parts (every input checked before
anything is sent), validates them against the model (`validation`) and returns the
user `Message` — the media first, in the order given, then the text (left out
when empty and there is media) — with the
``dropped_parts`` entries for what was left out.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.media.inputs import media_parts
from doc_processing_toolkit.application.media.limits import prompt_file_limit, prompt_stream_over
from doc_processing_toolkit.application.media.validation import (
    PartConverter,
    validate_prompt_media,
)
from doc_processing_toolkit.domain.messages import Message, Part, TextPart
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.provider_profile import ProviderProfile

__all__ = ["Prompt", "build_prompt"]


@dataclass(frozen=True, slots=True)
class Prompt:
    """The user turn to send and what was dropped from it."""

    message: Message
    """The user message: media parts (in ``files`` order), then the text."""
    dropped_parts: list[dict[str, Any]] = field(default_factory=list)
    """``AgentResult.dropped_parts`` entries (``index`` is the position in ``files``)."""
    media_indexes: tuple[int, ...] = ()
    """The ``files`` position of each media part kept in `message`."""


def build_prompt(
    text: str,
    files: Sequence[Any] | None,
    *,
    provider: str,
    model: str,
    row: ModelInfo | None,
    profile: ProviderProfile,
    on_unsupported_part: str,
    logger: logging.Logger,
    convert: PartConverter | None = None,
) -> Prompt:
    """The run's user turn.

    Raises:
        FileNotFoundError: a path in ``files`` that does not exist (naming it).
        FileTooLargeError: a file larger than the model's provider takes (from its size
            on disk, before it is read; naming it, its size and the limit).
        ValueError: an input of unknown shape or type (naming it).
        TypeError: ``files`` not a list, or an element of no accepted form.
        UnsupportedPartError: a part the model cannot take, under ``"raise"``.

    ``convert`` is the run's converter under ``on_unsupported_part="convert"``.
    """
    if files is None:  # text only: nothing to check
        return Prompt(message=Message(role="user", parts=(TextPart(text),)))
    media = media_parts(files, prompt_file_limit(row, provider), prompt_stream_over(row))
    check = validate_prompt_media(
        media,
        provider=provider,
        model=model,
        row=row,
        profile=profile,
        policy=on_unsupported_part,
        logger=logger,
        convert=convert,
    )
    parts: list[Part] = list(check.kept)
    if text or not parts:
        parts.append(TextPart(text))
    return Prompt(
        message=Message(role="user", parts=tuple(parts)),
        dropped_parts=check.dropped,
        media_indexes=tuple(check.kept_indexes),
    )
