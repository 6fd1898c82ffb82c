"""TruncatedResultStore and its session, the _dpt_spend marker, tool_result_data, and
the run-time tool features (skills catalog, memory instructions, deferral)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from doc_processing_toolkit.adapters.tool_sessions.local_functions import LocalFunctionSession
from doc_processing_toolkit.adapters.tool_sessions.truncated_results import TruncatedResultSession
from doc_processing_toolkit.application.tools.loader import ToolLoader
from doc_processing_toolkit.application.tools.planning import (
    RunToolPlanner,
    detect_memory_tools,
    parse_skills_catalog,
    render_skills_catalog,
)
from doc_processing_toolkit.domain.messages import MediaPart, TextPart
from doc_processing_toolkit.domain.tools.reports import (
    find_spend,
    tool_result_data,
    tool_spend_marker,
)
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec
from doc_processing_toolkit.domain.tools.truncated import (
    TruncatedResultStore,
    cap_with_read_back,
    marker_ids,
)
from doc_processing_toolkit.utils import TruncatedResultStore as PublicStore


# ---------------------------------------------------------------- the store
def test_ids_are_unique_with_suffixes_and_anonymous_numbers() -> None:
    store = TruncatedResultStore()
    assert PublicStore is TruncatedResultStore
    first = store.assign_id("call_0")
    store.keep(first, "x" * 10, allowance=5, slice_chars=5)
    second = store.assign_id("call_0")
    store.keep(second, "y" * 10, allowance=5, slice_chars=5)
    assert (first, second, store.assign_id("call_0")) == ("call_0", "call_0-2", "call_0-3")
    assert store.assign_id("") == "result-1"
    assert store.assign_id(None) == "result-2"
    store.clear()
    assert len(store) == 0
    assert store.assign_id("call_0") == "call_0-3"  # retired ids are never reused


def test_cap_with_read_back_marker_and_reads() -> None:
    store = TruncatedResultStore()
    text = "".join(chr(ord("a") + i % 26) for i in range(1000))
    capped, rid = cap_with_read_back(
        (TextPart(text),), 100, store=store, call_id="toolu_1", allowance=250
    )
    assert rid == "toolu_1" and capped.truncated
    (shown,) = capped.content
    assert isinstance(shown, TextPart)
    assert shown.text == text[:100] + (
        "… [truncated: 100 of 1000 characters shown. Call read_truncated_result("
        'tool_call_id="toolu_1", offset=100) to read up to 250 more.]'
    )
    assert marker_ids(shown.text) == ["toolu_1"]

    read = store.read("toolu_1", 100)
    assert not read.is_error and read.chars == 100
    assert read.text == text[100:200] + (
        "… [characters 100 to 200 of 1000. Call read_truncated_result("
        'tool_call_id="toolu_1", offset=200) to read up to 150 more.]'
    )
    again = store.read("toolu_1", 100)  # a part read twice counts twice
    assert again.chars == 100 and "up to 50 more" in again.text
    last = store.read("toolu_1", "950")
    assert last.chars == 50
    assert last.text == text[950:] + "… [characters 950 to 1000 of 1000: the end of the result.]"
    refused = store.read("toolu_1", 300)
    assert refused.is_error and "allowance" in refused.text and "used up" in refused.text


def test_allowance_runs_out_mid_result() -> None:
    store = TruncatedResultStore()
    cap_with_read_back((TextPart("z" * 500),), 100, store=store, call_id="c", allowance=150)
    store.read("c", 100)
    tail = store.read("c", 200)
    assert tail.chars == 50
    assert tail.text.endswith(
        "… [characters 200 to 250 of 500. The read allowance for this result is used up.]"
    )


def test_refusals() -> None:
    store = TruncatedResultStore()
    cap_with_read_back((TextPart("q" * 300),), 100, store=store, call_id="c", allowance=1000)
    unknown = store.read("other", 0)
    assert unknown.is_error and unknown.text.startswith("This result was not truncated")
    for bad in (-1, 300, 5000, "abc", None, 1.5, True):
        result = store.read("c", bad)
        assert result.is_error and "from 0 to 299" in result.text, bad
    store.retire(["c"])
    gone = store.read("c", 100)
    assert gone.is_error and "no longer available" in gone.text
    assert store.read(None, 0).is_error


def test_several_text_items_are_kept_one_per_line() -> None:
    store = TruncatedResultStore()
    image = MediaPart(mime_type="image/png", data=b"\x89PNG")
    content = (TextPart("a" * 60), image, TextPart("b" * 60), TextPart("c" * 60))
    capped, rid = cap_with_read_back(content, 100, store=store, call_id="m", allowance=1000)
    assert rid == "m"
    assert capped.content[1] is image and len(capped.content) == 3
    marker_text = capped.content[2].text  # type: ignore[union-attr]
    assert "offset=101" in marker_text  # 60 + newline + 40 shown of the second item
    read = store.read("m", 101)
    assert read.text.startswith("b" * 20 + "\n" + "c" * 60)


def test_not_truncated_keeps_nothing() -> None:
    store = TruncatedResultStore()
    capped, rid = cap_with_read_back(
        (TextPart("short"),), 100, store=store, call_id="c", allowance=10
    )
    assert rid is None and not capped.truncated and len(store) == 0
    capped, rid = cap_with_read_back(
        (TextPart("x" * 500),), 0, store=store, call_id="c", allowance=10
    )
    assert rid is None and not capped.truncated


@given(
    total=st.integers(1, 3000),
    cap=st.integers(1, 400),
    allowance=st.integers(1, 2000),
    offsets=st.lists(st.integers(-5, 3100), max_size=12),
)
def test_reads_never_exceed_allowance_or_cap(
    total: int, cap: int, allowance: int, offsets: list[int]
) -> None:
    store = TruncatedResultStore()
    _, rid = cap_with_read_back(
        (TextPart("x" * total),), cap, store=store, call_id="c", allowance=allowance
    )
    if rid is None:
        assert total <= cap
        return
    read_total = 0
    for offset in offsets:
        result = store.read(rid, offset)
        assert result.chars <= cap
        read_total += result.chars
        assert read_total <= allowance
        if not 0 <= offset < total:
            assert result.is_error


@pytest.mark.anyio
async def test_truncated_result_session() -> None:
    store = TruncatedResultStore()
    cap_with_read_back((TextPart("w" * 300),), 100, store=store, call_id="c", allowance=100)
    session = TruncatedResultSession(store)
    await session.connect()
    (spec,) = await session.list_tools()
    assert spec.name == "read_truncated_result" and spec.server_name == "truncated-results"
    assert spec.parameters["required"] == ["tool_call_id", "offset"]
    outcome = await session.call_tool("read_truncated_result", {"tool_call_id": "c", "offset": 100})
    assert not outcome.is_error and outcome.text.startswith("w" * 100 + "… [characters 100 to 200")
    assert (await session.call_tool("other", {})).is_error
    await session.aclose()


# ---------------------------------------------------------------- spend and result_data
def test_tool_spend_marker_and_find_spend() -> None:
    marker = tool_spend_marker(0.04)
    assert marker == {"_dpt_spend": {"usd": 0.04, "estimated": False}}
    assert tool_spend_marker(1, True, source="img")["_dpt_spend"] == {
        "usd": 1.0,
        "estimated": True,
        "source": "img",
    }
    for bad in (-1, float("nan"), "1"):
        with pytest.raises(ValueError):
            tool_spend_marker(bad)  # type: ignore[arg-type]
    spend = find_spend({"path": "a.png", **marker})
    assert spend is not None and spend.usd == 0.04 and not spend.estimated
    from_text = find_spend(None, ['{"ok": true, "_dpt_spend": {"usd": 0.5, "estimated": true}}'])
    assert from_text is not None and from_text.usd == 0.5 and from_text.estimated
    assert find_spend({"ok": True}, ["plain", "{not json"]) is None
    with pytest.raises(ValueError, match="usd"):
        find_spend({"_dpt_spend": {"usd": "lots"}})


def test_tool_result_data() -> None:
    assert tool_result_data(ToolOutcome(content=(TextPart("{}"),), data={"a": 1})) == {"a": 1}
    assert tool_result_data(ToolOutcome(content=(TextPart('{"b": 2}'),))) == {"b": 2}
    assert tool_result_data(ToolOutcome(content=(TextPart("plain"),))) == "plain"
    mixed = ToolOutcome(
        content=(TextPart("[1, 2]"), MediaPart(mime_type="image/png", data=b"\x01"))
    )
    assert tool_result_data(mixed) == [
        [1, 2],
        {"type": "media", "mime_type": "image/png", "data": "AQ=="},
    ]

    class CallResult:
        structured_content = None

        def __init__(self) -> None:
            self.content = [{"type": "text", "text": '{"k": "v"}'}, {"type": "text", "text": "x"}]

    assert tool_result_data(CallResult()) == [{"k": "v"}, "x"]
    assert tool_result_data("42") == 42


# ---------------------------------------------------------------- skills and memory
def test_skills_catalog_parse_and_render() -> None:
    skills = parse_skills_catalog(
        '{"skills": [{"name": "pdf", "description": "Read <PDF> & more", "path": "/s/pdf"}]}'
    )
    assert skills == [{"name": "pdf", "description": "Read <PDF> & more", "path": "/s/pdf"}]
    block = render_skills_catalog(skills)
    assert block.startswith("<available_skills>") and block.endswith("</available_skills>")
    assert "Read &lt;PDF&gt; &amp; more" in block
    from xml.sax.saxutils import escape  # the oracle the renderer matches

    tricky = "a &amp; <b>&lt; >> &&"
    rendered = render_skills_catalog([{"name": tricky, "description": "", "path": ""}])
    assert f"<name>{escape(tricky)}</name>" in rendered
    assert parse_skills_catalog([{"name": "a", "location": "/a"}])[0]["path"] == "/a"
    for bad in ("nope", {"skills": "x"}, [{"description": "no name"}], 5):
        with pytest.raises(ValueError):
            parse_skills_catalog(bad)


def test_memory_detection_contract() -> None:
    assert detect_memory_tools(["memory", "other"]) == ["memory"]
    assert detect_memory_tools(["memory_view", "memory_create", "x"]) == [
        "memory_view",
        "memory_create",
    ]
    assert detect_memory_tools(["memory_view"]) == []
    assert detect_memory_tools(["memory_create", "remember"]) == []


class SkillsSession:
    """A connected skills server answering list_skills with ``catalog``."""

    def __init__(self, catalog: Any, *, error: bool = False) -> None:
        self.name = "std-tools-skills"
        self.catalog = catalog
        self.error = error
        self.calls = 0

    async def connect(self) -> None: ...

    async def aclose(self) -> None: ...

    async def list_tools(self) -> list[ToolSpec]:
        names = ["list_skills", "load_skill", "load_skill_resource", "execute_skill_script"]
        return [ToolSpec(n, n, {"type": "object", "properties": {}}) for n in names]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        self.calls += 1
        if self.error:
            return ToolOutcome.error("skills dir missing")
        return ToolOutcome(content=(TextPart("catalog"),), data=self.catalog)


async def _plan(session: SkillsSession, instructions: str, **kwargs: Any) -> Any:
    loader = ToolLoader(
        {"client_session": lambda config: session}, local_session_factory=LocalFunctionSession
    )
    loader.load([{"session": object(), "name": "skills"}])
    await loader.connect_mcp_servers()
    planner = RunToolPlanner(**kwargs)
    plan = await planner.plan(loader, instructions, None)
    return plan, [s.name for s in await plan.tools.specs()]


@pytest.mark.anyio
async def test_skills_catalog_injected() -> None:
    session = SkillsSession({"skills": [{"name": "pdf", "description": "PDFs", "path": "/p"}]})
    plan, names = await _plan(session, "Be helpful.")
    assert plan.system.startswith("Be helpful.\n\n<available_skills>")
    assert "<name>pdf</name>" in plan.system and "load_skill" in names


@pytest.mark.anyio
async def test_empty_catalog_hides_activation_tools() -> None:
    plan, names = await _plan(SkillsSession([]), "Hi")
    assert plan.system == "Hi"
    assert names == ["list_skills"]


@pytest.mark.anyio
async def test_skills_skipped_when_instructions_carry_a_catalog(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session = SkillsSession([])
    with caplog.at_level(logging.INFO):
        _, names = await _plan(session, "<available_skills></available_skills>")
    assert session.calls == 0 and len(names) == 4
    assert "auto_inject_skills skipped" in caplog.text


@pytest.mark.anyio
async def test_malformed_catalog_keeps_tools_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        plan, names = await _plan(SkillsSession({"oops": 1}), "Hi")
        _, names_err = await _plan(SkillsSession([], error=True), "Hi")
    assert plan.system == "Hi" and len(names) == 4 and len(names_err) == 4
    assert caplog.text.count("server='skills'") == 2


@pytest.mark.anyio
async def test_auto_inject_skills_off() -> None:
    session = SkillsSession([])
    _, names = await _plan(session, "Hi", auto_inject_skills=False)
    assert session.calls == 0 and len(names) == 4


@pytest.mark.anyio
async def test_deferral_stamps_matching_tools() -> None:
    session = SkillsSession([])
    plan, _ = await _plan(
        session,
        "Hi",
        auto_inject_skills=False,
        defer=lambda name, server: name.startswith("load_"),
    )
    specs = await plan.tools.specs()
    assert plan.deferred_tools == ["load_skill", "load_skill_resource"]
    assert [s.name for s in specs if s.defer_loading] == plan.deferred_tools
    assert all(s.server_name == "skills" for s in specs)
