# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test test-slow snapshots install install-test bench sample clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[postgres,llm,serve]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[postgres,llm,serve,test]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

demo: $(VENV)/.installed
	$(VENV)/bin/workbench demo

# pytest-xdist workers: `auto` is two per usable core (tests/conftest.py: many tests wait
# more than they compute); an idle worker takes tests queued for a busy one, so a slow test
# near the end does not leave a core idle. TEST_WORKERS=N: N workers; 0: one process.
TEST_WORKERS ?= auto

# Bytecode is cached for the run even where PYTHONDONTWRITEBYTECODE is set: otherwise every
# worker rewrites all test modules again and every `workbench` subprocess the tests start
# compiles the package again (0.1-0.2 s of CPU each, hundreds of them).
# `make test` leaves out the tests marked `slow` (the README script, the multi-process
# reliability tests, the browser, statistical coverage simulations); `make test-slow` runs
# them, and CI (.ci/run) runs both.
test: $(VENV)/.installed-test
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal -m "not slow"

test-slow: $(VENV)/.installed-test
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal -m slow

# The screens' SVG snapshots (tests/tui/__snapshots__/) rewritten from the current screens, after
# an intended change to a screen: every snapshot test runs (the slow matrix too) with
# --snapshot-update. The fit checks still fail where a screen no longer fits. Read the
# changed SVGs (git diff --stat; open them in a browser) before committing them.
SNAPSHOT_TESTS = tests/tui/test_screen_fit.py tests/tui/test_snapshots.py tests/tui/test_lead_snapshots.py

snapshots: $(VENV)/.installed-test
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal $(SNAPSHOT_TESTS) --snapshot-update

bench: $(VENV)/.installed-test
	$(PY) -m pip install -q -e '.[postgres,llm,serve,test,bench]'
	$(PY) bench/eval_bench.py

sample: $(VENV)/.installed
	$(PY) sample_db/build_sample.py

clean:
	rm -rf $(VENV) .pytest_cache
