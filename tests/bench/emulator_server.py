"""The bench's provider emulator, in a process of its own (so its CPU is not the client's).

    python tests/bench/emulator_server.py      # prints "PORT <n>" then serves until stdin closes

Every dialect answers with one short streamed text reply, except a request whose prompt
carries :data:`TOOL_MARKER` and no tool result yet (:data:`TOOL_RESULT` absent from the
body): that one gets a single ``lookup`` tool call, so a tool round is two requests.
The decision is per request (no shared script), so concurrent calls never race.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from doc_processing_toolkit.testing import ProviderEmulator, Reply
from doc_processing_toolkit.testing.emulator.common import DialectRoute, EmulatorCall
from doc_processing_toolkit.testing.emulator.routes import DIALECT_ROUTES
from doc_processing_toolkit.testing.script import ToolCall

TOOL_MARKER = "BENCH-TOOL-ROUND"
TOOL_RESULT = "BENCH-RESULT-42"
TEXT = Reply(text="Hello there, this is a short benchmark reply.", chunk_size=12)
TOOL = Reply(tool_calls=(ToolCall(name="lookup", arguments={"key": "a"}),))


class _OneStep:
    """The emulator state for one request, answering with a fixed step."""

    def __init__(self, state: Any, step: Reply) -> None:
        self._state = state
        self._step = step

    def next_step(self, body: Any = None) -> Reply:
        return self._step

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)


def _decide(route: DialectRoute) -> DialectRoute:
    handler = route.handler

    async def decided(call: EmulatorCall) -> Any:
        body = json.dumps(call.body)
        step = TOOL if TOOL_MARKER in body and TOOL_RESULT not in body else TEXT
        one = EmulatorCall(call.request, call.body, _OneStep(call.state, step), call.path_params)  # type: ignore[arg-type]
        return await handler(one)

    return DialectRoute(route.dialect, decided, route.methods, route.dialect_of)


def main() -> None:
    routes = {path: _decide(route) for path, route in DIALECT_ROUTES.items()}
    with ProviderEmulator(default=TEXT, routes=routes) as emulator:
        # uvicorn closes a keep-alive connection idle for 5 s; between two phases of the
        # bench that races a pooled connection's reuse (a "Connection error" with retries
        # off). Connections accepted from now on stay open for the bench's length.
        emulator._server.config.timeout_keep_alive = 3600
        print(f"PORT {emulator.url.rsplit(':', 1)[1]}", flush=True)
        sys.stdin.read()  # serve until the parent closes our stdin (or dies)


if __name__ == "__main__":
    main()
