"""Media a cross-provider conversion dropped because the target model does not take it.

Restoring or rebinding a session onto another provider converts its history; the
conversion replaces a media part the target row's ``input_types`` do not list by a
placeholder and records the drop in its report. That drop is the session's
``on_unsupported_part`` decision: under ``"raise"`` the restore fails with
`UnsupportedPartError` (nothing changed), under ``"drop"`` it is recorded in
``AgentSession.dropped_parts`` like a same-provider drop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from doc_processing_toolkit.domain.errors import UnsupportedPartError
from doc_processing_toolkit.domain.media import accepts_input_type, media_key

__all__ = ["converted_media_drops"]

_MEDIA_ARTEFACTS = frozenset({"media", "tool_result_media"})


def converted_media_drops(
    entries: Iterable[dict[str, Any]],
    *,
    input_types: Sequence[str] | None,
    provider: str,
    model: str,
    on_unsupported_part: str,
) -> list[dict[str, Any]]:
    """The ``dropped_parts`` records of the conversion report ``entries`` whose media the
    target model's ``input_types`` do not list (a drop for another reason - a file reference
    with no bytes, a position the wire format cannot carry - stays a conversion entry only).

    Raises:
        UnsupportedPartError: under ``on_unsupported_part="raise"``, at the first such part.
    """
    if input_types is None:
        return []
    records: list[dict[str, Any]] = []
    for entry in entries:
        if entry.get("kind") != "dropped" or entry.get("artefact") not in _MEDIA_ARTEFACTS:
            continue
        mime = entry.get("mime_type")
        if not isinstance(mime, str) or accepts_input_type(input_types, mime):
            continue
        key = media_key(mime)
        index = entry.get("index")
        if on_unsupported_part == "raise":
            raise UnsupportedPartError(
                f"restored message {index} holds {key} ({mime}), which {model} does not take "
                f"(its input_types: {', '.join(input_types)}); on_unsupported_part='drop' "
                "replaces it by a placeholder instead"
            )
        records.append(
            {
                "kind": str(entry.get("artefact")),
                "index": index,
                "reason": f"{key} is not in the model's input_types",
                "provider": provider,
                "model": model,
            }
        )
    return records
