# Works on a fresh machine with only Python 3.11+ and its pip, including a distribution's
# own Python that refuses system-wide installs (PEP 668, "externally-managed-environment"):
# when uv is not on PATH it is installed with pip into a private bootstrap environment
# (.bootstrap/), never into the system Python. Then .venv is created from uv.lock
# (uv sync --frozen) and the target runs.
PYTHON ?= python3
BOOTSTRAP := .bootstrap
UV := $(shell command -v uv 2>/dev/null)
ifeq ($(UV),)
UV := $(BOOTSTRAP)/bin/uv
endif
RUN := $(UV) run --frozen --no-sync

.PHONY: help uv install demo test test-sdk-latest lint typecheck contracts unit bench bench-smoke bench-backlog bench-evals bench-fleet bench-instructions docs clean soak postgres

help:
	@echo "make demo   - offline demo: a tool-using agent against the local provider emulator"
	@echo "make test   - ruff, mypy --strict, import-linter contracts, pytest"
	@echo "make test-sdk-latest - the provider contract suite against the newest released"
	@echo "             anthropic, openai and google-genai (a throwaway venv; needs the index)"
	@echo "make bench  - the performance gate: Agent vs the raw SDKs, import, sessions, the fleet (< 8 min)"
	@echo "make bench-smoke - one short round of the bench (CI: proves it runs, times nothing)"
	@echo "make bench-backlog [JOBS=50000] - 50,000 fleet jobs, 4 workers on Postgres (~20 min)"
	@echo "make bench-evals - 200 eval cases at concurrency 8 on a 50 ms emulator vs the ideal"
	@echo "make bench-fleet - the fleet: wall time and CPU per job, the per-request start record"
	@echo "make bench-instructions [PROVIDER=openai] - instructions per call under cachegrind"
	@echo "make soak   - 2,000 faulted streams, 3 rounds x 500 concurrent runs (10% faulted)"
	@echo "             and 3,000 Agents created and closed (fds, RSS)"
	@echo "make docs   - the user guide and API reference, built into site/ (mkdocs --strict)"
	@echo "make postgres - a throwaway Postgres on loopback for the multi-worker fleet test"

uv:
	@$(UV) --version >/dev/null 2>&1 || { \
		echo "uv not found: installing it into $(BOOTSTRAP)/ with $(PYTHON)'s pip"; \
		$(PYTHON) -m venv $(BOOTSTRAP) 2>/dev/null || $(PYTHON) -m venv --without-pip $(BOOTSTRAP); \
		if [ -x $(BOOTSTRAP)/bin/pip ]; then $(BOOTSTRAP)/bin/pip install --quiet uv; \
		else $(PYTHON) -m pip --python $(BOOTSTRAP)/bin/python install --quiet uv; fi; \
	}

install: uv
	@$(UV) sync --frozen --all-extras --python $(PYTHON) --quiet

demo: install
	$(RUN) dpt demo

lint: install
	$(RUN) ruff check doc_processing_toolkit tests examples
	$(RUN) ruff format --check doc_processing_toolkit tests examples

typecheck: install
	$(RUN) mypy doc_processing_toolkit

contracts: install
	$(RUN) lint-imports

# scripts/run-pytest.sh: every run ends with a report (a per-test limit that names a hung
# test, and the last test started when pytest dies without its summary).
unit: install
	scripts/run-pytest.sh $(RUN) pytest

test: lint typecheck contracts unit

# The contract suite (tests/contract, with the Google adapter's private-SDK path compared to
# its public one) against the newest released SDKs, in a throwaway venv under $TMPDIR:
# uv.lock and .venv are left as they are. CI runs it as its own step.
test-sdk-latest: install
	scripts/test-sdk-latest.sh $(UV) $(PYTHON)

soak: install
	DPT_FAULT_STREAMS=2000 DPT_SOAK_AGENTS=3000 DPT_SOAK_RUNS=500 DPT_SOAK_ROUNDS=3 \
		$(RUN) pytest -s \
		tests/integration/test_fault_matrix.py \
		tests/integration/test_soak_concurrent.py \
		"tests/unit/application/test_resources.py::test_many_agents_with_file_logging_leave_no_descriptor_or_logger"

bench: install
	$(RUN) python tests/bench/bench.py

# The backlog (issue 41): JOBS jobs (default 50,000) drained by 4 workers on a throwaway
# Postgres (or DPT_TEST_POSTGRES_URL) at 50 ms per request, against asyncio.gather.
bench-backlog: install
	$(RUN) python tests/bench/fleet_scale.py --backlog $(if $(JOBS),--jobs $(JOBS),)

# Evals throughput (issue 37): 200 cases, concurrency 8, 50 ms per request; the ratio to the
# latency-bound ideal (200 x 50 ms / 8).
bench-evals: install
	$(RUN) python tests/bench/evals.py

# The fleet: a worker's wall time and CPU per job on the emulator, and the per-request
# start record (issue 31); compare before/after a change on one machine (~2 min).
bench-fleet: install
	$(RUN) python tests/bench/fleet.py

# One short round of everything (seconds): CI proves the bench works, never times it.
bench-smoke: install
	$(RUN) python tests/bench/bench.py --smoke
	$(RUN) python tests/bench/instructions.py --smoke

# Instructions, cache misses and branch mispredictions per call under valgrind's
# cachegrind: the noise-free companion of `make bench` (needs valgrind; ~10 min).
bench-instructions: install
	$(RUN) python tests/bench/instructions.py $(if $(PROVIDER),--provider $(PROVIDER),)

# Not part of `make test`: CI runs it as its own step.
docs: install
	NO_MKDOCS_2_WARNING=1 $(RUN) mkdocs build --strict --site-dir site

# A throwaway cluster for the multi-worker fleet test (Debian's postgresql package):
#   eval "$$(make -s postgres)" && make test
PG_DIR ?= /tmp/dpt-postgres
postgres:
	@url=$$(scripts/throwaway-postgres.sh start $(PG_DIR)) && echo "export DPT_TEST_POSTGRES_URL=$$url"

clean:
	rm -rf .venv .bootstrap .mypy_cache .ruff_cache logs site
