#!/usr/bin/env bash
# The provider contract suite against the newest released anthropic, openai and google-genai.
#
#   scripts/test-sdk-latest.sh UV [PYTHON]     (the Makefile's `test-sdk-latest` target)
#
# uv.lock pins the SDKs the toolkit ships with; the adapters' fast paths and the Google
# adapter's private-SDK seam (adapters/providers/google/_sdk_private.py) are written
# against those. This runs the same contract tests, and the fast-path / public-path
# comparison, against whatever the package index serves as newest today, so a release
# that renames or reshapes something the adapters rely on fails here on release day.
#
# Everything happens in a throwaway virtual environment under $TMPDIR: neither uv.lock nor
# .venv is touched. The environment gets the locked dependencies first, then the three
# SDKs upgraded to their newest release (with whatever newer dependencies they need).
set -euo pipefail

uv=${1:?usage: scripts/test-sdk-latest.sh UV [PYTHON]}
python_bin=${2:-python3}
cd "$(dirname "$0")/.."
root=$(pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dpt-sdk-latest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
venv="$tmp/venv"

"$uv" venv --quiet --python "$python_bin" "$venv"
# The locked set (all extras and the dev group), the project itself as an editable install.
"$uv" export --quiet --frozen --all-extras --no-hashes --format requirements-txt \
  --output-file "$tmp/locked.txt"
"$uv" pip install --quiet --python "$venv/bin/python" -r "$tmp/locked.txt"
"$uv" pip install --quiet --python "$venv/bin/python" --upgrade --refresh-package anthropic \
  --refresh-package openai --refresh-package google-genai anthropic openai google-genai

echo "test-sdk-latest: SDK versions under test (uv.lock pins in brackets)"
for package in anthropic openai google-genai; do
  now=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$package'))")
  locked=$(awk -v name="$package" '$0 == "name = \"" name "\"" { getline; gsub(/[^0-9A-Za-z.]/, "", $0); sub(/^version/, "", $0); print; exit }' uv.lock)
  echo "  $package $now [$locked]"
done

# The contract suite (tests/contract: every adapter, and the Google adapter's private and
# public SDK paths compared on the same emulator traffic), plus the tests that check the
# Google fast path's chunk conversion and requests against the SDK itself.
targets=(tests/contract tests/integration/test_google_own_stream_path.py)
for file in tests/unit/adapters/providers/google/test_raw_stream.py \
  tests/unit/adapters/providers/google/test_sdk_models.py \
  tests/unit/adapters/providers/test_sdk_private_seams.py; do
  [ -f "$file" ] && targets+=("$file")
done
cd "$root"
scripts/run-pytest.sh "$venv/bin/python" -m pytest "${targets[@]}"
