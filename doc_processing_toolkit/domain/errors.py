"""The toolkit's exceptions.

User mistakes (bad configuration, bad tools) are told apart from run failures
(the provider or the network failed). Adapters translate SDK exceptions into this
tree at the edge with ``raise ... from exc``; nothing above an adapter sees an SDK
exception type.

The tree::

    Exception
    ├── DocProcessingToolkitError
    │   ├── ConfigurationError (also ValueError)     a bad value in Agent(...), a tool or a call
    │   │   ├── RegistryFileError                    the model registry file is unreadable
    │   │   ├── ToolDefinitionError                  a tool that cannot be offered
    │   │   └── CompatibilityError                   the model/provider cannot do what was asked
    │   ├── InvalidInputError (also ValueError)      data that cannot be read (a history, a file)
    │   │   ├── MalformedEnvelopeError               a session envelope (domain/session.py)
    │   │   ├── FileTooLargeError                    a file over the target's byte limit
    │   │   ├── DocumentError                        a document that cannot be read or cut
    │   │   │   └── DocumentLimitError               over the model's page or request limit
    │   │   └── EvalDatasetError                     an eval dataset entry that cannot be used
    │   ├── InvalidArgumentTypeError (also TypeError)  a value of the wrong type
    │   ├── StateError (also RuntimeError)           not now: a closed session, a busy turn
    │   │   └── ApprovalError                        a resume's approvals do not fit the turn
    │   ├── MissingFileError (also FileNotFoundError)  a named file or blob does not exist
    │   ├── MissingDependencyError (also ImportError)  an optional extra is not installed
    │   ├── SessionNotFoundError (also KeyError)     a session store has no such session
    │   ├── SessionStoreError                        a session store or checkpoint file failed
    │   │   └── SessionConflictError                 another writer moved the stored session
    │   ├── ProviderError                            a request to a model provider failed
    │   │   ├── ProviderConnectionError              no response: refused, reset, DNS  [retryable]
    │   │   │   └── ProviderTimeoutError             the request timed out            [retryable]
    │   │   ├── ProviderStatusError                  an HTTP error status (.status_code)
    │   │   │   ├── BadRequestError                  400 / 404 / 413 / 422
    │   │   │   ├── AuthenticationError              401 / 403
    │   │   │   ├── RequestTimeoutError              408                              [retryable]
    │   │   │   ├── ConflictError                    409                              [retryable]
    │   │   │   ├── RateLimitError                   429                              [retryable]
    │   │   │   ├── ServerError                      5xx                              [retryable]
    │   │   │   └── OverloadedError                  529                              [retryable]
    │   │   ├── MediaUploadError                     a Gemini Files API upload failed
    │   │   └── StreamInterruptedError               the stream broke after it began  [retryable]
    │   │       └── StreamIdleTimeoutError           no content event in time         [retryable]
    │   ├── ToolExecutionError (also RuntimeError)   a tool failed (ToolLoader.execute_tool)
    │   ├── MCPConnectionError (also RuntimeError)   an MCP server could not be reached or listed
    │   │   └── MCPTimeoutError (also TimeoutError)  an MCP server did not answer in time
    │   ├── ConfigParseError                         YAML could not be parsed
    │   ├── ConfigValidationError                    configuration is invalid (names the key)
    │   ├── AgentAborted                             a hook aborted the run
    │   ├── UnsupportedPartError                     a prompt part the model cannot take
    │   ├── SessionCompatibilityError (also ValueError)  a history cannot move providers
    │   └── StructuredOutputError (also ValueError)  the output does not match output_schema
    └── NotImplementedError                          a documented feature not built yet

Every exception the library raises derives from `DocProcessingToolkitError`, so one
``except DocProcessingToolkitError`` catches them all; where the API reference names a
builtin (``ValueError``, ``TypeError``, ``RuntimeError``, ``FileNotFoundError``), the class
also derives from it, so ``except ValueError`` keeps working. The exceptions to that rule
(``tests/unit/domain/test_errors.py`` holds the allow-list): ``NotImplementedError`` for an
unbuilt feature; ``AttributeError`` where Python's attribute protocol expects it (a
module's ``__getattr__``, a read-only setting); ``AssertionError`` in the contract kit's
test helpers and on unreachable branches; and two raises that are control flow caught a
few lines later (config export's ``TypeError`` on a live object, the skills catalog's
``ValueError`` on an error result). Three exception classes live outside the tree and
never reach a caller: ``RedactedCause`` (never raised; it stands in for a third-party
exception in a ``__cause__`` chain), the emulator's ``DeliberateDisconnect`` and the CLI's
``UsageError`` (a ConfigurationError that ``dpt`` turns into exit code 2).

Every `ProviderError` carries what the retry layer and the ledger need:
``retryable``, ``retry_after`` (seconds, from retry-after / retry-after-ms),
``partial_usage`` (usage reported before the failure, if any), ``before_stream``
(True when the provider refused the request before any byte streamed, so nothing was
billed) and ``deltas_emitted`` (True when a delta already reached the caller, which
makes the failure unsafe to retry).

An error raised by a failed run carries ``partial_result`` (the run's partial
``AgentResult``: tokens, cost, retry cost, records; None when raised outside a run), and
its ``__cause__`` chain holds redacted summaries of the SDK exceptions, never their raw
response bodies.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = [
    "AgentAborted",
    "ApprovalError",
    "AuthenticationError",
    "BadRequestError",
    "CompatibilityError",
    "ConfigParseError",
    "ConfigValidationError",
    "ConfigurationError",
    "ConflictError",
    "DocProcessingToolkitError",
    "DocumentError",
    "DocumentLimitError",
    "EvalDatasetError",
    "FileTooLargeError",
    "InvalidArgumentTypeError",
    "InvalidInputError",
    "MCPConnectionError",
    "MCPTimeoutError",
    "MediaUploadError",
    "MissingDependencyError",
    "MissingFileError",
    "OverloadedError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "ProviderTimeoutError",
    "RateLimitError",
    "RegistryFileError",
    "RequestTimeoutError",
    "ServerError",
    "SessionCompatibilityError",
    "SessionConflictError",
    "SessionNotFoundError",
    "SessionStoreError",
    "StateError",
    "StreamIdleTimeoutError",
    "StreamInterruptedError",
    "StructuredOutputError",
    "ToolDefinitionError",
    "ToolExecutionError",
    "UnsupportedPartError",
    "status_error_class",
]


class DocProcessingToolkitError(Exception):
    """Base of the toolkit's own errors."""

    partial_result: Any = None
    """The partial ``AgentResult`` of the run this error ended (set by ``Agent.run``)."""

    document_result: Any = None
    """The ``DocumentResult`` so far when this error ended ``Agent.run_document`` (the
    chunks that answered and what every request cost); None elsewhere."""


class ConfigurationError(DocProcessingToolkitError, ValueError):
    """A user mistake: a bad value in ``Agent(...)``, a tool, a config or a method's
    arguments (also a ``ValueError``); raised before any request is sent."""


class RegistryFileError(ConfigurationError):
    """The registry file is missing, not JSON, or holds a malformed entry.

    Attributes:
        path: The file that was read.
        key: The JSON path of the bad entry (``anthropic.claude-x.pricing``), or None when
            the file as a whole is at fault.
    """

    def __init__(
        self, path: os.PathLike[str] | str, message: str, *, key: str | None = None
    ) -> None:
        where = f"{path}" if key is None else f"{path} at {key!r}"
        super().__init__(f"model registry {where}: {message}")
        self.path = str(path)
        self.key = key


class ToolDefinitionError(ConfigurationError):
    """A tool that cannot be offered to a model (bad schema, duplicate name)."""


class CompatibilityError(ConfigurationError):
    """The configuration asks for something this model or provider cannot do."""


class InvalidInputError(DocProcessingToolkitError, ValueError):
    """Data the caller handed over cannot be read: a stored history or session JSON, a
    native provider message, a file dict or bytes of no known media type."""


class FileTooLargeError(InvalidInputError):
    """A file in ``files=`` (or ``tool_files=``) is larger than the target accepts; found
    from its size on disk before any byte is read. ``path``, ``size`` and ``limit`` (bytes)
    say which file, how large and the limit."""

    def __init__(self, message: str, *, path: str, size: int, limit: int) -> None:
        super().__init__(message)
        self.path = path
        self.size = size
        self.limit = limit


class DocumentError(InvalidInputError):
    """A document that cannot be read, cut or converted: corrupt, encrypted, empty, a page
    selection outside it, a converter or OCR failure. Raised before any request is sent;
    ``document`` names the document (its file name or the ``name=`` given)."""

    def __init__(self, message: str, *, document: str) -> None:
        super().__init__(message)
        self.document = document


class DocumentLimitError(DocumentError):
    """A document (or its page selection) over what the model takes in one request: its
    ``max_pdf_pages`` or ``max_request_bytes`` (registry facts). Raised before any request;
    the message names the document, its size, the limit, the model and the two ways out
    (``pages=`` and ``Agent.run_document``). ``limit_name`` is the registry fact exceeded,
    ``actual`` and ``limit`` its two values, ``model`` the model id."""

    def __init__(
        self, message: str, *, document: str, limit_name: str, actual: int, limit: int, model: str
    ) -> None:
        super().__init__(message, document=document)
        self.limit_name = limit_name
        self.actual = actual
        self.limit = limit
        self.model = model


class EvalDatasetError(InvalidInputError):
    """An eval dataset that cannot be used: a missing document, an unknown schema import
    path, an expected field the schema does not have. ``dataset`` is the file, ``case`` the
    case's name (None for the file itself), ``key`` the entry's key (``"files[1]"``,
    ``"output_schema"``, ``"expected.total"``)."""

    def __init__(self, message: str, *, dataset: str, case: str | None, key: str | None) -> None:
        super().__init__(message)
        self.dataset = dataset
        self.case = case
        self.key = key


class InvalidArgumentTypeError(DocProcessingToolkitError, TypeError):
    """An argument or configuration value of the wrong type (also a ``TypeError``)."""


class StateError(DocProcessingToolkitError, RuntimeError):
    """The call is not allowed in the object's current state: a closed session, a turn
    already running, a handle not bound to a run, a client not connected or started."""


class ApprovalError(StateError):
    """``resume(approvals)`` does not fit the turn waiting for them: nothing is pending (never
    deferred, or already resumed), a call id that is not pending (another session's, say)
    or a pending one left out, recorded arguments that no longer match the history, the
    history truncated past the turn, the deferred tool gone, or another model or provider.
    Nothing ran and the session is unchanged.

    Attributes:
        code: ``"nothing_pending"``, ``"unknown_call"``, ``"missing_call"``,
            ``"tampered"``, ``"truncated"``, ``"tool_missing"``, ``"model_changed"`` or
            ``"schema_missing"`` (the turn's ``output_schema`` cannot be imported here).
        call_id: The call at fault, when one is.
    """

    def __init__(self, message: str, *, code: str, call_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.call_id = call_id


class MissingFileError(DocProcessingToolkitError, FileNotFoundError):
    """A file, script or stored blob the caller named does not exist."""


class MissingDependencyError(DocProcessingToolkitError, ImportError):
    """An optional dependency is not installed; the message names the pip extra."""


class SessionNotFoundError(DocProcessingToolkitError, KeyError):
    """A session store has never seen the session id asked for."""

    def __str__(self) -> str:
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class SessionStoreError(DocProcessingToolkitError):
    """A session store or checkpoint file could not be read or written: a full disk, an
    unreadable or corrupt SQLite file, a path that cannot be created. The message names the
    file (and the session); raised from a turn, ``partial_result`` holds that turn's
    ``AgentResult`` (what it billed), whose spend the session has also banked.

    Attributes:
        path: The file at fault.
        session_id: The session being read or written, when one is.
    """

    def __init__(
        self, message: str, *, path: os.PathLike[str] | str, session_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.path = str(path)
        self.session_id = session_id


class SessionConflictError(SessionStoreError):
    """Another writer (a second process or session object on the same ``session_id``)
    committed to the store since this session last read it; nothing was written. Reload
    the session from the store and resend the message.

    Attributes:
        expected: The stored message count this session's turn was built on.
        found: The message count the store holds.
    """

    def __init__(
        self,
        message: str,
        *,
        path: os.PathLike[str] | str,
        session_id: str,
        expected: int | None = None,
        found: int | None = None,
    ) -> None:
        super().__init__(message, path=path, session_id=session_id)
        self.expected = expected
        self.found = found


class ToolExecutionError(DocProcessingToolkitError, RuntimeError):
    """A tool failed when called directly (``ToolLoader.execute_tool``); inside a run the
    loop turns a failing tool into an error result the model reads instead."""


class MCPConnectionError(DocProcessingToolkitError, RuntimeError):
    """An MCP server could not be connected to or listed (it exited, refused, 404'd,
    or is unreachable); ``server`` names it. The cause is a redacted summary."""

    def __init__(self, message: str, *, server: str | None = None) -> None:
        super().__init__(message)
        self.server = server


class MCPTimeoutError(MCPConnectionError, TimeoutError):
    """An MCP server did not answer a request (``initialize``, ``tools/list``) within its
    bound; ``server`` names it. Also a ``TimeoutError``."""


class ProviderError(DocProcessingToolkitError):
    """A request to a model provider failed."""

    retryable: bool = False
    streamed_chars: int = 0
    """Characters of text and reasoning the failed attempt streamed (set by the retry
    layer): what its output is estimated from when the provider reported no usage."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status_code: int | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
        partial_usage: Any = None,  # a domain.requests.Usage (not imported: no cycle)
        before_stream: bool = False,
        deltas_emitted: bool = False,
        error_type: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status_code = status_code
        self.retry_after = retry_after
        self.request_id = request_id
        self.partial_usage = partial_usage
        self.before_stream = before_stream
        self.deltas_emitted = deltas_emitted
        self.error_type = error_type

    def with_context(self, **changes: Any) -> ProviderError:
        """Set attributes in place and return self (used by the retry layer)."""
        for key, value in changes.items():
            setattr(self, key, value)
        return self


class ProviderConnectionError(ProviderError):
    """No response: the connection was refused, reset, or could not be made."""

    retryable = True


class ProviderTimeoutError(ProviderConnectionError):
    """The request timed out."""


class ProviderStatusError(ProviderError):
    """The provider answered with an HTTP error status."""


class BadRequestError(ProviderStatusError):
    """400 / 404 / 413 / 422: the request itself is wrong; retrying will not help."""


class AuthenticationError(ProviderStatusError):
    """401 / 403: the key is missing, wrong, or not allowed."""


class RequestTimeoutError(ProviderStatusError):
    """408."""

    retryable = True


class ConflictError(ProviderStatusError):
    """409."""

    retryable = True


class RateLimitError(ProviderStatusError):
    """429."""

    retryable = True


class ServerError(ProviderStatusError):
    """5xx."""

    retryable = True


class OverloadedError(ServerError):
    """529 (Anthropic overloaded), also an ``overloaded_error`` event mid-stream."""

    retryable = True


class MediaUploadError(ProviderError):
    """A Files API upload (Gemini) that failed, or did not become ACTIVE in time."""


class StreamInterruptedError(ProviderError):
    """The stream broke after it began (disconnect, an ``error`` event on a 200 stream)."""

    retryable = True


class StreamIdleTimeoutError(StreamInterruptedError):
    """No content event arrived for ``stream_idle_timeout`` seconds (pings and keep-alive
    comments do not count); retried while nothing reached the caller."""


def status_error_class(status_code: int | None) -> type[ProviderStatusError]:
    """The error class for an HTTP status code."""
    match status_code:
        case 401 | 403:
            return AuthenticationError
        case 408:
            return RequestTimeoutError
        case 409:
            return ConflictError
        case 429:
            return RateLimitError
        case 529:
            return OverloadedError
        case int() if status_code >= 500:
            return ServerError
        case int() if status_code >= 400:
            return BadRequestError
        case _:
            return ProviderStatusError


class ConfigParseError(DocProcessingToolkitError):
    """Raised when YAML parsing fails."""


class ConfigValidationError(DocProcessingToolkitError):
    """Raised when configuration validation fails."""


class AgentAborted(DocProcessingToolkitError):
    """Raised when a hook directs the run to abort.

    Attributes:
        reason: The hook-supplied rationale (may be None).
        partial: Best-effort partial state at the abort point —
            ``{"input_tokens", "output_tokens", "cost", "iterations"}``.
        undelivered_injections: Hook-injected texts still queued when the run ended.
    """

    def __init__(
        self,
        reason: str | None = None,
        partial: dict[str, Any] | None = None,
        undelivered_injections: list[str] | None = None,
    ) -> None:
        super().__init__(reason or "run aborted by a hook")
        self.reason = reason
        self.partial: dict[str, Any] = partial or {
            "input_tokens": 0,
            "output_tokens": 0,
            "cost": 0.0,
            "iterations": 0,
        }
        self.undelivered_injections: list[str] = list(undelivered_injections or [])


class SessionCompatibilityError(DocProcessingToolkitError, ValueError):
    """A stored history cannot be converted for the target provider.

    Raised for an open tool round (calls with no results), a tool call with no name or a
    tool result that matches no call. The message names the stored dialect, the target
    and, when one turn is at fault, the turn; the same facts ride the attributes.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        target: str | None = None,
        index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.source = source
        """The dialect the history is written in."""
        self.target = target
        """The provider it was being converted for."""
        self.index = index
        """The stored message at fault, when one is."""


class StructuredOutputError(DocProcessingToolkitError, ValueError):
    """The model's structured output did not validate against output_schema.

    ``attempts`` holds every attempt's errors, in order (one list per answer the model
    gave, ``output_retries + 1`` of them), each error ``{"path": ..., "message": ...}``.
    """

    def __init__(self, message: str, *, attempts: list[list[dict[str, str]]] | None = None):
        super().__init__(message)
        self.attempts: list[list[dict[str, str]]] = list(attempts or [])


class UnsupportedPartError(DocProcessingToolkitError):
    """A prompt part the model cannot accept, under on_unsupported_part="raise"."""
