"""ONE local SparkSession for the whole suite: local[2], two shuffle partitions, no UI, quiet.

Every Spark test (and any CLI test that runs `--engine spark` in-process) shares it: `rmqplan.engines.spark_session.
get_session` returns the active session instead of starting another JVM.

The HTML report's tests in Chromium share one `browser` per module. Without a Chromium they skip with one line saying
what to install; with `CI=true` (`.ci/run` installs it) that is a failure, so CI cannot pass without having run them.
"""

from __future__ import annotations

import os

import pytest

from harness.browser import Browser, NoBrowser


@pytest.fixture(scope="session")
def spark():
    from rmqplan.engines.spark_session import get_session

    session = get_session("local[2]", conf=[
        ("spark.sql.shuffle.partitions", "2"),
        ("spark.default.parallelism", "2"),
        ("spark.ui.enabled", "false"),
        ("spark.ui.showConsoleProgress", "false"),
    ])
    yield session
    session.stop()


@pytest.fixture(scope="module")
def browser():
    try:
        b = Browser.start()
    except NoBrowser as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: the HTML report's Chromium tests cannot be skipped: {e}", pytrace=False)
        pytest.skip(str(e))
    yield b
    b.close()
