"""Prompt media against what the model takes: the row's ``input_types`` and the wire format.

`validate_prompt_media` checks each prompt media part against the registry row's
``input_types`` (`accepts_input_type`) and the
provider profile's ``accepts_media`` (what its wire format carries in a user turn). A part
that fails is recorded as an ``AgentResult.dropped_parts`` entry; under
``on_unsupported_part="drop"`` it is left out with one WARNING, under ``"raise"`` the run is
refused with `UnsupportedPartError` before any request is sent, under ``"convert"`` it is
handed to the run's converter (the documents room: Markdown, a PDF's text layer, OCR) and
sent as what that returns, or dropped as under ``"drop"`` when it cannot be converted.
With no registry row nothing is dropped for its type (a registry miss never silently
drops): one WARNING says the parts are sent unchecked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError, UnsupportedPartError
from doc_processing_toolkit.domain.media import media_drop_reason, media_key
from doc_processing_toolkit.domain.messages import MediaPart, Part
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.provider_profile import ProviderProfile

__all__ = [
    "OFFICE_TYPES",
    "UNSUPPORTED_PART_POLICIES",
    "MediaCheck",
    "PartConverter",
    "input_type_key",
    "office_hint",
    "validate_on_unsupported_part",
    "validate_prompt_media",
]

UNSUPPORTED_PART_POLICIES = ("drop", "raise", "convert")
"""The values of ``on_unsupported_part``."""


PartConverter = Callable[[int, MediaPart], "list[Part] | None"]
"""``on_unsupported_part="convert"``: (index in ``files``, part) -> the parts to send
instead, or None when it cannot be converted."""


def validate_on_unsupported_part(value: Any) -> str:
    """``on_unsupported_part`` checked.

    Raises:
        ValueError: a value other than "drop", "raise" or "convert".
    """
    if value not in UNSUPPORTED_PART_POLICIES:
        raise ConfigurationError(
            f'on_unsupported_part must be "drop", "raise" or "convert", got {value!r}'
        )
    return str(value)


def input_type_key(part: MediaPart) -> str:
    """The input-type key a part is checked as: ``image``, ``video``, ``audio``, or for
    inline documents ``base64-<mime>`` (``base64-application/pdf``); by URL the category."""
    key = media_key(part.mime_type)
    if key in ("image", "video", "audio") or (part.data is None and part.path is None):
        return key
    return f"base64-{part.mime_type}"


@dataclass(slots=True)
class MediaCheck:
    """What `validate_prompt_media` decided."""

    kept: list[Part] = field(default_factory=list)
    """The parts to send, in order (a converted part's replacements in its place)."""
    kept_indexes: list[int] = field(default_factory=list)
    """Each kept part's position among the prompt parts."""
    dropped: list[dict[str, Any]] = field(default_factory=list)
    """``AgentResult.dropped_parts`` entries, in prompt order."""


def validate_prompt_media(
    parts: Sequence[MediaPart],
    *,
    provider: str,
    model: str,
    row: ModelInfo | None,
    profile: ProviderProfile,
    policy: str,
    logger: logging.Logger,
    convert: PartConverter | None = None,
) -> MediaCheck:
    """Check the prompt's media parts (their index is their position in the prompt).

    Under ``policy="convert"``, ``convert(index, part)`` turns a part the model cannot
    take into parts it can (None: it cannot, and the part is dropped).

    Raises:
        UnsupportedPartError: under ``policy="raise"``, naming every part the model
            cannot take (nothing has been sent).
    """
    check = MediaCheck()
    input_types = row.input_types if row is not None else None
    if row is None and parts:
        logger.warning(
            "model %s has no registry row: %d media part(s) sent without checking its input types",
            model,
            len(parts),
        )
    for index, part in enumerate(parts):
        reason = media_drop_reason(
            part,
            source=provider,
            target=provider,
            position="user",
            input_types=input_types,
            model=model,
            accepts=profile.accepts_media,
        )
        if reason is None:
            check.kept.append(part)
            check.kept_indexes.append(index)
            continue
        if policy == "convert" and convert is not None:
            converted = convert(index, part)
            if converted is not None:
                check.kept.extend(converted)
                check.kept_indexes.extend([index] * len(converted))
                continue
            reason += "; it could not be converted"
        reason += office_hint(part.mime_type, input_types)
        check.dropped.append(
            {
                "kind": input_type_key(part),
                "index": index,
                "reason": reason,
                "provider": provider,
                "model": model,
            }
        )
    if check.dropped and policy == "raise":
        names = "; ".join(
            f"part {d['index']} ({_label(parts[d['index']])}): {d['reason']}" for d in check.dropped
        )
        raise UnsupportedPartError(
            f"{model} ({provider}) cannot accept {len(check.dropped)} prompt part(s), "
            f'refused under on_unsupported_part="raise" before any request: {names}'
        )
    for entry in check.dropped:
        logger.warning(
            "dropping prompt part %d (%s) for %s: %s",
            entry["index"],
            _label(parts[entry["index"]]),
            model,
            entry["reason"],
        )
    return check


OFFICE_TYPES = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
}
"""The Office Open XML types the toolkit detects (from a zip's member names)."""


def office_hint(mime_type: str, input_types: Sequence[str] | None) -> str:
    """For an Office document: the types the model takes and the two ways in (else "").

    Only a row whose provider documents native Office input lists its type (OpenAI's
    ``input_file``: docx, pptx, xlsx). Elsewhere the toolkit does not convert one unasked
    (a conversion drops layout, formulas and speaker notes): the caller sets
    ``on_unsupported_part="convert"`` (Markdown), converts it to PDF, or hands it to code
    execution through ``tool_files=``.
    """
    if mime_type not in OFFICE_TYPES:
        return ""
    takes = ", ".join(t for t in (input_types or ()) if t != "text") or "text only"
    return (
        f' (the model takes: {takes}; set on_unsupported_part="convert" to send it as '
        f"Markdown, convert the {OFFICE_TYPES[mime_type]} file to PDF, or pass it in "
        "tool_files= for code execution)"
    )


def _label(part: MediaPart) -> str:
    name = part.filename or part.url
    return f"{part.mime_type} {name}" if name else part.mime_type
