"""Google's option rules: thinking_config, built-in tools, file and video keywords, defaults.

* thinking -> ``thinking_config`` ``{"thinking_budget" | "thinking_level",
  "include_thoughts"}``.
* built-in tools: ``{"google_search": {}}`` and ``{"code_execution": {}}``; no native
  tool search (a warning, every tool loads eagerly).
* provider-run MCP: none; ``mcp_remote_client`` (format 9) runs a remote server from
  this process instead.
* keywords: the Files API polling bounds and ``video_metadata``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from doc_processing_toolkit.adapters.providers._options import (
    OFF_TYPES,
    USE_CLIENT,
    ThinkingTransform,
    VendorOptions,
    drop_options,
    ignored_thinking_keys,
    number,
)
from doc_processing_toolkit.adapters.providers.google.dialect import PROVIDER
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["CONFIG_KEYWORDS", "GOOGLE_OPTIONS", "GoogleOptions"]

CONFIG_KEYWORDS = frozenset(
    {
        "top_p",
        "top_k",
        "seed",
        "stop_sequences",
        "presence_penalty",
        "frequency_penalty",
        "safety_settings",
        "labels",
        "cached_content",
        "response_modalities",
        "response_logprobs",
        "logprobs",
        "media_resolution",
        "speech_config",
        "image_config",
    }
)
"""provider_options keys that are ``GenerateContentConfig`` fields, sent as given."""

_THINKING_KEYS = frozenset({"budget_tokens", "level", "include_thoughts", "type"})
_BOUNDS: dict[str, tuple[float, float]] = {
    "file_active_timeout_s": (1.0, 3600.0),
    "file_poll_interval_s": (0.05, 60.0),
    "file_poll_backoff": (1.0, 10.0),
}
_VIDEO_METADATA_KEYS = frozenset({"start_offset", "end_offset", "fps"})


class GoogleOptions(VendorOptions):
    """Google Gemini: thinking_config, search and code execution, Files API polling."""

    thinking_param = "thinking_config"
    max_tokens_param = "max_output_tokens"
    kwargs = frozenset(
        {
            "video_metadata",
            "media_resolution",
            "file_active_timeout_s",
            "file_poll_interval_s",
            "file_poll_backoff",
        }
    )
    defaults = MappingProxyType({"tool_choice": "auto", "file_poll_backoff": 1.0})
    native_built_in_tools = frozenset({"web_search", "code_execution"})
    request_keywords = CONFIG_KEYWORDS
    consumed_options = frozenset(
        {
            "max_pause_turn_iterations",
            "mcp_remote_servers",
            "file_active_timeout_s",
            "file_poll_interval_s",
            "file_poll_backoff",
            "video_metadata",
        }
    )
    """Also the Files API keywords and ``video_metadata`` (read by ``files.py`` and
    ``part_options.py``)."""

    def __init__(self) -> None:
        """Google's rules."""
        super().__init__(PROVIDER)

    def thinking_value(
        self, config: dict[str, Any], row: ModelInfo | None, effort: str | None
    ) -> ThinkingTransform:
        """``thinking_config``.

        Raises:
            ValueError: for both budget_tokens and level.
        """
        warnings = ignored_thinking_keys(config, _THINKING_KEYS, PROVIDER)
        if "budget_tokens" in config and "level" in config:
            raise ConfigurationError("google thinking takes budget_tokens or level, not both")
        if str(config.get("type")) in OFF_TYPES:
            warnings.append(
                f"thinking={{'type': {config['type']!r}}} is not read on Google; use "
                "{'budget_tokens': 0} where the model allows it, or the lowest level"
            )
        thinking_config: dict[str, Any] = {}
        if "budget_tokens" in config:
            thinking_config["thinking_budget"] = config["budget_tokens"]
        if "level" in config:
            thinking_config["thinking_level"] = config["level"]
        if not thinking_config and "include_thoughts" not in config:
            return ThinkingTransform(
                provider=PROVIDER, param="thinking_config", warnings=tuple(warnings)
            )
        thinking_config["include_thoughts"] = bool(config.get("include_thoughts", True))
        return ThinkingTransform(
            provider=PROVIDER,
            param="thinking_config",
            value=thinking_config,
            thinking_on=thinking_config.get("thinking_budget") != 0,
            warnings=tuple(warnings),
        )

    def built_in_tool(
        self, name: str, config: dict[str, Any], params: dict[str, Any], warnings: list[str]
    ) -> dict[str, Any]:
        """``{"google_search": {...}}`` or ``{"code_execution": {...}}``."""
        drop_options(
            config, ("container_id", "max_uses", "allowed_domains"), PROVIDER, name, warnings
        )
        return {"google_search" if name == "web_search" else "code_execution": config}

    def remote_mcp_servers(self, servers: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Google runs no MCP server.

        Raises:
            ValueError: always, pointing to ``mcp_remote_client``.
        """
        raise CompatibilityError(f"Google has no provider-run (remote) MCP servers; {USE_CLIENT}")

    def check_kwargs(self, kwargs: Mapping[str, Any]) -> list[str]:
        """The Files API polling bounds and ``video_metadata``.

        Raises:
            ValueError: for a value out of its documented bounds.
        """
        for key, (low, high) in _BOUNDS.items():
            if kwargs.get(key) is None:
                continue
            value = number(key, kwargs[key])
            if not low <= value <= high:
                raise ConfigurationError(
                    f"{key} must be between {low:g} and {high:g}, got {kwargs[key]!r}"
                )
        interval, timeout = kwargs.get("file_poll_interval_s"), kwargs.get("file_active_timeout_s")
        if interval is not None and timeout is not None and float(interval) > float(timeout):
            raise ConfigurationError(
                f"file_poll_interval_s ({interval!r}) must not exceed file_active_timeout_s "
                f"({timeout!r})"
            )
        video = kwargs.get("video_metadata")
        if video is not None:
            if not isinstance(video, Mapping):
                raise ConfigurationError(
                    f"video_metadata must be a dict, got {type(video).__name__}"
                )
            extra = sorted(set(video) - _VIDEO_METADATA_KEYS)
            if extra:
                raise ConfigurationError(
                    f"video_metadata takes start_offset, end_offset and fps; unknown keys {extra}"
                )
            if video.get("fps") is not None and number("video_metadata.fps", video["fps"]) <= 0:
                raise ConfigurationError(
                    f"video_metadata.fps must be positive, got {video['fps']!r}"
                )
        return []


GOOGLE_OPTIONS = GoogleOptions()
"""Google's rules (stateless; shared)."""
