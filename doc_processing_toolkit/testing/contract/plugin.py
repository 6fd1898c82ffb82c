"""Optional pytest plugin for the provider contract suite.

Load it with ``pytest_plugins = ["doc_processing_toolkit.testing.contract.plugin"]`` in
a test module or the root ``conftest.py``, or with
``-p doc_processing_toolkit.testing.contract.plugin``.
It marks every `ProviderContract`
test ``provider_contract`` (select them with ``-m provider_contract``) and turns a
missing ``contract_harness`` fixture into a message saying what to write.
"""

from __future__ import annotations

import pytest

from doc_processing_toolkit.testing.contract.harness import ContractHarness
from doc_processing_toolkit.testing.contract.suite import ProviderContract

__all__ = ["contract_harness", "pytest_collection_modifyitems", "pytest_configure"]

MARKER = "provider_contract"


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``provider_contract`` marker."""
    config.addinivalue_line(
        "markers", f"{MARKER}: a test of the doc_processing_toolkit provider contract suite"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the suite's tests."""
    for item in items:
        cls = getattr(item, "cls", None)
        if isinstance(cls, type) and issubclass(cls, ProviderContract):
            item.add_marker(MARKER)


@pytest.fixture(scope="module")
def contract_harness() -> ContractHarness:
    """Fails with instructions: override it in your test module, class or conftest."""
    pytest.fail(
        "the provider contract suite needs a `contract_harness` fixture returning a "
        "ContractHarness for your adapter (see docs/guide/provider-plugins.md)",
        pytrace=False,
    )
