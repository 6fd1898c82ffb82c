"""Report how many documentation snippets ran (shown at the end of ``make test``)."""

from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    import sys

    module = sys.modules.get("test_docs_snippets")
    if module is None:
        return
    tally = module.TALLY
    if tally["pages"]:
        terminalreporter.write_line(
            f"docs snippets: {tally['run']} python blocks ran offline on {tally['pages']} "
            f"pages; {tally['illustration']} captioned as illustrations"
        )
