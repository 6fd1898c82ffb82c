"""Values read from ``${ENV}`` go back out as the reference, never as the value.

A YAML file's ``${NAME}`` is replaced by the environment's value when it is loaded
(`interpolate_env`); the loader records, for each such value, the text
the file had. `as_written` puts that text back wherever the value appears in data
going out (``Agent.to_config()``, ``dpt config check``): a token in an ``mcp_command``'s
args, a URL's query, a nested provider keyword, the instructions, a ``base_url`` path.
A variable's value embedded in some other string (at least 6 characters, as a registered
secret is) is written as ``${NAME}`` too. Every other literal ``${`` is written as ``$${``,
so loading the result back gives the same strings (mapping keys, which are never
interpolated, are not escaped).

The references of an Agent built by ``from_config`` are kept here, by the Agent, for its
``to_config()`` (`remember`, `references_of`); nothing else keeps them.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.config.yaml_validation import SourceMap

__all__ = ["EnvReferences", "as_written", "references_of", "remember"]

_MIN_EMBEDDED = 6
"""A variable's value shorter than this is replaced only where it is a whole value."""


@dataclass(frozen=True)
class EnvReferences:
    """What a loaded configuration read from the environment."""

    templates: Mapping[str, str] = field(default_factory=dict)
    """An interpolated value -> its text in the file (``${NAME}`` intact)."""
    variables: Mapping[str, str] = field(default_factory=dict)
    """Variable name -> the value the file used."""

    @classmethod
    def of(cls, sources: SourceMap) -> EnvReferences:
        """The references recorded while ``sources``' file was interpolated."""
        return cls(templates=dict(sources.references), variables=dict(sources.environment))

    def __bool__(self) -> bool:
        return bool(self.templates or self.variables)

    def __repr__(self) -> str:  # the values are secrets: only the variable names
        return f"EnvReferences(variables={sorted(self.variables)})"


def _embedded(text: str, references: EnvReferences) -> str | None:
    """``text`` with every variable value in it written as ``${NAME}`` (the rest escaped),
    or None when it holds none."""
    values: dict[str, str] = {}
    for name, value in references.variables.items():
        if len(value) >= _MIN_EMBEDDED and value in text:
            values.setdefault(value, name)
    if not values:
        return None
    pattern = re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))
    out: list[str] = []
    start = 0
    for match in pattern.finditer(text):
        out.append(text[start : match.start()].replace("${", "$${"))
        out.append("${" + values[match.group(0)] + "}")
        start = match.end()
    out.append(text[start:].replace("${", "$${"))
    return "".join(out)


def _string(text: str, references: EnvReferences | None, *, escape: bool = True) -> str:
    if references:
        template = references.templates.get(text)
        if template is not None:
            return template
        embedded = _embedded(text, references)
        if embedded is not None:
            return embedded
    return text.replace("${", "$${") if escape else text


def as_written(data: Any, references: EnvReferences | None) -> Any:
    """A copy of ``data`` (YAML-shaped: mappings, lists, scalars) in which every string
    read from the environment is its ``${NAME}`` text again and every other ``${`` is
    escaped, so that loading it back reads the same values."""
    if isinstance(data, str):
        return _string(data, references)
    if isinstance(data, Mapping):
        return {
            # Keys are never interpolated, so never escaped; an env value is still hidden.
            (_string(k, references, escape=False) if isinstance(k, str) else k): as_written(
                v, references
            )
            for k, v in data.items()
        }
    if isinstance(data, list | tuple):
        return [as_written(v, references) for v in data]
    return data


_BY_OWNER: weakref.WeakKeyDictionary[Any, EnvReferences] = weakref.WeakKeyDictionary()


def remember(owner: Any, references: EnvReferences) -> None:
    """Keep ``references`` for ``owner`` (an Agent built from a file) while it lives."""
    if references:
        try:
            _BY_OWNER[owner] = references
        except TypeError:  # pragma: no cover - an owner that takes no weak reference
            pass


def references_of(owner: Any) -> EnvReferences | None:
    """The references `remember` kept for ``owner``, if any."""
    try:
        return _BY_OWNER.get(owner)
    except TypeError:  # pragma: no cover - unhashable
        return None
