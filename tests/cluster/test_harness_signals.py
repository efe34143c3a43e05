"""The live harness's SIGTERM handler (no cluster needed): it takes the processes the harness started down and ends
the process, however the signal finds it. `timeout 1500 make bench` sent SIGTERM twice (from `timeout` and from
`make`); the handler ran again inside itself, waited for the lock its first run held, and the process hung."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The harness with one process started (a `sleep` in a group of its own, as the JVMs are), and its main thread
# holding the registry's lock, as it does in `_spawn`, `_forget` and `kill_all`, when the signals come.
CHILD = """
import sys, time
sys.path.insert(0, {repo!r})
from tests.cluster import rocketmq
started = rocketmq._spawn(["sleep", "600"], cwd={repo!r}, env={{}})
with rocketmq._LOCK:
    print(started.pid, flush=True)
    for _ in range(6000):
        time.sleep(0.1)
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state == "Z"  # killed, not reaped yet by its new parent


def test_two_sigterms_while_the_harness_holds_its_lock_end_the_process_and_its_children(tmp_path):
    errors = tmp_path / "child.err"
    with errors.open("w") as err:
        child = subprocess.Popen([sys.executable, "-c", CHILD.format(repo=str(REPO))], stdout=subprocess.PIPE,
                                 stderr=err, text=True)
    try:
        sleeper = int(child.stdout.readline())
        child.send_signal(signal.SIGTERM)
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the harness hung on SIGTERM: {errors.read_text()[-2000:]}") from None
        assert child.returncode == -signal.SIGTERM, errors.read_text()
        deadline = time.monotonic() + 20
        while not _gone(sleeper) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(sleeper), "the process the harness started outlived it"
    finally:
        child.kill()
        child.wait()


def test_the_benchmarks_do_not_import_the_tests():
    """What both need (the jars, javac, a fake cluster, Chromium, a big fleet) is in harness/: importing the live
    harness installed its SIGTERM handler in the benchmark process, and made the benchmarks a layer above the
    tests."""
    for path in sorted((REPO / "benchmarks").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not [n for n in names if n == "tests" or n.startswith("tests.")], f"{path.name}: {names}"
