"""The option rules every OpenAI-compatible chat-completions vendor starts from.

* thinking -> the ``reasoning_effort`` string (an effort the row does not list is not
  sent; an off value reasons at the default effort, with a warning).
* built-in tools: none (web_search / code_execution raise, tool_search warns: every tool
  loads eagerly).
* provider-run MCP: none, unless a vendor overrides `VendorOptions.remote_mcp_servers`.
* ``provider_options``: the typed ``chat.completions.create`` keywords are sent as given,
  the run loop's own keys never, anything else through ``extra_body``.

A vendor subclasses `ChatCompletionsOptions` with its name and label and overrides what
it does differently (Fireworks: provider-run MCP entries, ``allowed_tools`` refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from doc_processing_toolkit.adapters.providers._options import (
    ThinkingTransform,
    VendorOptions,
    check_effort,
    requested_effort,
)
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["CHAT_COMPLETIONS_KEYWORDS", "ChatCompletionsOptions"]

CHAT_COMPLETIONS_KEYWORDS = frozenset(
    {
        "top_p",
        "stop",
        "seed",
        "n",
        "presence_penalty",
        "frequency_penalty",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "parallel_tool_calls",
        "user",
        "prompt_cache_key",
        "metadata",
    }
)
"""``provider_options`` keys that are typed ``chat.completions.create`` keywords."""

_THINKING_KEYS = frozenset({"effort", "type"})


class ChatCompletionsOptions(VendorOptions):
    """An OpenAI-compatible chat-completions vendor: ``reasoning_effort``, no built-in
    tools, no provider-run MCP, the typed chat-completions keywords."""

    thinking_param = "reasoning_effort"
    max_tokens_param = "max_tokens"
    kwargs: frozenset[str] = frozenset()
    defaults: Mapping[str, Any] = MappingProxyType({"tool_choice": "auto"})
    native_built_in_tools: frozenset[str] = frozenset()
    request_keywords = CHAT_COMPLETIONS_KEYWORDS
    thinking_keys = _THINKING_KEYS
    """The thinking keys read (``{"effort": ...}``; ``type`` for the off values)."""

    def __init__(self, name: str, label: str) -> None:
        """Rules for the provider ``name``; messages call it ``label``."""
        super().__init__(name)
        self.label = label

    def thinking_value(
        self, config: dict[str, Any], row: ModelInfo | None, effort: str | None
    ) -> ThinkingTransform:
        """The ``reasoning_effort`` string; an effort the row does not list is not sent."""
        chosen, warnings = requested_effort(
            config, self.thinking_keys, self.name, self.label, "pass {'effort': ...} to reason less"
        )
        if row is not None and not check_effort(
            chosen, row.supported_reasoning_values, row.model, "", warnings
        ):
            return ThinkingTransform(
                provider=self.name,
                param=self.thinking_param,
                thinking_on=True,
                warnings=tuple(warnings),
            )
        return ThinkingTransform(
            provider=self.name,
            param=self.thinking_param,
            value=chosen,
            thinking_on=chosen != "none",
            warnings=tuple(warnings),
        )
