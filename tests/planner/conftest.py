"""ONE local SparkSession for the whole suite: local[2], two shuffle partitions, no UI, quiet.

Every Spark test (and any CLI test that runs `--engine spark` in-process) shares it: `rmqplan.engines.spark_session.
get_session` returns the active session instead of starting another JVM.
"""

from __future__ import annotations

import pytest


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
