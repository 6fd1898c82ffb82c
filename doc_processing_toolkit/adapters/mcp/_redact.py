"""URL redaction for remote MCP servers, and a guard on the SDK loggers that quote URLs.

A remote server's URL may carry a token in its query string; logs and error messages
quote only ``scheme://host[:port]/path``. The mcp SDK and httpx2 log the full request
URL at DEBUG/INFO through the standard library, so `guard_sdk_loggers` puts a
filter on those loggers that passes every record through the toolkit's
`redact` (registered secrets masked).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit

from doc_processing_toolkit._logging import redact, register_secret

__all__ = [
    "guard_sdk_loggers",
    "redact_url",
    "register_header_secrets",
    "register_url_secrets",
    "scrub",
]

_SDK_LOGGERS = (
    "httpx2",
    "mcp.client.streamable_http",
    "mcp.client.sse",
    "mcp.client.session",
    "mcp.shared.jsonrpc_dispatcher",
    "client",
)
_guard_lock = threading.Lock()
_guarded = False


def redact_url(url: str) -> str:
    """``scheme://host[:port]/path`` of ``url``: no userinfo, no query, no fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<invalid url>"
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    return f"{parts.scheme}://{netloc}{parts.path}"


_SENSITIVE = ("key", "token", "secret", "auth", "sig", "pass", "session", "cred", "code", "cookie")
_BENIGN_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-type",
        "mcp-protocol-version",
        "user-agent",
    }
)
_LONG_VALUE = 12


def _sensitive(name: str) -> bool:
    lowered = name.lower()
    return any(marker in lowered for marker in _SENSITIVE)


def register_url_secrets(url: str) -> None:
    """Register what a URL may carry as a credential: its userinfo, query string and
    fragment, and each query value under a credential-like key (or long enough to be one).
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    for piece in (parts.query, parts.fragment, parts.password, parts.username):
        register_secret(piece)
    for key, value in parse_qsl(parts.query, keep_blank_values=False):
        if _sensitive(key) or len(value) >= _LONG_VALUE:
            register_secret(value)


def register_header_secrets(headers: Mapping[str, str]) -> None:
    """Register every header value except those of plainly non-secret headers; an
    ``<scheme> <credential>`` value registers the credential too."""
    for name, value in headers.items():
        if name.lower() in _BENIGN_HEADERS:
            continue
        register_secret(value)
        scheme, _, credential = value.partition(" ")
        if credential and scheme.isalpha():
            register_secret(credential.strip())


def scrub(text: str, url: str | None = None) -> str:
    """``text`` with ``url`` replaced by its redacted form and secrets masked."""
    if url:
        text = text.replace(url, redact_url(url))
    return redact(text)


class _RedactingFilter(logging.Filter):
    """Rewrites a record's message through `redact` (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to the handler
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def guard_sdk_loggers() -> None:
    """Install the redacting filter on the SDK loggers that quote URLs (once)."""
    global _guarded
    with _guard_lock:
        if _guarded:
            return
        flt = _RedactingFilter()
        for name in _SDK_LOGGERS:
            logging.getLogger(name).addFilter(flt)
        _guarded = True
