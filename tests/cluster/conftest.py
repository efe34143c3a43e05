"""The live RocketMQ of the `cluster` tests: one name server and two brokers for the whole session.

Without Java or the jars (`make install-test` fetches them with Maven) the live tests skip with one line saying why;
with `CI=true` such a skip is a failure, so CI cannot pass without having run them.
"""

from __future__ import annotations

import os

import pytest

from tests.cluster import rocketmq

BROKERS = ("broker-a", "broker-b")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (report.skipped and os.environ.get("CI") == "true" and item.get_closest_marker("cluster") is not None
            and not hasattr(report, "wasxfail")):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"CI=true: the live RocketMQ test was skipped, which CI does not allow: {reason}"


@pytest.fixture(scope="session")
def rocketmq_home(tmp_path_factory):
    why = rocketmq.unavailable()
    if why is not None:
        pytest.skip(why)
    return tmp_path_factory.mktemp("rocketmq")


@pytest.fixture(scope="session")
def cluster(rocketmq_home):
    """A name server and brokers broker-a and broker-b on 127.0.0.1, shared by the session's live tests: each
    test uses topics and groups of its own, and a test that stops or changes a broker starts one of its own."""
    live = rocketmq.start_cluster(rocketmq_home, BROKERS)
    try:
        yield live
    finally:
        live.close()
