"""A griffe extension for the API reference: use the docstrings Python sees at run time.

The ``Agent`` constructor's parameter reference, and the Args / Returns / Raises sections
of ``run``, ``run_sync``, ``stream``, ``session`` (and ``AgentSession``'s methods), are
written once in ``application/config/reference.py`` and attached when the module is
imported (``help(Agent)`` shows them). Griffe reads source statically, so without this
extension the site would show only the one-line summaries.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import griffe

# Classes whose method docstrings are completed at import time.
RUNTIME_DOCUMENTED = (
    "doc_processing_toolkit.application.agent.Agent",
    "doc_processing_toolkit.agent.core.Agent",
    "doc_processing_toolkit.application.session.session.AgentSession",
)


class RuntimeDocstrings(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.name != "doc_processing_toolkit":
            return
        for path in RUNTIME_DOCUMENTED:
            module_name, class_name = path.rsplit(".", 1)
            runtime_class = getattr(importlib.import_module(module_name), class_name)
            static_class = pkg[path.removeprefix("doc_processing_toolkit.")]
            for name, member in static_class.members.items():
                if member.is_alias or not member.is_function:
                    continue
                runtime = getattr(runtime_class, name, None)
                text = inspect.cleandoc(getattr(runtime, "__doc__", None) or "")
                if text and (member.docstring is None or member.docstring.value != text):
                    lineno = member.docstring.lineno if member.docstring else member.lineno
                    member.docstring = griffe.Docstring(
                        text,
                        lineno=lineno,
                        parent=member,
                        parser=loader.docstring_parser,
                        parser_options=loader.docstring_options,
                    )
