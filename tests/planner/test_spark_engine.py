"""The Spark engine end to end: exact on the golden fleet, same `Simulation` as the local engine, one clear line
and exit 2 without Java."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rmqplan.engines import local
from rmqplan.sources.fleet_file import load_fleet
from rmqplan.engines.spark import simulate_hand_written
from rmqplan.engines.spark_session import SparkUnavailable, check_java, java_major_version

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


def test_golden_fleet_is_exact_on_the_spark_engine(spark):
    fleet = load_fleet(str(GOLDEN / "fleet-cases.toml"))
    expected = json.loads((GOLDEN / "fleet-cases.expected.json").read_text(encoding="utf-8"))
    sim = simulate_hand_written(spark, fleet)
    checked = 0
    for r in sim.results:
        case = expected.get(f"{r.group}|{r.topic}")
        if case is None:
            continue
        checked += 1
        got: dict[str, list] = {}
        for p in r.processes:
            if p.instance in r.assignment:
                got.setdefault(p.client_id, sorted([list(q) for q in r.assignment[p.instance]]))
        assert got == {cid: sorted(qs) for cid, qs in case["assignment"].items()}, r.group
        assert [list(q) for q in r.orphaned] == case["orphaned_queues"], r.group
        assert [list(q) for q in r.duplicated] == case["duplicated_queues"], r.group
        assert bool(r.errored) == case["errored"], r.group
    assert checked == len(expected) == 120
    # and the whole Simulation equals the local engine's (retry topics, idle processes, list order included)
    loc = local.simulate(fleet)
    assert [(r.group, r.topic, r.assignment, r.orphaned, r.duplicated, [p.instance for p in r.idle], r.errored)
            for r in sim.results] == \
           [(r.group, r.topic, r.assignment, r.orphaned, r.duplicated, [p.instance for p in r.idle], r.errored)
            for r in loc.results]


def test_java_version_parsing():
    assert java_major_version('openjdk version "17.0.15" 2025-04-15') == 17
    assert java_major_version('java version "1.8.0_292"') == 8
    assert java_major_version('openjdk version "21" 2023-09-19') == 21
    assert java_major_version("no java here") is None


def test_missing_java_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    try:
        check_java()
    except SparkUnavailable as e:
        message = str(e)
    else:
        raise AssertionError("check_java accepted a JAVA_HOME without java")
    assert "Java 17" in message and "no-jdk" in message and "\n" not in message


def test_cli_without_java_exits_2_with_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYSPARK_GATEWAY_PORT")}
    env["PATH"] = str(tmp_path)  # nothing there: no java
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "rmqplan.cli", "simulate", "--fleet",
                           str(GOLDEN / "fleet-cases.toml"), "--engine", "spark"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "Java 17" in lines[0] and "--engine local" in lines[0]
