"""A stream's server-sent events as the API's dicts, for the ``openai`` SDK streams.

The SDK's ``AsyncStream`` builds a pydantic model for every event, and the adapters then
turned each one back into a dict (``to_dict``): the largest share of the client CPU the
adapters could cut.
:class:`OpenAIRawEvents` reads the same HTTP response (the one the SDK opened, with its
status already checked) line by line (``httpx2.Response.aiter_lines``, public), decodes the
server-sent events as the SDK's decoder does, and hands out each event's JSON as a dict.
It raises what the SDK's stream raises: ``APIError`` for an in-band ``{"error": ...}``,
``APITimeoutError`` / ``APIConnectionError`` for a read that timed out or broke, and
``json.JSONDecodeError`` (a ``ValueError``, mapped by the stream guard) for a line that is
not JSON. ``[DONE]`` ends the stream; on HTTP/1.1 the rest of the body is read first, so the
connection can be reused.

The Anthropic SDK has a public raw view of its own (``AsyncStream.raw_events``), used by
that adapter instead.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["OpenAIRawEvents"]


class OpenAIRawEvents:
    """The events of an ``openai`` SDK stream's response, as dicts (see the module)."""

    __slots__ = ("_lines", "_sdk", "response")

    def __init__(self, sdk: Any, response: Any) -> None:
        self._sdk = sdk
        self.response = response
        """The HTTP response (the stream guard closes it when the stream stalls)."""
        self._lines = response.aiter_lines().__aiter__()

    def __aiter__(self) -> OpenAIRawEvents:
        return self

    async def __anext__(self) -> dict[str, Any]:
        while True:
            data = await self._next_data()
            if data.startswith("[DONE]"):
                if self.response.http_version == "HTTP/1.1":
                    async for _ in self._lines:
                        pass
                raise StopAsyncIteration
            event = json.loads(data)
            if not isinstance(event, dict):
                raise json.JSONDecodeError("a stream event is not a JSON object", data, 0)
            error = event.get("error")
            if error:
                message = error.get("message") if isinstance(error, dict) else None
                if not message or not isinstance(message, str):
                    message = "An error occurred during streaming"
                raise self._sdk.APIError(message=message, request=self.response.request, body=error)
            return event

    async def _next_data(self) -> str:
        """The data of the next event that has any (comments and bare fields skipped)."""
        import httpx2

        data: list[str] = []
        try:
            async for line in self._lines:
                if not line:
                    if data:
                        return "\n".join(data)
                    continue
                if line.startswith(":"):
                    continue  # a comment (a keep-alive)
                name, _, value = line.partition(":")
                if name == "data":
                    data.append(value[1:] if value.startswith(" ") else value)
        except httpx2.TimeoutException as exc:
            raise self._sdk.APITimeoutError(request=self.response.request) from exc
        except httpx2.RequestError as exc:
            raise self._sdk.APIConnectionError(request=self.response.request) from exc
        if data:  # the body ended without the blank line after the last event
            return "\n".join(data)
        raise StopAsyncIteration
