"""Structured loggers for every layer outside the domain, and secret redaction.

``get_logger(__name__)`` returns a structlog logger wrapped around the standard-library
logger of that name, independent of any global structlog configuration: records go to
stdlib logging under ``doc_processing_toolkit.*`` (so a host's handlers, or the Agent's
per-run forwarding, decide where they land) and nothing is printed by default.

Every string value of an event is passed through `redact`, which masks secrets
registered with `register_secret` (API keys, bearer tokens), bearer headers and
key-shaped strings — at every level. structlog itself is imported on the first event a
logger is enabled for; a call below the active level builds nothing.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, MutableMapping
from typing import Any

__all__ = ["get_logger", "redact", "register_secret", "set_listener_check"]

_secrets: set[str] = set()
_secrets_lock = threading.Lock()
_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{6,}")
_KEYISH = re.compile(r"\b(sk-ant-[A-Za-z0-9_-]{8,}|sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{20,})")


def register_secret(value: str | None) -> None:
    """Never let ``value`` reach a log line (ignored when empty or shorter than 6)."""
    if value and len(value) >= 6 and value not in _secrets:  # registered: no lock taken
        with _secrets_lock:
            _secrets.add(value)


def redact(text: str) -> str:
    """``text`` with registered secrets, bearer tokens and key-shaped strings masked."""
    with _secrets_lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, "***")
    text = _BEARER.sub(r"\1***", text)
    return _KEYISH.sub("***", text)


def _redact_values(
    _: Any, __: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    for key, value in list(event_dict.items()):
        if isinstance(value, str):
            event_dict[key] = redact(value)
        elif isinstance(value, BaseException):
            event_dict[key] = redact(f"{type(value).__name__}: {value}")
    return event_dict


_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "exception": logging.ERROR,
    "critical": logging.CRITICAL,
    "fatal": logging.CRITICAL,
}
_processors: list[Any] | None = None
_listener_check: Callable[[logging.Logger, int], bool] | None = None


def set_listener_check(check: Callable[[logging.Logger, int], bool] | None) -> None:
    """Install ``check(logger, level)``: whether any handler would take a record of
    ``level`` from ``logger`` (the Agent's log forwarding installs one; None: always)."""
    global _listener_check
    _listener_check = check


def _wrap(std: logging.Logger) -> Any:
    """The structlog logger over ``std`` (structlog is imported here, on first use)."""
    global _processors
    import structlog

    if _processors is None:
        _processors = [
            structlog.stdlib.filter_by_level,
            _redact_values,
            structlog.processors.KeyValueRenderer(key_order=["event"], drop_missing=True),
        ]
    return structlog.wrap_logger(
        std, processors=_processors, wrapper_class=structlog.stdlib.BoundLogger
    )


class _LazyLogger:
    """A structlog logger built on the first event its stdlib logger is enabled for.

    A call below the logger's level costs one ``isEnabledFor`` and builds nothing (no
    event dict, no structlog import); ``import doc_processing_toolkit`` imports no
    structlog (which pulls in rich) until something is actually logged.
    """

    __slots__ = ("_bound", "_std")

    def __init__(self, std: logging.Logger) -> None:
        self._std = std
        self._bound: Any = None

    def _structlog(self) -> Any:
        if self._bound is None:
            self._bound = _wrap(self._std)
        return self._bound

    def _emit(self, method: str, event: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
        level = _LEVELS[method]
        if not self._std.isEnabledFor(level):
            return None
        check = _listener_check
        if check is not None and not check(self._std, level):
            return None  # enabled, but no handler would take it: build nothing
        return getattr(self._structlog(), method)(event, *args, **kw)

    def debug(self, event: Any = None, *args: Any, **kw: Any) -> Any:
        return self._emit("debug", event, args, kw)

    def info(self, event: Any = None, *args: Any, **kw: Any) -> Any:
        return self._emit("info", event, args, kw)

    def warning(self, event: Any = None, *args: Any, **kw: Any) -> Any:
        return self._emit("warning", event, args, kw)

    warn = warning

    def error(self, event: Any = None, *args: Any, **kw: Any) -> Any:
        return self._emit("error", event, args, kw)

    def exception(self, event: Any = None, *args: Any, **kw: Any) -> Any:
        return self._emit("exception", event, args, kw)

    def critical(self, event: Any = None, *args: Any, **kw: Any) -> Any:
        return self._emit("critical", event, args, kw)

    fatal = critical

    def isEnabledFor(self, level: int) -> bool:
        return self._std.isEnabledFor(level)

    def __getattr__(self, name: str) -> Any:
        # bind(), new(), log(), ...: everything else is the structlog logger's.
        return getattr(self._structlog(), name)


def get_logger(name: str) -> Any:
    """A structlog logger over ``logging.getLogger(name)`` (see the module docstring)."""
    return _LazyLogger(logging.getLogger(name))
