"""ProviderEmulator: a loopback server speaking provider wire protocols from a script.

It needs starlette and uvicorn, which the ``testing`` extra installs
(``pip install 'doc-processing-toolkit[testing]'``).
"""

from doc_processing_toolkit.testing.emulator import _requirements  # noqa: F401 (first)
from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    DialectRoute,
    EmulatorCall,
    RecordedRequest,
)
from doc_processing_toolkit.testing.emulator.routes import DIALECT_ROUTES, register_dialect_routes
from doc_processing_toolkit.testing.emulator.server import ProviderEmulator

__all__ = [
    "DIALECT_ROUTES",
    "EXHAUSTED_MESSAGE",
    "DialectRoute",
    "EmulatorCall",
    "ProviderEmulator",
    "RecordedRequest",
    "register_dialect_routes",
]
