"""Logging: structlog over the standard library, one logger per Agent, no secret ever.

* Library modules log with ``get_logger(__name__)``; records flow into stdlib
  logging under ``doc_processing_toolkit.*``.
* Each Agent gets a stdlib logger (or uses the one it was given). Built by the toolkit, it
  writes to ``./logs/Agent-{model}_{timestamp}.log`` and to the console; ``log_to_file=False``
  or ``DPT_AGENT_LOG_TO_FILE=0`` makes it console-only and creates no ``./logs/``.
  ``AGENT_LOG_LEVEL`` overrides ``log_level``.
* While an Agent runs, library records are forwarded to that Agent's logger (a context
  variable says which Agent is running), so one file holds the whole run.
* Every handler the toolkit builds carries `RedactingFilter`: registered secrets
  (API keys, bearer tokens) are replaced by ``***`` in the message and its arguments,
  whatever the level.
"""

from __future__ import annotations

import contextvars
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from doc_processing_toolkit._logging import redact, register_secret, set_listener_check
from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.domain.errors import ConfigurationError

if TYPE_CHECKING:
    from doc_processing_toolkit.application.config.settings import AgentSettings

__all__ = [
    "RedactingFilter",
    "active_agent_logger",
    "build_agent_logger",
    "handled",
    "install_forwarding",
    "log_agent_created",
    "logger_for_agent",
    "redact",
    "register_secret",
]

_LEVELS = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", "NOTSET"}
_configured = False
_configured_lock = threading.Lock()
_current_logger: contextvars.ContextVar[logging.Logger | None] = contextvars.ContextVar(
    "dpt_current_agent_logger", default=None
)


class RedactingFilter(logging.Filter):
    """Masks secrets in a record's final message (args are rendered first)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = str(record.msg)
        record.msg = redact(message)
        record.args = None
        return True


class _ForwardToActiveAgent(logging.Handler):
    """Sends library records to the logger of the Agent that is running, if any."""

    def emit(self, record: logging.LogRecord) -> None:
        target = _current_logger.get()
        if target is None or record.name == target.name:
            return
        if target.isEnabledFor(record.levelno):
            target.handle(record)


def handled(logger: logging.Logger, level: int) -> bool:
    """Whether a record of ``level`` logged on ``logger`` would reach any handler (its own
    or one up the propagation chain; the forwarding handler aside): a line nobody takes
    is then not built at all."""
    if not logger.isEnabledFor(level):
        return False
    current: logging.Logger | None = logger
    while current is not None:
        for handler in current.handlers:
            if level >= handler.level and not isinstance(handler, _ForwardToActiveAgent):
                return True
        if not current.propagate:
            return False
        current = current.parent
    return False


def _listens(logger: logging.Logger, level: int) -> bool:
    """Whether a record of ``level`` from ``logger`` reaches any handler: the running
    Agent's logger (forwarding) or a handler on the way up (the host's, pytest's, ...).

    The package logger sits at DEBUG for forwarding, so every library logger is enabled;
    this is what lets a library event nobody would see cost one check, not an event.
    """
    target = _current_logger.get()
    if target is not None and target.isEnabledFor(level):
        return True
    # The forwarding handler counts as found, so lastResort never fires for these.
    return handled(logger, level)


def install_forwarding() -> None:
    """Install the forwarding handler on the package logger once."""
    global _configured
    with _configured_lock:
        if _configured:
            return
        _configured = True
    package = logging.getLogger("doc_processing_toolkit")
    if not any(isinstance(h, _ForwardToActiveAgent) for h in package.handlers):
        package.addHandler(_ForwardToActiveAgent())
        if package.level == logging.NOTSET:
            package.setLevel(logging.DEBUG)
    set_listener_check(_listens)


def _resolve_level(log_level: str, switches: environment.LoggingSwitches) -> int:
    """The level to use: AGENT_LOG_LEVEL when set, else ``log_level`` (both validated)."""
    for source, value in (
        ("log_level", log_level),
        ("AGENT_LOG_LEVEL", switches.agent_log_level),
    ):
        if value is not None and str(value).upper() not in _LEVELS:
            raise ConfigurationError(
                f"{source} {value!r} is not one of {', '.join(sorted(_LEVELS))}"
            )
    name = str(switches.agent_log_level or log_level).upper()
    return logging.getLevelName(name)  # type: ignore[no-any-return]


def build_agent_logger(
    *,
    model: str,
    agent_id: str,
    log_level: str = "DEBUG",
    log_file: str | None = None,
    log_to_file: bool = True,
) -> tuple[logging.Logger, str | None]:
    """A fresh per-Agent logger and the file it writes (None when console-only)."""
    install_forwarding()
    switches = environment.logging_switches()
    level = _resolve_level(log_level, switches)
    safe_model = re.sub(r"[^A-Za-z0-9._-]", "_", model)
    name = f"doc_processing_toolkit.Agent.{safe_model}.{agent_id}"
    fresh = name not in logging.Logger.manager.loggerDict
    logger = logging.getLogger(name)
    if fresh:
        # A new leaf logger: nothing has cached a level through it yet, so set the level
        # without `setLevel`, which clears every logger's cache (once per Agent: per job
        # in a fleet whose factory builds an Agent per job).
        logger.level = level
    else:
        logger.setLevel(level)
    logger.propagate = False
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    console = logging.StreamHandler()
    # The console shows warnings and above unless AGENT_LOG_LEVEL asks for more.
    console.setLevel(level if switches.agent_log_level else max(level, logging.WARNING))
    console.setFormatter(formatter)
    console.addFilter(RedactingFilter())
    logger.addHandler(console)
    path: str | None = None
    if switches.log_to_file and log_to_file:
        if log_file:
            path = log_file
        else:
            stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
            path = str(Path("logs") / f"Agent-{safe_model}_{stamp}.log")
        try:
            # Open it now (then close): a log file that cannot be written must not break
            # the Agent, and must not surface later as a traceback from inside a run.
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            logger.warning(
                "cannot write the log file %s (%s): logging to the console only",
                path,
                exc.strerror or type(exc).__name__,
            )
            path = None
        else:
            file_handler = logging.FileHandler(path, encoding="utf-8", delay=True)
            file_handler.setLevel(level)
            file_handler.setFormatter(formatter)
            file_handler.addFilter(RedactingFilter())
            logger.addHandler(file_handler)
    elif log_file:
        logger.warning("log_file=%s ignored: logging to file is off", log_file)
    return logger, path


def logger_for_agent(
    supplied: logging.Logger | None,
    *,
    model: str,
    agent_id: str,
    log_level: str = "DEBUG",
    log_file: str | None = None,
    log_to_file: bool = True,
) -> tuple[logging.Logger, str | None]:
    """The Agent's logger and its file: the one the caller ``supplied`` (library records
    forwarded to it, no file), else a fresh per-Agent logger (`build_agent_logger`)."""
    if supplied is not None:
        install_forwarding()
        return supplied, None
    return build_agent_logger(
        model=model,
        agent_id=agent_id,
        log_level=log_level,
        log_file=log_file,
        log_to_file=log_to_file,
    )


@contextmanager
def active_agent_logger(logger: logging.Logger) -> Iterator[None]:
    """Forward library records to ``logger`` for the duration of the block."""
    token = _current_logger.set(logger)
    try:
        yield
    finally:
        _current_logger.reset(token)


def log_agent_created(logger: logging.Logger, settings: AgentSettings, provider: str) -> None:
    """The Agent's DEBUG line on construction (whether a key was given, never the key)."""
    logger.debug(
        "Agent created: model=%s provider=%s tools=%d api_key=%s",
        settings.model,
        provider,
        len(settings.tools.entries),
        "set" if settings.api_key else "from environment",
    )
