"""Importing a module has no side effect on the composition root (application/container.py).

Nothing is installed as a process default when a module is imported: the documented entry
points (``doc_processing_toolkit.agent``, ``doc_processing_toolkit.fleet``) pass the
container's adapters in when their objects are built, and the container is built then.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

IMPORT_EVERYTHING = """
import importlib, pkgutil
import doc_processing_toolkit as pkg

for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)

from doc_processing_toolkit.application import container, deps
from doc_processing_toolkit.application.agent import Agent as ApplicationAgent
from doc_processing_toolkit.application.fleet.fleet import Fleet as ApplicationFleet
from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.testing import FakeModel, reply


def application_agent():
    return ApplicationAgent("claude-sonnet-5-5", client=FakeModel([]), log_to_file=False)


print("built" if container._default is not None else "unbuilt")
for name, build in (
    ("agent", application_agent),
    ("fleet", lambda: ApplicationFleet(lambda: None, name="lazy")),
):
    try:
        build()
        print(name, "installed")
    except StateError:
        print(name, "uninstalled")

from doc_processing_toolkit import Agent

agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("hi")]), log_to_file=False)
print("built" if container._default is not None else "unbuilt", agent.run_sync("x").output)
"""


def test_importing_every_module_leaves_the_container_unbuilt_and_uninstalled() -> None:
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERYTHING],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=240,
    )
    assert out.stdout.split("\n")[:-1] == [
        "unbuilt",
        "agent uninstalled",
        "fleet uninstalled",
        "built hi",
    ], out.stderr[-2000:]
