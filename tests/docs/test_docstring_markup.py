"""The API reference is rendered by mkdocstrings from Markdown docstrings: a Sphinx role
(":class:`X`", ":meth:close") would show as literal text, so none may appear."""

from __future__ import annotations

import re

from docs_snippets import ROOT

ROLE = re.compile(r":(?:py:)?(?:attr|class|meth|func|mod|exc|data|obj|const):[`~.\w]")


def test_no_sphinx_role_in_the_package() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "doc_processing_toolkit").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ROLE.search(line)
    ]
    assert not found, "Sphinx roles render as literal text on the site:\n" + "\n".join(found)


def test_no_sphinx_role_in_the_runtime_docstrings() -> None:
    # Docstrings assembled at import time (Agent.__init__'s, from the spec's table) too.
    from doc_processing_toolkit import Agent, AgentResult
    from doc_processing_toolkit.agent.session import AgentSession

    for owner in (Agent, AgentResult, AgentSession):
        for name in dir(owner):
            doc = getattr(getattr(owner, name, None), "__doc__", None) or ""
            assert not ROLE.search(doc), f"{owner.__name__}.{name}: {ROLE.search(doc)}"


def test_the_agent_reference_promises_no_unbuilt_feature() -> None:
    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.application.config.validation import NOT_YET_IMPLEMENTED

    if not NOT_YET_IMPLEMENTED:
        assert "NotImplementedError" not in (Agent.__init__.__doc__ or "")


def convert(text: str) -> str:
    """``text`` with every Sphinx role made a Markdown code span (``:class:`~a.B``` ->
    ```B```, ``:meth:close`` -> ```close```)."""

    def code(match: re.Match[str]) -> str:
        target = (
            match["target"].split("<")[0].strip() if "<" in match["target"] else match["target"]
        )
        if match["tilde"]:
            target = target.rsplit(".", 1)[-1]
        return f"`{target.lstrip('.')}`"

    text = re.sub(
        r":(?:py:)?(?:attr|class|meth|func|mod|exc|data|obj|const):`(?P<tilde>~?)(?P<target>[^`]+)`",
        code,
        text,
    )
    return re.sub(
        r":(?:attr|class|meth|func|mod|exc|data|obj|const):([A-Za-z_][\w.]*\w)", r"`\1`", text
    )


if __name__ == "__main__":
    # After a merge brings roles back: python tests/docs/test_docstring_markup.py --fix
    import sys

    if sys.argv[1:] == ["--fix"]:
        for path in sorted((ROOT / "doc_processing_toolkit").rglob("*.py")):
            before = path.read_text(encoding="utf-8")
            after = convert(before)
            if after != before:
                path.write_text(after, encoding="utf-8")
                print(f"converted {path.relative_to(ROOT)}")
