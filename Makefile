# Works on a fresh machine with only Python 3.11 and pip: uv is installed with pip
# when it is missing, .venv is created from uv.lock (uv sync --frozen), then the target runs.
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null)
ifeq ($(UV),)
UV := $(PYTHON) -m uv
endif
RUN := $(UV) run --frozen --no-sync

.PHONY: help uv install demo test lint typecheck contracts unit bench clean

help:
	@echo "make demo   - offline demo: a tool-using agent against the local provider emulator"
	@echo "make test   - ruff, mypy --strict, import-linter contracts, pytest"
	@echo "make bench  - Agent.run overhead vs the raw SDK against the emulator"

uv:
	@$(UV) --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv

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

unit: install
	$(RUN) pytest

test: lint typecheck contracts unit

bench: install
	$(RUN) python tests/bench/bench_overhead.py

clean:
	rm -rf .venv .mypy_cache .ruff_cache logs
