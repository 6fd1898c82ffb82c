"""The versioned session envelope (schema v3): what ``AgentSession.to_dict`` writes.

Pure models and their validation: an envelope read back from disk or from another party
is data, so `parse_envelope` checks every key before anything is built from it and
raises one `MalformedEnvelopeError` naming the key and what is wrong. Older
envelopes are migrated (version 1 has no ``schema_version``; version 2 adds the prefix
fingerprint); a newer one loads with its unknown keys ignored (the caller warns).
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from doc_processing_toolkit.domain.errors import InvalidInputError

__all__ = [
    "ENVELOPE_SCHEMA_VERSION",
    "MAX_ENVELOPE_DEPTH",
    "MEDIA_POLICIES",
    "EnvelopeFingerprint",
    "MalformedEnvelopeError",
    "ParsedEnvelope",
    "SessionEnvelope",
    "check_json_values",
    "decode_json_text",
    "parse_envelope",
]

ENVELOPE_SCHEMA_VERSION = 3
"""The version this toolkit writes."""

MEDIA_POLICIES = ("auto", "inline", "externalize", "strip")
"""The save-time media policies."""


class MalformedEnvelopeError(InvalidInputError):
    """An envelope that cannot be read: the message names the key and what is wrong (and,
    when it was read from one, the file, store row or session)."""

    def __init__(self, key: str, problem: str, *, source: str | None = None) -> None:
        where = f" in {source}" if source else ""
        super().__init__(f"malformed session envelope{where}: {key!r}: {problem}")
        self.key = key
        """The envelope key at fault (dotted for a nested one)."""
        self.problem = problem
        """What is wrong with it."""
        self.source = source
        """The file, store row or session it was read from, when known."""

    def with_source(self, source: str) -> MalformedEnvelopeError:
        """The same error, naming where the envelope was read from."""
        if self.source is not None:
            return self
        return MalformedEnvelopeError(self.key, self.problem, source=source)


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


MAX_ENVELOPE_DEPTH = 200
"""How deeply an envelope may nest (a provider message nests a dozen levels; a reader
recursing through 200,000 would fail with a RecursionError)."""

_MAX_INT_BITS = 4096
"""An int wider than this (about 1,233 digits) is no count, cost or id: refused at load."""


def decode_json_text(text: str | bytes, *, source: str, key: str = "<envelope>") -> Any:
    """``text`` (or UTF-8 ``bytes``) decoded as JSON, every failure a
    `MalformedEnvelopeError` naming ``source`` (a file, a store row) and ``key``.

    Raises:
        MalformedEnvelopeError: not UTF-8, not JSON, nested too deeply, or a number
            Python refuses to read (an integer of more than 4,300 digits).
    """
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text)
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text (invalid byte at offset {exc.start})"
    except json.JSONDecodeError as exc:
        problem = f"not JSON: {exc}"
    except RecursionError:
        problem = f"nested more than {MAX_ENVELOPE_DEPTH} levels deep"
    except ValueError as exc:  # e.g. an integer past sys.get_int_max_str_digits()
        problem = f"a value JSON readers refuse: {exc}"
    raise MalformedEnvelopeError(key, problem, source=source)


def check_json_values(value: Any, key: str = "<envelope>", *, source: str | None = None) -> None:
    """Walk ``value`` without recursion; refuse what no strict JSON reader or writer takes.

    Raises:
        MalformedEnvelopeError: naming the key path of the first value nested deeper than
            `MAX_ENVELOPE_DEPTH`, a NaN or infinite float, an absurdly wide int, or
            an object key that is not a string.
    """
    stack: list[tuple[Any, str, int]] = [(value, key, 0)]
    while stack:
        item, path, depth = stack.pop()
        kind = type(item)
        if kind is float and not math.isfinite(item):
            raise MalformedEnvelopeError(path, f"{item!r} is not a JSON number", source=source)
        if kind is int and item.bit_length() > _MAX_INT_BITS:
            raise MalformedEnvelopeError(
                path, f"an integer of {item.bit_length()} bits is out of range", source=source
            )
        if not isinstance(item, dict | list | tuple):
            continue
        if depth >= MAX_ENVELOPE_DEPTH:
            raise MalformedEnvelopeError(
                path, f"nested more than {MAX_ENVELOPE_DEPTH} levels deep", source=source
            )
        if isinstance(item, dict):
            for child_key, child in item.items():
                if not isinstance(child_key, str):
                    raise MalformedEnvelopeError(
                        path, f"key {child_key!r} is not a string", source=source
                    )
                stack.append(
                    (child, f"{path}.{child_key}" if path != "<envelope>" else child_key, depth + 1)
                )
        else:
            stack.extend((child, f"{path}.{index}", depth + 1) for index, child in enumerate(item))


_COUNTERS = (
    "total_tokens",
    "total_input_tokens",
    "total_output_tokens",
    "run_count",
    "compaction_count",
    "total_cached_input_tokens",
    "total_cache_write_tokens",
    "total_retry_count",
    "total_retry_input_tokens",
    "total_retry_output_tokens",
    "boundaries_reset_at_run",
)
"""Metadata keys that hold a non-negative int."""

_AMOUNTS = ("total_cost", "total_retry_cost", "total_cost_inclusive")
"""Metadata keys that hold a non-negative, finite number (USD)."""

_RECORD_LISTS = ("served_models", "conversion_report", "tool_surface_drift", "run_boundaries")
"""Metadata keys that hold a list of objects."""


def _check_metadata(metadata: dict[str, Any]) -> None:
    """Every documented metadata key that is present has its documented type."""

    def bad(key: str, expected: str) -> MalformedEnvelopeError:
        value = metadata[key]
        return MalformedEnvelopeError(f"metadata.{key}", f"expected {expected}, got {value!r}")

    for key in _COUNTERS:
        value = metadata.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad(key, "a non-negative int")
    for key in _AMOUNTS:
        value = metadata.get(key, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise bad(key, "a non-negative number")
    if not isinstance(metadata.get("created_at", ""), str | None):
        raise bad("created_at", "an ISO 8601 string")
    for key in (*_RECORD_LISTS, "compaction_archives", "pending_injections"):
        if not isinstance(metadata.get(key, []), list):
            raise bad(key, "a list")
    for key in _RECORD_LISTS:
        for index, record in enumerate(metadata.get(key, [])):
            if not isinstance(record, dict):
                raise MalformedEnvelopeError(
                    f"metadata.{key}.{index}", f"expected an object, got {record!r}"
                )
    for index, text in enumerate(metadata.get("pending_injections", [])):
        if not isinstance(text, str):
            raise MalformedEnvelopeError(
                f"metadata.pending_injections.{index}", f"expected a string, got {text!r}"
            )
    if not isinstance(metadata.get("interrupted_turn"), dict | None):
        raise bad("interrupted_turn", "an object or null")


def _first_error(exc: ValidationError) -> tuple[str, str]:
    error = exc.errors()[0]
    key = ".".join(str(p) for p in error.get("loc", ())) or "<envelope>"
    return key, str(error.get("msg", "invalid value"))


def parse_envelope(data: Any) -> ParsedEnvelope:
    """Validate and migrate an envelope; nothing is built from a malformed one.

    Raises:
        MalformedEnvelopeError: ``data`` is not an object, or a key is missing, of the
            wrong type or out of range (the first such key is named), or a value is one
            strict JSON cannot carry (NaN, infinity, nesting past MAX_ENVELOPE_DEPTH).
    """
    if not isinstance(data, dict):
        raise MalformedEnvelopeError("<envelope>", f"expected an object, got {type(data).__name__}")
    check_json_values(data)
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
    _check_metadata(envelope.metadata)
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
