"""echo-provider: a tiny third-party provider plug-in for doc_processing_toolkit.

It registers under the entry-point group ``doc_processing_toolkit.providers`` as
``echo = echo_provider:EchoModelClient`` (see ``docs/guide/provider-plugins.md``);
the toolkit calls the factory with the Agent's client keywords (``api_key=``,
``base_url=``). Its codec and profile register under ``doc_processing_toolkit.history_codecs``
(``echo = echo_provider:EchoHistoryCodec``) and ``doc_processing_toolkit.provider_profiles``
(``echo = echo_provider:EchoProfile``), so an echo history converts to other providers.
"""

from __future__ import annotations

from .client import BASE_URL_ENV, EchoModelClient
from .codec import PROVIDER, EchoHistoryCodec
from .harness import ECHO_CAPABILITIES, EchoHarness
from .profile import EchoProfile
from .server import EchoServer

__all__ = [
    "BASE_URL_ENV",
    "ECHO_CAPABILITIES",
    "PROVIDER",
    "EchoHarness",
    "EchoHistoryCodec",
    "EchoModelClient",
    "EchoProfile",
    "EchoServer",
]
