"""Fails early, naming the extra, when the emulator's web stack is not installed."""

import importlib.util

from doc_processing_toolkit.domain.errors import MissingDependencyError

MISSING = [name for name in ("starlette", "uvicorn") if importlib.util.find_spec(name) is None]
if MISSING:
    raise MissingDependencyError(
        f"the ProviderEmulator needs {' and '.join(MISSING)}: "
        "pip install 'doc-processing-toolkit[testing]'"
    )
