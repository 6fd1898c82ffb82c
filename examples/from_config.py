"""Build an agent from examples/agent.yaml and run it offline, with its cost report.

    python examples/from_config.py

The YAML is the recipe; the scripted FakeModel stands in for the provider (passed as the
``client=`` override), so this runs without a network or an API key. The detailed cost
report lands in a temporary directory and is printed as ``dpt cost`` prints it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import yaml

from doc_processing_toolkit import Agent
from doc_processing_toolkit.agent.cost import DetailedCostReport
from doc_processing_toolkit.cli.render import report_table
from doc_processing_toolkit.testing import FakeModel, reply, tool_call

HERE = Path(__file__).resolve().parent


def main() -> None:
    os.chdir(HERE.parent)  # the YAML's tool path is relative to the repository root
    with tempfile.TemporaryDirectory() as costs:
        os.environ["DPT_COST_DIR"] = costs
        fake = FakeModel(
            [
                tool_call("calculate", {"a": 6, "b": 7, "operation": "multiply"}),
                reply("6 times 7 is 42.", cache_read_tokens=800),
            ]
        )
        agent = Agent.from_config(str(HERE / "agent.yaml"), client=fake)
        result = agent.run_sync("What is 6 times 7?")
        print(result.output)
        assert result.detailed_cost_file is not None
        report_table(DetailedCostReport.load(result.detailed_cost_file), sys.stdout)
        print("\nto_config() of this agent:\n")
        print(yaml.safe_dump(agent.to_config(), sort_keys=False))


if __name__ == "__main__":
    main()
