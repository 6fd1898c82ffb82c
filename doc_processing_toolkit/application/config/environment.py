"""The process environment, read in one place: every ``DPT_*`` switch the application
honours (and ``AGENT_LOG_LEVEL``, ``DOC_TOOLKIT_SESSION_HISTORY_MODE``, the variables a
configuration names with ``${NAME}``), each read at its documented read point into a typed
value.

No other module of ``application/`` or ``domain/`` reads ``os.environ``: a reader calls the
function of its read point here, so a new switch is one constant and one function in this
module, its setting's model and its docs (see docs/guide/configuration.md, "Environment
switches").

Read points (when the value is read; a change in between takes effect at the next one):

* **construction** (``Agent(...)``): `logging_switches`, `prefix_audit`, `deployment`;
* **run** (each ``run`` / ``run_sync`` / ``stream``): `run_switches`, `sync_hooks_offloop`,
  `stream_structured_offloop`, `stream_cancel_on_close` (when a stream closes);
* **retry policy** (each run's loop, and each retried call made outside a run):
  `retry_values`;
* **compaction** (each compaction pass): `compaction_protect_current_turn`;
* **session** (resolving a session's history config, banking a failed turn, restoring a
  foreign history): `session_history_mode`, `session_interrupted_turn`,
  `session_cross_provider_conversion`;
* **fleet** (``Fleet(...)``): `fleet_worker`;
* **composition root** (building a batch client): `batch_polling_values`;
* **telemetry** (when an Agent's or ``instrument()``'s telemetry is built):
  `capture_message_content`;
* **named** (a ``${NAME}`` reference of a YAML file, a provider's API-key variables):
  `variable`;
* **paths** (a file or tool path given as ``~/...``, where it is opened): `expand_user`
  (``HOME``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "AGENT_LOG_LEVEL_ENV",
    "BATCH_POLL_ENVS",
    "BLOCK_BINDING_ENV",
    "CAPTURE_MESSAGE_CONTENT_ENV",
    "COMPACTION_PROTECT_CURRENT_TURN_ENV",
    "FLEET_WORKER_ENV",
    "HISTORY_MODE_ENV",
    "LOG_TO_FILE_ENV",
    "PREFIX_AUDIT_ENV",
    "RETRY_ENVS",
    "SESSION_CONVERSION_ENV",
    "SESSION_INTERRUPTED_TURN_ENV",
    "STREAM_CANCEL_ON_CLOSE_ENV",
    "STREAM_STRUCTURED_OFFLOOP_ENV",
    "STRICT_BUDGET_ENV",
    "SYNC_HOOKS_OFFLOOP_ENV",
    "TOOL_REPORTED_COST_ENV",
    "LoggingSwitches",
    "RetryValues",
    "RunSwitches",
    "batch_polling_values",
    "capture_message_content",
    "compaction_protect_current_turn",
    "deployment",
    "expand_user",
    "fleet_worker",
    "logging_switches",
    "prefix_audit",
    "retry_values",
    "run_switches",
    "session_cross_provider_conversion",
    "session_history_mode",
    "session_interrupted_turn",
    "stream_cancel_on_close",
    "stream_structured_offloop",
    "sync_hooks_offloop",
    "variable",
]

AGENT_LOG_LEVEL_ENV = "AGENT_LOG_LEVEL"
"""Overrides every Agent's ``log_level`` (and opens the console to that level)."""
LOG_TO_FILE_ENV = "DPT_AGENT_LOG_TO_FILE"
"""``0`` / ``false`` / ``no`` / ``off``: console-only logging."""
PREFIX_AUDIT_ENV = "DPT_PREFIX_AUDIT"
"""Turns the shadow prefix audit on process-wide (``1`` / ``true`` / ``on`` / ``yes``)."""
BLOCK_BINDING_ENV = "DPT_ANTHROPIC_BLOCK_BINDING"
"""The process-wide block-binding behaviour (below the Agent's setting, above the row)."""
STRICT_BUDGET_ENV = "DPT_ANTHROPIC_STRICT_BUDGET"
"""``off``: Anthropic's strict tool budget applies per tool only."""
TOOL_REPORTED_COST_ENV = "DPT_AGENT_TOOL_REPORTED_COST"
"""``off`` (or 0 / false / no): the ``_dpt_spend`` markers of tool results are not counted."""
SYNC_HOOKS_OFFLOOP_ENV = "DPT_SYNC_HOOKS_OFFLOOP"
"""``off`` / ``0`` / ``false``: a sync hook runs on the event-loop thread."""
STREAM_STRUCTURED_OFFLOOP_ENV = "DPT_STREAM_STRUCTURED_OFFLOOP"
"""``off`` / ``0``: a streamed run without local tools keeps the provider call on its loop."""
STREAM_CANCEL_ON_CLOSE_ENV = "DPT_STREAM_CANCEL_ON_CLOSE"
"""``off`` / ``0``: closing a stream leaves its run going (unbanked)."""
RETRY_ENVS = ("DPT_MAX_RETRIES", "DPT_RETRY_AFTER_CAP_S", "DPT_RETRY_BACKOFF_S")
"""The retry policy's variables: retries, the retry-after cap, the first backoff step."""
COMPACTION_PROTECT_CURRENT_TURN_ENV = "DPT_COMPACTION_PROTECT_CURRENT_TURN"
"""``off`` / ``0`` / ``false``: Level 2 compaction may fold the current turn."""
HISTORY_MODE_ENV = "DOC_TOOLKIT_SESSION_HISTORY_MODE"
"""The history mode below the Agent's and the session's ``session_history_config``."""
SESSION_INTERRUPTED_TURN_ENV = "DPT_SESSION_INTERRUPTED_TURN"
"""``off``: a failed session turn is not recorded for a resend."""
SESSION_CONVERSION_ENV = "DPT_SESSION_CROSS_PROVIDER_CONVERSION"
"""``off``: a session refuses a history written for another provider (unless neutral)."""
FLEET_WORKER_ENV = "DPT_FLEET_WORKER"
"""The worker id of a Fleet built without ``worker_id``."""
BATCH_POLL_ENVS = ("DPT_BATCH_POLL_INITIAL_S", "DPT_BATCH_POLL_MAX_S", "DPT_BATCH_TIMEOUT_S")
"""The batch clients' polling variables (read by the composition root)."""

CAPTURE_MESSAGE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""``true``: telemetry spans record prompts, outputs, tool arguments and results (redacted)."""

_OFF = ("off", "0", "false", "no")
_TRUE = frozenset({"1", "true", "on", "yes"})


def _text(name: str) -> str:
    return os.environ.get(name, "").strip().lower()


def expand_user(path: str | os.PathLike[str]) -> Path:
    """``path`` with a leading ``~`` replaced by the user's home (``HOME``)."""
    return Path(path).expanduser()


def variable(name: str) -> str | None:
    """The value of the variable ``name`` (None when unset): a ``${NAME}`` reference of a
    configuration, or a provider's API-key variable."""
    return os.environ.get(name)


# ---------------------------------------------------------------------- construction
@dataclass(frozen=True, slots=True)
class LoggingSwitches:
    """The logging variables, read when an Agent builds its logger."""

    agent_log_level: str | None = None
    """``AGENT_LOG_LEVEL`` as set (None or empty: unset)."""
    log_to_file: bool = True
    """False when ``DPT_AGENT_LOG_TO_FILE`` is 0 / false / no / off."""


def logging_switches() -> LoggingSwitches:
    """Read point: construction (an Agent's logger)."""
    to_file = os.environ.get(LOG_TO_FILE_ENV)
    return LoggingSwitches(
        agent_log_level=os.environ.get(AGENT_LOG_LEVEL_ENV),
        log_to_file=to_file is None or to_file.strip().lower() not in _OFF,
    )


def prefix_audit() -> bool:
    """Read point: construction. Whether ``DPT_PREFIX_AUDIT`` turns the audit on."""
    return _text(PREFIX_AUDIT_ENV) in _TRUE


# ---------------------------------------------------------------------- per run
@dataclass(frozen=True, slots=True)
class RunSwitches:
    """The switches the run settings depend on, read at the start of each run."""

    block_binding: str | None = None
    """``DPT_ANTHROPIC_BLOCK_BINDING`` stripped (None when unset or empty; checked by the
    binding resolution, which names the variable)."""
    strict_per_tool_only: bool = False
    """``DPT_ANTHROPIC_STRICT_BUDGET=off``."""
    tool_reported_cost: bool = True
    """False with ``DPT_AGENT_TOOL_REPORTED_COST=off``."""


def run_switches() -> RunSwitches:
    """Read point: each run."""
    return RunSwitches(
        block_binding=os.environ.get(BLOCK_BINDING_ENV, "").strip() or None,
        strict_per_tool_only=os.environ.get(STRICT_BUDGET_ENV, "").lower() == "off",
        tool_reported_cost=_text(TOOL_REPORTED_COST_ENV) not in _OFF,
    )


def sync_hooks_offloop() -> bool:
    """Read point: each run (its hook runner). False when ``DPT_SYNC_HOOKS_OFFLOOP`` is
    off / 0 / false / no."""
    return os.environ.get(SYNC_HOOKS_OFFLOOP_ENV, "on").lower() not in _OFF


def stream_structured_offloop() -> bool:
    """Read point: each streamed run. False when ``DPT_STREAM_STRUCTURED_OFFLOOP`` is off / 0."""
    return _text(STREAM_STRUCTURED_OFFLOOP_ENV) not in ("off", "0")


def stream_cancel_on_close() -> bool:
    """Read point: a stream closed early. False when ``DPT_STREAM_CANCEL_ON_CLOSE`` is
    off / 0."""
    return _text(STREAM_CANCEL_ON_CLOSE_ENV) not in ("off", "0")


# ---------------------------------------------------------------------- retry policy
RetryValues = tuple[str | None, str | None, str | None]
"""``DPT_MAX_RETRIES``, ``DPT_RETRY_AFTER_CAP_S``, ``DPT_RETRY_BACKOFF_S`` as set."""


def retry_values() -> RetryValues:
    """Read point: a retry policy built (each run's loop; a retried call outside a run).
    The policy parses them, cached per distinct set."""
    env = os.environ
    return env.get(RETRY_ENVS[0]), env.get(RETRY_ENVS[1]), env.get(RETRY_ENVS[2])


# ---------------------------------------------------------------------- compaction / session
def compaction_protect_current_turn() -> bool:
    """Read point: each compaction pass. False when
    ``DPT_COMPACTION_PROTECT_CURRENT_TURN`` is off / 0 / false."""
    return _text(COMPACTION_PROTECT_CURRENT_TURN_ENV) not in ("off", "0", "false")


def session_history_mode() -> str:
    """Read point: resolving a session's history config. The mode named by
    ``DOC_TOOLKIT_SESSION_HISTORY_MODE`` ("" when unset; validated by the caller)."""
    return os.environ.get(HISTORY_MODE_ENV, "").strip()


def session_interrupted_turn() -> bool:
    """Read point: banking a failed session turn. False with
    ``DPT_SESSION_INTERRUPTED_TURN=off``."""
    return _text(SESSION_INTERRUPTED_TURN_ENV) != "off"


def session_cross_provider_conversion() -> bool:
    """Read point: restoring a history written for another provider. False with
    ``DPT_SESSION_CROSS_PROVIDER_CONVERSION=off``."""
    return _text(SESSION_CONVERSION_ENV) != "off"


# ---------------------------------------------------------------------- fleet / root
def fleet_worker() -> str | None:
    """Read point: ``Fleet(...)`` without ``worker_id`` (None or empty: unset)."""
    return os.environ.get(FLEET_WORKER_ENV) or None


def batch_polling_values() -> Mapping[str, str]:
    """Read point: the composition root building a batch client. The polling variables
    that are set (the adapter's ``BatchPolling.from_env`` parses them)."""
    return {name: value for name in BATCH_POLL_ENVS if (value := os.environ.get(name))}


# ---------------------------------------------------------------------- telemetry
def capture_message_content() -> bool:
    """Read point: when telemetry is built. Whether
    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` asks for content on the spans."""
    return _text(CAPTURE_MESSAGE_CONTENT_ENV) in _TRUE


def deployment(provider: str) -> str | None:
    """``DPT_<PROVIDER>_DEPLOYMENT`` (``vertex``, ``bedrock``, ``foundry``, ``azure``): the
    deployment of an Agent of that provider that names none; unset or empty: None."""
    return _text(f"DPT_{provider.upper()}_DEPLOYMENT").lower() or None
