"""The documents MCP server as a client meets it: started as
``python -m doc_processing_toolkit.documents.mcp_server --root DIR`` and driven over stdio by
the real MCP SDK client, then by our own Agent as an ``mcp_command`` tool. Paths outside the
root (``..``, absolute, a symlink out) are refused with a tool error."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from document_samples import docx_bytes, numbered_pdf, scanned_pdf

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import FakeModel, reply
from doc_processing_toolkit.testing.script import tool_call

TOOLS = {"list_documents", "document_info", "extract_text", "convert_to_markdown", "search"}
WAIT = 90  # seconds: the child imports MarkItDown (a few seconds on a busy machine)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    served = tmp_path / "served"
    (served / "letters").mkdir(parents=True)
    (served / "contract.pdf").write_bytes(numbered_pdf(6))
    (served / "scan.pdf").write_bytes(scanned_pdf(["Signed cover", "Scanned terms"], scanned=[2]))
    (served / "letters" / "memo.docx").write_bytes(
        docx_bytes(["Memo to the board", "The renewal deadline is March 3."], images=1)
    )
    (served / "notes.md").write_text("# Notes\n\nCall the landlord about the renewal.\n")
    (served / ".env").write_text("SECRET=hidden-value\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret outside the root")
    (served / "escape.txt").symlink_to(outside / "secret.txt")
    (served / "elsewhere").symlink_to(outside, target_is_directory=True)
    return served


def _command(root: Path) -> list[str]:
    return ["-m", "doc_processing_toolkit.documents.mcp_server", "--root", str(root), "--no-ocr"]


@asynccontextmanager
async def client(root: Path) -> AsyncIterator[Any]:
    import mcp
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=_command(root))
    async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
        with anyio.fail_after(WAIT):
            await session.initialize()
        yield session


async def call(session: Any, tool: str, **arguments: Any) -> tuple[bool, str]:
    with anyio.fail_after(WAIT):
        result = await session.call_tool(tool, arguments)
    text = "\n".join(block.text for block in result.content if hasattr(block, "text"))
    return bool(result.is_error), text


@pytest.mark.anyio
async def test_the_tools_answer_over_stdio(root: Path) -> None:
    async with client(root) as session:
        with anyio.fail_after(WAIT):
            listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS

        error, text = await call(session, "list_documents")
        assert not error
        documents = {d["path"]: d for d in json.loads(text)["documents"]}
        # Hidden files and symlinks out of the root are not listed.
        assert set(documents) == {"contract.pdf", "scan.pdf", "letters/memo.docx", "notes.md"}
        assert documents["letters/memo.docx"]["kind"] == "office"
        assert documents["contract.pdf"]["mime_type"] == "application/pdf"

        error, text = await call(session, "document_info", path="scan.pdf")
        info = json.loads(text)
        assert (error, info["pages"], info["image_only_pages"]) == (False, 2, [2])

        error, text = await call(session, "extract_text", path="contract.pdf", pages="4-5")
        assert not error
        assert text.startswith("--- page 4 ---\nThis is page 4 of the contract.")
        assert "--- page 5 ---\nThis is page 5 of the contract." in text
        assert "page 3" not in text

        error, text = await call(session, "extract_text", path="scan.pdf")
        assert "--- page 2 ---\n[page 2 has no text layer (a scanned page) and was not read" in text

        error, text = await call(session, "convert_to_markdown", path="letters/memo.docx")
        assert not error
        assert "The renewal deadline is March 3." in text
        assert "<!-- not converted: 1 embedded image -->" in text

        error, text = await call(session, "search", query="RENEWAL")
        found = json.loads(text)["results"]
        assert {(r["path"], r["page"]) for r in found} == {
            ("letters/memo.docx", None),
            ("notes.md", None),
        }
        error, text = await call(session, "search", query="page 6 of")
        assert json.loads(text)["results"] == [
            {"path": "contract.pdf", "page": 6, "snippet": "This is page 6 of the contract."}
        ]


REFUSED = [
    ("../etc/passwd", "leads outside the served directory"),
    ("/etc/passwd", "leads outside the served directory"),
    ("escape.txt", "leads outside the served directory"),  # a symlink to a file outside
    ("elsewhere/secret.txt", "leads outside the served directory"),  # a symlinked folder
    ("letters/../../outside/secret.txt", "leads outside the served directory"),
    (".env", "hidden files are not served"),
    ("missing.pdf", "no such document"),
]


@pytest.mark.anyio
async def test_paths_outside_the_root_are_refused(root: Path) -> None:
    async with client(root) as session:
        for path, reason in REFUSED:
            for tool in ("extract_text", "document_info", "convert_to_markdown"):
                error, text = await call(session, tool, path=path)
                assert error, (tool, path)
                assert reason in text, (tool, path, text)
                assert path in text
                assert "top secret" not in text and "hidden-value" not in text


@pytest.mark.anyio
async def test_bad_page_selections_are_tool_errors(root: Path) -> None:
    async with client(root) as session:
        for pages, reason in (
            ("0", "numbered from 1"),
            ("5-2", "runs backwards"),
            ("7", "page 7 is beyond the end: the document has 6 page(s)"),
            ("one", "is not a page or a range"),
        ):
            error, text = await call(session, "extract_text", path="contract.pdf", pages=pages)
            assert error and reason in text and "contract.pdf" in text


def test_the_agent_uses_it_as_an_mcp_command_tool(root: Path) -> None:
    fake = FakeModel(
        [
            tool_call("extract_text", {"path": "contract.pdf", "pages": "3"}),
            tool_call("extract_text", {"path": "../outside/secret.txt"}),
            reply("Page 3 says it is page 3."),
        ]
    )
    server = {
        "type": "mcp_command",
        "command": sys.executable,
        "args": _command(root),
        "name": "documents",
    }
    agent = Agent("claude-sonnet-5-5", tools=[server], client=fake)
    result = agent.run_sync("What does page 3 say?")
    assert result.output == "Page 3 says it is page 3."
    assert {spec.name for spec in fake.requests[0].tools} >= TOOLS
    first = fake.requests[1].messages[-1].parts[0]
    assert first.text == "--- page 3 ---\nThis is page 3 of the contract."  # type: ignore[union-attr]
    refused = fake.requests[2].messages[-1].parts[0]
    assert refused.is_error  # type: ignore[union-attr]
    assert "leads outside the served directory" in refused.text  # type: ignore[union-attr]
    assert "top secret" not in refused.text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_dpt_docs_serve_is_the_same_server(root: Path) -> None:
    import mcp
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "doc_processing_toolkit.cli.main", "docs", "serve", "--root", str(root)],
    )
    async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
        with anyio.fail_after(WAIT):
            await session.initialize()
            listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        error, text = await call(session, "extract_text", path="notes.md")
        assert (error, text) == (False, "# Notes\n\nCall the landlord about the renewal.\n")


def test_the_agent_reads_pages_through_the_emulator(root: Path) -> None:
    """The same through the real Anthropic SDK against the emulator: the tool result the
    model receives on the wire carries the original page number."""
    from doc_processing_toolkit.testing import ProviderEmulator

    server = {
        "type": "mcp_command",
        "command": sys.executable,
        "args": _command(root),
        "name": "documents",
    }
    with ProviderEmulator() as emulator:
        emulator.push(
            tool_call("search", {"query": "page 5 of"}),
            tool_call("extract_text", {"path": "contract.pdf", "pages": "5"}),
            reply("Page 5 is page 5."),
        )
        agent = Agent(
            "claude-sonnet-5-5",
            tools=[server],
            base_url=emulator.anthropic_base_url,
            api_key="test-key-not-real",
        )
        result = agent.run_sync("Find page 5 and read it.")
        bodies = [request.body for request in emulator.requests]
    assert result.output == "Page 5 is page 5."
    assert result.tools_used == ["search", "extract_text"]
    assert {tool["name"] for tool in bodies[0]["tools"]} >= TOOLS

    def tool_result(body: dict[str, Any]) -> str:
        block = body["messages"][-1]["content"][0]
        assert block["type"] == "tool_result"
        content = block["content"]
        return content if isinstance(content, str) else content[0]["text"]

    assert json.loads(tool_result(bodies[1]))["results"][0]["page"] == 5
    assert tool_result(bodies[2]) == "--- page 5 ---\nThis is page 5 of the contract."


@pytest.mark.anyio
async def test_scanned_pages_are_read_by_ocr_in_the_server(root: Path) -> None:
    """With the ocr extra the server OCRs a scanned page (and nothing the OCR stack logs
    reaches stdout, the protocol's channel: the session keeps working)."""
    import mcp
    from mcp.client.stdio import StdioServerParameters, stdio_client

    args = _command(root)[:-1]  # without --no-ocr
    params = StdioServerParameters(command=sys.executable, args=args)
    async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
        with anyio.fail_after(WAIT):
            await session.initialize()
        error, text = await call(session, "extract_text", path="scan.pdf", pages="2")
        assert (error, text) == (False, "--- page 2 --- (read by rapidocr)\nScanned terms")
        error, text = await call(session, "search", query="scanned TERMS")
        assert json.loads(text)["results"][0] == {
            "path": "scan.pdf",
            "page": 2,
            "snippet": "Scanned terms",
        }
