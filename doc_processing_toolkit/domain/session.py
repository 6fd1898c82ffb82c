"""The versioned session envelope (schema v3): what ``AgentSession.to_dict`` writes.

Pure models and their validation: an envelope read back from disk or from another party
is data, so `parse_envelope` checks every key before anything is built from it and
raises one `MalformedEnvelopeError` naming the key and what is wrong. Older
envelopes are migrated (version 1 has no ``schema_version``; version 2 adds the prefix
fingerprint); a newer one loads with its unknown keys ignored (the caller warns).
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from doc_processing_toolkit.domain.errors import InvalidInputError

__all__ = [
    "ENVELOPE_SCHEMA_VERSION",
    "MEDIA_POLICIES",
    "EnvelopeFingerprint",
    "MalformedEnvelopeError",
    "ParsedEnvelope",
    "SessionEnvelope",
    "parse_envelope",
]

ENVELOPE_SCHEMA_VERSION = 3
"""The version this toolkit writes."""

MEDIA_POLICIES = ("auto", "inline", "externalize", "strip")
"""The save-time media policies."""


class MalformedEnvelopeError(InvalidInputError):
    """An envelope that cannot be read: the message names the key and what is wrong."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"malformed session envelope: {key!r}: {problem}")
        self.key = key
        """The envelope key at fault (dotted for a nested one)."""
        self.problem = problem
        """What is wrong with it."""


class EnvelopeFingerprint(BaseModel):
    """SHA-256 digests of the request prefix: enough to notice a move, not to rebuild it."""

    model_config = ConfigDict(extra="ignore", strict=True)

    system: str
    """Digest of the system prompt."""
    tools: str
    """Digest of the declared tool surface."""


class SessionEnvelope(BaseModel):
    """One saved session (version 3; older versions are migrated into this shape)."""

    model_config = ConfigDict(extra="ignore", strict=True)

    schema_version: int = ENVELOPE_SCHEMA_VERSION
    """The envelope format version."""
    session_id: str
    """The session's identifier."""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    """The history in the saving provider's native dialect (never a system prompt)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Totals, run boundaries, served models, reports (see AgentSession.metadata)."""
    prefix_fingerprint: EnvelopeFingerprint | None = None
    """Digests of the system prompt and the tool surface of the saving Agent."""
    provider: str | None = None
    """The provider of the Agent that saved it (version 3)."""
    model: str | None = None
    """The model of the Agent that saved it (version 3)."""
    toolkit_version: str | None = None
    """The toolkit version that wrote it."""
    saved_at: str | None = None
    """When it was written (UTC, ISO 8601)."""
    sdk: dict[str, str | None] | None = None
    """``{"name", "version"}`` of the provider SDK of the saving Agent."""
    media_policy: Literal["inline", "externalize", "strip"] | None = None
    """The policy this save applied."""
    media: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """The media table: Google uploads (URI, expiry, bytes or store ref), externalised parts."""
    media_report: list[dict[str, Any]] = Field(default_factory=list)
    """What a save or a restore could not keep."""
    session_history_config: dict[str, Any] | None = None
    """The per-session history configuration, when one was given."""


class ParsedEnvelope(BaseModel):
    """A validated envelope plus what reading it found."""

    envelope: SessionEnvelope
    """The envelope, migrated to the current shape (a detached copy)."""
    original_version: int
    """The version it was written as (1 for an envelope written before versioning)."""
    newer_than_reader: bool
    """True when it was written by a newer toolkit (its unknown keys were ignored)."""


def _first_error(exc: ValidationError) -> tuple[str, str]:
    error = exc.errors()[0]
    key = ".".join(str(p) for p in error.get("loc", ())) or "<envelope>"
    return key, str(error.get("msg", "invalid value"))


def parse_envelope(data: Any) -> ParsedEnvelope:
    """Validate and migrate an envelope; nothing is built from a malformed one.

    Raises:
        MalformedEnvelopeError: ``data`` is not an object, or a key is missing, of the
            wrong type or out of range (the first such key is named).
    """
    if not isinstance(data, dict):
        raise MalformedEnvelopeError("<envelope>", f"expected an object, got {type(data).__name__}")
    raw = copy.deepcopy(data)
    version = raw.get("schema_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise MalformedEnvelopeError("schema_version", f"expected a positive int, got {version!r}")
    if "session_id" not in raw:
        raise MalformedEnvelopeError("session_id", "missing")
    messages = raw.get("messages", [])
    if not isinstance(messages, list):
        raise MalformedEnvelopeError("messages", f"expected a list, got {type(messages).__name__}")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise MalformedEnvelopeError(
                f"messages.{index}", f"expected an object, got {type(message).__name__}"
            )
    if version < 3:
        # Versions 1 and 2 record no provider, model, media table or report.
        for key in ("provider", "model", "media_policy", "sdk", "toolkit_version", "saved_at"):
            raw.pop(key, None)
        raw["media"], raw["media_report"] = {}, []
    if version < 2:
        raw.pop("prefix_fingerprint", None)
    raw["schema_version"] = ENVELOPE_SCHEMA_VERSION
    try:
        envelope = SessionEnvelope.model_validate(raw)
    except ValidationError as exc:
        key, problem = _first_error(exc)
        raise MalformedEnvelopeError(key, problem) from None
    metadata_checks: dict[str, type | tuple[type, ...]] = {
        "run_boundaries": list,
        "served_models": list,
        "conversion_report": list,
        "pending_injections": list,
        "compaction_archives": list,
        "tool_surface_drift": list,
        "interrupted_turn": (dict, type(None)),
    }
    for key, expected in metadata_checks.items():
        if key in envelope.metadata and not isinstance(envelope.metadata[key], expected):
            raise MalformedEnvelopeError(
                f"metadata.{key}", f"wrong type {type(envelope.metadata[key]).__name__}"
            )
    for index, record in enumerate(envelope.metadata.get("run_boundaries", [])):
        if not (
            isinstance(record, dict)
            and all(
                isinstance(record.get(k), int) and not isinstance(record.get(k), bool)
                for k in ("run", "start", "end")
            )
        ):
            raise MalformedEnvelopeError(
                f"metadata.run_boundaries.{index}", "expected {'run', 'start', 'end'} ints"
            )
    return ParsedEnvelope(
        envelope=envelope,
        original_version=version,
        newer_than_reader=version > ENVELOPE_SCHEMA_VERSION,
    )
