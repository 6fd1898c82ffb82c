"""Run one page's python blocks, offline: ``python runner.py blocks.json``.

Started by tests/docs/test_docs_snippets.py in a fresh interpreter whose working directory
is a scratch directory. Before the first block it starts a ``ProviderEmulator`` on
loopback and points every provider at it (``DPT_<PROVIDER>_BASE_URL`` and a fake key), so
an ``Agent("claude-sonnet-5-5")`` written as a reader would write it talks to the emulator
through the real SDK. The emulator is in the page's namespace as ``emulator``: a page's
hidden set-up block scripts it with ``emulator.push(...)``; without a script it answers
every request with a plain text reply. Every connection that is not loopback is refused.

Each block is compiled under its page's name with its own line numbers, so a traceback
points at the line of the Markdown file.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any

_LOOPBACK = ("127.", "::1", "localhost")
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
        raise RuntimeError(f"docs snippets may not reach the network: connect to {host!r}")
    return _real_connect(self, address)


def main(path: str) -> int:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    from doc_processing_toolkit.testing import ProviderEmulator, Reply

    blocks: list[dict[str, Any]] = json.loads(open(path, encoding="utf-8").read())
    with ProviderEmulator(default=Reply(text="Done.")) as emulator:
        for provider, url in (
            ("ANTHROPIC", emulator.anthropic_base_url),
            ("OPENAI", emulator.openai_base_url),
            ("GOOGLE", emulator.google_base_url),
            ("FIREWORKS", emulator.fireworks_base_url),
        ):
            os.environ[f"DPT_{provider}_BASE_URL"] = url
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_GEMINI_API_KEY"):
            os.environ[key] = "docs-offline-key"
        os.environ["FIREWORKS_API_KEY"] = "docs-offline-key"
        os.environ["DPT_BATCH_POLL_INITIAL_S"] = "0.01"  # a provider batch ends at once
        os.environ["DPT_BATCH_POLL_MAX_S"] = "0.01"
        namespace: dict[str, Any] = {"__name__": "__main__", "emulator": emulator}
        for block in blocks:
            source = "\n" * (block["line"] - 1) + block["code"]
            code = compile(source, block["page"], "exec", dont_inherit=True)
            exec(code, namespace)
            print(f"\n[docs-snippet ok] {block['page']}:{block['line']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
