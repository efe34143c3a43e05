# `make run` and `make test` do all the set-up on a fresh clone; `make install` is idempotent.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# Lints the bundled examples (they reproduce the incidents, so findings are expected: exit 1 is fine),
# then simulates the example fleet.
run: install
	$(BIN)/rmqlint examples/ --no-cache || [ $$? -eq 1 ]
	$(BIN)/rmqplan simulate --fleet examples/fleet.toml || [ $$? -eq 1 ]

test: install
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python -m benchmarks.lint_bench
	$(BIN)/python -m benchmarks.plan_bench

clean:
	rm -rf $(VENV) .rmqlint_cache .pytest_cache *.egg-info
