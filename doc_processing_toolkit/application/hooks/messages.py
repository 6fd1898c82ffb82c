"""Small helpers of the hook channel: the injected user message, the callback's arity."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from doc_processing_toolkit.domain import messages as _ir
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import user_text
from doc_processing_toolkit.ports.dialect import HistoryCodec

__all__ = ["build_injected_user_message", "stream_callback_accepts_metadata"]


def build_injected_user_message(
    provider: str, text: str, *, history_codecs: Callable[[str], HistoryCodec | None]
) -> Any:
    """Build a provider-native user-role message carrying ``text``.

    The provider's history codec renders it, so a plug-in provider gets its own shape.

    Args:
        provider: A registry provider name (a built-in one or a plug-in's).
        text: The message text to inject.
        history_codecs: provider -> its HistoryCodec (``AgentDeps.history_codecs``; the
            documented ``agent.hooks`` function passes the composition root's).

    Returns:
        A provider-native message dict appendable to the loop's live message list (the
        neutral IR form when the provider has no codec).

    Raises:
        ValueError: ``text`` is not a non-empty string.
    """
    if not isinstance(text, str) or not text:
        raise ConfigurationError("build_injected_user_message needs a non-empty text")
    message = user_text(text)
    codec = history_codecs(provider)
    if codec is None:
        return _ir.MESSAGES_ADAPTER.dump_python([message], mode="json")[0]
    return codec.render([message])[0]


def stream_callback_accepts_metadata(stream_callback: Callable[..., Any] | None) -> bool:
    """Whether ``stream_callback`` can be called with a third metadata argument.

    A callable whose signature cannot be read is treated as two-argument only: breaking
    an existing tap is worse than omitting additive metadata.
    """
    if stream_callback is None:
        return False
    try:
        signature = inspect.signature(stream_callback)
    except (TypeError, ValueError):
        return False
    positional = 0
    for param in signature.parameters.values():
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if param.kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            positional += 1
    return positional >= 3
