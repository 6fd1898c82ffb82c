"""One fleet job: an Agent run whose requests and tool calls are durable steps.

`FleetJobRunner` is the `JobRunner`
the engine calls for each job (and again, to replay it, after a crash). It gets the job's
Agent from the fleet's factory (an Agent the factory returns again is shared: see
`_AgentUse`), installs a `JobScope` for the run (so the loop
talks to a `JobModelClient` and
each tool call is a step) and turns the outcome into the job's result: JSON data with
the output, the ledger and the cost. A run that fails still returns a result (with
``error`` and the partial ledger), so its spend is counted. The result also says how many
model requests were in flight when a worker running the job died
(``unrecorded_requests``): each may have been answered and billed, and no ledger holds it.

Tool calls are delivered at least once: a tool that was running when the worker died
runs again when the job resumes. Each call runs with a
`ToolContext` whose ``idempotency_key`` is the
same on that re-execution, so a tool can make its effect once. A tool that raises a
``BaseException`` (``SystemExit``, ...) fails its job with a ToolExecutionError; only
KeyboardInterrupt and cancellation go through (the job then resumes later).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.config.schema_reference import structured_options
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.application.fleet.approvals import (
    parked_output,
    resume_job,
    waiting_record,
    with_parked,
)
from doc_processing_toolkit.application.fleet.batching import RoundBatcher
from doc_processing_toolkit.application.fleet.sending import JobModelClient, ProviderGate
from doc_processing_toolkit.application.step_scope import run_scope
from doc_processing_toolkit.application.telemetry.runtime import joined
from doc_processing_toolkit.domain.errors import (
    DocProcessingToolkitError,
    StateError,
    ToolExecutionError,
)
from doc_processing_toolkit.domain.fleet import RateLimit, ToolContext, lane_name, tool_context_var
from doc_processing_toolkit.domain.tools.specs import ToolOutcome
from doc_processing_toolkit.ports.batch import BatchClient
from doc_processing_toolkit.ports.durable import DurableSteps
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["FleetJobRunner", "JobScope", "result_of"]

log = get_logger(__name__)


class FleetAgent(Protocol):
    """What the fleet needs of the Agent its factory builds."""

    @property
    def provider(self) -> str: ...

    async def run(self, message: str, *, files: list[Any] | None = None) -> Any:
        """Also called with ``output_schema`` and ``evidence`` for a structured job."""

    async def close(self) -> None: ...


class JobScope:
    """The run scope of one job: its model client and its tool calls become steps."""

    def __init__(
        self,
        steps: DurableSteps,
        gate: ProviderGate,
        *,
        lane: str | None,
        batcher: RoundBatcher | None,
        storm_seconds: float,
        job_id: str = "",
    ) -> None:
        self._steps = steps
        self._gate = gate
        self._lane = lane
        self._batcher = batcher
        self._storm_seconds = storm_seconds
        self._job_id = job_id
        self.parked: dict[str, Any] = {}
        """What the job stores when its run ends awaiting approval (fleet/approvals.py)."""
        self._answers = [0]
        """Model responses the job has had so far (a replay counts them again, in the
        same order): the round of the tool calls that follow."""

    def model_client(self, client: ModelClient) -> ModelClient:
        """The job's durable client over the Agent's ``client``."""
        return JobModelClient(
            client,
            self._steps,
            self._gate,
            send=self._batcher.send if self._batcher is not None else None,
            lane=self._lane if self._batcher is None else None,
            storm_seconds=self._storm_seconds,
            answered=self._answered,
        )

    def _answered(self) -> None:
        self._answers[0] += 1

    def tool_context(
        self, name: str, arguments: dict[str, Any], digest: str, call_id: str | None
    ) -> ToolContext:
        """The context (and idempotency key) of one tool call of the current round."""
        call = call_id or f"{name}#{digest}"
        key = f"{self._job_id}/{self._answers[0]}/{call}"
        return ToolContext(self._job_id, name, call_id, key)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        call: Callable[[], Awaitable[ToolOutcome]],
        *,
        call_id: str | None = None,
    ) -> ToolOutcome:
        """One tool call as a step named after the tool and a digest of its arguments (so
        a replay that reached the calls of a round in another order fails loudly), run
        with its `ToolContext`. A BaseException other than KeyboardInterrupt or
        cancellation becomes a ToolExecutionError (checkpointed: the job fails)."""
        digest = hashlib.sha256(
            json.dumps(arguments, sort_keys=True, default=str).encode()
        ).hexdigest()[:12]
        context = self.tool_context(name, arguments, digest, call_id)
        job_id = self._job_id

        async def run() -> ToolOutcome:
            token = tool_context_var().set(context)
            try:
                return await call()
            except (KeyboardInterrupt, asyncio.CancelledError):
                raise
            except Exception:
                raise
            except BaseException as exc:  # SystemExit, GeneratorExit, ...: never the worker's
                raise ToolExecutionError(
                    f"tool {name!r} raised {type(exc).__name__}{_args(exc)} in fleet job "
                    f"{job_id!r}: the job fails (a tool must not end the worker)"
                ) from None
            finally:
                tool_context_var().reset(token)

        return await self._steps.step(f"tool:{name}#{digest}", run)


def _args(exc: BaseException) -> str:
    return f"({', '.join(repr(a) for a in exc.args)})" if exc.args else ""


def result_of(
    job_id: str, result: Any, error: BaseException | None, *, unrecorded_requests: int = 0
) -> dict[str, Any]:
    """A job's result as JSON data (``result`` is an AgentResult, or a failed run's
    partial one, or None; ``unrecorded_requests``: see `DurableSteps.unrecorded_starts`)."""
    data: dict[str, Any] = {
        "job_id": job_id,
        "output": None,
        "cost": 0.0,
        "input_tokens": 0,
        "output_tokens": 0,
        "requests": 0,
        "tools_used": [],
        "records": [],
        "error": None,
        "error_type": None,
        "unrecorded_requests": unrecorded_requests,
    }
    if result is not None:
        records = [dict(r) for r in getattr(result, "request_cost_records", [])]
        data.update(
            output=_jsonable(getattr(result, "output", None)),
            cost=float(getattr(result, "cost", 0.0) or 0.0),
            input_tokens=int(getattr(result, "input_tokens", 0) or 0),
            output_tokens=int(getattr(result, "output_tokens", 0) or 0),
            requests=len(records),
            tools_used=list(getattr(result, "tools_used", [])),
            records=_jsonable(records),
        )
        if evidence := getattr(result, "evidence", None):  # run(..., evidence=True)
            data["evidence"] = {path: dataclasses.asdict(e) for path, e in evidence.items()}
            data["unverified_fields"] = list(getattr(result, "unverified_fields", []))
    if error is not None:
        data["error"] = str(error) or type(error).__name__
        data["error_type"] = type(error).__name__
    return data


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


class FleetJobRunner:
    """Runs fleet jobs on one worker (shared gates and batchers per provider)."""

    def __init__(
        self,
        agent_factory: Callable[[], FleetAgent],
        *,
        fleet: str,
        rate_limits: dict[str, RateLimit],
        batch_clients: Callable[[str], BatchClient | None] | None = None,
        storm_seconds: float = 900.0,
        batch_settle_seconds: float = 0.2,
        batch_window_seconds: float = 30.0,
    ) -> None:
        """Args:
        agent_factory: Builds the Agent of one job (called once per job and per replay).
        fleet: The fleet's name (its lanes are named after it).
        rate_limits: provider -> the fleet-wide rate limit of its requests.
        batch_clients: provider -> its BatchClient (batch mode), or None for a provider
            without one (its jobs run interactively). None: interactive mode.
        """
        self._factory = agent_factory
        self._fleet = fleet
        self._limits = rate_limits
        self._batch_clients = batch_clients
        self._storm_seconds = storm_seconds
        self._settle = batch_settle_seconds
        self._window = batch_window_seconds
        self._gates: dict[str, ProviderGate] = {}
        self._batchers: dict[str, RoundBatcher | None] = {}
        self._agents = _AgentUse()

    def _gate(self, provider: str) -> ProviderGate:
        if provider not in self._gates:
            self._gates[provider] = ProviderGate(provider, self._limits.get(provider))
        return self._gates[provider]

    def _batcher(self, provider: str) -> RoundBatcher | None:
        if self._batch_clients is None:
            return None
        if provider not in self._batchers:
            client = self._batch_clients(provider)
            if client is None:
                log.warning(
                    "no batch API for this provider: its jobs run interactively",
                    provider=provider,
                )
                self._batchers[provider] = None
            else:
                self._batchers[provider] = RoundBatcher(
                    client, settle_seconds=self._settle, window_seconds=self._window
                )
        return self._batchers[provider]

    @property
    def batchers(self) -> dict[str, RoundBatcher | None]:
        """provider -> its batcher on this worker (None: the provider runs interactively)."""
        return dict(self._batchers)

    async def __call__(
        self, job_id: str, payload: dict[str, Any], steps: DurableSteps
    ) -> dict[str, Any]:
        """Run job ``job_id`` (``payload``: ``message`` and ``files``) and return its result."""
        agent = self._agents.take(self._factory())
        provider = agent.provider
        batcher = self._batcher(provider)
        lane = lane_name(self._fleet, provider) if provider in self._limits else None
        scope = JobScope(
            steps,
            self._gate(provider),
            lane=lane,
            batcher=batcher,
            storm_seconds=self._storm_seconds,
            job_id=job_id,
        )
        if batcher is not None:
            batcher.join()
        try:
            result, error = await self._run(agent, job_id, payload, scope)
        finally:
            if batcher is not None:
                batcher.leave()
            if self._agents.give_back(agent):
                await agent.close()
        unrecorded = await steps.unrecorded_starts()
        if unrecorded:
            log.warning(
                "model requests were in flight when a worker running this job died: they "
                "may have been billed without being recorded",
                job_id=job_id,
                unrecorded_requests=unrecorded,
            )
        data = result_of(job_id, result, error, unrecorded_requests=unrecorded)
        with_parked(data, payload, scope.parked)
        return data

    async def _run(
        self, agent: FleetAgent, job_id: str, payload: dict[str, Any], scope: JobScope
    ) -> tuple[Any, BaseException | None]:
        """The job's AgentResult (or a failed run's partial one) and the error that ended it."""
        try:
            with run_scope(scope), joined(payload.get("trace_context")):
                options = structured_options(waiting_record(payload) or payload)
                if "resume_of" in payload:  # a parked job's continuation
                    result = await resume_job(agent, payload)
                else:
                    result = await agent.run(payload["message"], files=_files(payload), **options)
                scope.parked = parked_output(agent, result, options)
            return result, None
        except DocProcessingToolkitError as exc:
            return getattr(exc, "partial_result", None), exc
        except (KeyboardInterrupt, asyncio.CancelledError):
            raise  # the worker stops: the job stays running and resumes with it
        except BaseExceptionGroup as exc:  # a tool's error, raised through a task group
            typed = _typed(exc)
            if typed is exc:
                raise
            return getattr(exc, "partial_result", None), typed
        except Exception:
            raise  # the engine records it (and its own control flow passes)
        except BaseException as exc:  # SystemExit & co. fail this job, never the worker
            log.error("fleet job raised a BaseException", job_id=job_id, error=type(exc).__name__)
            return getattr(exc, "partial_result", None), _typed(exc)


class _AgentUse:
    """Which of the factory's Agents a finished job may close.

    A factory that builds an Agent per job gets each closed when its job ends. A factory
    that returns one Agent again and again (``lambda: agent``) shares it: it is closed only
    when no job of this worker runs on it and it has not come back before (once it comes
    back from the factory after a close, it is never closed between jobs again: it stays
    connected for the next job, and its owner closes it). Closing it under a running job
    would close that job's connections."""

    def __init__(self) -> None:
        self._running: dict[int, int] = {}
        self._closed: weakref.WeakSet[Any] = weakref.WeakSet()
        self._shared: weakref.WeakSet[Any] = weakref.WeakSet()

    def take(self, agent: FleetAgent) -> FleetAgent:
        key = id(agent)
        with contextlib.suppress(TypeError):  # an object without weak references
            if self._running.get(key) or agent in self._closed:
                self._shared.add(agent)
        self._running[key] = self._running.get(key, 0) + 1
        return agent

    def give_back(self, agent: FleetAgent) -> bool:
        """One job done with ``agent``: True when the caller closes it now."""
        key = id(agent)
        left = self._running.get(key, 1) - 1
        if left > 0:
            self._running[key] = left
            return False
        self._running.pop(key, None)
        try:
            if agent in self._shared:
                return False
            self._closed.add(agent)
        except TypeError:
            pass
        return True


def _typed(exc: BaseException) -> BaseException:
    """The error a job reports for ``exc``: the one toolkit error inside a group, an
    Exception as it is, any other BaseException as a StateError naming it."""
    if isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if isinstance(e, DocProcessingToolkitError)]
        if len(inner) == 1:
            return inner[0]
    if isinstance(exc, Exception):
        return exc
    return StateError(f"the job raised {type(exc).__name__}{_args(exc)}: the job fails")


def _files(payload: dict[str, Any]) -> list[Any] | None:
    """A job's files as ``run(files=...)`` takes them (stored Documents rebuilt)."""
    stored = payload.get("files") or []
    rebuilt = [
        DocumentSource.from_payload(f) if DocumentSource.is_payload(f) else f for f in stored
    ]
    return rebuilt or None
