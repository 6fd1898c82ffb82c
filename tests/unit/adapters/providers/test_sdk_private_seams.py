"""Private SDK members are used in one module per adapter, and the batch clients use only
the public seam of their interactive client.

Read from the source: what is checked is where the code reaches, not what it does (the
contract suite, ``tests/contract/test_sdk_paths_google.py``, checks that both SDK paths
give the same results).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import doc_processing_toolkit.adapters.providers as providers

PROVIDERS = Path(providers.__file__).parent

GOOGLE_PRIVATE = (
    "_api_client",
    "_GenerateContentParameters_to_mldev",
    "_GenerateContentResponse_from_mldev",
    "_from_response",
    "_common",
)


def _private_attributes(tree: ast.AST, *, of_self_client: bool) -> list[str]:
    """Attribute names starting with one underscore, read off anything but ``self`` /
    ``cls`` (``of_self_client``: only those read off ``self._client``)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
            continue
        if node.attr.startswith("__"):
            continue
        owner = node.value
        if of_self_client:
            if (
                isinstance(owner, ast.Attribute)
                and owner.attr == "_client"
                and isinstance(owner.value, ast.Name)
                and owner.value.id == "self"
            ):
                found.append(node.attr)
        elif not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
            found.append(node.attr)
    return found


def test_the_google_adapter_uses_private_sdk_members_only_in_its_sdk_private_module() -> None:
    offenders = {}
    for path in sorted((PROVIDERS / "google").glob("*.py")):
        if path.name == "_sdk_private.py":
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        names = [
            name
            for name in GOOGLE_PRIVATE
            if name in _private_attributes(tree, of_self_client=False)
        ]
        names += [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("google")
            for alias in node.names
            if alias.name.startswith("_")
        ]
        names += [name for name in GOOGLE_PRIVATE if f'"{name}"' in source]
        if names:
            offenders[path.name] = names
    assert offenders == {}
    private = (PROVIDERS / "google" / "_sdk_private.py").read_text(encoding="utf-8")
    for name in GOOGLE_PRIVATE[:4]:
        assert name in private


def test_the_batch_clients_use_no_private_member_of_their_client() -> None:
    offenders = {}
    for path in [PROVIDERS / "_batch.py", *sorted(PROVIDERS.glob("*/batch.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _private_attributes(tree, of_self_client=True)
        if names:
            offenders[str(path.relative_to(PROVIDERS))] = names
    assert offenders == {}


def test_the_google_sdk_path_is_chosen_at_import_and_logged_at_debug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from doc_processing_toolkit.adapters.providers.google import _sdk_private

    caplog.set_level("DEBUG", logger=_sdk_private.__name__)
    _sdk_private.available.cache_clear()
    reloaded = importlib.reload(_sdk_private)
    assert reloaded.PRIVATE_PATH is True  # the installed (locked) SDK has every member
    (record,) = [r for r in caplog.records if "stream path chosen" in r.getMessage()]
    assert record.levelname == "DEBUG"
    assert "private" in record.getMessage()
