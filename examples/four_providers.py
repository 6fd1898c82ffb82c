"""The spec's first example on all four providers, unchanged but for the model name.

    python examples/four_providers.py

Runs offline against the loopback ProviderEmulator (each provider's real SDK speaks its
own wire protocol to it). The same code reaches the real APIs when the emulator is left
out and the provider keys are set.
"""

from __future__ import annotations

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import ProviderEmulator, reply, tool_call

MODELS = ["claude-sonnet-5-5", "gpt-4o", "gemini-2.5-flash", "kimi-k2p6"]


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def run(model: str, emulator: ProviderEmulator) -> None:
    provider = Agent(model, log_to_file=False).provider
    emulator.push(
        tool_call("calculate", {"a": 2, "b": 3}),
        reply("The sum of 2 and 3 is 5.", input_tokens=60, output_tokens=12),
    )
    agent = Agent(
        model=model,
        instructions="You are a helpful math assistant.",
        tools=[calculate],
        api_key="offline-example-key",
        base_url=getattr(emulator, f"{provider}_base_url"),
        log_to_file=False,
    )
    result = agent.run_sync("What is 2 + 3?")
    print(
        f"{model:<20} {provider:<10} tools={result.tools_used} "
        f"tokens={result.input_tokens}+{result.output_tokens} cost=${result.cost:.6f}"
        f"{' (estimated)' if result.cost_estimated else ''}  -> {result.output}"
    )


def main() -> None:
    with ProviderEmulator() as emulator:
        for model in MODELS:
            run(model, emulator)


if __name__ == "__main__":
    main()
