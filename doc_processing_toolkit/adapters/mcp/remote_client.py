"""RemoteMCPClientSession: this process holds the session to a remote MCP server (format 9).

``{"type": "mcp_remote_client", "url": ..., ...}`` connects over Streamable HTTP (the
default) or SSE with the mcp SDK's ``streamable_http_client`` / ``sse_client`` and a
``ClientSession``; tools then run like local ones, on every provider.

Credentials (``headers``, ``authorization_token`` -> ``Authorization: Bearer ...``,
``auth``) are set on the httpx2 client, so the very first ``initialize`` carries them.
Each is registered with `register_secret`; logs,
errors and ``repr`` quote only the redacted ``scheme://host[:port]/path``.

A connection refused with HTTP 401 raises exactly ``RuntimeError: Failed to connect to
remote MCP server '<name>' at <url>: HTTP 401 Unauthorized`` (403 likewise reads
``HTTP 403 Forbidden``). The Streamable HTTP transport turns an HTTP error into a
generic JSON-RPC error, so the status is taken from an httpx2 response hook. Any other
failure is raised as the leaf exception of the SDK's exception groups, with the URL in
its message redacted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, Literal

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.mcp._client import (
    ConnectionOwner,
    call_client_tool,
    leaf_exception,
    list_tools_reconnecting,
    reconnect_owner,
)
from doc_processing_toolkit.adapters.mcp._redact import guard_sdk_loggers, redact_url, scrub
from doc_processing_toolkit.adapters.mcp._sdk import import_mcp
from doc_processing_toolkit.adapters.mcp.config import DEFAULT_REMOTE_NAME, validate_remote_config
from doc_processing_toolkit.adapters.mcp.timeouts import (
    REMOTE_SSE_READ_S,
    REMOTE_TIMEOUT_S,
    remote_timeouts,
)
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = ["RemoteMCPClientSession"]

log = get_logger(__name__)

_AUTH_REASONS = {401: "Unauthorized", 403: "Forbidden"}


class RemoteMCPClientSession:
    """A `ManagedToolSession` over HTTP."""

    def __init__(
        self,
        *,
        url: str,
        name: str = DEFAULT_REMOTE_NAME,
        transport: Literal["streamable_http", "sse"] = "streamable_http",
        headers: Mapping[str, str] | None = None,
        authorization_token: str | None = None,
        auth: Any = None,
        timeout: float = REMOTE_TIMEOUT_S,
        sse_read_timeout: float = REMOTE_SSE_READ_S,
    ) -> None:
        """Validate the endpoint and credentials; nothing connects until `connect`.

        Raises:
            ValueError: url not absolute http/https, or embedding credentials.
            TypeError: headers / authorization_token of the wrong type.
        """
        checked = validate_remote_config(
            {
                "url": url,
                "name": name,
                "transport": transport,
                "headers": headers,
                "authorization_token": authorization_token,
                "timeout": timeout,
                "sse_read_timeout": sse_read_timeout,
            }
        )
        self.name: str = checked["name"]
        self._url: str = checked["url"]
        self._safe_url = redact_url(self._url)
        self._transport: str = checked["transport"]
        self._headers: dict[str, str] = dict(checked["headers"])
        token = checked["authorization_token"]
        if token and not any(k.lower() == "authorization" for k in self._headers):
            self._headers["Authorization"] = f"Bearer {token}"
        self._auth = auth
        self._timeout: float = checked["timeout"]
        self._sse_read_timeout: float = checked["sse_read_timeout"]
        self._limits = remote_timeouts(self._timeout, self._sse_read_timeout)
        self._owner = ConnectionOwner(self.name)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RemoteMCPClientSession:
        """Build from an ``mcp_remote_client`` dict (``server_url`` accepted for ``url``;
        allowed_tools is applied by
        `AllowedToolsSession`)."""
        checked = validate_remote_config(config)
        return cls(
            url=checked["url"],
            name=checked["name"],
            transport=checked["transport"],
            headers=checked["headers"],
            authorization_token=checked["authorization_token"],
            auth=checked["auth"],
            timeout=checked["timeout"],
            sse_read_timeout=checked["sse_read_timeout"],
        )

    def __repr__(self) -> str:
        return (
            f"RemoteMCPClientSession(name={self.name!r}, url={self._safe_url!r}, "
            f"transport={self._transport!r})"
        )

    @property
    def url(self) -> str:
        """The redacted endpoint, safe to show."""
        return self._safe_url

    @property
    def connection_lost(self) -> bool:
        """Whether the session was open and its connection is gone (the transport ended,
        or a call found it closed)."""
        return self._owner.lost

    async def reconnect(self, reason: str) -> None:
        """Drop what is left of the session and open it again (WARNING logged)."""
        await reconnect_owner(self._owner, self.name, reason, self._open_logged)

    async def connect(self) -> None:
        """Open the HTTP transport and initialise the MCP session.

        Raises:
            RuntimeError: the server refused the credentials (HTTP 401 / 403).
            Exception: the leaf error of any other failure, URL redacted.
        """
        if self._owner.open_here() and not self._owner.lost:
            return
        if self._owner.open_on_running_loop():  # lost: open a new session
            await self.reconnect("the connection was lost")
            return
        await self._open_logged()

    async def _open_logged(self) -> None:
        guard_sdk_loggers()
        log.debug(
            "connecting to remote MCP server",
            server_name=self.name,
            url=self._safe_url,
            transport=self._transport,
        )
        statuses: list[int] = []
        try:
            await self._owner.open(lambda stack: self._open(stack, statuses), self._limits.connect)
        except Exception as exc:
            error = self._connect_error(exc, statuses)
            log.warning(
                "could not connect to remote MCP server",
                server_name=self.name,
                url=self._safe_url,
                error_type=type(error).__name__,
            )
            raise error from None

    def _connect_error(self, exc: BaseException, statuses: list[int]) -> BaseException:
        leaf = leaf_exception(exc)
        response = getattr(leaf, "response", None)
        status = getattr(response, "status_code", None)
        if status not in _AUTH_REASONS:
            status = next((s for s in statuses if s in _AUTH_REASONS), None)
        if status is not None:
            return RuntimeError(
                f"Failed to connect to remote MCP server '{self.name}' at {self._safe_url}: "
                f"HTTP {status} {_AUTH_REASONS[status]}"
            )
        with contextlib.suppress(Exception):  # exceptions with read-only args keep theirs
            leaf.args = tuple(
                scrub(arg, self._url) if isinstance(arg, str) else arg for arg in leaf.args
            )
        return leaf

    async def _open(self, stack: contextlib.AsyncExitStack, statuses: list[int]) -> Any:
        mcp = import_mcp()
        import httpx2

        async def record_status(response: Any) -> None:
            if response.status_code >= 400:
                statuses.append(int(response.status_code))

        hooks = {"response": [record_status]}

        def client_factory(
            headers: dict[str, str] | None = None,
            timeout: Any = None,
            auth: Any = None,
        ) -> Any:
            return httpx2.AsyncClient(
                headers=headers,
                timeout=timeout,
                auth=auth,
                event_hooks=hooks,
            )

        if self._transport == "sse":
            from mcp.client.sse import sse_client

            read, write = await stack.enter_async_context(
                sse_client(
                    self._url,
                    headers=dict(self._headers),
                    timeout=self._timeout,
                    sse_read_timeout=self._sse_read_timeout,
                    auth=self._auth,
                    httpx_client_factory=client_factory,
                )
            )
        else:
            from mcp.client.streamable_http import streamable_http_client

            client = client_factory(
                headers=dict(self._headers),
                timeout=httpx2.Timeout(self._timeout, read=self._sse_read_timeout),
                auth=self._auth,
            )
            await stack.enter_async_context(client)
            read, write = await stack.enter_async_context(
                streamable_http_client(self._url, http_client=client)
            )
        session = await stack.enter_async_context(
            mcp.ClientSession(read, write, read_timeout_seconds=self._timeout)
        )
        await session.initialize()
        return session

    async def aclose(self) -> None:
        """Close the session and the HTTP client (idempotent)."""
        await self._owner.close()

    async def list_tools(self) -> list[ToolSpec]:
        """Every tool the server lists (all pages).

        Raises:
            StateError: not connected.
        """
        return await list_tools_reconnecting(
            self._owner, self.name, self.reconnect, self._limits.list
        )

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call one tool; every failure is an error outcome with the URL redacted."""
        session = self._owner.session
        if session is None:
            return ToolOutcome.error(
                f"Error executing tool {name}: remote MCP server {self.name!r} is not connected"
            )
        return await call_client_tool(
            session,
            self.name,
            name,
            arguments,
            self._limits.call,
            scrub=lambda text: scrub(text, self._url),
            on_lost=self._owner.mark_lost,
        )
