"""The live tests cannot pass CI without running: every test of tests/cluster that needs the cluster (or the jars)
carries the `cluster` marker, and with `CI=true` a skip of one is a failure. Checked by setting up the directory's
tests (`--setup-only`: the fixtures, not the tests) where the jars are missing (an empty RMQTOOLS_ROCKETMQ_CACHE),
in a pytest of their own: a live module added without the marker would skip there instead of failing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _pytest(tmp_path: Path, *args: str, ci: bool) -> tuple[dict[str, int], str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["RMQTOOLS_ROCKETMQ_CACHE"] = str(tmp_path / "no-jars")
    if ci:
        env["CI"] = "true"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfs", str(HERE),
                           "--ignore", str(HERE / "test_markers.py"), "--setup-only", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected)",
                                                     done.stdout.splitlines()[-1] if done.stdout else "")}
    return counts, done.stdout


def test_without_the_jars_every_live_test_fails_in_ci_and_no_other_test_skips(tmp_path):
    counts, out = _pytest(tmp_path, "-m", "cluster", ci=True)
    failed = counts.get("failed", 0) + counts.get("errors", 0) + counts.get("error", 0)  # setup-only: errors
    assert failed > 20 and not counts.get("passed") and not counts.get("skipped"), out
    assert out.count("CI=true: the live RocketMQ test was skipped, which CI does not allow") == failed
    assert "are missing from" in out  # the one line saying why
    counts, out = _pytest(tmp_path, "-m", "not cluster", ci=False)
    assert "test_recorded.py::" in out, out  # the tests that need no cluster are set up ...
    assert not counts.get("skipped") and not counts.get("failed") and not counts.get("errors"), out  # ... alone
