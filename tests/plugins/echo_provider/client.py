"""EchoModelClient: a third-party ModelClient for the echo wire, over httpx2.

What every adapter owes the toolkit, in small: one request per ``stream()`` call and no
retry of its own (the Agent's retry layer is the only one); deltas as they arrive, then
exactly one ModelResponse; Usage on the toolkit convention (input includes cache reads);
every failure a domain ``ProviderError`` with ``retryable`` / ``retry_after`` /
``before_stream`` / ``deltas_emitted`` / ``partial_usage`` set; secrets kept out of
errors and ``repr``; ``aclose()`` idempotent.
"""

from __future__ import annotations

import asyncio
import json
import os
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx2

from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    OverloadedError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    StreamInterruptedError,
    status_error_class,
)
from doc_processing_toolkit.domain.messages import Message, Part, ToolCallPart
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    ModelResponse,
    StopReason,
    StreamItem,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from doc_processing_toolkit.domain.tools.specs import ForcedTool

from .codec import PROVIDER, EchoHistoryCodec, item_to_part
from .server import STREAM_PATH

__all__ = ["BASE_URL_ENV", "EchoModelClient"]

BASE_URL_ENV = "ECHO_BASE_URL"
API_KEY_ENV = "ECHO_API_KEY"

_STOPS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
}


def _usage(wire: dict[str, Any]) -> Usage:
    return Usage(
        input_tokens=int(wire.get("prompt", 0)),
        cached_input_tokens=int(wire.get("cached", 0)),
        output_tokens=int(wire.get("completion", 0)),
        reasoning_tokens=int(wire.get("reasoning", 0)),
    )


def _retry_after(headers: httpx2.Headers) -> float | None:
    try:
        return float(headers["retry-after"])
    except (KeyError, ValueError):
        return None


class _Assembly:
    """The message being streamed, rebuilt as echo items."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.args: dict[str, list[str]] = {}
        self.usage: dict[str, Any] = {}
        self.meta: dict[str, Any] = {}
        self.finished = False
        self.emitted = False

    def partial_usage(self) -> Usage | None:
        return _usage(self.usage) if self.usage else None

    def parts(self) -> tuple[Part, ...]:
        parts: list[Part] = []
        for item in self.items:
            if "call" in item:
                call = item["call"]
                arguments = json.loads("".join(self.args.get(call["id"], [])) or "{}")
                parts.append(ToolCallPart(call["id"], call["name"], arguments))
            else:
                parts.append(item_to_part(item))
        return tuple(parts)

    def append_text(self, key: str, text: str) -> None:
        last = self.items[-1] if self.items else None
        if last is not None and set(last) == {key}:
            last[key] += text
        else:
            self.items.append({key: text})


class EchoModelClient:
    """Streams requests to an echo server. Keyword-only, like every toolkit adapter."""

    provider = PROVIDER

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = 30.0,
    ) -> None:
        url = base_url or os.environ.get(BASE_URL_ENV)
        if not url:
            raise ConfigurationError(f"the echo provider needs base_url= or ${BASE_URL_ENV}")
        self._base_url = url.rstrip("/")
        self._api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "")
        self._timeout = timeout
        self._codec = EchoHistoryCodec()
        self._http: weakref.WeakKeyDictionary[Any, httpx2.AsyncClient] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        key = "set" if self._api_key else None
        return f"EchoModelClient(base_url={self._base_url!r}, api_key={key})"

    def _client(self) -> httpx2.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._http.get(loop)
        if client is None:
            client = httpx2.AsyncClient(base_url=self._base_url, timeout=self._timeout)
            self._http[loop] = client
        return client

    async def aclose(self) -> None:
        """Close this client's HTTP connection pool (idempotent)."""
        clients = list(self._http.values())
        self._http.clear()
        for client in clients:
            await client.aclose()

    # -- the request ---------------------------------------------------------------------

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        choice: Any = request.tool_choice
        if isinstance(choice, ForcedTool):
            choice = {"name": choice.name}
        elif choice == "required":
            choice = "any"
        return {
            "model": request.model,
            "system": request.system,
            "history": self._codec.render(list(request.messages)),
            "tools": [
                {"name": t.name, "description": t.description, "schema": t.parameters}
                for t in request.tools
            ],
            "tool_choice": choice,
            "max_tokens": request.max_tokens,
            "thinking": request.thinking,
            "format": {"json_schema": request.output_schema} if request.output_schema else None,
        }

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Send ``request``; yield deltas, then one ModelResponse."""
        headers = {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        structured = request.output_schema is not None
        try:
            async with self._client().stream(
                "POST", STREAM_PATH, json=self._body(request), headers=headers
            ) as response:
                request_id = response.headers.get("x-echo-request-id")
                if response.status_code >= 400:
                    raise await self._status_error(response, request_id)
                assembly = _Assembly()
                async for delta in self._events(response, assembly, structured, request_id):
                    yield delta
        except httpx2.TimeoutException as exc:
            raise ProviderTimeoutError(
                self._redact(f"echo: timed out: {exc}"), provider=PROVIDER, before_stream=True
            ) from exc
        except httpx2.ConnectError as exc:
            raise ProviderConnectionError(
                self._redact(f"echo: connection failed: {exc}"),
                provider=PROVIDER,
                before_stream=True,
            ) from exc
        if not assembly.finished:
            raise StreamInterruptedError(
                "echo: the stream ended before finish",
                provider=PROVIDER,
                request_id=request_id,
                partial_usage=assembly.partial_usage(),
                deltas_emitted=assembly.emitted,
            )
        yield ModelResponse(
            message=Message("assistant", assembly.parts(), provider=PROVIDER),
            usage=_usage(assembly.usage),
            stop_reason=_STOPS.get(str(assembly.meta.get("stop")), "other"),
            model=str(assembly.meta.get("model") or request.model),
            provider=PROVIDER,
            request_id=request_id,
        )

    async def _status_error(self, response: httpx2.Response, request_id: str | None) -> Exception:
        await response.aread()
        try:
            error = response.json()["error"]
            code, message = str(error["code"]), str(error["message"])
        except (ValueError, KeyError, TypeError):
            code, message = "unknown", response.text[:200]
        status = response.status_code
        return status_error_class(status)(
            self._redact(f"echo HTTP {status} {code}: {message}"),
            provider=PROVIDER,
            status_code=status,
            retry_after=_retry_after(response.headers),
            request_id=request_id,
            before_stream=True,
            error_type=code,
        )

    async def _events(
        self,
        response: httpx2.Response,
        assembly: _Assembly,
        structured: bool,
        request_id: str | None,
    ) -> AsyncIterator[TextDelta | ThinkingDelta | ToolCallDelta]:
        try:
            async for line in response.aiter_lines():
                if not line.strip():
                    continue
                event = json.loads(line)
                kind = event.get("event")
                if kind == "error":
                    raise self._stream_error(event.get("error") or {}, assembly, request_id)
                delta = self._apply(event, assembly, structured)
                if delta is not None:
                    assembly.emitted = True
                    yield delta
        except (httpx2.HTTPError, ValueError) as exc:
            raise StreamInterruptedError(
                self._redact(f"echo: the stream broke: {type(exc).__name__}: {exc}"),
                provider=PROVIDER,
                request_id=request_id,
                partial_usage=assembly.partial_usage(),
                deltas_emitted=assembly.emitted,
            ) from exc

    @staticmethod
    def _apply(
        event: dict[str, Any], assembly: _Assembly, structured: bool
    ) -> TextDelta | ThinkingDelta | ToolCallDelta | None:
        match event.get("event"):
            case "begin":
                assembly.meta.update(id=event.get("id"), model=event.get("model"))
                assembly.usage = dict(event.get("usage") or {})
            case "text":
                assembly.append_text("text", str(event["text"]))
                return TextDelta(str(event["text"]), structured_output=structured)
            case "thought":
                last = assembly.items[-1] if assembly.items else None
                if last is not None and set(last) == {"thought"}:
                    last["thought"] += str(event["text"])
                else:
                    assembly.items.append({"thought": str(event["text"])})
                return ThinkingDelta(str(event["text"]))
            case "thought_seal":
                last = assembly.items[-1] if assembly.items else None
                if last is None or set(last) != {"thought"}:
                    last = {"thought": ""}
                    assembly.items.append(last)
                last["seal"] = str(event["seal"])
            case "call_start":
                call: dict[str, Any] = {"id": str(event["id"]), "name": str(event["name"])}
                call["args"] = {}
                assembly.items.append({"call": call})
                return ToolCallDelta(id=call["id"], name=call["name"])
            case "call_args":
                assembly.args.setdefault(str(event["id"]), []).append(str(event["delta"]))
            case "finish":
                assembly.meta["stop"] = event.get("stop")
                assembly.usage = dict(event.get("usage") or {})
                assembly.finished = True
            case _:
                pass
        return None

    def _stream_error(
        self, error: dict[str, Any], assembly: _Assembly, request_id: str | None
    ) -> ProviderError:
        code = str(error.get("code", "unknown"))
        cls = OverloadedError if code == "overloaded" else StreamInterruptedError
        return cls(
            self._redact(f"echo stream error {code}: {error.get('message', '')}"),
            provider=PROVIDER,
            request_id=request_id,
            partial_usage=assembly.partial_usage(),
            deltas_emitted=assembly.emitted,
            error_type=code,
        )
