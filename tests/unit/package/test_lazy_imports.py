"""``import doc_processing_toolkit`` imports nothing heavy until it is used (issue 17).

Each check runs in a fresh interpreter and reads ``sys.modules``: no provider SDK, no
rich, no MCP, no yaml, no tenacity, no structlog, no rapidfuzz at import (rapidfuzz arrives
with the first fuzzy evidence match); structlog arrives with the
first event a logger is enabled for, and a call below the level imports nothing. No time
is measured (``make bench`` does that).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "anthropic",
    "openai",
    "google.genai",
    "rich",
    "mcp",
    "fastmcp",
    "yaml",
    "tenacity",
    "structlog",
    "httpx2",
    "starlette",
    "uvicorn",
    "rapidfuzz",
)


def _loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    probe = (
        f"import sys\n{code}\n"
        f"import json; print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def test_package_import_pulls_in_no_sdk_rich_mcp_yaml_tenacity_or_structlog() -> None:
    assert _loaded_after("import doc_processing_toolkit") == []


def test_building_an_agent_and_logging_below_the_level_import_nothing_heavy() -> None:
    code = (
        "import logging\n"
        "from doc_processing_toolkit import Agent\n"
        "from doc_processing_toolkit._logging import get_logger\n"
        "Agent('claude-sonnet-5-5', api_key='sk-test-000000', log_to_file=False)\n"
        "logging.getLogger('doc_processing_toolkit.probe').setLevel(logging.WARNING)\n"
        "get_logger('doc_processing_toolkit.probe').info('below the level', key='v')\n"
    )
    # dependency_injector (the composition root) imports yaml and starlette itself when
    # they are installed, so those two are not checked past the package import.
    assert _loaded_after(code, tuple(m for m in HEAVY if m not in ("yaml", "starlette"))) == []


def test_structlog_is_configured_on_the_first_enabled_event_and_still_redacts() -> None:
    code = (
        "import io, logging\n"
        "from doc_processing_toolkit._logging import get_logger, register_secret\n"
        "stream = io.StringIO()\n"
        "std = logging.getLogger('doc_processing_toolkit.probe2')\n"
        "std.addHandler(logging.StreamHandler(stream)); std.setLevel(logging.INFO)\n"
        "register_secret('sk-secret-value-123')\n"
        "get_logger('doc_processing_toolkit.probe2').info('sent', key='sk-secret-value-123')\n"
        "assert 'structlog' in sys.modules\n"
        "assert stream.getvalue().strip() == \"event='sent' key='***'\", stream.getvalue()\n"
    )
    assert "structlog" in _loaded_after(code)


def test_the_message_adapters_are_built_on_first_use() -> None:
    code = (
        "import doc_processing_toolkit.domain.messages as m\n"
        "assert 'MESSAGES_ADAPTER' not in vars(m)\n"
        "from doc_processing_toolkit.domain.messages import MESSAGES_ADAPTER, user_text\n"
        "assert MESSAGES_ADAPTER.validate_python(\n"
        "    MESSAGES_ADAPTER.dump_python([user_text('hi')])) == [user_text('hi')]\n"
        "assert m.MESSAGES_ADAPTER is MESSAGES_ADAPTER\n"
    )
    assert _loaded_after(code) == []


def test_the_package_root_loads_its_names_on_first_access() -> None:
    code = (
        "import doc_processing_toolkit as dpt\n"
        "assert 'pydantic' not in sys.modules, 'the root imported pydantic'\n"
        "assert 'doc_processing_toolkit.agent' not in sys.modules\n"
        "for name in dpt.__all__:\n"
        "    assert getattr(dpt, name) is not None, name\n"
        "from doc_processing_toolkit.agent import Agent\n"
        "from doc_processing_toolkit.domain.errors import RateLimitError\n"
        "assert dpt.Agent is Agent and dpt.RateLimitError is RateLimitError\n"
        "assert 'Agent' in vars(dpt)  # kept: the next lookup is a plain attribute read\n"
        "assert set(dpt.__all__) <= set(dir(dpt))\n"
        "assert dpt.agent.Agent is Agent  # a subpackage by attribute, as before\n"
        "try:\n"
        "    dpt.no_such_name\n"
        "except AttributeError as exc:\n"
        "    assert 'no_such_name' in str(exc)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
    )
    assert _loaded_after(code, ("anthropic", "openai", "google.genai", "mcp")) == []


def test_every_public_root_name_has_a_lazy_source() -> None:
    import doc_processing_toolkit as dpt

    missing = [n for n in dpt.__all__ if n != "__version__" and n not in dpt._LAZY]
    assert missing == []
