"""No secret survives in an exception chain or in a third-party log record.

* `scrub_exception_chain` walks an error's ``__cause__`` / ``__context__`` chain and
  replaces every exception that is not one of the toolkit's own by a
  `RedactedCause`: its type name and its message with every registered secret
  (API keys, bearer tokens, MCP authorization tokens, URL userinfo and query strings)
  masked, and its traceback (frames only). The SDK exception itself, with its raw
  response body, is dropped, so ``traceback.format_exception`` or ``logging.exception``
  never shows a key a server echoed. The toolkit's own errors keep their place; their
  messages are redacted again.
* `install_third_party_redaction` installs `SecretRedactingFilter` on the
  provider SDKs', httpx2's and mcp's loggers and a log-record factory that applies the
  same redaction to every record of those loggers' children (a logger's filters do not
  reach records logged on its children), whatever level the host configures.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

from doc_processing_toolkit._logging import redact

__all__ = [
    "THIRD_PARTY_LOGGERS",
    "RedactedCause",
    "SecretRedactingFilter",
    "install_third_party_redaction",
    "redact_text",
    "redacted_summary",
    "scrub_exception_chain",
]

THIRD_PARTY_LOGGERS = (
    "anthropic",
    "openai",
    "google_genai",
    "google.genai",
    "httpx2",
    "httpx",
    "httpcore",
    "httpcore2",
    "mcp",
    "fastmcp",
)
"""Loggers (and their children) whose records are redacted."""

_USERINFO = re.compile(r"(://)[^/@\s]+@")
_QUERY = re.compile(r"(https?://[^\s?#'\"]+)\?[^\s#'\"]*")
_MAX_DEPTH = 16


def redact_text(text: str) -> str:
    """``text`` without registered secrets, bearer tokens, URL userinfo or query strings."""
    return redact(_QUERY.sub(r"\1?***", _USERINFO.sub(r"\1***@", text)))


class RedactedCause(Exception):
    """A redacted stand-in for a third-party exception in a toolkit error's chain."""

    def __init__(self, message: str, *, original_type: str) -> None:
        super().__init__(message)
        self.original_type = original_type
        """The qualified name of the exception this summarises."""


def _qualified(exc: BaseException) -> str:
    cls = type(exc)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _is_ours(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("doc_processing_toolkit.")


def redacted_summary(exc: BaseException, _depth: int = 0) -> BaseException:
    """``exc`` when it is the toolkit's own (chain scrubbed), else a `RedactedCause`
    with its type, redacted message and traceback, chained to its own cause's summary."""
    if _is_ours(exc):
        return scrub_exception_chain(exc, _depth)
    summary = RedactedCause(
        f"{_qualified(exc)}: {redact_text(str(exc))}", original_type=_qualified(exc)
    )
    summary.__traceback__ = exc.__traceback__
    inner = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    if inner is not None and _depth < _MAX_DEPTH:
        summary.__cause__ = redacted_summary(inner, _depth + 1)
    return summary


def scrub_exception_chain(exc: BaseException, _depth: int = 0) -> BaseException:
    """Redact ``exc``'s own message and replace every third-party exception in its chain by
    a redacted summary (in place); returns ``exc``. Idempotent."""
    try:
        exc.args = tuple(redact_text(a) if isinstance(a, str) else a for a in exc.args)
        message = getattr(exc, "message", None)
        if isinstance(message, str):
            exc.message = redact_text(message)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # pragma: no cover - read-only args
        pass
    if _depth >= _MAX_DEPTH:
        exc.__cause__ = None
        exc.__context__ = None
        return exc
    cause, context = exc.__cause__, exc.__context__
    if cause is not None:
        exc.__cause__ = redacted_summary(cause, _depth + 1)
    if context is not None:
        if context is cause:
            exc.__context__ = exc.__cause__
        elif exc.__suppress_context__:
            exc.__context__ = None
        else:
            exc.__context__ = redacted_summary(context, _depth + 1)
    return exc


class SecretRedactingFilter(logging.Filter):
    """Renders a record's message and its exception text with every secret masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_FORMATTER = logging.Formatter()


def redact_record(record: logging.LogRecord) -> None:
    """Mask secrets in ``record``'s message, arguments and exception text (idempotent)."""
    if getattr(record, "_dpt_redacted", False):
        return
    try:
        message = record.getMessage()
    except (TypeError, ValueError):
        message = str(record.msg)
    record.msg = redact_text(message)
    record.args = None
    if record.exc_info and record.exc_info[1] is not None:
        if not record.exc_text:
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        record.exc_text = redact_text(record.exc_text)
    if record.stack_info:
        record.stack_info = redact_text(record.stack_info)
    record._dpt_redacted = True


_installed = False
_install_lock = threading.Lock()
_FILTER = SecretRedactingFilter()


_THIRD_PARTY_ROOTS = frozenset(THIRD_PARTY_LOGGERS)
_THIRD_PARTY_PREFIXES = tuple(f"{root}." for root in THIRD_PARTY_LOGGERS)


def _third_party(name: str) -> bool:
    # Runs for every log record of the process (the record factory): one set lookup and
    # one startswith, not a generator over every root.
    return name in _THIRD_PARTY_ROOTS or name.startswith(_THIRD_PARTY_PREFIXES)


def install_third_party_redaction() -> None:
    """Install the filter and the record factory once per process (idempotent)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        _installed = True
    for name in THIRD_PARTY_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _third_party(record.name):
            redact_record(record)
        return record

    logging.setLogRecordFactory(factory)
