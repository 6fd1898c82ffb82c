"""The raw-SDK baselines of the bench: one streamed call, and a hand-written tool loop.

Each provider's baseline is what a careful user writes with the SDK alone: one client
(``max_retries=0`` / one attempt, as the Agent's adapters configure it), a streamed
request, every event iterated. The tool loop streams the first reply, collects the tool
call, runs the tool, sends the result back and streams the final reply.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from emulator_server import TOOL_MARKER, TOOL_RESULT

MODELS = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-4o",
    "google": "gemini-2.5-flash",
    "fireworks": "kimi-k2p6",
}
KEY = "bench-key-0123456789"
PROMPT = "Say hello."
TOOL_PROMPT = f"{TOOL_MARKER}: look up the key a."
TOOL_SCHEMA = {
    "type": "object",
    "properties": {"key": {"type": "string", "description": "The key."}},
    "required": ["key"],
}

Call = Callable[[], Awaitable[None]]
ToolRound = Callable[..., Awaitable[None]]
"""A baseline's tool round: ``tool_round(threaded=False)``."""


def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return f"{TOOL_RESULT} for {key}"


async def threaded_lookup(arguments: dict[str, Any]) -> str:
    """``lookup(**arguments)`` on a worker thread (``asyncio.to_thread``)."""
    return await asyncio.to_thread(lookup, **arguments)


@functools.cache
def lookup_tool() -> Any:
    """``lookup`` as an Agent tool (``@tool``)."""
    from doc_processing_toolkit import tool

    return tool(lookup)


@functools.cache
def async_lookup_tool() -> Any:
    """``lookup`` as an async Agent tool: the tool round without the worker-thread hop a
    synchronous tool takes (for information next to the synchronous row)."""
    from doc_processing_toolkit import tool

    async def lookup_async(key: str) -> str:
        """Look a key up.

        Args:
            key: The key.
        """
        return lookup(key)

    return tool(name="lookup")(lookup_async)


def base_url(provider: str, url: str) -> str:
    """The base URL the provider's SDK (and the Agent) takes for the emulator at ``url``."""
    return {
        "anthropic": url,
        "openai": f"{url}/v1",
        "google": url,
        "fireworks": f"{url}/inference/v1",
    }[provider]


@dataclass
class Baseline:
    """The raw SDK client of one provider and its two workloads."""

    client: Any
    call: Call
    tool_round: ToolRound
    """The hand-written loop; ``threaded=True`` runs the tool on a worker thread
    (``asyncio.to_thread``), as the Agent runs a synchronous tool."""
    configured_call: Call | None = None
    """The same call given the request options the Agent must send, where the SDK spends
    CPU on them (for information: it is not the baseline)."""
    configured_note: str = ""
    configured_client: Any = None
    """The client of :attr:`configured_call`, when it is not :attr:`client`."""

    async def close(self) -> None:
        for client in (self.client, self.configured_client):
            if client is None:
                continue
            if hasattr(client, "aio"):
                await client.aio.aclose()
            else:
                await client.close()


def baseline(provider: str, url: str) -> Baseline:
    """The raw-SDK baseline of ``provider`` against the emulator at ``url``."""
    base = base_url(provider, url)
    model = MODELS[provider]
    if provider == "anthropic":
        return _anthropic(base, model)
    if provider == "openai":
        return _responses(base, model)
    if provider == "fireworks":
        return _chat(base, model)
    return _google(base, model)


def _anthropic(base: str, model: str) -> Baseline:
    import anthropic

    client = anthropic.AsyncAnthropic(api_key=KEY, base_url=base, max_retries=0)
    tools = [{"name": "lookup", "description": "Look a key up.", "input_schema": TOOL_SCHEMA}]

    async def call() -> None:
        stream = await client.messages.create(
            model=model,
            max_tokens=1024,
            stream=True,
            messages=[{"role": "user", "content": PROMPT}],
        )
        async for _ in stream:
            pass

    async def tool_round(threaded: bool = False) -> None:
        messages: list[dict[str, Any]] = [{"role": "user", "content": TOOL_PROMPT}]
        for _ in range(2):
            stream = await client.messages.create(
                model=model, max_tokens=1024, stream=True, messages=messages, tools=tools
            )
            calls: list[dict[str, Any]] = []
            text: list[str] = []
            async for event in stream:
                if event.type == "content_block_start" and event.content_block.type == "tool_use":
                    block = event.content_block
                    calls.append({"id": block.id, "name": block.name, "json": ""})
                elif event.type == "content_block_delta":
                    if event.delta.type == "input_json_delta":
                        calls[-1]["json"] += event.delta.partial_json
                    elif event.delta.type == "text_delta":
                        text.append(event.delta.text)
            if not calls:
                return
            uses = [
                {
                    "type": "tool_use",
                    "id": c["id"],
                    "name": c["name"],
                    "input": json.loads(c["json"] or "{}"),
                }
                for c in calls
            ]
            if threaded:
                outputs = [await threaded_lookup(u["input"]) for u in uses]
                results = [
                    {"type": "tool_result", "tool_use_id": u["id"], "content": output}
                    for u, output in zip(uses, outputs, strict=True)
                ]
            else:  # the gated baseline, exactly as before the threaded variant
                results = [
                    {"type": "tool_result", "tool_use_id": u["id"], "content": lookup(**u["input"])}
                    for u in uses
                ]
            messages += [
                {"role": "assistant", "content": uses},
                {"role": "user", "content": results},
            ]

    return Baseline(client, call, tool_round)


def _responses(base: str, model: str) -> Baseline:
    import openai

    client = openai.AsyncOpenAI(api_key=KEY, base_url=base, max_retries=0)
    tools = [
        {
            "type": "function",
            "name": "lookup",
            "description": "Look a key up.",
            "parameters": TOOL_SCHEMA,
        }
    ]

    async def call() -> None:
        events = await client.responses.create(model=model, input=PROMPT, stream=True)
        async for _ in events:
            pass

    async def tool_round(threaded: bool = False) -> None:
        items: list[Any] = [{"role": "user", "content": TOOL_PROMPT}]
        for _ in range(2):
            events = await client.responses.create(
                model=model,
                input=items,
                tools=tools,
                stream=True,  # type: ignore[arg-type]
            )
            calls = []
            async for event in events:
                if event.type == "response.output_item.done" and event.item.type == "function_call":
                    calls.append(event.item)
            if not calls:
                return
            for item in calls:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": item.call_id,
                        "name": item.name,
                        "arguments": item.arguments,
                    }
                )
                arguments = json.loads(item.arguments or "{}")
                output = await threaded_lookup(arguments) if threaded else lookup(**arguments)
                items.append(
                    {"type": "function_call_output", "call_id": item.call_id, "output": output}
                )

    return Baseline(client, call, tool_round)


def _chat(base: str, model: str) -> Baseline:
    import openai

    client = openai.AsyncOpenAI(api_key=KEY, base_url=base, max_retries=0)
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": "Look a key up.",
                "parameters": TOOL_SCHEMA,
            },
        }
    ]

    async def call() -> None:
        events = await client.chat.completions.create(
            model=model,
            stream=True,
            stream_options={"include_usage": True},
            messages=[{"role": "user", "content": PROMPT}],
        )
        async for _ in events:
            pass

    async def tool_round(threaded: bool = False) -> None:
        messages: list[Any] = [{"role": "user", "content": TOOL_PROMPT}]
        for _ in range(2):
            events = await client.chat.completions.create(
                model=model,
                stream=True,
                stream_options={"include_usage": True},
                messages=messages,
                tools=tools,  # type: ignore[arg-type]
            )
            calls: dict[int, dict[str, str]] = {}
            async for chunk in events:
                for choice in chunk.choices:
                    for delta in choice.delta.tool_calls or ():
                        slot = calls.setdefault(
                            delta.index, {"id": "", "name": "", "arguments": ""}
                        )
                        slot["id"] = delta.id or slot["id"]
                        if delta.function is not None:
                            slot["name"] = delta.function.name or slot["name"]
                            slot["arguments"] += delta.function.arguments or ""
            if not calls:
                return
            wire = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in calls.values()
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": wire})
            for c in calls.values():
                arguments = json.loads(c["arguments"] or "{}")
                output = await threaded_lookup(arguments) if threaded else lookup(**arguments)
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": output})

    return Baseline(client, call, tool_round)


def _google(base: str, model: str) -> Baseline:
    from google import genai
    from google.genai import types

    client = genai.Client(
        api_key=KEY,
        vertexai=False,
        http_options=types.HttpOptions(
            base_url=base, retry_options=types.HttpRetryOptions(attempts=1)
        ),
    )
    config = types.GenerateContentConfig(
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name="lookup",
                        description="Look a key up.",
                        parameters_json_schema=TOOL_SCHEMA,
                    )
                ]
            )
        ],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )

    async def call() -> None:
        chunks = await client.aio.models.generate_content_stream(model=model, contents=PROMPT)
        async for _ in chunks:
            pass

    # What the Agent's adapter sends on every request (one request is one HTTP request:
    # the SDK's automatic function calling and automatic continuation are off), on a
    # client with the Agent's connection pool (100 idle connections kept, as the Anthropic
    # and OpenAI SDKs keep them, where httpx's default keeps 20, in five pools of 20).
    import httpx2

    from doc_processing_toolkit.adapters.providers._pool import ShardedTransport
    from doc_processing_toolkit.adapters.providers.google.client import CONNECTION_LIMITS

    configured = genai.Client(
        api_key=KEY,
        vertexai=False,
        http_options=types.HttpOptions(
            base_url=base,
            retry_options=types.HttpRetryOptions(attempts=1),
            async_client_args={
                "transport": ShardedTransport(),
                "limits": httpx2.Limits(**CONNECTION_LIMITS),
            },
        ),
    )
    one_request = types.GenerateContentConfig(
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        automatic_continuation=False,
    )

    async def configured_call() -> None:
        chunks = await configured.aio.models.generate_content_stream(
            model=model, contents=PROMPT, config=one_request
        )
        async for _ in chunks:
            pass

    async def tool_round(threaded: bool = False) -> None:
        contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=TOOL_PROMPT)])]
        for _ in range(2):
            chunks = await client.aio.models.generate_content_stream(
                model=model, contents=contents, config=config
            )
            calls = []
            async for chunk in chunks:
                calls.extend(chunk.function_calls or ())
            if not calls:
                return
            contents.append(
                types.Content(role="model", parts=[types.Part(function_call=c) for c in calls])
            )
            if threaded:
                outputs = [await threaded_lookup(dict(c.args or {})) for c in calls]
            else:
                outputs = [lookup(**(c.args or {})) for c in calls]
            contents.append(
                types.Content(
                    role="user",
                    parts=[
                        types.Part(
                            function_response=types.FunctionResponse(
                                id=c.id, name=c.name, response={"result": output}
                            )
                        )
                        for c, output in zip(calls, outputs, strict=True)
                    ],
                )
            )

    return Baseline(
        client,
        call,
        tool_round,
        configured_call,
        "one HTTP request per call, the Agent's connection pool",
        configured,
    )
