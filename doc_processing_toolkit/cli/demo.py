"""``dpt demo``: a tool-using agent run end to end, offline.

The loopback ProviderEmulator plays the provider; the real SDK and the real Agent talk to
it over HTTP, so everything but the model itself is the production path.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, TextIO

from doc_processing_toolkit.agent import Agent
from doc_processing_toolkit.agent.tools import tool
from doc_processing_toolkit.cli.render import cost_table, held_warnings, stream_run
from doc_processing_toolkit.testing.script import Reply, ToolCall

__all__ = ["run_demo"]


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


_SCRIPT = (
    Reply(
        text="Let me add those with the calculator.",
        tool_calls=(ToolCall("calculate", {"a": 2, "b": 3}),),
        input_tokens=412,
        output_tokens=58,
    ),
    Reply(
        text="The sum of 2 and 3 is 5.",
        input_tokens=498,
        output_tokens=14,
        chunk_size=3,
        delay_between_chunks=0.03,
    ),
)


def run_demo(model: str, out: TextIO) -> int:
    """Run the demo against the emulator; returns a process exit code."""
    from doc_processing_toolkit.testing.emulator import ProviderEmulator

    print("dpt demo — OFFLINE: a local provider emulator on 127.0.0.1 plays the model.", file=out)
    print("No API key is used and nothing leaves this machine.\n", file=out)
    with ProviderEmulator(_SCRIPT) as emulator:
        from doc_processing_toolkit.application.container import registry

        provider = registry().detect_provider(model)
        base_url = getattr(emulator, f"{provider}_base_url", None)
        if base_url is None:
            print(f"dpt demo: the emulator does not speak {provider!r} yet", file=out)
            return 2
        with held_warnings(sys.stderr) as logger:
            agent = Agent(
                model,
                "You are a helpful math assistant.",
                tools=[calculate],
                api_key=os.environ.get("DPT_DEMO_API_KEY", "demo-key-offline"),
                base_url=base_url,
                logger=logger,
            )
            print(f"model: {model} ({agent.provider})  endpoint: {emulator.url}\n", file=out)
            print("user: What is 2 + 3?\n", file=out)

            async def demo() -> dict[str, Any]:
                async with agent:
                    return await stream_run(agent, "What is 2 + 3?", out)

            final = asyncio.run(demo())
    if final.get("error"):
        # e.g. a core install without the provider's SDK: one line, no empty cost table.
        print(f"dpt demo: the run failed: {final['error']}", file=sys.stderr)
        return 1
    print(file=out)
    cost_table(final, out)
    print(f"\ntools used: {', '.join(final.get('tools_used') or []) or 'none'}", file=out)
    return 0 if not final.get("error") else 1
