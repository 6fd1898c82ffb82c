"""AgentSession for managing stateful conversation sessions (documented import path).

Also the per-turn store (`SqliteSessionStore`, the `SessionStore` port) and
the Session Management helpers.
"""

from doc_processing_toolkit.adapters.session_stores.sqlite import SqliteSessionStore
from doc_processing_toolkit.application.session.fingerprint import compute_prefix_fingerprint
from doc_processing_toolkit.application.session.history_config import (
    resolve_session_history_config,
)
from doc_processing_toolkit.application.session.saving import UNSET
from doc_processing_toolkit.application.session.session import AgentSession
from doc_processing_toolkit.domain.errors import SessionCompatibilityError
from doc_processing_toolkit.domain.session import ENVELOPE_SCHEMA_VERSION, MalformedEnvelopeError
from doc_processing_toolkit.ports.session_store import SessionStore

__all__ = [
    "ENVELOPE_SCHEMA_VERSION",
    "UNSET",
    "AgentSession",
    "MalformedEnvelopeError",
    "SessionCompatibilityError",
    "SessionStore",
    "SqliteSessionStore",
    "compute_prefix_fingerprint",
    "resolve_session_history_config",
]
