"""`--engine auto`: the local engine for every fleet (on one machine it uses the cores Spark would, without Spark's
start), Spark for a named cluster or Spark settings; `--engine local|spark` always wins."""

import io
import json
from pathlib import Path

import pytest

from rmqplan.cli import run
from rmqplan.engines.choice import LONG_RUN_SECONDS, choose_engine, expected_local_seconds
from rmqplan.sources.fleet_file import load_fleet
from rmqplan.model.fleet import GenerateSpec

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


def test_generated_fleets_of_any_size_run_locally_on_every_cpu(tmp_path):
    small, large = load_fleet(generated(tmp_path, 100_000)), load_fleet(generated(tmp_path, 100_000_000))
    for fleet, cores in ((small, 2), (large, 1), (large, 2), (large, 64)):
        choice = choose_engine(fleet, cores=cores)  # Spark on the same cores only adds its start
        assert (choice.engine, choice.reason) == ("local", f"auto: {fleet.generate.groups:,} generated groups")
    one, two, many = (expected_local_seconds(large.generate, cores) for cores in (1, 2, 64))
    assert one > two > LONG_RUN_SECONDS and two > many  # helper processes share the chunks
    tiny = load_fleet(generated(tmp_path, 40_000)).generate  # three chunks: no helper would pay for its start
    assert expected_local_seconds(tiny, 1) == expected_local_seconds(tiny, 64)
    assert choose_engine(large, cores=2).describe().startswith("local engine (auto: 100,000,000 generated groups): "
                                                               "expect about ")


def test_the_estimate_grows_with_queues_processes_and_groups():
    base = GenerateSpec(groups=1_000_000)
    assert expected_local_seconds(GenerateSpec(groups=2_000_000)) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=1_000_000, queues=(64, 64))) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=1_000_000, instances=(50, 90))) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=1_000_000, brokers=4)) > expected_local_seconds(base)
    assert expected_local_seconds(GenerateSpec(groups=20_000_000)) > LONG_RUN_SECONDS


def test_out_adds_the_writing_to_the_estimate(tmp_path):
    """`--out` on 1M generated groups takes about 2.5 times the run without it (BENCHMARKS.md): the estimate says so,
    and a run long only because of `--out` announces its time."""
    spec = GenerateSpec(groups=1_000_000, instances=(1, 20), queues=(4, 32), brokers=2)
    without, with_out = expected_local_seconds(spec, 2), expected_local_seconds(spec, 2, out=True)
    assert 1.6 < with_out / without < 2.6
    fleet = load_fleet(generated(tmp_path, 4_000_000, "instances = [1, 20]\nqueues = [4, 32]\nbrokers = 2\n"))
    assert choose_engine(fleet, cores=2).describe() == "local engine (auto: 4,000,000 generated groups)"
    assert choose_engine(fleet, cores=2, out=True).describe().startswith(
        "local engine (auto: 4,000,000 generated groups): expect about ")


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
