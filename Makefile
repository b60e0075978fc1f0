# The two commands: `make run` (the GUI with the built-in example) and `make test` (the whole suite, headless).
# torch is pinned here and only here; override with `make run TORCH=2.14.1`.
TORCH ?= 2.13.0
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(TORCH)
SUITE_ENV := env -u PYTHONDONTWRITEBYTECODE QT_QPA_PLATFORM=offscreen

.PHONY: run test lint format bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet "torch==$(TORCH)"
	$(BIN)/pip install --quiet -e ".[test,tensorboard,mlflow,wandb,frameworks]" "torch==$(TORCH)"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tcprof

# Two passes: what is not timing-sensitive on three processes (one file per process at a time;
# on two cores a third keeps both busy while a test waits on its workers: docs/benchmarks.md,
# "The suite at 10 minutes"), then the timing-sensitive tests (marked serial) alone, so their
# deadlines stay honest. Both fork their workers (tests/conftest.py): the deadlines are a
# stall's or a Stop's, not a figure. Bytecode is cached even where the environment says not to
# (PYTHONDONTWRITEBYTECODE): otherwise every worker, CLI and test process compiles the project's
# modules, and pytest rewrites every test file's asserts, again (docs/benchmarks.md). Files are
# handed out in the order tests/conftest.py gives them (the heavy ones first): xdist's default
# reorders them by their number of tests, which put the one-test files of tens of seconds last.
test: $(STAMP)
	$(SUITE_ENV) $(BIN)/python -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder -m "not serial" --durations=15
	$(SUITE_ENV) $(BIN)/python -m pytest -q -m serial --durations=10

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy --config-file pyproject.toml

format: $(STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python -m bench.run_all

clean:
	rm -rf $(VENV) build *.egg-info
