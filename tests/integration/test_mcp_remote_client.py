"""RemoteMCPClientSession against a real Streamable HTTP / SSE MCP server on loopback."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_processing_toolkit.adapters.mcp.config import validate_remote_config
from doc_processing_toolkit.adapters.mcp.factory import mcp_session_for
from doc_processing_toolkit.adapters.mcp.filtered import AllowedToolsSession
from doc_processing_toolkit.adapters.mcp.remote_client import RemoteMCPClientSession
from doc_processing_toolkit.domain.messages import MediaPart

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from http_mcp_server import HttpMCPServer

TOKEN = "canary-token-7f3a9c1e5b"


def client_log(caplog: pytest.LogCaptureFixture) -> str:
    """Everything logged in this process except by the test server (uvicorn)."""
    return "\n".join(
        f"{r.name} {r.getMessage()}" for r in caplog.records if not r.name.startswith("uvicorn")
    )


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpMCPServer]:
    server = HttpMCPServer(TOKEN).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.anyio
async def test_bearer_token_connects_lists_and_calls(
    http_server: HttpMCPServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    session = RemoteMCPClientSession(
        url=http_server.url, name="calc", authorization_token=TOKEN, timeout=10
    )
    first_seen = len(http_server.gate.seen)
    await session.connect()
    try:
        # the very first request (initialize) already carried the credentials
        assert http_server.gate.seen[first_seen] == f"Bearer {TOKEN}"
        names = [spec.name for spec in await session.list_tools()]
        assert {"add", "echo", "image"} <= set(names)
        assert all(spec.server_name == "calc" for spec in await session.list_tools())
        outcome = await session.call_tool("add", {"a": 2, "b": 40})
        assert (outcome.is_error, outcome.text, outcome.data) == (False, "42", [42])
        image = await session.call_tool("image", {})
        assert isinstance(image.content[0], MediaPart)
        assert image.content[0].data is not None and image.content[0].data.startswith(b"\x89PNG")
        failed = await session.call_tool("fail", {"message": "nope"})
        assert failed.is_error
    finally:
        await session.aclose()
        await session.aclose()  # idempotent
    assert TOKEN not in client_log(caplog)
    assert "calc" in repr(session) and TOKEN not in repr(session)


@pytest.mark.anyio
async def test_wrong_token_raises_the_exact_401_error(
    http_server: HttpMCPServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-canary-token-0042"
    session = RemoteMCPClientSession(
        url=http_server.url + "?key=query-secret-991", name="calc", authorization_token=wrong
    )
    with pytest.raises(RuntimeError) as info:
        await session.connect()
    expected = (
        f"Failed to connect to remote MCP server 'calc' at "
        f"http://127.0.0.1:{http_server.port}/mcp: HTTP 401 Unauthorized"
    )
    assert str(info.value) == expected
    assert info.value.__cause__ is None
    for secret in (wrong, "query-secret-991"):
        assert secret not in client_log(caplog)
        assert secret not in str(info.value)
    await session.aclose()


@pytest.mark.anyio
async def test_headers_carry_credentials_and_win_over_the_token(
    http_server: HttpMCPServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    session = mcp_session_for(
        {
            "type": "mcp_remote_client",
            "server_url": http_server.url,
            "name": "calc",
            "headers": {"Authorization": f"Bearer {TOKEN}", "X-Api-Key": "hdr-canary-55aa"},
            "authorization_token": "ignored-because-headers-have-one",
            "allowed_tools": ["echo", "not-a-tool"],
        }
    )
    assert isinstance(session, AllowedToolsSession)
    await session.connect()
    try:
        assert [spec.name for spec in await session.list_tools()] == ["echo"]
        assert (await session.call_tool("echo", {"text": "hi"})).text == "hi"
        hidden = await session.call_tool("add", {"a": 1, "b": 2})
        assert hidden.is_error and "not available" in hidden.text
        await session.aclose()
        closed = await session.call_tool("echo", {"text": "x"})
        assert closed.is_error and "not connected" in closed.text
        await session.connect()  # reusable after aclose()
        assert (await session.call_tool("echo", {"text": "again"})).text == "again"
    finally:
        await session.aclose()
    assert "hdr-canary-55aa" not in client_log(caplog)


@pytest.mark.anyio
async def test_sse_transport(http_server: HttpMCPServer) -> None:
    good = RemoteMCPClientSession(
        url=http_server.sse_url, transport="sse", authorization_token=TOKEN, timeout=10
    )
    await good.connect()
    try:
        assert good.name == "remote-mcp"
        assert (await good.call_tool("add", {"a": 1, "b": 1})).text == "2"
    finally:
        await good.aclose()
    bad = RemoteMCPClientSession(
        url=http_server.sse_url, name="s", transport="sse", authorization_token="bad-token-123"
    )
    with pytest.raises(RuntimeError, match=r"^Failed to connect .* HTTP 401 Unauthorized$"):
        await bad.connect()


@pytest.mark.anyio
async def test_unreachable_server_raises_the_leaf_error() -> None:
    with socket_port() as port:
        url = f"http://127.0.0.1:{port}/mcp?t=leaky-secret"
        session = RemoteMCPClientSession(url=url, timeout=5)
        with pytest.raises(Exception) as info:
            await session.connect()
    assert not isinstance(info.value, BaseExceptionGroup)
    assert "leaky-secret" not in str(info.value)


class socket_port:
    """A loopback port nobody listens on."""

    def __enter__(self) -> int:
        import socket

        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        return int(self._sock.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        self._sock.close()


@pytest.mark.parametrize(
    "url",
    [
        "https://user:secret@mcp.example.com/mcp",
        "https://token@mcp.example.com/mcp",
    ],
)
def test_userinfo_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="embeds credentials") as info:
        RemoteMCPClientSession(url=url)
    assert "secret" not in str(info.value) and "token@" not in str(info.value)
    with pytest.raises(ValueError):
        validate_remote_config({"url": url})


@pytest.mark.parametrize("url", ["mcp.example.com/mcp", "ftp://mcp.example.com/", "/mcp", ""])
def test_non_http_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        validate_remote_config({"type": "mcp_remote_client", "url": url})


def test_config_defaults_and_checks() -> None:
    checked = validate_remote_config({"url": "https://h.example/mcp"})
    assert checked["name"] == "remote-mcp"
    assert checked["transport"] == "streamable_http"
    assert (checked["timeout"], checked["sse_read_timeout"]) == (30.0, 300.0)
    with pytest.raises(TypeError, match="'docs'"):
        validate_remote_config(
            {"url": "https://h.example/mcp", "name": "docs", "allowed_tools": "read_wiki"}
        )
    with pytest.raises(ValueError, match="transport"):
        validate_remote_config({"url": "https://h.example/mcp", "transport": "websocket"})
    redacted = repr(RemoteMCPClientSession(url="https://h.example:8443/p?token=abcdef123#frag"))
    assert "https://h.example:8443/p" in redacted and "abcdef123" not in redacted


def test_secret_registration_and_sdk_log_guard(caplog: pytest.LogCaptureFixture) -> None:
    from doc_processing_toolkit._logging import redact
    from doc_processing_toolkit.adapters.mcp._redact import (
        guard_sdk_loggers,
        redact_url,
        register_header_secrets,
        register_url_secrets,
    )

    assert redact_url("http://[::1]:8080/mcp?x=1#frag") == "http://[::1]:8080/mcp"
    assert redact_url("https://u:p@h.example/a/b?q") == "https://h.example/a/b"
    register_url_secrets("https://h.example/p?format=markdown&token=qtok-123456")
    assert "qtok-123456" not in redact("got qtok-123456")
    assert "markdown" in redact("format markdown")  # not credential-like: left alone
    register_header_secrets(
        {
            "Accept": "application/json",
            "X-Custom": "custom-cred-xyz",
            "Authorization": "Basic dXNlcjpwYXNzd29yZA==",
        }
    )
    assert "application/json" in redact("Accept: application/json")
    assert "custom-cred-xyz" not in redact("custom-cred-xyz")
    assert "dXNlcjpwYXNzd29yZA==" not in redact("dXNlcjpwYXNzd29yZA==")

    guard_sdk_loggers()
    guard_sdk_loggers()  # idempotent
    with caplog.at_level(logging.DEBUG, logger="httpx2"):
        logging.getLogger("httpx2").debug(
            "HTTP Request: GET %s", "https://h.example/p?token=qtok-123456"
        )
    assert "qtok-123456" not in caplog.text and "h.example/p" in caplog.text


def test_a_session_across_run_sync_style_loops(http_server: HttpMCPServer) -> None:
    import asyncio

    session = RemoteMCPClientSession(url=http_server.url, authorization_token=TOKEN, timeout=10)

    async def use() -> str:
        await session.connect()
        return (await session.call_tool("add", {"a": 1, "b": 1})).text

    assert asyncio.run(use()) == "2"  # the loop ends with the session still open
    asyncio.run(session.aclose())  # another loop: dropped, not awaited
    assert asyncio.run(use()) == "2"  # a fresh loop reconnects
    assert asyncio.run(use()) == "2"
