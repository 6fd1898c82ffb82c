"""Hostile YAML fails fast and typed: alias bombs, deep nesting, self-referring aliases.

Each hostile load runs in a child process with a timeout, so a regression (minutes of
alias expansion, a RecursionError, a hang) fails the test instead of holding the suite.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.agent.config import (
    ConfigParseError,
    ConfigValidationError,
    load_config,
    load_config_from_string,
)

_CHILD = textwrap.dedent(
    """
    import json, sys
    from doc_processing_toolkit.agent.config import load_config
    for path in sys.argv[1:]:
        try:
            load_config(path, registry_check=None)
        except BaseException as exc:
            outcome = {"type": type(exc).__name__, "message": str(exc)[:500]}
        else:
            outcome = {"type": None, "message": ""}
        print(json.dumps({"path": path, **outcome}), flush=True)
    """
)
_BOUND_SECONDS = 60  # generous for a loaded CI machine; today's main runs for minutes


def _load_in_child(paths: list[Path]) -> dict[str, dict[str, str | None]]:
    """{path: {"type": error type or None, "message": ...}} of loading each file in a child
    process; fails (never hangs) when the loads do not finish within the bound."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, *map(str, paths)],
            capture_output=True,
            text=True,
            timeout=_BOUND_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        finished = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout
        pytest.fail(f"the loads did not finish in {_BOUND_SECONDS} s; finished: {finished}")
    assert done.returncode == 0, done.stderr[-2000:]
    outcomes = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {str(o.pop("path")): o for o in outcomes}


def _laughs(levels: int) -> str:
    names = "abcdefghi"
    lines = ["model: gpt-4o", "a: &a [l,l,l,l,l,l,l,l,l]"]
    for level in range(1, levels):
        name, previous = names[level], names[level - 1]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


HOSTILE = {
    "laughs_6_levels": _laughs(6),
    "sequences_20000_deep": "model: " + "[" * 20_000 + "]" * 20_000 + "\n",
    "mappings_5000_deep": "model: " + "{a: " * 5_000 + "1" + "}" * 5_000 + "\n",
    "block_sequences_5000_deep": "model:\n" + "- " * 5_000 + "x\n",
    "block_mappings_3000_deep": "model: gpt-4o\nx:\n"
    + "".join("  " * i + "k:\n" for i in range(1, 3_000)),
    "alias_chain_3000_long": "model: gpt-4o\n"
    + "\n".join(f"a{i}: &a{i} [*a{i - 1}]" if i else "a0: &a0 [x]" for i in range(3_000))
    + "\n",
    "merge_chain_3000_long": "model: gpt-4o\n"
    + "\n".join(f"m{i}: &m{i} {{<<: *m{i - 1}}}" if i else "m0: &m0 {k: v}" for i in range(3_000))
    + "\n",
    "alias_to_itself": "model: gpt-4o\nloop: &loop [a, *loop]\n",
    "billion_laughs_9x9": _laughs(9),  # last: today's main never finishes it
}


def test_hostile_yaml_fails_fast_with_config_parse_error(tmp_path: Path) -> None:
    assert len(HOSTILE["billion_laughs_9x9"]) < 400  # the "300-byte file"
    paths = []
    for name, text in HOSTILE.items():
        paths.append(tmp_path / f"{name}.yaml")
        paths[-1].write_text(text, encoding="utf-8")
    outcomes = _load_in_child(paths)
    for path in paths:
        outcome = outcomes[str(path)]
        assert outcome["type"] == "ConfigParseError", (path.name, outcome)
        assert re.match(rf"{re.escape(str(path))}:\d+:\d+: invalid YAML: ", str(outcome["message"]))
    bounds = {name: str(outcomes[str(tmp_path / f"{name}.yaml")]["message"]) for name in HOSTILE}
    assert "aliases expand to more than 10,000 extra nodes" in bounds["billion_laughs_9x9"]
    assert "nested deeper than 100 levels" in bounds["sequences_20000_deep"]
    assert "nested deeper than 100 levels" in bounds["mappings_5000_deep"]
    assert "nests deeper than 100 levels when expanded" in bounds["alias_chain_3000_long"]
    assert "alias *loop refers to the node it is in" in bounds["alias_to_itself"]


def test_ordinary_anchors_aliases_and_merge_keys_still_load() -> None:
    config = load_config_from_string(
        textwrap.dedent(
            """
            model: gpt-4o
            tools:
              - &stdio {type: mcp_command, name: one, command: python, args: [-m, one]}
              - <<: *stdio
                name: two
                args: &args [-m, two]
            provider_overrides:
              metadata: {argv: *args}
            """
        ),
        registry_check=None,
    )
    assert [t["name"] for t in config["tools"]] == ["one", "two"]
    assert config["tools"][1]["command"] == "python"
    assert config["provider_overrides"]["metadata"]["argv"] == ["-m", "two"]


def test_nesting_up_to_the_bound_loads_and_unknown_keys_still_name_the_line() -> None:
    deep = "model: gpt-4o\nprovider_overrides:\n  x: " + "[" * 90 + "]" * 90 + "\n"
    expected: list[object] = []
    for _ in range(89):
        expected = [expected]
    assert load_config_from_string(deep, registry_check=None)["provider_overrides"]["x"] == expected
    with pytest.raises(ConfigValidationError, match=r"modle: unknown key.*<string>:2"):
        load_config_from_string("model: gpt-4o\nmodle: x\n", registry_check=None)


def test_a_file_that_is_not_utf8_is_a_config_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("model: gpt-4o\ninstructions: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ConfigParseError, match=r"latin1\.yaml: not UTF-8 text \(byte 31"):
        load_config(path, registry_check=None)
    with pytest.raises(ConfigParseError, match=r"latin1\.yaml: not UTF-8 text"):
        Agent.from_config(str(path))
