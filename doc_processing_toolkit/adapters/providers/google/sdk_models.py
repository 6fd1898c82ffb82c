"""The request config as google-genai models the SDK converts cheaply.

The SDK turns a ``GenerateContentConfig`` into the wire dict with one
``_common.get_value_by_path`` call per field. Each call first tests ``key in model``,
and a pydantic model has no ``__contains__``: Python falls back to ``__iter__``, which
builds the list of every ``(field, value)`` pair. The test is never true, because a
tuple never equals a string, so the SDK then reads the field with ``getattr``. On a
40-field config plus the Part of its system instruction, those lists came to about
1,400 per request. Skipping them cuts the SDK's request conversion by a third to a half:
12,174 -> 8,049 Python calls on a tool-round request, 140 -> 69 us on a one-line one
(``docs/performance.md``).

The subclasses below answer ``key in model`` with ``False`` straight away. That is the
answer the fallback always gives, so the SDK builds the same wire dict, which
``tests/unit/adapters/providers/google/test_sdk_models.py`` checks. Nothing else is changed: fields,
validation and serialization are the SDK's own. pydantic keeps an instance of a
subclass as it is when it fills a field of the base type, so the SDK keeps these.
The adapter's own stream path (`raw_stream`) validates the contents as
``FastContent`` and hands them to the SDK's converter directly. Given to the public
method, model instances cost more than plain dicts, through the SDK's union checks.

The SDK is imported inside `fast_models`, so importing this module does not
import ``google.genai``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["FastModels", "config_model", "fast_models"]


class FastModels(NamedTuple):
    """The subclasses, built once per process."""

    part: Any
    content: Any
    config: Any


@functools.cache
def fast_models() -> FastModels:
    """``Part``, ``Content`` and ``GenerateContentConfig`` with a constant-time
    ``__contains__`` (see the module docstring)."""
    from google.genai import types

    def never_contains(self: object, key: object) -> bool:
        """The fallback's answer, without listing every field (see the module)."""
        return False

    def shallow_deepcopy(self: Any, memo: dict[int, Any] | None = None) -> Any:
        """A copy sharing the field values: see the module docstring."""
        return self.__copy__()

    namespace = {"__contains__": never_contains, "__module__": __name__}
    part = type("FastPart", (types.Part,), dict(namespace))
    content = type(
        "FastContent",
        (types.Content,),
        {**namespace, "__annotations__": {"parts": list[part] | None}, "parts": None},  # type: ignore[valid-type]
    )
    config = type(
        "FastConfig",
        (types.GenerateContentConfig,),
        {**namespace, "__deepcopy__": shallow_deepcopy},
    )
    return FastModels(part, content, config)


def config_model(config: Mapping[str, Any]) -> Any:
    """``config`` (``GenerateContentConfig`` fields) as a validated ``FastConfig``.

    A string system instruction becomes the Content the SDK would have made of it, a
    user-role Content holding one text Part.

    Raises:
        pydantic.ValidationError: when a field does not fit the SDK's types.
    """
    models = fast_models()
    system = config.get("system_instruction")
    if isinstance(system, str):
        part = models.part(text=system)
        config = {**config, "system_instruction": models.content(role="user", parts=[part])}
    return models.config.model_validate(config)
