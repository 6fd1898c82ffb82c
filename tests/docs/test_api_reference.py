"""The API reference site: the Agent page documents every constructor parameter with its
type, default and description, and run / run_sync / stream / session every argument,
return value and error, as mkdocstrings renders them (griffe, with the site's extension);
the site works opened from disk."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import yaml
from docs_snippets import ROOT

griffe = pytest.importorskip("griffe")


@pytest.fixture(scope="module")
def agent_class() -> Any:
    extensions = griffe.load_extensions(
        f"{ROOT / 'docs' / 'griffe_runtime_docstrings.py'}:RuntimeDocstrings"
    )
    package = griffe.load(
        "doc_processing_toolkit",
        search_paths=[str(ROOT)],
        extensions=extensions,
        docstring_parser="google",
    )
    return package["application.agent.Agent"]


def _sections(function: Any) -> dict[str, Any]:
    return {section.kind.value: section.value for section in function.docstring.parse()}


def test_the_agent_page_documents_every_parameter_with_type_default_and_text(
    agent_class: Any,
) -> None:
    from doc_processing_toolkit import Agent

    documented = {p.name.lstrip("*"): p for p in _sections(agent_class["__init__"])["parameters"]}
    for name, parameter in inspect.signature(Agent).parameters.items():
        entry = documented.get(name)
        assert entry is not None, f"{name} is not on the Agent page"
        assert entry.annotation, f"{name} has no type"
        assert len(entry.description.split()) >= 3, f"{name} has no description"
        assert entry.description.rstrip().rstrip(".").rsplit("Default:", 1)[1].strip(), name
        if parameter.default is not inspect.Parameter.empty:
            shown = entry.description.rsplit("Default:", 1)[1].strip().rstrip(".")
            assert shown == repr(parameter.default) or shown.isupper() or shown == "{}", (
                f"{name}: the page shows {shown}, the signature has {parameter.default!r}"
            )


@pytest.mark.parametrize("method", ["run", "run_sync", "stream", "session"])
def test_the_run_methods_document_arguments_returns_and_errors(
    agent_class: Any, method: str
) -> None:
    from doc_processing_toolkit import Agent

    sections = _sections(agent_class[method])
    documented = {p.name.lstrip("*") for p in sections["parameters"]}
    wanted = set(inspect.signature(getattr(Agent, method)).parameters) - {"self", "kwargs"}
    assert wanted <= documented, sorted(wanted - documented)
    assert "returns" in sections or "yields" in sections
    if method != "stream":  # stream() never raises: failures are events (documented)
        assert sections["raises"], method


def test_the_site_works_opened_from_disk() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("!!", ""))
    assert config["use_directory_urls"] is False  # links open page.html, not a folder
    assert "offline" in config["plugins"]  # search without a server
