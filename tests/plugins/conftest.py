"""Make the example echo plug-in discoverable as an installed distribution, without pip.

:func:`echo_distribution` writes ``echo_provider-0.1.0.dist-info`` (METADATA and
``entry_points.txt`` registering ``echo`` under ``doc_processing_toolkit.providers`` (the
client), ``doc_processing_toolkit.history_codecs`` (the codec) and
``doc_processing_toolkit.provider_profiles`` (the profile)) into a temporary directory,
puts it (and the package's parent directory) on ``sys.path`` and clears importlib's
caches; everything is undone on exit. :func:`echo_registry` makes the process registry
know the echo model.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from dependency_injector import providers
from echo_provider.registry import ECHO_ROW

from doc_processing_toolkit.application.container import (
    CODEC_ENTRY_POINT_GROUP,
    ENTRY_POINT_GROUP,
    PROFILE_ENTRY_POINT_GROUP,
    default_container,
)
from doc_processing_toolkit.testing import StaticRegistry

PLUGIN_ROOT = Path(__file__).resolve().parent
"""The directory holding the ``echo_provider`` package (its "site-packages")."""


@contextmanager
def echo_distribution(site: Path) -> Iterator[Path]:
    """Install the echo plug-in's metadata into ``site`` and put it on sys.path."""
    dist = site / "echo_provider-0.1.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: echo-provider\nVersion: 0.1.0\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\necho = echo_provider:EchoModelClient\n\n"
        f"[{CODEC_ENTRY_POINT_GROUP}]\necho = echo_provider:EchoHistoryCodec\n\n"
        f"[{PROFILE_ENTRY_POINT_GROUP}]\necho = echo_provider:EchoProfile\n",
        encoding="utf-8",
    )
    added = [p for p in (str(site), str(PLUGIN_ROOT)) if p not in sys.path]
    sys.path[:0] = added
    importlib.invalidate_caches()
    try:
        yield dist
    finally:
        for path in added:
            sys.path.remove(path)
        importlib.invalidate_caches()


@pytest.fixture(scope="module")
def echo_plugin_installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The echo plug-in, discoverable under the provider, codec and profile groups."""
    with echo_distribution(tmp_path_factory.mktemp("site-packages")) as dist:
        yield dist


@pytest.fixture
def echo_registry() -> Iterator[StaticRegistry]:
    """The process registry, overridden to know the echo model (restored afterwards)."""
    registry = StaticRegistry([ECHO_ROW])
    container = default_container()
    container.registry.override(providers.Object(registry))
    try:
        yield registry
    finally:
        container.registry.reset_override()
