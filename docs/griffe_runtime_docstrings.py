"""A griffe extension for the API reference: use the docstrings Python sees at run time.

The ``Agent`` constructor's parameter reference, and the Args / Returns / Raises sections
of ``run``, ``run_sync``, ``stream``, ``session`` (and ``AgentSession``'s methods), are
written once in ``application/config/reference.py`` and attached when the module is
imported (``help(Agent)`` shows them). Griffe reads source statically, so without this
extension the site would show only the one-line summaries.

A module of thin wrappers (``agent.compaction``: an application function handed the
composition root's adapters, built with ``functools.wraps``) assigns them as attributes;
the extension documents each as the function it wraps, whose signature and docstring
are the wrapper's.
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

# Modules whose wrapped functions are documented as the functions they wrap.
WRAPPING_MODULES = ("doc_processing_toolkit.agent.compaction",)


class RuntimeDocstrings(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.name != "doc_processing_toolkit":
            return
        for path in WRAPPING_MODULES:
            _alias_wrapped(pkg, path)
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


def _alias_wrapped(pkg: griffe.Module, path: str) -> None:
    runtime_module = importlib.import_module(path)
    static_module = pkg[path.removeprefix("doc_processing_toolkit.")]
    for name, member in list(static_module.members.items()):
        wrapped = getattr(getattr(runtime_module, name, None), "__wrapped__", None)
        if member.is_alias or not member.is_attribute or wrapped is None:
            continue
        target = f"{wrapped.__module__}.{wrapped.__qualname__}"
        static_module.set_member(name, griffe.Alias(name, target, parent=static_module))
