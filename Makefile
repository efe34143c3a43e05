# `make run` and `make test` do all the set-up on a fresh clone, each installing what it needs, idempotently:
# `make install` (for `make run`) is rmqlint and rmqplan's local engine, the light package; `make install-test`
# (for `make test`) adds the Spark engine ([spark]), the test tools ([dev]), Mermaid's parser and the live tests' jars.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# One stamp per part, so that the light install is never taken for the full one.
VENV_STAMP := $(VENV)/.installed-light
DEV_STAMP := $(VENV)/.installed-dev
SPARK_STAMP := $(VENV)/.installed-spark
MERMAID_STAMP := $(VENV)/.installed-mermaid
# The live RocketMQ tests' jars (tests/cluster/maven/pom.xml): one classpath directory each, reused offline.
ROCKETMQ_CACHE := .cache/rocketmq
ROCKETMQ_POMS := tests/cluster/maven/pom.xml $(wildcard tests/cluster/maven/*/pom.xml)
ROCKETMQ_STAMP := $(ROCKETMQ_CACHE)/.fetched

.PHONY: install install-test rocketmq go-modules run test bench soak fuzz screenshot clean

install: $(VENV_STAMP)

install-test: $(DEV_STAMP) $(SPARK_STAMP) $(MERMAID_STAMP) rocketmq go-modules

$(VENV_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

# The extras over the light install (each `pip install -e '.[x]'`, so a changed pyproject.toml reinstalls them).
$(DEV_STAMP): $(VENV_STAMP)
	$(PIP) -e '.[dev]'
	touch $@

$(SPARK_STAMP): $(VENV_STAMP)
	$(PIP) -e '.[spark]'
	touch $@

# Mermaid's own parser, for the test that reads `rmqlint graph` back (skipped where npm is missing).
$(MERMAID_STAMP): $(VENV_STAMP)
	-command -v npm >/dev/null && npm install --silent --no-audit --no-fund --prefix $(VENV)/node mermaid@11 jsdom@25 >/dev/null 2>&1
	touch $@

# Without Maven or a JDK, or when Maven fails, the live tests skip (and fail in CI); the next run tries again.
rocketmq: $(ROCKETMQ_STAMP)

$(ROCKETMQ_STAMP): $(ROCKETMQ_POMS)
	@if command -v mvn >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; then \
		echo "fetching the RocketMQ server and clients for the live tests (Maven) into $(ROCKETMQ_CACHE)"; \
		rm -rf $(ROCKETMQ_CACHE)/server $(ROCKETMQ_CACHE)/client-*; \
		mvn -q -B -Dstyle.color=never -f tests/cluster/maven/pom.xml package -Drocketmq.cache=$(CURDIR)/$(ROCKETMQ_CACHE) \
			&& touch $@ || echo "mvn failed: the live RocketMQ tests (-m cluster) will skip"; \
	else echo "no mvn or javac on PATH: the live RocketMQ tests (-m cluster) will skip"; fi

# The Go client's module (rocketmq-client-go, from the Go module proxy) for the programs the tests build: the one that
# computes the Go golden cases (tests/golden/go) and the live tests' Go consumer (tests/cluster/go); without the go
# command their tests skip (and fail in CI).
go-modules:
	@if command -v go >/dev/null 2>&1; then for d in tests/golden/go tests/cluster/go; do \
		(cd $$d && GOFLAGS=-mod=mod go mod download) || exit 1; done; \
	else echo "no go on PATH: the Go programs of the tests will not be built"; fi

# Lints the bundled examples (they reproduce the incidents, so findings are expected: exit 1 is fine),
# then simulates the example fleet and checks the deployed example service.
run: install
	$(BIN)/rmqlint examples/ --no-cache || [ $$? -eq 1 ]
	$(BIN)/rmqplan simulate --fleet examples/fleet.toml || [ $$? -eq 1 ]
	$(BIN)/rmqplan check examples/orders-on-host-network --deploy examples/orders-on-host-network/deploy \
		--cluster examples/orders-on-host-network/cluster || [ $$? -eq 1 ]

# The live RocketMQ tests (-m cluster) spend most of their time waiting for consumers to settle: they run beside
# the others, and their report follows the others' once both are done.
test: install-test
	@live=$$(mktemp); \
	$(BIN)/python -m pytest -q -m cluster >"$$live" 2>&1 & pid=$$!; \
	$(BIN)/python -m pytest -q -m 'not cluster'; rest=$$?; \
	wait $$pid; cluster=$$?; \
	echo "== the live RocketMQ tests (pytest -m cluster):"; cat "$$live"; rm -f "$$live"; \
	[ $$rest -eq 0 ] && [ $$cluster -eq 0 ]

# The planner's benchmarks run both engines; the strategy benchmark calls the Java client's jar; the report
# benchmark opens its pages in Chromium (apt-get install chromium).
bench: $(SPARK_STAMP) rocketmq
	$(BIN)/python -m benchmarks.lint_bench
	$(BIN)/python -m benchmarks.big_files
	$(BIN)/python -m benchmarks.class_sizes
	$(BIN)/python -m benchmarks.plan_bench
	$(BIN)/python -m benchmarks.scenario_bench
	$(BIN)/python -m benchmarks.strategy_bench
	$(BIN)/python -m benchmarks.report_bench

# rmqplan watch at one read a second for 30 minutes against a large cluster played over the real protocol (2,000
# groups, 20,000 queues: harness.fake_rocketmq.large): its memory after 1 and 30 minutes and the time a read takes (not a
# test: BENCHMARKS.md). SOAK_NAMESRV=host:port soaks a running cluster instead.
soak: install
	$(BIN)/python -m benchmarks.watch_soak $(if $(SOAK_NAMESRV),--namesrv "$(SOAK_NAMESRV)")

# Property-based fuzzing of every rmqlint frontend: at least 100,000 inputs (RMQLINT_FUZZ_INPUTS to change it);
# `make test` runs a short, fixed slice of the same tests. Failing inputs are kept in .hypothesis/ and replayed.
fuzz: $(DEV_STAMP)
	RMQLINT_FUZZ_PROFILE=rmqlint-fuzz $(BIN)/python -m pytest -q tests/lint/test_fuzz.py \
		--hypothesis-show-statistics

# The README's picture of the HTML report (needs Chromium: apt-get install chromium).
screenshot: install
	$(BIN)/python -m harness.browser examples/fleet.toml docs/rmqplan-report.png

clean:
	rm -rf $(VENV) .rmqlint_cache .pytest_cache .hypothesis *.egg-info .cache
