"""What a run adds around its loaded tools: the skills catalog, the memory instructions,
the ``read_truncated_result`` tool, and deferred loading behind tool search.

`RunToolPlanner` is held by the Agent; `RunToolPlanner.plan` runs once per
run, after the MCP sessions are connected, and returns the run's ToolSet and system
prompt.

Skills (``auto_inject_skills``): a server exposing ``list_skills`` and ``load_skill``
is a skills server, whatever its name. ``list_skills`` is called and its catalog goes
into the system prompt as an ``<available_skills>`` block; an empty catalog hides the
activation tools. Skipped (one INFO) while the instructions carry ``<available_skills>``.

Memory (``auto_inject_memory_instructions``): the run's tools include a memory tool
set when one tool is named ``memory`` (a command-style memory tool), or when
``memory_view`` is offered together with at least one of ``memory_create``,
``memory_str_replace``, ``memory_insert``, ``memory_delete`` or ``memory_rename``.
Then a ``<memory_instructions>`` block is appended to the system prompt, unless the
instructions already carry one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.config.validation import defer_predicate
from doc_processing_toolkit.application.tools.loader import ToolLoader
from doc_processing_toolkit.application.tools.tool_set import ToolSet
from doc_processing_toolkit.domain.errors import InvalidInputError
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolSpec
from doc_processing_toolkit.domain.tools.truncated import (
    READ_TRUNCATED_RESULT_TOOL,
    TruncatedResultStore,
)
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = [
    "MEMORY_INSTRUCTIONS",
    "MEMORY_WRITE_TOOLS",
    "SKILL_ACTIVATION_TOOLS",
    "RunToolPlan",
    "RunToolPlanner",
    "build_tool_planner",
    "detect_memory_tools",
    "parse_skills_catalog",
    "render_skills_catalog",
]

log = get_logger(__name__)

SKILL_ACTIVATION_TOOLS = ("load_skill", "load_skill_resource", "execute_skill_script")
"""Hidden from the model when the skills catalog is empty."""
MEMORY_WRITE_TOOLS = (
    "memory_create",
    "memory_str_replace",
    "memory_insert",
    "memory_delete",
    "memory_rename",
)
"""With ``memory_view``, any of these marks a memory tool set."""
MEMORY_INSTRUCTIONS = """<memory_instructions>
You have a persistent memory, reached through the {tools} tool(s). Before you start a \
task, look at what your memory holds and use what is relevant. While you work, record \
progress, decisions and facts worth keeping, so that a later conversation can continue \
where this one stops: keep entries short, current and organised, and correct or delete \
an entry that turns out wrong. Never store secrets. Your context may be reset at any \
time; what is not in memory is lost.
</memory_instructions>"""
"""The block appended to the system prompt when a memory tool set is detected."""

StoreSessionFactory = Callable[[TruncatedResultStore], ToolSession]


def detect_memory_tools(names: list[str]) -> list[str]:
    """The memory tools among ``names`` (empty when there is no memory tool set)."""
    if "memory" in names:
        return ["memory"]
    if "memory_view" in names and any(n in names for n in MEMORY_WRITE_TOOLS):
        return [n for n in names if n == "memory_view" or n in MEMORY_WRITE_TOOLS]
    return []


def parse_skills_catalog(data: Any) -> list[dict[str, str]]:
    """The skills of a ``list_skills`` reply: ``[{"name", "description", "path"}]``.

    Accepts a list of skill objects or ``{"skills": [...]}``, as data or JSON text.

    Raises:
        ValueError: the reply has another shape.
    """
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise InvalidInputError("list_skills did not answer JSON") from exc
    if isinstance(data, Mapping):
        data = data.get("skills")
    if not isinstance(data, list):
        raise InvalidInputError("list_skills did not answer a list of skills")
    skills: list[dict[str, str]] = []
    for item in data:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise InvalidInputError(f"a list_skills entry has no name: {item!r:.80}")
        description = item.get("description") or ""
        path = item.get("path") or item.get("location") or ""
        if not isinstance(description, str) or not isinstance(path, str):
            raise InvalidInputError(f"list_skills entry {item['name']!r} has a non-text field")
        skills.append({"name": item["name"], "description": description, "path": path})
    return skills


def render_skills_catalog(skills: list[dict[str, str]]) -> str:
    """The ``<available_skills>`` block for the system prompt."""
    lines = ["<available_skills>"]
    for skill in skills:
        lines.append("<skill>")
        lines.append(f"<name>{_escape(skill['name'])}</name>")
        lines.append(f"<description>{_escape(skill['description'])}</description>")
        lines.append(f"<path>{_escape(skill['path'])}</path>")
        lines.append("</skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)


def _escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as XML entities, as ``xml.sax.saxutils.escape`` does (whose
    import pulls in ``urllib.request`` and ``http.client``: ~7 ms of every Agent import)."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def _append(system: str, block: str) -> str:
    return f"{system.rstrip()}\n\n{block}" if system.strip() else block


@dataclass
class RunToolPlan:
    """A run's tools and the system prompt that goes with them."""

    tools: ToolSet
    system: str
    deferred_tools: list[str] = field(default_factory=list)
    read_back: bool = False
    """True when ``read_truncated_result`` is offered."""


@dataclass
class RunToolPlanner:
    """Per-Agent settings of the run-time tool features, and their once-only warnings."""

    auto_inject_skills: bool = True
    auto_inject_memory_instructions: bool = True
    read_back: bool = False
    """``truncated_result_read_chars`` is on and allowed (cap > 0, no forcing choice)."""
    store_session_factory: StoreSessionFactory | None = None
    defer: Callable[[str, str | None], bool] | None = None
    """Decides deferral; None when deferral does not apply."""
    logger: Any = None
    _warned: set[str] = field(default_factory=set)

    def _warn_once(self, key: str, message: str, **fields: Any) -> None:
        if key not in self._warned:
            self._warned.add(key)
            (self.logger or log).warning(message, **fields)

    def store_for_run(self, kept: TruncatedResultStore | None) -> TruncatedResultStore | None:
        """Where a run keeps its cut results: ``kept`` (an AgentSession's store, for its
        lifetime), else a store of the run's own; None when read-back is off."""
        if not self.read_back:
            return None
        return kept if kept is not None else TruncatedResultStore()

    async def plan(
        self, loader: ToolLoader, instructions: str, store: TruncatedResultStore | None
    ) -> RunToolPlan:
        """The run's ToolSet and system prompt (call after connecting the loader)."""
        entries = loader.entries()
        system = instructions
        if self.auto_inject_skills:
            system, entries = await self._skills(loader, system, entries)
        if self.auto_inject_memory_instructions:
            memory = detect_memory_tools([spec.name for spec, _ in entries])
            if memory and "<memory_instructions>" not in system:
                system = _append(system, MEMORY_INSTRUCTIONS.format(tools=", ".join(memory)))
        deferred: list[str] = []
        if self.defer is not None:
            stamped: list[tuple[ToolSpec, ToolSession]] = []
            for spec, session in entries:
                if self.defer(spec.name, spec.server_name):
                    spec = replace(spec, defer_loading=True)
                    deferred.append(spec.name)
                stamped.append((spec, session))
            entries = stamped
        extra: list[ToolSession] = []
        read_back = False
        if self.read_back and entries and store is not None:
            if any(spec.name == READ_TRUNCATED_RESULT_TOOL for spec, _ in entries):
                self._warn_once(
                    "read_name",
                    "truncated_result_read_chars: a loaded tool is already named "
                    "read_truncated_result, so the built-in one is not offered",
                )
            elif self.store_session_factory is not None:
                extra.append(self.store_session_factory(store))
                read_back = True
        return RunToolPlan(ToolSet.from_entries(entries, extra=extra), system, deferred, read_back)

    async def _skills(
        self, loader: ToolLoader, system: str, entries: list[tuple[ToolSpec, ToolSession]]
    ) -> tuple[str, list[tuple[ToolSpec, ToolSession]]]:
        by_session: dict[int, set[str]] = {}
        for spec, session in entries:
            by_session.setdefault(id(session), set()).add(spec.name)
        for server, session in loader.sessions():
            names = by_session.get(id(session), set())
            if not {"list_skills", "load_skill"} <= names:
                continue
            if "<available_skills>" in system:
                (self.logger or log).info(
                    "auto_inject_skills skipped: the instructions already carry <available_skills>",
                    server=server,
                )
                return system, entries
            outcome = await session.call_tool("list_skills", {})
            try:
                if outcome.is_error:
                    raise ValueError(outcome.text[:200] or "an error result")
                catalog = parse_skills_catalog(
                    outcome.data if outcome.data is not None else outcome.text
                )
            except ValueError as exc:
                (self.logger or log).warning(
                    "auto_inject_skills: list_skills failed or answered a malformed catalog; "
                    "the skill tools stay advertised",
                    server=server,
                    error=str(exc),
                )
                return system, entries
            if catalog:
                return _append(system, render_skills_catalog(catalog)), entries
            hidden = [
                (spec, s)
                for spec, s in entries
                if not (s is session and spec.name in SKILL_ACTIVATION_TOOLS)
            ]
            return system, hidden
        return system, entries


def build_tool_planner(
    settings: AgentSettings,
    *,
    tool_result_cap: int,
    native_tool_search: bool,
    store_session_factory: StoreSessionFactory,
    logger: logging.Logger,
) -> RunToolPlanner:
    """The per-Agent planner of each run's tools; says (WARNING, once) what has no effect.

    Read-back needs a cap to read past and a run that can go on after a tool round;
    ``defer_tools`` needs the provider's native tool search.
    """
    read_back = settings.tool_results.read_back_chars > 0
    if read_back and tool_result_cap == 0:
        logger.warning(
            "truncated_result_read_chars has no effect with max_tool_result_chars=0: nothing is cut"
        )
        read_back = False
    choice = settings.tools.resolved_tool_choice
    if read_back and (isinstance(choice, ForcedTool) or choice == "required"):
        logger.warning(
            "truncated_result_read_chars has no effect with a tool_choice that forces a "
            "call: the run ends after one tool round, so the model could not read on"
        )
        read_back = False
    defer = defer_predicate(settings.tools.defer_tools)
    if defer is not None and not native_tool_search:
        logger.warning(
            "defer_tools has no effect: it needs the provider's native tool search "
            "(built_in_tools={'tool_search': BuiltInToolConfig(enabled=True)} on an "
            "Anthropic or OpenAI model whose registry row lists tool_search); every "
            "tool loads eagerly"
        )
        defer = None
    return RunToolPlanner(
        auto_inject_skills=bool(settings.tools.auto_inject_skills),
        auto_inject_memory_instructions=bool(settings.tools.auto_inject_memory_instructions),
        read_back=read_back,
        store_session_factory=store_session_factory,
        defer=defer,
    )
