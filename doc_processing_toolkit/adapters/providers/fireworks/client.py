"""FireworksModelClient: the ModelClient for Fireworks chat completions, through ``openai``.

Fireworks serves an OpenAI-compatible chat-completions API: this client is the shared
`ChatCompletionsModelClient` (``openai_compatible/client.py``, which documents the SDK
client, its sharing and the errors) with Fireworks' facts. The SDK is imported inside
methods, so importing this module (or the package) does not import ``openai``.

Endpoint: the ``base_url`` argument, else ``DPT_FIREWORKS_BASE_URL``, else
`DEFAULT_BASE_URL`; always passed explicitly, so the OpenAI SDK's own
``OPENAI_BASE_URL`` never redirects Fireworks traffic. The key is the ``api_key``
argument, else ``FIREWORKS_API_KEY`` (never ``OPENAI_API_KEY``), and no OpenAI
organisation / project / admin-key setting reaches Fireworks. A request id is read from
``x-request-id``, else ``fireworks-request-id``.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.adapters.providers.fireworks.dialect import FireworksHistoryCodec
from doc_processing_toolkit.adapters.providers.fireworks.profile import FIREWORKS_PROFILE
from doc_processing_toolkit.adapters.providers.openai_compatible.client import (
    ChatCompletionsModelClient,
)

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_BASE_URL",
    "DPT_BASE_URL_ENV",
    "FireworksModelClient",
    "import_openai",
]

DEFAULT_BASE_URL = "https://api.fireworks.ai/inference/v1"
"""Fireworks' OpenAI-compatible endpoint."""
DPT_BASE_URL_ENV = "DPT_FIREWORKS_BASE_URL"
"""The toolkit's endpoint override."""
API_KEY_ENV = "FIREWORKS_API_KEY"
"""Where the key comes from when no ``api_key`` is given."""


class FireworksModelClient(ChatCompletionsModelClient):
    """Streams Fireworks chat-completions requests; see the module docstring."""

    profile = FIREWORKS_PROFILE
    codec = FireworksHistoryCodec()
    sdk_extra = "fireworks"
    DPT_BASE_URL_ENV = DPT_BASE_URL_ENV
    DEFAULT_URL = DEFAULT_BASE_URL
    API_KEY_ENVS = (API_KEY_ENV,)


def import_openai() -> Any:
    """Import the ``openai`` SDK, or raise an ImportError naming the pip extra."""
    return FireworksModelClient.import_openai()
