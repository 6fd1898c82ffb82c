"""Structured loggers for every layer outside the domain, and secret redaction.

``get_logger(__name__)`` returns a structlog logger wrapped around the standard-library
logger of that name, independent of any global structlog configuration: records go to
stdlib logging under ``doc_processing_toolkit.*`` (so a host's handlers, or the Agent's
per-run forwarding, decide where they land) and nothing is printed by default.

Every string value of an event is passed through :func:`redact`, which masks secrets
registered with :func:`register_secret` (API keys, bearer tokens), bearer headers and
key-shaped strings — at every level.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import MutableMapping
from typing import Any

import structlog

__all__ = ["get_logger", "redact", "register_secret"]

_secrets: set[str] = set()
_secrets_lock = threading.Lock()
_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{6,}")
_KEYISH = re.compile(r"\b(sk-ant-[A-Za-z0-9_-]{8,}|sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{20,})")


def register_secret(value: str | None) -> None:
    """Never let ``value`` reach a log line (ignored when empty or shorter than 6)."""
    if value and len(value) >= 6:
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


_PROCESSORS: list[Any] = [
    structlog.stdlib.filter_by_level,
    _redact_values,
    structlog.processors.KeyValueRenderer(key_order=["event"], drop_missing=True),
]


def get_logger(name: str) -> Any:
    """A structlog logger over ``logging.getLogger(name)`` (see the module docstring)."""
    return structlog.wrap_logger(
        logging.getLogger(name),
        processors=_PROCESSORS,
        wrapper_class=structlog.stdlib.BoundLogger,
    )
