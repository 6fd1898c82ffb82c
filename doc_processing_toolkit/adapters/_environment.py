"""The process environment as the adapters read it, in one place.

The application reads its switches in ``application/config/environment.py`` and hands the
adapters what the composition root builds them with (the batch polling, for one). What
an adapter must still read itself — a vendor's API-key and base-URL variables (named by
its client class), ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``, ``DPT_GOOGLE_API_VERSION``, the
``DPT_GOOGLE_FILE_*`` upload polling, ``DPT_REGISTRY_FILE``, ``DPT_DBOS_LOG_LEVEL``,
``DPT_DBOS_TRACING``, the ``DPT_FASTMCP_*`` switches, whether an
``ANTHROPIC_OPEN_TELEMETRY*`` variable is set (the Anthropic SDK's own spans) — it reads
through this module, at the moment it did before (a request, a client build, the
registry's first load, a worker start).
"""

from __future__ import annotations

import os

__all__ = ["OFF_VALUES", "switch", "variable"]

OFF_VALUES = ("0", "false", "no", "off")
"""The spellings that turn an on/off switch off (case-insensitive)."""


def variable(name: str, default: str | None = None) -> str | None:
    """The value of the variable ``name`` (``default`` when unset)."""
    return os.environ.get(name, default)


def switch(name: str, default: bool = True) -> bool:
    """An on/off switch: unset or blank is ``default``; `OFF_VALUES` turn it off."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() not in OFF_VALUES
