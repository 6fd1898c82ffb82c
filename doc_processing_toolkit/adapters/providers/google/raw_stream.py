"""A Gemini stream's chunks as the SDK's dicts, without a pydantic model per chunk.

For every chunk of ``generate_content_stream``, google-genai parses the JSON, dumps it
back to a string and parses it again, renames its keys (``_GenerateContentResponse_from_mldev``),
walks it against the model's fields to drop unknown keys (``_remove_extra_fields``), and
validates it into a ``GenerateContentResponse``, running a Python "before" validator for
every nested model. The adapter then dumped that model back to a dict
(``model_dump(mode="json", exclude_none=True)``). On a short chunk that came to about
200 us, four times per one-line answer: the largest share of the client CPU the Google
adapter could cut (``docs/performance.md``, "The eighth pass").

`ChunkStream` sends the request the SDK builds, with the SDK's own parameter model
and converter, through the SDK's API client (``async_request_streamed``: authentication,
HTTP options, status errors and in-band ``{"error": ...}`` events are the SDK's), then
applies the SDK's key renames to each chunk and converts it with `dump_chunk`.
That conversion follows a table built once per model class from the SDK's own types.
It gives the dict that validating and dumping gives: the same snake_case keys, unknown
keys and ``None`` values dropped, ints and floats coerced as pydantic coerces them, and
``citationSources`` renamed.
A chunk the table cannot convert exactly goes the SDK's way, validated and then dumped,
so the result is the same either way. That happens for a field of a kind the table does not
handle, a value of an unexpected type, an enum value the enum does not list, or a class
with a validator of its own.
``tests/unit/adapters/providers/google/test_raw_stream.py`` checks both the requests and the chunks
against the SDK.

The SDK's private members the fast path needs (the same the public method calls, pinned
by ``uv.lock``) are used only in `_sdk_private`, which checks for them when it is imported
(``_sdk_private.PRIVATE_PATH``). Without them the stream takes the public path here:
``generate_content_stream`` and ``model_dump``. The SDK is imported inside functions, so
importing this module does not import ``google.genai``.
"""

from __future__ import annotations

import base64
import enum
import functools
import types as pytypes
import typing
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers.google.sdk_models import config_model, fast_models

__all__ = ["ChunkStream", "dump_chunk"]

DUMP_EXCLUDE = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})
"""``GenerateContentResponse`` fields the adapter never reads (left out of the dict)."""

PUBLIC_METHOD_ONLY = frozenset({"automatic_function_calling", "automatic_continuation"})
"""Config fields only ``generate_content_stream`` reads (automatic function calling and
stream continuation, both off for the adapter); no request carries them."""

_SDK_VALIDATOR = "_check_field_type_mismatches"
"""The "before" validator every google-genai model has: it only warns when a field holds
a model instance of another class, which a parsed JSON chunk never does."""
_KNOWN_VALIDATORS = {("CitationMetadata", "_rename_citation_sources")}
"""Model validators the table reproduces (``citationSources`` -> ``citations``)."""
_RENAMED_KEYS = {"CitationMetadata": {"citationSources": "citations"}}

# The kinds of field the table converts.
_STR = 0
_OPAQUE = 1  # Any, or a dict of plain JSON values: kept as it is
_BOOL = 2
_INT = 3
_FLOAT = 4
_ENUM = 5  # one of the enum's values
_BYTES = 6  # base64 text, dumped in the URL-safe alphabet as pydantic dumps bytes
_MODEL = 7
_LIST = 8  # a list of one of the kinds above
_SDK = 9  # anything else: a chunk holding it goes the SDK's way

_Kind = tuple[int, Any]
"""``(kind, detail)``: the model class, the enum's values, or the list items' kind."""
_Field = tuple[str, int, Any]
"""``(field name, kind, detail)``."""


class _SdkWay(Exception):
    """The chunk holds something the table does not convert exactly: use the SDK."""


class ChunkStream:
    """One ``streamGenerateContent`` request; iterating it yields each chunk's dict.

    ``config`` holds ``GenerateContentConfig`` fields. The request is built at once, so a
    contents or config that does not fit the SDK's types raises ``pydantic.ValidationError``
    here. It is sent on the first ``__anext__``, as the SDK's own stream does.
    `headers` holds the response headers from the first chunk on.
    """

    __slots__ = ("_chunks", "headers")

    def __init__(
        self, client: Any, *, model: str, contents: Any, config: Mapping[str, Any]
    ) -> None:
        self.headers: Mapping[str, str] | None = None
        from doc_processing_toolkit.adapters.providers.google import _sdk_private

        api = _sdk_private.api_client(client) if _sdk_private.PRIVATE_PATH else None
        if api is None:
            self._chunks = self._public(client, model, contents, config_model(config))
            return
        # the two switches only the public method reads: it is not called here
        request_config = {k: v for k, v in config.items() if k not in PUBLIC_METHOD_ONLY}
        fast = fast_models()
        sdk_config = config_model(request_config) if request_config else None
        params: dict[str, Any] = {
            "model": model,
            "contents": [fast.content.model_validate(content) for content in contents],
            "config": sdk_config,
        }
        request = _sdk_private.build_request(api, params, sdk_config)
        if request is None:  # not the shape the fast path was written against
            self._chunks = self._public(client, model, contents, config_model(config))
            return
        self._chunks = self._private(api, request)

    def __aiter__(self) -> ChunkStream:
        return self

    async def __anext__(self) -> dict[str, Any]:
        return await self._chunks.__anext__()

    async def aclose(self) -> None:
        """Close the stream (and its HTTP response, when it was opened)."""
        await self._chunks.aclose()

    async def _private(self, api: Any, request: Any) -> AsyncGenerator[dict[str, Any], None]:
        from doc_processing_toolkit.adapters.providers.google import _sdk_private

        chunks = _sdk_private.stream_chunks(api, request)
        try:
            async for headers, data in chunks:
                self.headers = headers
                yield dump_chunk(data)
        finally:
            await chunks.aclose()

    async def _public(
        self, client: Any, model: str, contents: Any, config: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        chunks = await client.aio.models.generate_content_stream(
            model=model, contents=contents, config=config
        )
        try:
            async for chunk in chunks:
                http = getattr(chunk, "sdk_http_response", None)
                self.headers = getattr(http, "headers", None)
                yield chunk.model_dump(mode="json", exclude_none=True, exclude=set(DUMP_EXCLUDE))
        finally:
            await chunks.aclose()


def dump_chunk(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a chunk after the SDK's key renames) as
    ``GenerateContentResponse.model_dump(mode="json", exclude_none=True)`` gives it.

    Raises:
        pydantic.ValidationError: when the chunk does not fit the SDK's model.
    """
    from google.genai import types

    try:
        dumped = _convert(data, types.GenerateContentResponse)
    except _SdkWay:
        from doc_processing_toolkit.adapters.providers.google._sdk_private import response_model

        model = response_model(data)
        result: dict[str, Any] = model.model_dump(
            mode="json", exclude_none=True, exclude=set(DUMP_EXCLUDE)
        )
        return result
    for key in DUMP_EXCLUDE.intersection(dumped):
        del dumped[key]
    return dumped


def _convert(data: Any, cls: Any) -> dict[str, Any]:
    table = _table(cls)
    if table is None or type(data) is not dict:
        raise _SdkWay
    out: dict[str, Any] = {}
    for key, value in data.items():
        if value is None:
            continue
        field = table.get(key)
        if field is None:
            continue  # a key the SDK's model does not have: the SDK drops it too
        name, kind, detail = field
        if kind == _STR and type(value) is str:
            out[name] = value
        else:
            out[name] = _value(kind, detail, value)
    return out


def _value(kind: int, detail: Any, value: Any) -> Any:
    """``value`` of a field of ``kind`` as model_dump gives it (raises _SdkWay when the
    SDK would coerce, normalise or reject it)."""
    if kind == _MODEL:
        return _convert(value, detail)
    if kind == _LIST:
        if type(value) is not list:
            raise _SdkWay
        item_kind, item_detail = detail
        return [_value(item_kind, item_detail, item) for item in value]
    if kind == _OPAQUE:
        if detail is None or type(value) is detail:
            return value
    elif (
        (kind == _STR and type(value) is str)
        or (kind == _BOOL and type(value) is bool)
        or (kind == _INT and type(value) is int)
    ):
        return value
    elif kind == _FLOAT:
        if type(value) is float:
            return value
        if type(value) is int:
            return float(value)
    elif kind == _ENUM:
        if value in detail:
            return value
    elif kind == _BYTES:
        return _urlsafe(value)
    raise _SdkWay


@functools.cache
def _table(cls: Any) -> dict[str, _Field] | None:
    """Field name and alias -> how to convert it, for one SDK model class; None when the
    class has a validator, serializer or default the table does not reproduce."""
    cls.model_rebuild(raise_errors=False)  # resolve the forward references (defer_build)
    decorators = cls.__pydantic_decorators__
    own = {name for name in decorators.model_validators if name != _SDK_VALIDATOR}
    if (
        any((cls.__name__, name) not in _KNOWN_VALIDATORS for name in own)
        or decorators.field_validators
        or decorators.field_serializers
        or decorators.model_serializers
        or decorators.computed_fields
        or decorators.validators
        or decorators.root_validators
    ):
        return None
    table: dict[str, _Field] = {}
    for name, info in cls.model_fields.items():
        if info.default_factory is not None or not _none_or_undefined(info.default):
            return None  # model_dump would add the default
        field = _field(name, info.annotation)
        table[name] = field
        if info.alias:
            table[info.alias] = field
    for old, new in _RENAMED_KEYS.get(cls.__name__, {}).items():
        table[old] = table[new]
    return table


def _none_or_undefined(value: Any) -> bool:
    from pydantic_core import PydanticUndefined

    return value is None or value is PydanticUndefined


def _field(name: str, annotation: Any) -> _Field:
    kind, detail = _kind(annotation)
    return (name, kind, detail)


def _kind(annotation: Any) -> _Kind:
    import pydantic

    annotation = _optional(annotation)
    origin = typing.get_origin(annotation)
    if origin is list:
        args = typing.get_args(annotation)
        item = _kind(args[0]) if len(args) == 1 else (_SDK, None)
        return (_SDK, None) if item[0] in (_SDK, _LIST) else (_LIST, item)
    if annotation is Any:
        return (_OPAQUE, None)
    if origin is dict and _opaque_dict(annotation):
        return (_OPAQUE, dict)
    simple = {str: _STR, bool: _BOOL, int: _INT, float: _FLOAT, bytes: _BYTES}.get(annotation)
    if simple is not None:
        return (simple, None)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return (_ENUM, frozenset(member.value for member in annotation))
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return (_MODEL, annotation)
    return (_SDK, None)


_TO_URLSAFE = str.maketrans("+/", "-_")


def _urlsafe(value: Any) -> str:
    """Canonical standard base64 ``value`` in the URL-safe alphabet (what pydantic dumps for
    the bytes it decodes); anything else (URL-safe already, unpadded, non-canonical) goes
    the SDK's way, which accepts some of it and rejects the rest."""
    if type(value) is not str:
        raise _SdkWay
    try:
        raw = base64.b64decode(value, validate=True)
    except ValueError:
        raise _SdkWay from None
    if base64.b64encode(raw).decode("ascii") != value:
        raise _SdkWay
    return value.translate(_TO_URLSAFE)


def _optional(annotation: Any) -> Any:
    """``X`` for ``Optional[X]``; the annotation itself otherwise."""
    if typing.get_origin(annotation) in (typing.Union, pytypes.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _opaque_dict(annotation: Any) -> bool:
    """A ``dict`` whose values are plain JSON (no model to convert inside)."""
    args = typing.get_args(annotation)
    return len(args) == 2 and args[0] is str and args[1] in (Any, str, int, float, bool)
