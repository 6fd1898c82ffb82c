"""ProviderEmulator: a loopback server speaking provider wire protocols from a script."""

from doc_processing_toolkit.testing.emulator import (
    chat_completions_wire,  # noqa: F401 (routes)
    google_wire,  # noqa: F401 (routes)
    openai_wire,  # noqa: F401 (routes)
)
from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    DialectRoute,
    EmulatorCall,
    RecordedRequest,
)
from doc_processing_toolkit.testing.emulator.server import (
    DIALECT_ROUTES,
    ProviderEmulator,
    register_dialect_routes,
)

__all__ = [
    "DIALECT_ROUTES",
    "EXHAUSTED_MESSAGE",
    "DialectRoute",
    "EmulatorCall",
    "ProviderEmulator",
    "RecordedRequest",
    "register_dialect_routes",
]
