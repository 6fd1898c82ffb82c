"""The public provider contract suite: prove a ModelClient adapter correct.

* `ContractHarness` — what you implement for your adapter (or use
  `EmulatorHarness` when it talks to the loopback ProviderEmulator);
* `ProviderContract` — the suite; subclass it in a test module and provide a
  ``contract_harness`` fixture;
* ``pytest_plugins = ["doc_processing_toolkit.testing.contract.plugin"]`` — optional:
  registers the ``provider_contract`` marker on every suite test and explains a missing
  ``contract_harness`` fixture.
* `sdk_paths` — for an adapter with a fast path over private SDK members: the suite on its
  public-SDK path (``public_sdk_path``) and both paths compared (``SdkPathComparison``).

The suite module imports pytest; import it only from tests. See
``docs/guide/provider-plugins.md``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

# Under pytest, let the suite's plain asserts report their operands like a test module's.
# Registered before any suite module is imported; a no-op outside a pytest run.
if "pytest" in sys.modules:
    sys.modules["pytest"].register_assert_rewrite(
        "doc_processing_toolkit.testing.contract.suite",
        "doc_processing_toolkit.testing.contract.streaming",
        "doc_processing_toolkit.testing.contract.sdk_paths",
    )

from doc_processing_toolkit.testing.contract.harness import (
    ContractCapabilities,
    ContractHarness,
    EmulatorHarness,
    unreachable_url,
)

if TYPE_CHECKING:
    from doc_processing_toolkit.testing.contract.suite import ProviderContract

__all__ = [
    "ContractCapabilities",
    "ContractHarness",
    "EmulatorHarness",
    "ProviderContract",
    "unreachable_url",
]


def __getattr__(name: str) -> object:
    # The suite imports pytest: load it only when asked for.
    if name == "ProviderContract":
        from doc_processing_toolkit.testing.contract.suite import ProviderContract

        return ProviderContract
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
