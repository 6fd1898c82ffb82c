"""Per-part media options on the rendered Gemini contents: ``video_metadata`` and
``media_resolution_list``.

* ``video_metadata`` (provider keyword; ``start_offset``, ``end_offset``, ``fps``) goes on
  every video part of the request (``inline_data`` or ``file_data`` with a ``video/*``
  type).
* ``media_resolution_list`` (``run()``) gives the media parts of the run's user turn (the
  last user content that is not a function response), in order, a
  ``media_resolution: {"level": ...}`` each; ``None`` leaves a part at the global or
  default resolution. An unknown level is a warning and is not sent; extra entries are
  a warning.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["PART_RESOLUTIONS", "apply_part_options"]

PART_RESOLUTIONS = frozenset(
    {
        "MEDIA_RESOLUTION_UNSPECIFIED",
        "MEDIA_RESOLUTION_LOW",
        "MEDIA_RESOLUTION_MEDIUM",
        "MEDIA_RESOLUTION_HIGH",
        "MEDIA_RESOLUTION_ULTRA_HIGH",
    }
)
"""The per-part levels Gemini takes."""


def _media(part: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for key in ("inline_data", "file_data"):
        value = part.get(key)
        if isinstance(value, Mapping):
            return value
    return None


def _prompt_index(contents: Sequence[Mapping[str, Any]]) -> int | None:
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        parts = content.get("parts") or []
        if content.get("role") == "user" and not any(
            isinstance(p, Mapping) and "function_response" in p for p in parts
        ):
            return index
    return None


def apply_part_options(
    contents: list[dict[str, Any]],
    video_metadata: Mapping[str, Any] | None,
    resolutions: Sequence[str | None],
    warnings: list[str],
) -> list[dict[str, Any]]:
    """``contents`` with the per-part options set (a copy when anything changes)."""
    if not video_metadata and not resolutions:
        return contents
    contents = copy.deepcopy(contents)
    if video_metadata:
        meta = {k: v for k, v in video_metadata.items() if v is not None}
        for content in contents:
            for part in content.get("parts") or []:
                media = _media(part)
                if media is not None and str(media.get("mime_type", "")).startswith("video/"):
                    part["video_metadata"] = dict(meta)
    if resolutions:
        index = _prompt_index(contents)
        media_parts = (
            [p for p in contents[index].get("parts") or [] if _media(p) is not None]
            if index is not None
            else []
        )
        if len(resolutions) > len(media_parts):
            warnings.append(
                f"media_resolution_list has {len(resolutions)} entries for "
                f"{len(media_parts)} media part(s); the extra entries are ignored"
            )
        for part, level in zip(media_parts, resolutions, strict=False):
            if level is None:
                continue
            if level not in PART_RESOLUTIONS:
                warnings.append(
                    f"media_resolution_list: {level!r} is not one of {sorted(PART_RESOLUTIONS)}; "
                    "not sent"
                )
                continue
            part["media_resolution"] = {"level": level}
    return contents
