"""``help(Agent)`` documents every constructor parameter with its default and description.

The text comes from the API reference's parameter table (application/config/reference.py);
the test checks it against the signature always, and against the spec itself when
``../shared/spec/agent-api.txt`` is beside the checkout (as in CI).
"""

from __future__ import annotations

import inspect
import pydoc
import re
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent

SPEC = Path(__file__).resolve().parents[5] / "shared" / "spec" / "agent-api.txt"
DOC = Agent.__init__.__doc__ or ""


def _documented() -> dict[str, str]:
    """Parameter name -> its entry in the Args section."""
    args = DOC.split("Args:", 1)[1].split("Raises:", 1)[0]
    entries: dict[str, str] = {}
    for match in re.finditer(r"^    (\*\*)?(\w+)[ (:]((?:.|\n(?!    \S))*)", args, re.M):
        entries[match.group(2)] = " ".join(match.group(3).split())
    return entries


def test_every_signature_parameter_is_documented_with_its_default() -> None:
    entries = _documented()
    for name, parameter in inspect.signature(Agent.__init__).parameters.items():
        if name == "self":
            continue
        assert name in entries, f"{name} is not documented"
        assert "Default:" in entries[name], name
        if parameter.default is inspect.Parameter.empty:
            continue
        default = entries[name].rsplit("Default:", 1)[1].strip().rstrip(".")
        if re.fullmatch(r"[A-Z_]+", default):  # a named constant, e.g. DEFAULT_..._CHARS
            continue
        assert default == repr(parameter.default) or (
            default == "{}" and parameter.kind is inspect.Parameter.VAR_KEYWORD
        ), f"{name}: documented {default}, signature {parameter.default!r}"


def test_help_shows_the_parameters() -> None:
    text = pydoc.render_doc(Agent)
    for name in ("model", "tools", "max_tool_result_chars", "on_unsupported_part", "client"):
        assert f"{name} (" in text


@pytest.mark.skipif(not SPEC.exists(), reason="needs ../shared/spec beside the checkout")
def test_the_descriptions_are_the_spec_table() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    table = spec[spec.index("__init__(model, instructions=''") :]
    table = table[table.index("Parameters:") : table.index("Raises:")]
    entries = _documented()
    rows = [line.split("\t") for line in table.splitlines() if line.count("\t") == 3]
    for name, _type, description, default in rows[1:]:
        key = name.lstrip("*")
        assert key in entries, key
        # The spec's Sphinx roles (":meth:close") are Markdown code in the docstring.
        description = re.sub(r":(?:attr|class|meth|func|mod):([\w.]*\w)", r"`\1`", description)
        assert " ".join(description.split()) in entries[key], key
        assert entries[key].endswith(f"Default: {default}."), key


def test_every_constructor_parameter_is_a_setting() -> None:
    from doc_processing_toolkit.application.config.settings import SETTING_NAMES, AgentSettings

    fields = set(SETTING_NAMES)
    parameters = set(inspect.signature(Agent.__init__).parameters) - {"self", "deps"}
    assert parameters <= fields, sorted(parameters - fields)
    with pytest.raises(TypeError, match="not Agent settings"):
        AgentSettings.from_arguments({"model": "m", "not_a_setting": 1})


def _public_methods() -> list[tuple[str, object]]:
    from doc_processing_toolkit import AgentSession

    found = []
    for cls in (Agent, AgentSession):
        for name, member in vars(cls).items():
            function = getattr(member, "__func__", member)
            if name.startswith("_") or not inspect.isfunction(function):
                continue
            found.append((f"{cls.__name__}.{name}", function))
    found.append(("AgentSession.to_json", AgentSession_to_json()))
    return found


def AgentSession_to_json() -> object:
    from doc_processing_toolkit import AgentSession

    return AgentSession.to_json


@pytest.mark.parametrize(("name", "function"), _public_methods(), ids=lambda v: str(v)[:40])
def test_every_public_method_documents_each_parameter(name: str, function: object) -> None:
    params = [
        p.name
        for p in inspect.signature(function).parameters.values()  # type: ignore[arg-type]
        if p.name not in ("self", "cls")
    ]
    doc = inspect.getdoc(function) or ""
    assert doc.strip(), f"{name} has no docstring"
    if not params:
        return
    assert "Args:" in doc, f"{name} has parameters but no Args section"
    args = doc.split("Args:", 1)[1]
    missing = [p for p in params if not re.search(rf"^\s+(\*\*)?{p}\b", args, re.M)]
    assert missing == [], f"{name} does not document {missing}"
