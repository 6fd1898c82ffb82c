"""Fleets of documents: durable, rate-limited Agent runs on a queue (documented import path).

::

    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.fleet import Fleet

    fleet = Fleet(lambda: Agent("claude-sonnet-5-5", tools=[lookup]))
    fleet.submit("inv-001", "Extract the total.", files=["invoices/inv-001.pdf"])
    fleet.run()
    print(fleet.status(), fleet.results()["inv-001"].output)

Tool calls are delivered at least once (a tool running when its worker died runs again
on resume): inside a tool, ``ToolContext.current().idempotency_key`` is the same on that
re-execution, so a tool with a side effect can make it once.

Needs the ``fleet`` extra (DBOS): ``pip install 'doc-processing-toolkit[fleet]'``. See
`Fleet` for every parameter.
This module's `Fleet` is handed the composition root's adapters (DBOS, the registry, the
providers' batch clients) when it is built without ``deps=``; importing it installs
nothing, and ``dbos`` itself is imported when the first Fleet is built.
"""

from doc_processing_toolkit.application.fleet import fleet as _fleet
from doc_processing_toolkit.application.fleet.fleet import FleetDeps
from doc_processing_toolkit.application.fleet.results import FleetResults
from doc_processing_toolkit.domain.fleet import (
    FleetStatus,
    JobRecord,
    JobResult,
    RateLimit,
    ToolContext,
)

__all__ = [
    "Fleet",
    "FleetDeps",
    "FleetResults",
    "FleetStatus",
    "JobRecord",
    "JobResult",
    "RateLimit",
    "ToolContext",
]


def _container_fleet_deps() -> FleetDeps:
    from doc_processing_toolkit.application.container import fleet_deps

    return fleet_deps()


class Fleet(_fleet.Fleet):
    """Durable, rate-limited jobs for one Agent factory (see the module docstring)."""

    _default_deps = staticmethod(_container_fleet_deps)  # the composition root's, on first use
