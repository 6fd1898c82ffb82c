"""ToolLoader: the nine tool formats loaded into one set of tools.

``load()`` detects each entry's format and checks it (a bad entry fails when the Agent
is built): ``@tool`` functions, ``.py`` files and directories become a local-function
session at once; the session formats (4, 5, 6, 8, 9) are kept as server configs and
opened by `ToolLoader.connect_mcp_servers` once per event loop; provider-run
servers (format 7) are kept for `ToolLoader.get_remote_mcp_configs`.

The loader never imports an adapter: the session classes come in as factories, one
per format, usually as a `ToolWiring` (`ToolLoader.from_wiring`);
``ToolLoader()`` without arguments takes the composition root's wiring, which the
documented ``agent.loader.ToolLoader`` passes in (`ToolLoader._default_wiring`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.deps import (
    ConfigValidator,
    LocalSessionFactory,
    ToolWiring,
    no_default_deps,
)
from doc_processing_toolkit.application.tools.formats import (
    CLIENT_SESSION,
    DIRECTORY,
    FILE_PATH,
    FUNCTION,
    MCP_REMOTE,
    LoadedTool,
    detect_format,
    functions_from_path,
    normalize_entry,
)
from doc_processing_toolkit.application.tools.lifecycle import (
    ServerConfig,
    SessionFactory,
    SessionPool,
)
from doc_processing_toolkit.application.tools.mcp_shapes import convert_to_provider_format
from doc_processing_toolkit.application.tools.tool_set import ToolSet
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    InvalidArgumentTypeError,
    StateError,
    ToolExecutionError,
)
from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = ["ConfigValidator", "LocalSessionFactory", "ToolLoader"]

log = get_logger(__name__)


class ToolLoader:
    """Loader for converting various tool formats into a unified representation."""

    @staticmethod
    def _default_wiring() -> ToolWiring:
        """The wiring of a loader built without factories (none here; the documented
        ``agent.loader.ToolLoader`` passes the composition root's)."""
        return no_default_deps().tools

    def __init__(
        self,
        session_factories: Mapping[str, SessionFactory] | None = None,
        *,
        local_session_factory: LocalSessionFactory | None = None,
        config_validators: Mapping[str, ConfigValidator] | None = None,
    ) -> None:
        """Initialize the ToolLoader.

        Args:
            session_factories: A factory per session format (``fastmcp``, ``mcp_script``,
                ``mcp_command``, ``client_session``, ``mcp_remote_client``); each takes
                the entry's config dict and returns an unconnected ManagedToolSession.
            local_session_factory: Builds the session over ``@tool`` functions.
            config_validators: Optional checks per format, run by `load`.

        Without arguments the composition root's wiring is used (documented class).
        """
        if session_factories is None and local_session_factory is None:
            wiring = self._default_wiring()
            session_factories = wiring.session_factories
            local_session_factory = wiring.local_session_factory
            config_validators = config_validators or wiring.config_validators
        self._factories: dict[str, SessionFactory] = dict(session_factories or {})
        self._local_factory = local_session_factory
        self._validators: dict[str, ConfigValidator] = dict(config_validators or {})
        self._function_tools: list[LoadedTool] = []
        self._local_session: ToolSession | None = None
        self._local_specs: list[ToolSpec] = []
        self._reserved_names: dict[str, str] = {}
        """The local functions' tool names, which no server may offer too."""
        self._servers: list[ServerConfig] = []
        self._remote: list[dict[str, Any]] = []
        self._pool = SessionPool()

    @classmethod
    def from_wiring(cls, wiring: ToolWiring) -> ToolLoader:
        """A loader over ``wiring``'s session factories and validators."""
        return cls(
            wiring.session_factories,
            local_session_factory=wiring.local_session_factory,
            config_validators=wiring.config_validators,
        )

    def __repr__(self) -> str:
        return (
            f"ToolLoader(functions={len(self._function_tools)}, servers="
            f"{[s.name for s in self._servers]!r}, remote={len(self._remote)})"
        )

    # ------------------------------------------------------------------ loading
    def detect_format(self, tool: Any) -> str:
        """Detect the format of a tool input (see `tool_formats.detect_format`)."""
        return detect_format(tool)

    def load(self, tools: Sequence[Any] | None) -> list[LoadedTool]:
        """Load tools from various formats into unified representation.

        Each call replaces the loader's tool set (servers, remote configs, functions);
        sessions opened for the previous set are dropped on the next connect.

        Returns:
            The ``@tool`` functions (of every function, file and directory entry) as
            LoadedTools; server tools join after `connect_mcp_servers`.

        Raises:
            TypeError: a format is not recognized, or a bad ``allowed_tools``.
            FileNotFoundError: a file path doesn't exist.
            ToolDefinitionError: a function cannot be offered (a ValueError).
        """
        functions: list[tuple[Callable[..., Any], str]] = []
        servers: list[ServerConfig] = []
        remote: list[dict[str, Any]] = []
        prebuilt: dict[int, tuple[str, Any]] = {}
        for entry in tools or []:
            kind = detect_format(entry)
            if kind == FUNCTION:
                functions.append((entry, FUNCTION))
            elif kind in (FILE_PATH, DIRECTORY):
                functions.extend((f, kind) for f in functions_from_path(entry))
            elif kind == MCP_REMOTE:
                remote.append(normalize_entry(entry, kind))
            else:
                config = normalize_entry(entry, kind)
                validator = self._validators.get(kind)
                if validator is not None:
                    validator(config)
                if kind == CLIENT_SESSION and _is_duplicate_session(config, prebuilt):
                    continue
                servers.append(ServerConfig(kind, config))
        local_session, local_tools, local_specs = self._build_local(functions)
        self._function_tools = local_tools
        self._local_session = local_session
        self._local_specs = local_specs
        self._reserved_names = {spec.name: "local-functions" for spec in local_specs}
        self._servers = servers
        self._remote = remote
        self._pool = SessionPool()
        return list(local_tools)

    def _build_local(
        self, functions: list[tuple[Callable[..., Any], str]]
    ) -> tuple[ToolSession | None, list[LoadedTool], list[ToolSpec]]:
        unique: list[tuple[Callable[..., Any], str]] = []
        for function, source in functions:
            if all(function is not seen for seen, _ in unique):
                unique.append((function, source))
        if not unique:
            return None, [], []
        if self._local_factory is None:
            raise StateError("this ToolLoader has no session factory for @tool functions")
        session = self._local_factory([f for f, _ in unique])
        from doc_processing_toolkit.domain.tools.schema import tool_spec_from_function

        specs = [tool_spec_from_function(f) for f, _ in unique]
        loaded = [
            LoadedTool(
                name=spec.name,
                description=spec.description,
                input_schema=spec.parameters,
                function=function,
                is_async=inspect.iscoroutinefunction(function),
                source_type=source,
                session=session,
            )
            for spec, (function, source) in zip(specs, unique, strict=True)
        ]
        return session, loaded, specs

    # ------------------------------------------------------------------ queries
    @property
    def server_configs(self) -> list[ServerConfig]:
        """The session-format entries, in order."""
        return list(self._servers)

    @property
    def tools(self) -> list[LoadedTool]:
        """Every loaded tool: functions, then the tools of connected servers."""
        loaded = list(self._function_tools)
        connection = self._pool.connection
        if connection is not None:
            formats = {id(session): config.format for config, session in connection.sessions}
            for spec, session in connection.tools:
                loaded.append(
                    LoadedTool(
                        name=spec.name,
                        description=spec.description,
                        input_schema=spec.parameters,
                        source_type=formats.get(id(session), "mcp"),
                        server_name=spec.server_name,
                        session=session,
                    )
                )
        return loaded

    def get_tool_by_name(self, name: str) -> LoadedTool | None:
        """The loaded tool named ``name``, or None."""
        return next((t for t in self.tools if t.name == name), None)

    def has_local_mcp_tools(self) -> bool:
        """True when any tool needs the function-calling path (anything but format 7)."""
        return bool(self._function_tools or self._servers)

    def get_remote_mcp_configs(self) -> list[dict[str, Any]]:
        """Provider-run remote MCP configs (format 7), for the provider's own fields."""
        return [dict(config) for config in self._remote]

    def convert_to_provider_format(
        self, tools: Sequence[LoadedTool | Any], provider: str
    ) -> list[dict[str, Any]]:
        """Tool definitions in the provider's expected format.

        Args:
            tools: LoadedTool objects or raw tool inputs (``@tool`` functions, paths).
            provider: A built-in provider name (see ``domain.registry.PROVIDERS``).

        Raises:
            ValueError: If provider is not supported.
        """
        from doc_processing_toolkit.domain.tools.schema import tool_spec_from_function

        specs: list[ToolSpec] = []
        for item in tools:
            if isinstance(item, LoadedTool):
                specs.append(
                    ToolSpec(item.name, item.description, item.input_schema, item.server_name)
                )
            elif isinstance(item, ToolSpec):
                specs.append(item)
            else:
                kind = detect_format(item)
                if kind == FUNCTION:
                    specs.append(tool_spec_from_function(item))
                elif kind in (FILE_PATH, DIRECTORY):
                    specs.extend(tool_spec_from_function(f) for f in functions_from_path(item))
                else:
                    raise InvalidArgumentTypeError(
                        f"a {kind} entry has no definitions until it is connected; pass "
                        "the LoadedTools from get_tool_by_name / tools instead"
                    )
        return convert_to_provider_format(specs, provider)

    to_provider_format = convert_to_provider_format

    # ------------------------------------------------------------------ lifecycle
    async def connect_mcp_servers(self) -> None:
        """Open the sessions of formats 4, 5, 6, 8 and 9 on the running loop.

        A no-op when they are already open on this loop; sessions of another loop are
        discarded and the servers reconnected. A failed connect closes what it opened.
        """
        await self._pool.connect(self._servers, self._factories, self._reserved_names)

    async def disconnect_mcp_servers(self) -> None:
        """Close the sessions and drop the tools they registered; the configs stay, so
        the next `connect_mcp_servers` reconnects."""
        await self._pool.disconnect()

    def limit_local_calls(self, timeout: float | None) -> None:
        """Bound every ``@tool`` call by ``timeout`` seconds (``tool_timeout``; None: none)."""
        from doc_processing_toolkit.application.tools.time_limit import TimeLimitedSession

        if timeout is not None and self._local_session is not None:
            self._local_session = TimeLimitedSession(self._local_session, timeout)

    def has_connection(self) -> bool:
        """True while MCP sessions are open (on any loop)."""
        return self._pool.connection is not None

    def connected_on_running_loop(self) -> bool:
        """True when the sessions are open on the running loop (False outside one)."""
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        return self._pool.connected_on(loop)

    def entries(self) -> list[tuple[ToolSpec, ToolSession]]:
        """Every tool with the session that serves it (after a connect)."""
        entries: list[tuple[ToolSpec, ToolSession]] = []
        if self._local_session is not None:
            entries.extend((spec, self._local_session) for spec in self._local_specs)
        connection = self._pool.connection
        if connection is not None:
            entries.extend(connection.tools)
        return entries

    def sessions(self) -> list[tuple[str, ToolSession]]:
        """The open sessions with their server names (local functions first)."""
        found: list[tuple[str, ToolSession]] = []
        if self._local_session is not None:
            found.append(("local-functions", self._local_session))
        connection = self._pool.connection
        if connection is not None:
            found.extend((config.name, session) for config, session in connection.sessions)
        return found

    def tool_set(self, extra: Sequence[ToolSession] = ()) -> ToolSet:
        """A run's ToolSet over the loaded tools (call after connecting)."""
        return ToolSet.from_entries(self.entries(), extra=extra)

    async def execute_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Execute a tool by name with the given arguments.

        Returns:
            The tool's return value: its JSON data when it has some, else its text.

        Raises:
            ValueError: If tool not found.
            RuntimeError: If tool execution fails.
        """
        session = next((s for spec, s in self.entries() if spec.name == name), None)
        if session is None:
            raise ConfigurationError(f"tool {name!r} not found")
        outcome = await session.call_tool(name, arguments)
        if outcome.is_error:
            raise ToolExecutionError(outcome.text or f"tool {name!r} failed")
        return outcome.data if outcome.data is not None else outcome.text

    def declared_surface(self, built_in_tools: Mapping[str, Any] | None) -> list[dict[str, Any]]:
        """The tool surface as declared, without connecting anything: local schemas, MCP
        servers by name and format, built-in tool names (a session's prefix fingerprint)."""
        local = [
            {"name": spec.name, "description": spec.description, "parameters": spec.parameters}
            for spec, _session in self.entries()
            if spec.server_name is None
        ]
        servers = [{"name": c.name, "format": c.format} for c in self.server_configs]
        return [
            {"local": sorted(local, key=lambda t: str(t["name"]))},
            {"servers": servers},
            {"built_in": sorted((built_in_tools or {}).keys())},
        ]


def _is_duplicate_session(config: dict[str, Any], seen: dict[int, tuple[str, Any]]) -> bool:
    """True when this pre-built session object was listed before (first entry wins)."""
    key = id(config["session"])
    allowed = config.get("allowed_tools")
    if key not in seen:
        seen[key] = (str(config.get("name")), allowed)
        return False
    first_name, first_allowed = seen[key]
    if first_allowed != allowed:
        log.warning(
            "the same pre-built session is listed twice with different allowed_tools; "
            "only the first entry applies",
            server=first_name,
            ignored_server=str(config.get("name")),
        )
    else:
        log.warning(
            "the same pre-built session is listed twice; the second entry is ignored",
            server=first_name,
        )
    return True
