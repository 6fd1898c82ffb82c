"""echo-provider: a tiny third-party provider plug-in for doc_processing_toolkit.

It registers under the entry-point group ``doc_processing_toolkit.providers`` as
``echo = echo_provider:EchoModelClient`` (see ``docs/howto/write-a-provider-plugin.md``);
the toolkit calls the factory with the Agent's client keywords (``api_key=``,
``base_url=``).
"""

from __future__ import annotations

from .client import BASE_URL_ENV, EchoModelClient
from .codec import PROVIDER, EchoHistoryCodec
from .harness import ECHO_CAPABILITIES, EchoHarness
from .server import EchoServer

__all__ = [
    "BASE_URL_ENV",
    "ECHO_CAPABILITIES",
    "PROVIDER",
    "EchoHarness",
    "EchoHistoryCodec",
    "EchoModelClient",
    "EchoServer",
]
