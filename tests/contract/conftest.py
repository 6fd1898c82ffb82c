"""Our runs of the provider contract suite: one emulator-backed harness per module.

Each module names its preset (``CONTRACT_PRESET = "anthropic"``) and subclasses
ProviderContract; the ``contract_harness`` fixture below builds the preset's
EmulatorHarness once per module, or skips the module with the reason when that
adapter (or its SDK) is not there. ``public_sdk_path`` (from ``sdk_paths``) puts a module's
adapter on its public-SDK path for a test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from doc_processing_toolkit.testing.contract import ContractHarness, presets
from doc_processing_toolkit.testing.contract.sdk_paths import public_sdk_path  # noqa: F401


@pytest.fixture(scope="module")
def contract_harness(request: pytest.FixtureRequest) -> Iterator[ContractHarness]:
    name = getattr(request.module, "CONTRACT_PRESET", None)
    if not isinstance(name, str):
        pytest.fail(f"{request.module.__name__} sets no CONTRACT_PRESET", pytrace=False)
    build = getattr(presets, f"{name}_harness", None)
    if build is None:
        pytest.skip(f"no contract preset for {name!r}: the {name} adapter has not landed yet")
    try:
        harness = build()
    except ModuleNotFoundError as exc:  # the adapter or its SDK is absent; other errors fail
        pytest.skip(f"the {name} adapter is not available: {exc}")
    with harness:
        yield harness
