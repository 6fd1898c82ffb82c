"""The YAML file's shape, declared once: `CONFIG_FIELDS` drives both the validator
(`yaml_validation`) and the JSON Schema editors use (`config_json_schema`).

Every key is a constructor parameter of the Agent (see `AgentSettings`),
grouped as the YAML file groups them: ``constraints`` (max_iterations, max_tokens,
temperature), ``logging`` (level, file, to_file) and ``provider_overrides`` (the extra
provider keywords); every other parameter that is data is a top-level key of its own name.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from typing import Any

import annotated_types

from doc_processing_toolkit.application.config.settings import SETTING_NAMES, setting_field

__all__ = [
    "CONFIG_FIELDS",
    "IGNORED_KEYS",
    "LOG_LEVELS",
    "NOT_TOP_LEVEL_KEYS",
    "SECRET_KEYS",
    "TOOL_TYPES",
    "Spec",
    "config_json_schema",
]

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", "NOTSET")

SECRET_KEYS = frozenset({"api_key", "headers", "env", "authorization_token", "auth", "token"})
"""Keys whose values are never echoed in an error (nor anything under them)."""

IGNORED_KEYS = frozenset({"unserialisable"})
"""Top-level keys to_config() writes and from_config() ignores."""

TOOL_TYPES: dict[str, tuple[str, ...]] = {
    "mcp_script": ("path",),
    "mcp_command": ("command",),
    "mcp": ("server_url",),
    "mcp_remote": ("url",),
    "mcp_remote_client": ("url",),
}
"""The ``type`` of a tools entry written as a mapping, and the keys each one requires.

``mcp_remote`` is the format's name for the provider-run connector (``type: mcp``); it is
read as ``{"type": "mcp", "server_url": url}``.
"""


@dataclass(frozen=True)
class Spec:
    """One value's shape: its JSON type(s) and constraints."""

    types: tuple[str, ...]
    """JSON types: "string", "boolean", "integer", "number", "object", "array", "null"."""
    description: str = ""
    minimum: float | None = None
    maximum: float | None = None
    enum: tuple[Any, ...] | None = None
    properties: dict[str, Spec] | None = None
    """Known keys of an object."""
    additional: Spec | bool = True
    """Other keys of an object: a Spec for their values, True (anything) or False (none)."""
    items: Spec | None = None
    """The shape of an array's items."""
    any_of: tuple[Spec, ...] = ()
    """Alternatives (the value must match one)."""
    required: tuple[str, ...] = ()
    non_empty: bool = False
    """A string that must not be blank."""
    default: Any = field(default=None, compare=False)


def _s(*types: str, **kw: Any) -> Spec:
    return Spec(types=types, **kw)


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _setting(name: str, **kw: Any) -> Spec:
    """The Spec of a scalar setting, read from its model field (`setting_field`): its JSON
    types from the annotation, ``ge``/``le``/``min_length`` as minimum/maximum/non-empty,
    and its description. ``kw`` adds what the type cannot say (a default to show)."""
    field = setting_field(name)
    annotation: Any = field.annotation
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    members = typing.get_args(annotation) if union else ()
    json_types: list[str] = []
    enum: list[Any] = []
    for member in members or (annotation,):
        if typing.get_origin(member) is typing.Literal:
            enum += typing.get_args(member)
            json_types.append(_JSON_TYPES[type(enum[-1])])
        else:
            json_types.append("null" if member is type(None) else _JSON_TYPES[member])
    if enum and "null" in json_types:
        enum.append(None)
    types_ = tuple(json_types)
    limits: dict[str, Any] = {"enum": tuple(enum)} if enum else {}
    for rule in field.metadata:
        if isinstance(rule, annotated_types.Ge):
            limits["minimum"] = rule.ge
        elif isinstance(rule, annotated_types.Le):
            limits["maximum"] = rule.le
        elif isinstance(rule, annotated_types.MinLen):
            limits["non_empty"] = rule.min_length > 0
    return Spec(types=types_, description=field.description or "", **limits, **kw)


_STR = _s("string")
_STR_OR_NULL = _s("string", "null")
_BOOL = _s("boolean")
_NAMES = _s("array", items=_s("string", non_empty=True))
_INT0_OR_NULL = _s("integer", "null", minimum=0)

_CONSTRAINTS = _s(
    "object",
    description="The run's limits.",
    properties={
        "max_iterations": _s("integer", minimum=1, description="Tool-calling iterations."),
        "max_tokens": _s("integer", "null", minimum=1, description="Output tokens per reply."),
        "temperature": _s("number", "null", minimum=0.0, maximum=2.0),
    },
    additional=False,
)

_LOGGING = _s(
    "object",
    description="The Agent's own logger.",
    properties={
        "level": _s("string", enum=LOG_LEVELS + tuple(v.lower() for v in LOG_LEVELS)),
        "file": _STR_OR_NULL,
        "to_file": _BOOL,
    },
    additional=False,
)

_BUILT_IN_TOOL = _s(
    "boolean",
    "object",
    properties={"enabled": _BOOL, "config": _s("object")},
    additional=False,
)

_TOOL_ENTRY = _s(
    "string",
    "object",
    description="A .py file or directory path, or an MCP server mapping.",
    properties={
        "type": _s("string", enum=tuple(TOOL_TYPES)),
        "name": _s("string", non_empty=True),
        "path": _s("string", non_empty=True),
        "command": _s("string", non_empty=True),
        "args": _s("array", items=_STR),
        "env": _s("object", additional=_s("string", "integer", "number", "boolean")),
        "cwd": _STR,
        "url": _s("string", non_empty=True),
        "server_url": _s("string", non_empty=True),
        "server_label": _s("string", non_empty=True),
        "allowed_tools": _NAMES,
        "headers": _s("object", additional=_STR),
        "authorization_token": _STR,
        "transport": _s("string", enum=("streamable_http", "http", "sse")),
        "timeout": _s("number", minimum=0),
    },
    required=("type",),
)

_THINKING = _s(
    "object",
    "null",
    description="Thinking / reasoning; the keys are provider-specific.",
    properties={
        "budget_tokens": _s("integer", minimum=1),
        "interleaved": _BOOL,
        "type": _s("string", enum=("enabled", "adaptive", "disabled", "between_tools")),
        "effort": _s("string", non_empty=True),
        "summary": _s("string", non_empty=True),
        "mode": _s("string", non_empty=True),
        "level": _s("string", non_empty=True),
        "include_thoughts": _BOOL,
    },
)

_COMPACTION_CONFIG = _s(
    "object",
    "null",
    properties={
        "strategy": _s(
            "string", enum=("summarize", "sliding_window", "tool_result_clearing", "combined")
        ),
        "trigger_threshold": _s("number", minimum=0),
        "keep_recent_messages": _s("integer", minimum=0),
        "keep_recent_tool_results": _s("integer", minimum=0),
        "min_messages_before_compaction": _s("integer", minimum=0),
        "summary_model": _STR_OR_NULL,
        "summary_prompt": _STR_OR_NULL,
        "summary_prompt_file": _STR_OR_NULL,
        "archive_history": _BOOL,
        "archive_dir": _STR,
        "include_archive_path_in_summary": _BOOL,
        "clear_tool_inputs": _BOOL,
        "combined_order": _s(
            "array",
            items=_s("string", enum=("tool_result_clearing", "sliding_window", "summarize")),
        ),
        "max_compactions_per_session": _s("integer", "null", minimum=1),
        "summary_max_tokens": _s("integer", minimum=1),
        "sliding_window_include_truncation_notice": _BOOL,
    },
    additional=False,
)

_SESSION_HISTORY = _s(
    "object",
    "null",
    properties={
        "mode": _s(
            "string",
            enum=(
                "full",
                "messages_only",
                "no_tool_results",
                "no_reasoning",
                "compact_tool_results",
                "text_summary",
            ),
        ),
        "include_system_prompt": _BOOL,
        "compact_tool_results_max_chars": _s("integer", minimum=1),
    },
    additional=False,
)

_TOOL_CHOICE = _s(
    "string",
    "object",
    description='"auto", "required", "none", "any", "validated", a tool name, or '
    '{"type": "tool", "name": ...}.',
    properties={
        "type": _s("string", enum=("auto", "any", "required", "none", "validated", "tool")),
        "name": _s("string", "array", non_empty=True, items=_s("string", non_empty=True)),
    },
    additional=False,
)

CONFIG_FIELDS: dict[str, Spec] = {
    "model": _setting("model"),
    "instructions": _setting("instructions", default=""),
    "api_key": _setting("api_key"),
    "base_url": _setting("base_url"),
    "constraints": _CONSTRAINTS,
    "thinking": _THINKING,
    "built_in_tools": _s("object", "null", additional=_BUILT_IN_TOOL),
    "tools": _s("array", items=_TOOL_ENTRY, default=[]),
    "logging": _LOGGING,
    "provider_overrides": _s("object", description="Extra provider keywords, passed through."),
    "tool_choice": _TOOL_CHOICE,
    "strict_tools": _setting("strict_tools"),
    "auto_inject_memory_instructions": _setting("auto_inject_memory_instructions"),
    "auto_inject_skills": _setting("auto_inject_skills"),
    "max_tool_result_chars": _setting("max_tool_result_chars"),
    "tool_result_preview_chars": _setting("tool_result_preview_chars"),
    "truncated_result_read_chars": _setting("truncated_result_read_chars"),
    "code_execution_output_dir": _setting("code_execution_output_dir"),
    "service_tier": _setting("service_tier"),
    "prompt_caching": _s(
        "boolean",
        "object",
        "null",
        properties={"ttl": _s("string", enum=("5m", "1h"))},
        additional=False,
    ),
    "emit_request_start": _setting("emit_request_start"),
    "defer_tools": _s("array", "null", items=_s("string", non_empty=True)),
    "estimate_input_tokens": _s("boolean", "string", enum=("lazy", True, False)),
    "compaction": _setting("compaction"),
    "compaction_config": _COMPACTION_CONFIG,
    "session_history_config": _SESSION_HISTORY,
    "anthropic_block_binding": _setting("anthropic_block_binding"),
    "strict_prefix_binding": _setting("strict_prefix_binding"),
    "prefix_audit": _setting("prefix_audit"),
    "prefix_strip_fallback": _setting("prefix_strip_fallback"),
    "remove_citations": _setting("remove_citations"),
    "output_retries": _setting("output_retries"),
    "evidence_threshold": _setting("evidence_threshold"),
    "citations": _setting("citations"),
    "on_unsupported_part": _setting("on_unsupported_part"),
    "media_policy": _setting("media_policy"),
    "media_store": _s("string", "null", non_empty=True, description="A directory path."),
    "media_max_inline_bytes": _setting("media_max_inline_bytes"),
    "detailed_costs": _setting("detailed_costs"),
    "cost_output_dir": _setting("cost_output_dir"),
    "connect_timeout": _setting("connect_timeout"),
    "request_timeout": _setting("request_timeout"),
    "stream_idle_timeout": _setting("stream_idle_timeout"),
    "tool_timeout": _setting("tool_timeout"),
    "registry": _s(
        "string", "null", description="A JSON file of model rows merged over the registry."
    ),
    "deployment": _setting("deployment"),
    "deployment_options": _s(
        "object",
        "null",
        description="The deployment's region, project, endpoint (credentials as ${ENV}).",
    ),
}
"""Every top-level key of the YAML file and its shape (``model`` is required). A scalar
setting's shape and description come from its settings model field (`_setting`); only
the structured keys (sections, tools, mappings with known keys) are declared here, and
every other setting is added below from its field."""

NOT_TOP_LEVEL_KEYS = frozenset(
    {
        "max_iterations",  # constraints.max_iterations
        "max_tokens",
        "temperature",
        "log_level",  # logging.level
        "log_file",
        "log_to_file",
        "provider_kwargs",  # provider_overrides
        "max_pause_turn_iterations",
        "mcp_remote_servers",
        "logger",  # live objects: code only, listed under unserialisable by to_config()
        "client",
        "hooks",
    }
)
"""The settings that are no top-level YAML key of their own: a ``constraints``,
``logging`` or ``provider_overrides`` entry, or a live object."""

for _name in SETTING_NAMES:
    if _name not in CONFIG_FIELDS and _name not in NOT_TOP_LEVEL_KEYS:
        CONFIG_FIELDS[_name] = _setting(_name)  # a setting added to a group: its own key


def _json(spec: Spec) -> dict[str, Any]:
    out: dict[str, Any] = {}
    types = list(spec.types)
    out["type"] = types[0] if len(types) == 1 else types
    if spec.description:
        out["description"] = spec.description
    if spec.enum is not None:
        out["enum"] = list(spec.enum)
    if spec.minimum is not None:
        out["minimum"] = spec.minimum
    if spec.maximum is not None:
        out["maximum"] = spec.maximum
    if spec.non_empty and "string" in types:
        out["minLength"] = 1
    if spec.items is not None and "array" in types:
        out["items"] = _json(spec.items)
    if "object" in types:
        if spec.properties:
            out["properties"] = {k: _json(v) for k, v in spec.properties.items()}
        if isinstance(spec.additional, Spec):
            out["additionalProperties"] = _json(spec.additional)
        elif spec.additional is False:
            out["additionalProperties"] = False
        if spec.required:
            out["required"] = list(spec.required)
    return out


def config_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an Agent YAML file, for editors and CI."""
    properties = {key: _json(spec) for key, spec in CONFIG_FIELDS.items()}
    tool = properties["tools"]["items"]
    tool["allOf"] = [
        {
            "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
            "then": {"required": list(keys)},
        }
        for kind, keys in TOOL_TYPES.items()
    ]
    properties["unserialisable"] = {
        "type": "object",
        "description": "Written by to_config(); ignored when loading.",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://doc-processing-toolkit/schemas/agent-config.json",
        "title": "doc-processing-toolkit Agent configuration",
        "type": "object",
        "required": ["model"],
        "properties": properties,
        "additionalProperties": False,
    }
