"""ProviderEmulator: a loopback HTTP server that speaks provider wire protocols from a script.

The server (starlette under uvicorn) runs on 127.0.0.1, on a free port, in a background
thread with its own event loop, so it serves sync code, ``run_sync``, the CLI and async
tests alike. Routes come from `DIALECT_ROUTES` (route path -> `DialectRoute`);
a new wire dialect adds its routes there (or passes ``routes=`` to one emulator).

Example::

    with ProviderEmulator([Reply("hello")]) as emu:
        client = AnthropicModelClient(base_url=emu.anthropic_base_url)
        ...
        assert emu.request_count == 1
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.testing.emulator.batch_store import BatchStore
from doc_processing_toolkit.testing.emulator.common import (
    DialectRoute,
    EmulatorCall,
    EmulatorState,
    RecordedRequest,
    StreamRecord,
    install_disconnect_log_filter,
)
from doc_processing_toolkit.testing.emulator.files_store import FileStore
from doc_processing_toolkit.testing.emulator.routes import DIALECT_ROUTES, register_dialect_routes
from doc_processing_toolkit.testing.script import Reply, ScriptStep

__all__ = ["DIALECT_ROUTES", "ProviderEmulator", "register_dialect_routes"]

_START_TIMEOUT_S = 10.0


class ProviderEmulator:
    """A scripted provider on loopback. Thread-safe; use as ``with`` or ``async with``."""

    def __init__(
        self,
        script: Sequence[ScriptStep] = (),
        *,
        default: Reply | None = None,
        routes: Mapping[str, DialectRoute] | None = None,
    ) -> None:
        self._state = EmulatorState(script, default)
        self._routes = dict(DIALECT_ROUTES if routes is None else routes)
        self._lifecycle = threading.Lock()
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self._port: int | None = None
        self._error: BaseException | None = None

    # -- lifecycle -----------------------------------------------------------------------

    def _app(self) -> Starlette:
        routes = [
            Route(path, self._endpoint(route), methods=list(route.methods))
            for path, route in self._routes.items()
        ]
        return Starlette(routes=routes)

    def _endpoint(self, route: DialectRoute) -> Any:
        state = self._state

        async def endpoint(request: Request) -> Response:
            # A multipart upload is not JSON: it is left unread here, so its handler
            # streams it (a large upload is never held whole).
            multipart = request.headers.get("content-type", "").startswith("multipart/")
            raw = b"" if multipart else await request.body()
            try:
                decoded = json.loads(raw) if raw else {}
            except ValueError:
                decoded = {}
            body = decoded if isinstance(decoded, dict) else {"_json": decoded}
            headers = {k.lower(): v for k, v in request.headers.items()}
            dialect = route.dialect_of(request) if route.dialect_of else route.dialect
            port = request.client.port if request.client is not None else None
            state.record(RecordedRequest(dialect, request.url.path, headers, body, port))
            call = EmulatorCall(request, body, state, dict(request.path_params))
            response = await route.handler(call)
            if isinstance(response, StreamingResponse):
                response.body_iterator = state.track(request.url.path, response.body_iterator)
            return response

        return endpoint

    def start(self) -> Self:
        """Start serving (blocks until the server accepts connections); returns self."""
        import uvicorn

        with self._lifecycle:
            if self._thread is not None:
                return self
            install_disconnect_log_filter()
            # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted sockets only
            # when the proto says TCP, and without it Nagle + delayed ACK add ~40 ms to
            # every streamed response on a reused connection.
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", 0))
            self._port = int(sock.getsockname()[1])
            config = uvicorn.Config(
                self._app(),
                log_config=None,
                access_log=False,
                lifespan="off",
                http="h11",
                ws="none",
                loop="asyncio",
                timeout_graceful_shutdown=1,
            )
            server = uvicorn.Server(config)
            self._server = server

            def run() -> None:
                try:
                    server.run(sockets=[sock])
                except BaseException as exc:  # reported by start()
                    self._error = exc
                finally:
                    sock.close()

            thread = threading.Thread(
                target=run, name=f"ProviderEmulator:{self._port}", daemon=True
            )
            self._thread = thread
            thread.start()
            deadline = time.monotonic() + _START_TIMEOUT_S
            while not server.started:
                if not thread.is_alive() or time.monotonic() > deadline:
                    self._thread = None
                    raise StateError(f"the provider emulator did not start: {self._error!r}")
                time.sleep(0.005)
        return self

    def stop(self) -> None:
        """Stop serving and join the server thread (idempotent)."""
        with self._lifecycle:
            thread, server = self._thread, self._server
            self._thread = None
            if thread is None or server is None:
                return
            server.should_exit = True
            server.force_exit = True
            thread.join(timeout=5.0)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return await anyio.to_thread.run_sync(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await anyio.to_thread.run_sync(self.stop)

    # -- addresses -----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (raises before `start`)."""
        if self._thread is None or self._port is None:
            raise StateError("the provider emulator is not running: call start() first")
        return f"http://127.0.0.1:{self._port}"

    @property
    def base_url(self) -> str:
        """Same as `url`."""
        return self.url

    @property
    def anthropic_base_url(self) -> str:
        """The value for ``ANTHROPIC_BASE_URL`` / ``AnthropicModelClient(base_url=)``."""
        return self.url

    @property
    def fireworks_base_url(self) -> str:
        """The value for ``DPT_FIREWORKS_BASE_URL`` / ``FireworksModelClient(base_url=)``."""
        return f"{self.url}/inference/v1"

    @property
    def openai_base_url(self) -> str:
        """The value for ``OPENAI_BASE_URL`` / ``OpenAIModelClient(base_url=)``."""
        return f"{self.url}/v1"

    @property
    def google_base_url(self) -> str:
        """The value for ``DPT_GOOGLE_BASE_URL`` / ``GoogleModelClient(base_url=)`` (the SDK
        appends ``/v1/models/...`` itself)."""
        return self.url

    def deployment_base_url(self, deployment: str, provider: str | None = None) -> str:
        """The ``deployment_options`` ``base_url`` of a cloud deployment here: the URL the
        SDK's deployment client takes (Vertex AI's Claude client wants ``/v1`` on it,
        Microsoft Foundry's ``/anthropic``)."""
        if deployment == "vertex" and provider == "anthropic":
            return f"{self.url}/v1"
        if deployment == "foundry":
            return f"{self.url}/anthropic"
        return self.url

    # -- script and log ------------------------------------------------------------------

    def push(self, *steps: ScriptStep) -> None:
        """Append steps to the script."""
        self._state.push(*steps)

    @property
    def responder(self) -> Callable[[dict[str, Any]], ScriptStep | None] | None:
        """Answers each request from its JSON body (the wire request the SDK sent) before the
        script does; None from it, or no responder: the script answers."""
        return self._state.responder

    @responder.setter
    def responder(self, value: Callable[[dict[str, Any]], ScriptStep | None] | None) -> None:
        self._state.responder = value

    @property
    def default(self) -> Reply | None:
        """The reply used once the script is exhausted (None: HTTP 500)."""
        return self._state.default

    @default.setter
    def default(self, value: Reply | None) -> None:
        self._state.default = value

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order (a copy)."""
        return self._state.requests

    @property
    def streams(self) -> list[StreamRecord]:
        """How each streamed response went (chunks sent, completed, closed by the client)."""
        return self._state.streams

    @property
    def request_count(self) -> int:
        """How many requests were received."""
        return len(self._state.requests)

    @property
    def remaining_steps(self) -> int:
        """Script steps not yet consumed."""
        return self._state.remaining

    @property
    def files(self) -> FileStore:
        """The Files API store: `FileStore.script_states` scripts the states the next
        upload is polled through; `FileStore.uploaded` lists what was uploaded."""
        return self._state.files

    @property
    def skills(self) -> dict[str, list[tuple[str, bytes]]]:
        """Custom skills created (``POST /v1/skills``): id -> the ``(name, bytes)`` files."""
        return self._state.skills

    @property
    def batches(self) -> BatchStore:
        """The provider batches: `BatchStore.script` scripts how many status checks
        the next batch stays in progress for; `BatchStore.batches` lists every batch
        created and `BatchStore.request_count` the model requests they carried."""
        return self._state.batches

    def reset(self, script: Sequence[ScriptStep] = ()) -> None:
        """Forget recorded requests and replace the script (the default reply stays)."""
        self._state.reset(script)

    def __repr__(self) -> str:
        where = f"http://127.0.0.1:{self._port}" if self._thread is not None else "stopped"
        return f"ProviderEmulator({where}, remaining_steps={self.remaining_steps})"
