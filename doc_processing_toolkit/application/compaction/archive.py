"""Archiving the conversation a compaction is about to rewrite.

The payload is the provider-native (or neutral) message list, JSON-cleaned and with every
registered secret masked. A sink that raises is contained: the compaction goes on, with
one WARNING naming only the exception's type.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from doc_processing_toolkit._logging import redact
from doc_processing_toolkit.domain.compaction.config import CompactionConfig
from doc_processing_toolkit.domain.messages import MESSAGES_ADAPTER, Message
from doc_processing_toolkit.ports.archive_sink import ArchiveSink
from doc_processing_toolkit.ports.dialect import HistoryCodec

__all__ = ["archive_payload", "choose_sink", "send_to_archive"]


def archive_payload(messages: list[Message], codec: HistoryCodec | None) -> list[Any]:
    """The sanitised, JSON-serialisable message list an archive receives."""
    native: list[Any] = (
        codec.render(messages)
        if codec is not None
        else MESSAGES_ADAPTER.dump_python(messages, mode="json")
    )
    text = redact(json.dumps(native, ensure_ascii=False, default=str))
    payload = json.loads(text)
    return payload if isinstance(payload, list) else [payload]


def choose_sink(
    config: CompactionConfig,
    *,
    default_sink: ArchiveSink | None,
    directory_sink: Callable[[str, str], ArchiveSink] | None,
    session_id: str,
) -> Callable[[list[Any]], str | None] | None:
    """The archive's receiver: the configured ``archive_sink``, the host's default sink,
    else a file in ``archive_dir`` (None: archiving is off or nothing can receive it)."""
    if not config.archive_history:
        return None
    if config.archive_sink is not None:
        return config.archive_sink
    if default_sink is not None:
        return default_sink
    if directory_sink is not None:
        return directory_sink(config.archive_dir, session_id)
    return None


def send_to_archive(
    sink: Callable[[list[Any]], str | None],
    payload: list[Any],
    logger: logging.Logger | Any,
) -> str | None:
    """The sink's locator for ``payload`` (None: no locator, or the sink failed)."""
    try:
        locator = sink(payload)
    except Exception as exc:  # contained: the compaction and the run go on
        logger.warning(
            "compaction archive_sink raised %s; the compaction goes on without an archive",
            type(exc).__name__,
        )
        return None
    return locator if isinstance(locator, str) and locator else None
