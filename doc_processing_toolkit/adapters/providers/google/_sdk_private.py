"""Every use of a private google-genai member, in one place: the Gemini stream's fast path.

The public ``client.aio.models.generate_content_stream`` validates every chunk into a
``GenerateContentResponse`` (see `raw_stream` and ``docs/performance.md``, "The eighth
pass"). The fast path sends the same request through the same SDK machinery, one level
down, and reads each chunk as the dict the SDK would have validated:

* ``client.aio.models._api_client``: the SDK's API client (authentication, HTTP options,
  status errors and in-band ``{"error": ...}`` events stay the SDK's), and its
  ``async_request_streamed``;
* ``models._GenerateContentParameters_to_mldev``: the SDK's request converter;
* ``models._GenerateContentResponse_from_mldev``: the SDK's key renames of each chunk;
* ``_common.convert_to_dict`` and ``_common.encode_unserializable_types``: the SDK's own
  serialisation of the converted request;
* ``types.GenerateContentResponse._from_response``: the SDK's chunk validation, for a
  chunk the conversion table of `raw_stream` does not convert itself.

The public path stands beside it in `raw_stream` (``generate_content_stream`` and
``model_dump``; ``GenerateContentResponse.model_validate`` in place of ``_from_response``).
Which one runs is decided when this module is imported, by a feature check (`available`:
every member above exists with the shape used here); the choice is logged at debug level
and kept in `PRIVATE_PATH`. Vertex AI clients always take the public path. The contract
suite (``tests/contract``) runs both paths on the same emulator traffic and compares what
they give; ``make test-sdk-latest`` runs it against the newest released google-genai.

Importing this module imports ``google.genai``: `raw_stream` imports it lazily, at the
first stream, so importing the adapter does not.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, NamedTuple
from urllib.parse import urlencode

from doc_processing_toolkit._logging import get_logger

__all__ = [
    "PRIVATE_PATH",
    "PrivateRequest",
    "api_client",
    "available",
    "build_request",
    "response_model",
    "stream_chunks",
]

log = get_logger(__name__)

_NEEDED = (
    ("models", "_GenerateContentParameters_to_mldev", 4),
    ("models", "_GenerateContentResponse_from_mldev", 3),
    ("_common", "convert_to_dict", 1),
    ("_common", "encode_unserializable_types", 1),
)
"""(SDK module, private function, the positional arguments it is called with here)."""


def _accepts(function: Callable[..., Any], count: int) -> bool:
    """Whether ``function`` takes ``count`` positional arguments (a signature check)."""
    try:
        inspect.signature(function).bind(*range(count))
    except (TypeError, ValueError):
        return False
    return True


@functools.cache
def available() -> bool:
    """Whether the installed google-genai has every private member this module uses, with
    the signature it is called with (the feature check behind `PRIVATE_PATH`)."""
    try:
        from google.genai import _api_client, _common, models, types
    except ImportError:  # pragma: no cover - exercised only without the extra
        return False
    modules = {"models": models, "_common": _common}
    missing = []
    for module, name, arguments in _NEEDED:
        function = getattr(modules[module], name, None)
        if function is None or not _accepts(function, arguments):
            missing.append(name)
    if not callable(getattr(_api_client.BaseApiClient, "async_request_streamed", None)):
        missing.append("async_request_streamed")
    if not callable(getattr(types.GenerateContentResponse, "_from_response", None)):
        missing.append("_from_response")
    if missing:
        log.info(
            "google-genai lacks what the adapter's own stream path uses: streams go through "
            f"the public generate_content_stream (missing: {', '.join(missing)})",
            missing=missing,
        )
    return not missing


PRIVATE_PATH: bool = available()
"""The path chosen at import: True, the private fast path; False, the public SDK path."""
log.debug(
    "google-genai stream path chosen",
    path="private (_api_client, _GenerateContentParameters_to_mldev)"
    if PRIVATE_PATH
    else "public (generate_content_stream)",
)


def api_client(client: Any) -> Any | None:
    """The SDK's API client behind ``client`` (a ``genai.Client``), or None when the
    fast path cannot serve it (a Vertex AI client, or an SDK without one)."""
    api = getattr(client.aio.models, "_api_client", None)
    if api is None or getattr(api, "vertexai", True):
        return None
    return api


class PrivateRequest(NamedTuple):
    """A converted ``streamGenerateContent`` request, ready for `stream_chunks`."""

    params: dict[str, Any]
    """The parameters the converters were given (the chunk renames read them too)."""
    path: str
    """``models/{model}:streamGenerateContent?alt=sse`` (and the converter's query)."""
    body: dict[str, Any]
    """The request body, serialised as the SDK serialises it."""
    http_options: Any
    """The config's ``http_options`` (None: the client's)."""


def build_request(api: Any, params: dict[str, Any], sdk_config: Any) -> PrivateRequest | None:
    """The request the SDK's converter makes of ``params`` (``model``, ``contents``,
    ``config``), or None when the converter gives no model path (not the shape this module
    was written against: the caller takes the public path)."""
    from google.genai import _common, models

    request = models._GenerateContentParameters_to_mldev(api, params, None, params)
    url = request.get("_url")
    if not isinstance(url, dict) or not isinstance(url.get("model"), str):
        log.info("google-genai's converter gave no model path: using generate_content_stream")
        return None
    path = "{model}:streamGenerateContent?alt=sse".format_map(url)
    query = request.get("_query")
    if query:
        path = f"{path}?{urlencode(query)}"
    request.pop("config", None)
    http_options = sdk_config.http_options if sdk_config is not None else None
    body = _common.encode_unserializable_types(_common.convert_to_dict(request))
    return PrivateRequest(params, path, body, http_options)


async def stream_chunks(
    api: Any, request: PrivateRequest
) -> AsyncGenerator[tuple[Mapping[str, str] | None, dict[str, Any]], None]:
    """Send ``request`` through the SDK's API client; yield each chunk's response headers
    and its JSON after the SDK's key renames (closing the HTTP response at the end)."""
    import json

    from google.genai import models

    responses = await api.async_request_streamed(
        "post", request.path, request.body, request.http_options
    )
    try:
        async for response in responses:
            data = json.loads(response.body) if response.body else {}
            renamed = models._GenerateContentResponse_from_mldev(data, None, request.params)
            yield response.headers, renamed
    finally:
        await responses.aclose()


def response_model(data: dict[str, Any]) -> Any:
    """``data`` (a chunk after the SDK's key renames) validated as the SDK validates it."""
    from google.genai import types

    from_response = getattr(types.GenerateContentResponse, "_from_response", None)
    if from_response is not None:  # drops the keys the model lacks, then validates
        return from_response(response=data, kwargs={})
    return types.GenerateContentResponse.model_validate(data)
