"""What an Agent holds open, and how it lets go of it; the errors a failed run raises.

* `AgentResources` owns the logger the toolkit built for an Agent: ``release()``
  (called by ``Agent.close()``) closes and removes its handlers (so its log file's
  descriptor is closed) and forgets the logger itself, so no logger is retained per
  Agent after close. A finalizer warns with a `ResourceWarning` when an Agent
  holding open resources (an open log file, connected MCP sessions) is garbage-collected
  unclosed, and closes the handlers then.
* `register_agent_secrets` registers every secret an Agent's settings hold (its
  api key, provider-run MCP ``authorization_token`` and header values) and installs the
  redaction of the provider SDKs', httpx2's and mcp's log records.
* `failed_run_error` is what ``run()`` raises: the run's error with its cause chain
  redacted and ``partial_result`` set to the run's partial `AgentResult`;
  `unstarted_run_error` gives a failure before the first request (a missing key,
  an MCP server that cannot be connected) an empty one: nothing was sent or billed.
"""

from __future__ import annotations

import logging
import uuid
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from doc_processing_toolkit._logging import register_secret
from doc_processing_toolkit._redaction import (
    install_third_party_redaction,
    redact_text,
    scrub_exception_chain,
)
from doc_processing_toolkit.application.config import environment, log_setup
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.domain.errors import DocProcessingToolkitError

__all__ = [
    "AgentResources",
    "failed_run_error",
    "register_agent_secrets",
    "unstarted_run_error",
]


def register_agent_secrets(settings: AgentSettings, key_env: Sequence[str] = ()) -> None:
    """Register the secrets ``settings`` hold and the values of the ``key_env`` variables
    (the provider's API-key variables); install the third-party log redaction."""
    install_third_party_redaction()
    register_secret(settings.api_key)
    for env_name in key_env:
        register_secret(environment.variable(env_name))
    for server in settings.remote_mcp_servers:
        token = server.get("authorization_token")
        if isinstance(token, str):
            register_secret(token)
        headers = server.get("headers")
        if isinstance(headers, dict):
            for value in headers.values():
                if isinstance(value, str):
                    register_secret(value)
                    register_secret(value.partition(" ")[2].strip())


def failed_run_error(error: BaseException, partial: Any) -> BaseException:
    """``error`` with its chain redacted and ``partial_result`` = ``partial`` (the run's
    partial AgentResult: tokens, cost, retry cost, records)."""
    scrub_exception_chain(error)
    try:
        error.partial_result = partial  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # pragma: no cover - a slotted foreign exception
        pass
    return error


def unstarted_run_error(error: DocProcessingToolkitError) -> DocProcessingToolkitError:
    """``error`` (raised before the run sent anything) with an empty ``partial_result``:
    no tokens, no cost, no records, its ``error`` text set."""
    if error.partial_result is None:
        scrub_exception_chain(error)
        error.partial_result = AgentResult(error=redact_text(f"{type(error).__name__}: {error}"))
    return error


def _close_handlers(logger_name: str, handlers: list[logging.Handler]) -> None:
    logger = logging.getLogger(logger_name)
    for handler in handlers:
        logger.removeHandler(handler)
        try:
            handler.close()
        except Exception:  # pragma: no cover - closing must not fail close()
            pass
    handlers.clear()
    with logging._lock:  # type: ignore[attr-defined]
        logging.Logger.manager.loggerDict.pop(logger_name, None)


def _has_open_file(handlers: list[logging.Handler]) -> bool:
    return any(
        isinstance(h, logging.FileHandler) and getattr(h, "stream", None) is not None
        for h in handlers
    )


def _finalize(
    logger_name: str,
    handlers: list[logging.Handler],
    mcp_connected: Callable[[], bool],
    label: str,
) -> None:
    if _has_open_file(handlers) or mcp_connected():
        warnings.warn(
            f"{label} was garbage-collected without close(): its log file or MCP sessions "
            "were still open (use 'async with Agent(...)' or await agent.close())",
            ResourceWarning,
            stacklevel=2,
        )
    _close_handlers(logger_name, handlers)


class AgentResources:
    """The logger an Agent owns and the finalizer that warns when it is never closed."""

    def __init__(
        self,
        owner: object,
        logger: logging.Logger,
        *,
        owned: bool,
        mcp_connected: Callable[[], bool],
        label: str,
    ) -> None:
        self._name = logger.name
        self._handlers: list[logging.Handler] = list(logger.handlers) if owned else []
        self._owned = owned
        self._finalizer = weakref.finalize(
            owner, _finalize, self._name, self._handlers, mcp_connected, label
        )

    @classmethod
    def track(cls, agent: Any, mcp_connected: Callable[[], bool]) -> AgentResources:
        """The resources of ``agent`` (its ``logger``, owned unless ``settings.logging.logger``
        was given); ``mcp_connected`` says whether its MCP sessions are open."""
        return cls(
            agent,
            agent.logger,
            owned=agent.settings.logging.logger is None,
            mcp_connected=mcp_connected,
            label=f"Agent(model={agent.settings.model!r})",
        )

    @classmethod
    def reopen(cls, agent: Any, mcp_connected: Callable[[], bool]) -> AgentResources:
        """Give ``agent`` (used again after ``close()``) a fresh logger; track it."""
        s = agent.settings
        agent.logger, agent.log_file = log_setup.logger_for_agent(
            s.logging.logger,
            model=s.model,
            agent_id=uuid.uuid4().hex[:8],
            log_level=s.logging.log_level,
            log_file=s.logging.log_file,
            log_to_file=s.logging.log_to_file,
        )
        return cls.track(agent, mcp_connected)

    @property
    def released(self) -> bool:
        """Whether `release` ran (or the owner was collected)."""
        return not self._finalizer.alive

    def release(self) -> None:
        """Close and remove the owned logger's handlers and forget the logger (idempotent)."""
        if self._finalizer.detach() is not None and self._owned:
            _close_handlers(self._name, self._handlers)
