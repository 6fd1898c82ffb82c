#!/usr/bin/env bash
# Runs pytest so that the run always ends with a report, whatever happens to pytest.
#
#   scripts/run-pytest.sh PYTEST_COMMAND...     (the Makefile's `unit` target uses it)
#
# - Each test has a hard time limit (pytest-timeout, `timeout` in pyproject.toml): a test
#   over it has every thread's stack dumped and fails by name, and the run goes on.
# - tests/conftest.py writes the node id of every test as it starts to $DPT_PYTEST_PROGRESS.
# - When pytest exits without its summary line (killed, crashed, os._exit in a test), this
#   script says so, with the exit status and the last test started, so the failure is never
#   a silent truncated line.
set -uo pipefail

progress=$(mktemp "${TMPDIR:-/tmp}/dpt-pytest-progress.XXXXXX")
output=$(mktemp "${TMPDIR:-/tmp}/dpt-pytest-output.XXXXXX")
trap 'rm -f "$progress" "$output"' EXIT
export DPT_PYTEST_PROGRESS="$progress"
export PYTHONFAULTHANDLER=1

"$@" 2>&1 | tee "$output"
status=${PIPESTATUS[0]}

# pytest's closing line: "==== 12 passed, 1 skipped in 3.21s ====" (or "no tests ran").
if ! tail -n 5 "$output" | grep -Eq '(passed|failed|error|errors|no tests ran|skipped|deselected).* in [0-9.]+s'; then
  echo
  echo "==================================================================================="
  echo "pytest ended WITHOUT its summary line (exit status $status)."
  if [ -s "$progress" ]; then
    echo "The last test started was: $(tail -n 1 "$progress")"
    if [ "$(wc -l < "$progress")" -gt 1 ]; then
      echo "The tests started before it:"
      tail -n 6 "$progress" | sed -e "\$d" -e "s/^/  /"
    fi
  else
    echo "No test had started (collection or start-up failed)."
  fi
  echo "==================================================================================="
  [ "$status" -eq 0 ] && status=1
fi
exit "$status"
