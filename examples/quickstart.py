"""The spec's first example, run offline against the loopback emulator.

    python examples/quickstart.py

With ANTHROPIC_API_KEY set and DPT_EXAMPLE_LIVE=1 it talks to the real API instead.
"""

from __future__ import annotations

import os

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import ProviderEmulator, reply, tool_call


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def main() -> None:
    if os.environ.get("DPT_EXAMPLE_LIVE") == "1":
        agent = Agent("claude-sonnet-5-5", "You are a helpful math assistant.", tools=[calculate])
        print(agent.run_sync("What is 2 + 3?"))
        return
    script = [tool_call("calculate", {"a": 2, "b": 3}), reply("The sum of 2 and 3 is 5.")]
    with ProviderEmulator(script) as emulator:
        os.environ["ANTHROPIC_BASE_URL"] = emulator.anthropic_base_url
        agent = Agent(
            "claude-sonnet-5-5",
            "You are a helpful math assistant.",
            tools=[calculate],
            api_key="offline-example",
            log_to_file=False,
        )
        result = agent.run_sync("What is 2 + 3?")
    print(result.output)
    print("tools used:", result.tools_used)
    print(f"cost: ${result.cost:.6f} over {len(result.request_cost_records)} requests")


if __name__ == "__main__":
    main()
