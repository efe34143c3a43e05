"""`--engine auto`: the local engine for hand-written and ordinary generated fleets, Spark for a named cluster, Spark
settings, or a generated fleet that Spark's cores finish first; `--engine local|spark` always wins."""

import io
import json
from pathlib import Path

import pytest

from planner.cli import run
from planner.engine_choice import (LONG_RUN_SECONDS, break_even_seconds, choose_engine, expected_local_seconds)
from planner.fleet import load_fleet
from planner.model import GenerateSpec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "fleet.toml")


def generated(tmp_path, groups: int, extra: str = "") -> str:
    path = tmp_path / f"gen-{groups}.toml"
    path.write_text(f"[generate]\ngroups = {groups}\nseed = 3\ncolliding_client_ids = 0.01\n{extra}")
    return str(path)


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_hand_written_fleet_runs_locally_and_the_report_says_why():
    choice = choose_engine(load_fleet(EXAMPLE))
    assert (choice.engine, choice.reason) == ("local", "auto: a hand-written fleet of 3 groups")
    code, out, err = rmqplan("simulate", "--fleet", EXAMPLE)
    assert code == 1 and err == ""  # not a terminal: no progress, no note
    assert out.splitlines()[0] == f"rmqplan: {EXAMPLE}: local engine (auto: a hand-written fleet of 3 groups)"


def test_master_or_conf_asks_for_spark_and_a_forced_engine_wins(tmp_path):
    fleet = load_fleet(EXAMPLE)
    assert choose_engine(fleet, master="spark://h:7077").reason == "auto: --master spark://h:7077"
    assert choose_engine(fleet, conf=("spark.executor.memory=2g",)).engine == "spark"
    big = load_fleet(generated(tmp_path, 100_000_000))
    assert choose_engine(big, "local", cores=64).engine == "local"
    assert choose_engine(fleet, "spark").reason == "--engine spark"


def test_generated_fleets_switch_where_spark_catches_up(tmp_path):
    two = break_even_seconds(2)
    assert break_even_seconds(1) is None and break_even_seconds(16) < two  # more cores: Spark pays off sooner
    small, large = load_fleet(generated(tmp_path, 100_000)), load_fleet(generated(tmp_path, 100_000_000))
    assert expected_local_seconds(small.generate) < two < expected_local_seconds(large.generate)
    assert choose_engine(small, cores=2).engine == "local"
    assert choose_engine(large, cores=1).engine == "local"  # one core: Spark never finishes first
    choice = choose_engine(large, cores=2)
    assert choice.engine == "spark" and choice.reason.startswith("auto: 100,000,000 generated groups, about ")
    forced = choose_engine(large, "local", cores=2)
    assert forced.describe().startswith("local engine (--engine local): expect about ")


def test_the_estimate_grows_with_queues_processes_and_groups():
    base = GenerateSpec(groups=1_000_000)
    assert expected_local_seconds(GenerateSpec(groups=2_000_000)) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=1_000_000, queues=(64, 64))) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=1_000_000, instances=(50, 90))) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=1_000_000, brokers=4)) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=10_000_000)) > LONG_RUN_SECONDS


def test_auto_and_spark_give_the_same_json_on_the_example_fleet(spark):
    auto = rmqplan("simulate", "--fleet", EXAMPLE, "--format", "json", "--assignments")
    forced = rmqplan("simulate", "--fleet", EXAMPLE, "--format", "json", "--assignments", "--engine", "spark")
    assert auto[0] == forced[0] == 1
    assert json.loads(auto[1]) == json.loads(forced[1])
    assert auto[2] == forced[2] == ""


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_the_text_header_names_a_forced_engine(engine, spark):
    code, out, _ = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", engine)
    assert out.splitlines()[0] == f"rmqplan: {EXAMPLE}: {engine} engine (--engine {engine})"
