"""The recorded-traffic corpus: loading the recordings, serving their bytes on loopback,
and what each recording says happened, read from the recording itself.

Nothing here imports the toolkit: the expectations are computed from the recorded wire
data by this module's own small parsers, so the replay test compares the Agent against
the recording, never against the adapter's reading of it.

Two source formats are kept verbatim under ``tests/fixtures/recordings/<dialect>/``:

* ``*.yaml``: a VCR cassette (pydantic-ai's), one ``interactions`` entry per HTTP
  exchange, with the response status, headers and body string as recorded; the replay
  serves its streamed responses (and HTTP errors), in order, and skips the non-streamed
  ones (calls of the recording project's own non-streaming tests, which the Agent, always
  streaming, never makes);
* ``*.chunks.txt``: one JSON event per line, as the Vercel AI SDK records a stream
  (only the ``data`` payloads are recorded). The SSE framing is added here, as the
  dialect frames it: ``event: <type>`` + ``data:`` for Anthropic and OpenAI Responses,
  ``data:`` alone for Gemini, ``data:`` plus the closing ``data: [DONE]`` for chat
  completions.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "recordings"
DIALECTS = ("anthropic", "openai", "google", "fireworks")

_TERMINAL = {
    "anthropic": {"message_stop"},
    "openai": {"response.completed", "response.incomplete", "response.failed"},
}
"""The event that ends one response's stream, by dialect (where the dialect has one)."""

_DROPPED_HEADERS = {"content-length", "transfer-encoding", "content-encoding", "connection"}


@dataclass(frozen=True)
class Exchange:
    """One recorded HTTP response."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes

    @property
    def is_stream(self) -> bool:
        return any(
            k.lower() == "content-type" and "event-stream" in v.lower() for k, v in self.headers
        )


@dataclass(frozen=True)
class Recording:
    """One recording file of the corpus."""

    dialect: str
    path: Path
    exchanges: tuple[Exchange, ...]

    @property
    def name(self) -> str:
        return f"{self.dialect}/{self.path.name}"


def _frame(dialect: str, line: str) -> str:
    if dialect in ("anthropic", "openai"):
        kind = json.loads(line).get("type", "")
        return f"event: {kind}\ndata: {line}\n\n"
    return f"data: {line}\n\n"


def load(path: Path) -> Recording:
    """A recording file as the HTTP exchanges it holds."""
    dialect = path.parent.name
    if path.name.endswith(".chunks.txt"):
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        headers = (("content-type", "text/event-stream; charset=utf-8"),)
        streams: list[list[str]] = [[]]
        for line in lines:
            streams[-1].append(_frame(dialect, line))
            # a file that recorded several requests' streams one after the other: each
            # ends with the dialect's terminal event
            if dialect in _TERMINAL and json.loads(line).get("type") in _TERMINAL[dialect]:
                streams.append([])
        exchanges = []
        for frames in streams:
            if not frames:
                continue
            body = "".join(frames) + ("data: [DONE]\n\n" if dialect == "fireworks" else "")
            exchanges.append(Exchange(200, headers, body.encode("utf-8")))
        return Recording(dialect, path, tuple(exchanges))
    cassette = yaml.safe_load(path.read_text(encoding="utf-8"))
    exchanges = []
    for interaction in cassette["interactions"]:
        response = interaction["response"]
        raw = response.get("body")
        if isinstance(raw, dict) and "string" in raw:
            text = raw["string"]
        elif "parsed_body" in response:
            text = json.dumps(response["parsed_body"])
        else:
            text = raw if isinstance(raw, str) else json.dumps(raw)
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        headers = tuple(
            (str(k), str(v))
            for k, values in (response.get("headers") or {}).items()
            if str(k).lower() not in _DROPPED_HEADERS
            for v in (values if isinstance(values, list) else [values])
        )
        exchange = Exchange(int(response["status"]["code"]), headers, data)
        if exchange.is_stream or exchange.status >= 400:
            exchanges.append(exchange)
    return Recording(dialect, path, tuple(exchanges))


def corpus() -> list[Recording]:
    """Every recording, dialect by dialect, in name order."""
    found = []
    for dialect in DIALECTS:
        for path in sorted((ROOT / dialect).iterdir()):
            if path.name.endswith((".yaml", ".chunks.txt")):
                found.append(load(path))
    return found


# -- loopback server -----------------------------------------------------------------------


class ReplayServer:
    """Serves a recording's exchanges in order, one per request, whatever the path; once
    they are used up it answers 400 (so a request the recording lacks fails loudly)."""

    def __init__(self, exchanges: tuple[Exchange, ...]) -> None:
        self._queue = list(exchanges)
        self.paths: list[str] = []
        self.bodies: list[bytes] = []
        """The request bodies, in order."""
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                # a file download (code-execution outputs): not part of any recording
                self.send_response(404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "2")
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(b"{}")
                self.close_connection = True

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                with server._lock:
                    server.paths.append(self.path)
                    server.bodies.append(body)
                    exchange = server._queue.pop(0) if server._queue else None
                if exchange is None:
                    exchange = Exchange(
                        400,
                        (("content-type", "application/json"),),
                        b'{"error": {"type": "invalid_request_error", '
                        b'"message": "replay: the recording has no further response"}}',
                    )
                self.send_response(exchange.status)
                for key, value in exchange.headers:
                    self.send_header(key, value)
                self.send_header("content-length", str(len(exchange.body)))
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(exchange.body)
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)


# -- what a recording says happened ----------------------------------------------------------


def sse_events(body: bytes) -> Iterator[tuple[str | None, str]]:
    """(event name, data) of each SSE event of a body, as a plain reader sees them."""
    text = body.decode("utf-8").replace("\r\n", "\n")
    for block in re.split(r"\n\n+", text):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        if data:
            yield name, "\n".join(data)


@dataclass
class Expected:
    """What one recorded response says: its text, client tool calls, billed usage and
    stop reason (normalised to the toolkit's documented vocabulary), or its error."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    reasoning_tokens: int = 0
    stop_reason: str = "other"
    model: str | None = None
    error: str | None = None
    """The error the recording carries (its code, else its type), None when it completed."""
    error_names: tuple[str, ...] = ()
    """Every name the recorded error gives itself (code and type)."""
    billed_by_model: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    """Anthropic iterations naming a model: (input, output, cache read, cache write)."""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# Anthropic ---------------------------------------------------------------------------------

_ANTHROPIC_STOPS = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "pause_turn": "pause_turn",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
}


def _anthropic_usage(u: dict[str, Any]) -> tuple[int, int, int, int, int]:
    """(input incl. cache reads, output, cache read, cache write, 1h write) of one usage."""
    read = _int(u.get("cache_read_input_tokens"))
    write = _int(u.get("cache_creation_input_tokens"))
    one_hour = _int((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens"))
    return _int(u.get("input_tokens")) + read, _int(u.get("output_tokens")), read, write, one_hour


def anthropic(body: bytes) -> Expected:
    out = Expected()
    blocks: dict[int, dict[str, Any]] = {}
    usage: dict[str, Any] = {}
    for name, data in sse_events(body):
        if name == "ping":
            continue
        event = json.loads(data)
        kind = event.get("type")
        if kind == "error" or name == "error":
            error = event.get("error") or {}
            out.error = str(error.get("type") or "error")
            return out
        if kind == "message_start":
            message = event["message"]
            out.model = message.get("model")
            usage = dict(message.get("usage") or {})
        elif kind == "content_block_start":
            block = dict(event["content_block"])
            block["_json"] = ""
            blocks[event["index"]] = block
            if block.get("type") == "fallback":
                out.model = (block.get("to") or {}).get("model") or out.model
        elif kind == "content_block_delta":
            block = blocks.setdefault(event["index"], {"type": "text", "text": "", "_json": ""})
            delta = event["delta"]
            if delta.get("type") == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif delta.get("type") == "input_json_delta":
                block["_json"] += delta.get("partial_json", "")
        elif kind == "message_delta":
            stop = (event.get("delta") or {}).get("stop_reason")
            if stop is not None:
                out.stop_reason = _ANTHROPIC_STOPS.get(stop, "other")
            for key, value in (event.get("usage") or {}).items():
                if value is not None:
                    usage[key] = value
    for index in sorted(blocks):
        block = blocks[index]
        if block.get("type") == "text":
            out.text += block.get("text", "")
        elif block.get("type") == "tool_use":
            args = json.loads(block["_json"]) if block["_json"] else block.get("input") or {}
            out.tool_calls.append((block["name"], args))
    # billed: every usage.iterations entry once (the top level sums the message ones)
    top = _anthropic_usage(usage)
    entries = [e for e in usage.get("iterations") or [] if isinstance(e, dict)]
    figures = top
    if entries:
        summed = [sum(f) for f in zip(*(_anthropic_usage(e) for e in entries), strict=True)]
        if summed[0] >= top[0] and summed[1] >= top[1]:
            figures = tuple(summed)  # type: ignore[assignment]
        else:
            rest = [_anthropic_usage(e) for e in entries if e.get("type") != "message"]
            figures = tuple(sum(f) for f in zip(top, *rest, strict=True))  # type: ignore[assignment]
        for entry in entries:
            model = entry.get("model")
            if isinstance(model, str) and model:
                i, o, r, w, _ = _anthropic_usage(entry)
                prev = out.billed_by_model.get(model, (0, 0, 0, 0))
                out.billed_by_model[model] = (prev[0] + i, prev[1] + o, prev[2] + r, prev[3] + w)
    (
        out.input_tokens,
        out.output_tokens,
        out.cached_input_tokens,
        out.cache_write_tokens,
        out.cache_write_1h_tokens,
    ) = figures
    details = usage.get("output_tokens_details") or {}
    out.reasoning_tokens = _int(details.get("thinking_tokens"))
    return out


# OpenAI Responses -------------------------------------------------------------------------


def openai(body: bytes) -> Expected:
    out = Expected()
    final: dict[str, Any] | None = None
    deltas = ""
    for _name, data in sse_events(body):
        if data == "[DONE]":
            continue
        event = json.loads(data)
        kind = event.get("type")
        if kind == "error":
            error = event.get("error") or event
            out.error = str(error.get("code") or error.get("type") or "error")
            out.error_names = tuple(str(error[k]) for k in ("code", "type") if error.get(k))
            return out
        if kind == "response.output_text.delta":
            deltas += event.get("delta", "")
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            final = event["response"]
    if final is None:
        out.text = deltas
        return out
    if final.get("status") == "failed":
        error = final.get("error") or {}
        out.error = str(error.get("code") or "failed")
        return out
    out.model = final.get("model")
    for item in final.get("output") or []:
        if item.get("type") == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    out.text += part.get("text", "")
        elif item.get("type") == "function_call":
            out.tool_calls.append((item["name"], json.loads(item.get("arguments") or "{}")))
    usage = final.get("usage") or {}
    out.input_tokens = _int(usage.get("input_tokens"))
    out.output_tokens = _int(usage.get("output_tokens"))
    out.cached_input_tokens = _int((usage.get("input_tokens_details") or {}).get("cached_tokens"))
    details = usage.get("output_tokens_details") or {}
    out.reasoning_tokens = _int(details.get("reasoning_tokens"))
    if final.get("status") == "incomplete":
        reason = (final.get("incomplete_details") or {}).get("reason")
        out.stop_reason = {
            "max_output_tokens": "max_tokens",
            "content_filter": "content_filter",
        }.get(str(reason), "other")
    else:
        out.stop_reason = "tool_use" if out.tool_calls else "end_turn"
    return out


# Gemini -----------------------------------------------------------------------------------

_GOOGLE_FILTERED = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
}


def google(body: bytes) -> Expected:
    out = Expected()
    usage: dict[str, Any] = {}
    finish = None
    for _name, data in sse_events(body):
        chunk = json.loads(data)
        if "error" in chunk:
            out.error = str(chunk["error"].get("status") or chunk["error"].get("code"))
            return out
        out.model = chunk.get("modelVersion") or out.model
        if chunk.get("usageMetadata"):
            usage = chunk["usageMetadata"]
        for candidate in chunk.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                if "text" in part and not part.get("thought"):
                    out.text += part["text"]
                if "functionCall" in part:
                    call = part["functionCall"]
                    out.tool_calls.append((call["name"], call.get("args") or {}))
            finish = candidate.get("finishReason") or finish
    thoughts = _int(usage.get("thoughtsTokenCount"))
    out.input_tokens = _int(usage.get("promptTokenCount")) + _int(
        usage.get("toolUsePromptTokenCount")
    )
    out.output_tokens = _int(usage.get("candidatesTokenCount")) + thoughts
    out.reasoning_tokens = thoughts
    out.cached_input_tokens = _int(usage.get("cachedContentTokenCount"))
    if finish in (None, "STOP"):
        out.stop_reason = "tool_use" if out.tool_calls else "end_turn"
    elif finish == "MAX_TOKENS":
        out.stop_reason = "max_tokens"
    elif finish in _GOOGLE_FILTERED:
        out.stop_reason = "content_filter"
    else:
        out.stop_reason = "other"
    return out


# OpenAI-compatible chat completions (Fireworks) --------------------------------------------

_CHAT_STOPS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filter",
}


def chat(body: bytes) -> Expected:
    out = Expected()
    calls: dict[int, dict[str, str]] = {}
    usage: dict[str, Any] = {}
    finish = None
    for _name, data in sse_events(body):
        if data.strip() == "[DONE]":
            continue
        chunk = json.loads(data)
        if chunk.get("error"):
            error = chunk["error"]
            out.error = str(error.get("code") or error.get("type") or "error")
            out.error_names = tuple(str(error[k]) for k in ("code", "type") if error.get(k))
            return out
        out.model = chunk.get("model") or out.model
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                out.text += delta["content"]
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(int(call.get("index", 0)), {"name": "", "arguments": ""})
                function = call.get("function") or {}
                slot["name"] += function.get("name") or ""
                slot["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    for index in sorted(calls):
        arguments = calls[index]["arguments"]
        out.tool_calls.append((calls[index]["name"], json.loads(arguments) if arguments else {}))
    out.input_tokens = _int(usage.get("prompt_tokens"))
    out.output_tokens = _int(usage.get("completion_tokens"))
    out.cached_input_tokens = _int((usage.get("prompt_tokens_details") or {}).get("cached_tokens"))
    details = usage.get("completion_tokens_details") or {}
    out.reasoning_tokens = _int(details.get("reasoning_tokens"))
    out.stop_reason = _CHAT_STOPS.get(str(finish), "other")
    return out


EXPECT = {"anthropic": anthropic, "openai": openai, "google": google, "fireworks": chat}


def expected(recording: Recording) -> list[Expected]:
    """What each recorded response says, in order (an HTTP error status counts as an
    error whose name is the status code)."""
    found = []
    for exchange in recording.exchanges:
        if exchange.status >= 400:
            found.append(Expected(error=str(exchange.status)))
        else:
            found.append(EXPECT[recording.dialect](exchange.body))
    return found
