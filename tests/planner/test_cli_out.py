"""`--out DIR`: all or nothing, never over someone else's directory; Parquet tables that match the summary."""

import io
import json
from pathlib import Path

import pytest

from rmqplan.cli import run
from rmqplan.report.render import OutputError, write_out

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "fleet.toml")


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return run(list(argv), out, err), out.getvalue(), err.getvalue()


def _fake_tables(directory: str) -> None:
    for name in ("assignments", "groups"):
        (Path(directory) / name).mkdir()
        (Path(directory) / name / "part-0.parquet").write_bytes(b"PAR1")
    (Path(directory) / "findings.json").write_text("")


def test_a_failure_midway_leaves_nothing_behind(tmp_path):
    def broken(directory: str) -> None:
        (Path(directory) / "assignments").mkdir()
        raise OSError(28, "No space left on device")

    target = tmp_path / "out"
    with pytest.raises(OutputError, match="No space left on device"):
        write_out(target, {"totals": {}}, broken)
    assert list(tmp_path.iterdir()) == []  # neither the target nor a temporary directory


def test_a_writer_error_is_one_line_and_leaves_nothing(tmp_path):
    def spark_fails(directory: str) -> None:
        raise RuntimeError("Spark did not start (Java gateway process exited)\nlong JVM log...")

    with pytest.raises(OutputError) as e:
        write_out(tmp_path / "out", {"totals": {}}, spark_fails)
    assert str(e.value) == f"--out {tmp_path / 'out'}: Spark did not start (Java gateway process exited)"
    assert list(tmp_path.iterdir()) == []


def test_a_previous_output_is_replaced_whole(tmp_path):
    target = tmp_path / "out"
    write_out(target, {"totals": {"groups": 1}}, _fake_tables)
    (target / "stale.txt").write_text("from an older run")
    write_out(target, {"totals": {"groups": 2}}, _fake_tables)
    assert sorted(p.name for p in target.iterdir()) == ["assignments", "findings.json", "groups", "summary.json"]
    assert json.loads((target / "summary.json").read_text()) == {"totals": {"groups": 2}}
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_someone_elses_directory_is_not_replaced(tmp_path):
    target = tmp_path / "home"
    target.mkdir()
    (target / "notes.txt").write_text("precious")
    code, out, err = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local", "--out", str(target))
    assert code == 2 and out == "" and "refusing to replace it" in err and len(err.splitlines()) == 1
    assert (target / "notes.txt").read_text() == "precious"


def _spark_or_skip():
    from rmqplan.engines.spark_session import SparkUnavailable, get_session

    try:
        return get_session()
    except SparkUnavailable as e:
        pytest.skip(str(e))


def _tables(target):
    import pyarrow.parquet as pq

    return {name: pq.read_table(target / name) for name in ("assignments", "groups", "processes", "brokers")}


def _named_assignments(tables) -> list[tuple]:
    """Assignment rows with their names, joined through the dimension tables."""
    groups = {(r["scenario_id"], r["group_id"], r["topic_id"]): r for r in tables["groups"].to_pylist()}
    processes = {(r["scenario_id"], r["group_id"], r["process"]): r for r in tables["processes"].to_pylist()}
    brokers = {r["broker_id"]: r["broker"] for r in tables["brokers"].to_pylist()}
    out = []
    for a in tables["assignments"].to_pylist():
        g = groups[(a["scenario_id"], a["group_id"], a["topic_id"])]
        p = processes[(a["scenario_id"], a["group_id"], a["process"])]
        out.append((g["scenario"], g["group"], g["topic"], p["instance"], p["client_id"], p["host"],
                    brokers[a["broker_id"]], a["queue_id"]))
    return sorted(out)


def _expected_assignments(sim) -> list[tuple]:
    return sorted((r.scenario, r.group, r.topic, p.instance, p.client_id, p.host, q.broker, q.queue_id)
                  for r in sim.results for p in r.processes for q in r.assignment.get(p.instance, []))


def test_local_engine_out_writes_numeric_tables_and_every_finding(tmp_path):
    from rmqplan.sources.fleet_file import load_fleet
    from rmqplan.engines.local import simulate

    target = tmp_path / "plan"
    code, out, err = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local", "--out", str(target))
    assert code == 1 and err == ""
    summary = json.loads((target / "summary.json").read_text())
    totals = summary["totals"]
    assert totals == {"groups": 3, "instances": 8, "queues": 23, "assignments": 27, "orphaned_queues": 7,
                      "duplicated_queues": 7, "idle_instances": 0}
    # every queue that moves leaves a process that still runs: duplicate risk
    assert summary["scenarios"] == [{"name": "scale-out", "moved_queues": 5, "rollout": {
        "steps": 1, "moves": 5, "duplicate_risk_moves": 5, "pause_moves": 0, "worst_orphaned": 0,
        "worst_duplicated": 0}}]
    findings = [json.loads(line) for line in (target / "findings.json").read_text().splitlines()]
    assert {f["code"] for f in findings} == {"PLAN001", "PLAN002"}
    assert len(findings) == summary["findings_written"] == sum(summary["finding_counts"].values())
    tables = _tables(target)
    assert tables["assignments"].column_names == ["scenario_id", "group_id", "topic_id", "process", "broker_id",
                                                  "queue_id"]
    assert all(str(t) in ("int32", "int64") for t in tables["assignments"].schema.types)
    assert _named_assignments(tables) == _expected_assignments(simulate(load_fleet(EXAMPLE)))
    groups = tables["groups"].to_pylist()
    assert len(groups) == 8  # 6 baseline group-topics + 2 in the scenario
    scale = [r for r in groups if r["scenario"] == "scale-out" and r["topic"] == "OrderEvents"]
    assert scale[0]["moved"] == 5 and scale[0]["instances"] == 4


def test_a_generated_fleet_out_has_every_assignment_and_finding_on_both_engines(spark, tmp_path):
    from rmqplan.sources.fleet_file import load_fleet
    from rmqplan.report.findings import find
    from rmqplan.generated.generate import generated_fleet
    from rmqplan.engines.local import simulate

    fleet = tmp_path / "gen.toml"
    fleet.write_text(MIXED_WITH_GENERATED)
    whole = simulate(generated_fleet(load_fleet(str(fleet)).generate))  # the generated groups, all listed
    hand = simulate(load_fleet(str(fleet)).__class__(**{**load_fleet(str(fleet)).__dict__, "generate": None}))
    expected_rows = _expected_assignments(hand) + _expected_assignments(whole)
    expected_findings = sorted(json.dumps(f.to_json(), sort_keys=True) for f in find(hand) + find(whole))
    for engine in ("local", "spark"):
        target = tmp_path / engine
        code, out, err = rmqplan("simulate", "--fleet", str(fleet), "--engine", engine, "--out", str(target))
        assert code == 1, err
        assert _named_assignments(_tables(target)) == sorted(expected_rows), engine
        lines = (target / "findings.json").read_text().splitlines()
        assert sorted(json.dumps(json.loads(x), sort_keys=True) for x in lines) == expected_findings, engine
        summary = json.loads((target / "summary.json").read_text())
        assert summary["findings_written"] == len(lines) == sum(summary["finding_counts"].values())
        assert "more findings not shown" in out and f"every finding is in {target}" in out


def test_assignment_rows_of_hand_written_groups_of_every_strategy_match_the_kernel_row_for_row(tmp_path):
    """`AssignmentRows` against the kernel's rows one by one: hand-written rows come in any order (a run wherever
    the rebalance changes), CONFIG lists name queues of other topics (rows of their own), brokers are renumbered;
    then through the table's file and back."""
    import numpy as np
    import pyarrow.parquet as pq

    from rmqplan.sources.fleet_file import load_fleet
    from rmqplan.engines.local import run_hand_written
    from rmqplan.report.out_tables import AssignmentRows, BrokerIds, ParquetSink, assignment_rows
    from tests.planner.test_engines_agree import _random_fleet_toml

    extra = unordered = 0
    for seed in range(4):
        fleet = tmp_path / f"mixed-{seed}.toml"
        fleet.write_text(_random_fleet_toml(seed, 60))
        hand = run_hand_written(load_fleet(str(fleet)))
        batch, rows = hand.rebalances.batch, hand.rows
        brokers = BrokerIds()
        brokers.id("a broker met first")  # the batch's brokers are not 0.. in the table
        broker_ids = brokers.of(batch.brokers)
        topic_ids = np.arange(batch.rebalances, dtype=np.int64) * 7 + 3
        got = assignment_rows(batch, rows, batch.group, topic_ids, broker_ids, brokers)
        assert isinstance(got, AssignmentRows)
        extra += len(rows.extra)
        unordered += bool(np.any(np.diff(rows.entry) < 0))

        def rebalance(e):
            return int(np.searchsorted(batch.c_off, e, "right") - 1)

        expected = [(int(batch.scenario[r]), int(batch.group[r]), int(topic_ids[r]), int(e - batch.c_off[r]),
                     int(broker_ids[batch.q_broker[q]]), int(batch.q_id[q]))
                    for e, q in zip(rows.entry.tolist(), rows.queue.tolist()) for r in [rebalance(e)]]
        expected += [(int(batch.scenario[r]), int(batch.group[r]), int(topic_ids[r]), int(e - batch.c_off[r]),
                      brokers.id(q.broker), q.queue_id) for e, q, _ in rows.extra for r in [rebalance(e)]]
        assert sorted(zip(*(c.tolist() for c in got.columns()))) == sorted(expected)
        sink = ParquetSink(str(tmp_path / f"out-{seed}"), "part")
        sink("assignments", got)
        sink.close()
        table = pq.read_table(tmp_path / f"out-{seed}" / "assignments")
        assert sorted(zip(*(table[c].to_pylist() for c in table.column_names))) == sorted(expected)
    assert extra and unordered  # both shapes were met


def test_spark_reads_the_tables_as_pyarrow_does(spark, tmp_path):
    """The codecs and encodings of the tables (LZ4_RAW, DELTA_BINARY_PACKED, dictionaries, no Arrow schema, the
    assignments by rmqplan's own encoder) are read by parquet-mr as by Arrow: every row of every table alike."""
    fleet = tmp_path / "gen.toml"
    fleet.write_text(MIXED_WITH_GENERATED)
    target = tmp_path / "out"
    code, _, err = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local", "--out", str(target))
    assert code == 1, err
    for name, table in _tables(target).items():
        frame = spark.read.parquet(str(target / name))
        assert frame.columns == table.column_names, name
        assert sorted(tuple(r) for r in frame.collect()) == sorted(tuple(r.values()) for r in table.to_pylist()), name
        assert table.num_rows > 0, name


def test_groups_of_hundreds_of_processes_are_written_past_the_tables_of_hosts(tmp_path):
    """Past 512 processes a group, generated hosts and labels are joined from pieces instead of taken from a table
    of every host: the tables and findings still name every process as the client would."""
    from rmqplan.sources.fleet_file import load_fleet
    from rmqplan.report.findings import find
    from rmqplan.generated.generate import generated_fleet
    from rmqplan.engines.local import simulate

    fleet = tmp_path / "gen.toml"
    fleet.write_text("version = 1\n[generate]\ngroups = 40\nseed = 3\ninstances = [500, 700]\nqueues = [1, 4]\n"
                     "brokers = 2\ncolliding_client_ids = 0.3\n")
    whole = simulate(generated_fleet(load_fleet(str(fleet)).generate))
    target = tmp_path / "out"
    code, _, err = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local", "--out", str(target))
    assert code == 1, err
    assert _named_assignments(_tables(target)) == _expected_assignments(whole)
    lines = (target / "findings.json").read_text().splitlines()
    assert sorted(lines) == sorted(json.dumps(f.to_json()) for f in find(whole))
    assert {json.loads(x)["code"] for x in lines} >= {"PLAN001", "PLAN002", "PLAN003"}


MIXED_WITH_GENERATED = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = 4
write_queues = 6
[[groups]]
name = "laptop"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["192.168.1.10"]
count = 2
instance_name = "X"
[generate]
groups = 1500
seed = 3
instances = [1, 12]
queues = [1, 6]
brokers = 2
colliding_client_ids = 0.05
strategies = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]
"""


def test_spark_and_local_engines_print_the_same_json():
    _spark_or_skip()
    pytest.importorskip("rmqplan.engines.spark")
    # mixed.toml: rooms, a half-rolled strategy, consistent hashing, broadcasting, a non-subscriber, unreadable
    # queues, a failing strategy, scenarios adding and removing processes
    fleet = str(ROOT / "tests" / "planner" / "fixtures" / "mixed.toml")
    local = rmqplan("simulate", "--fleet", fleet, "--engine", "local", "--format", "json", "--assignments",
                    "--compare-strategies")
    spark = rmqplan("simulate", "--fleet", fleet, "--engine", "spark", "--format", "json", "--assignments",
                    "--compare-strategies")
    assert spark[0] == local[0] == 1
    local_doc, spark_doc = json.loads(local[1]), json.loads(spark[1])
    for want, got in zip(local_doc["scenarios"], spark_doc["scenarios"]):
        assert want["name"] == got["name"]
        for w, g in zip(want["groups"], got["groups"]):
            assert g == w, (want["name"], w["group"], w["topic"])
        assert got.get("steps") == want.get("steps") and got.get("rollout") == want.get("rollout")
    assert spark_doc == local_doc
    # the scenarios are all there, with their steps
    steps = {s["name"]: len(s["steps"]) for s in local_doc["scenarios"][1:]}
    assert steps["ring-restart"] == 6 and steps["everyone-restarts"] == 2 * 3 and steps["hz-write-only"] == 1
    assert {f["code"] for f in local_doc["findings"] if f["scenario"] == "hz-write-only"} >= {"PLAN004"}
    assert {f["code"] for f in local_doc["findings"] if f["scenario"] == "resize-orders"} >= {"PLAN004", "PLAN008"}
    assert {s["group"] for s in local_doc["strategies"]} == {"near", "rolling", "ring", "roomless"}


def test_engine_totals_win_over_counting_partial_results():
    from rmqplan.sources.fleet_file import load_fleet
    from rmqplan.report.findings import find
    from rmqplan.engines.local import simulate
    from rmqplan.report.render import render_text, summary_json, totals

    sim = simulate(load_fleet(EXAMPLE))
    assert totals(sim)["instances"] == 8
    whole = {"groups": 1000000, "instances": 9, "queues": 1, "assignments": 1, "orphaned_queues": 0,
             "duplicated_queues": 0, "idle_instances": 0}
    sim.totals, sim.omitted_results = whole, 42
    assert summary_json(sim, "spark")["totals"] == whole
    text = render_text(sim, find(sim), engine="spark", details=True)
    assert ("... and 42 more group/topic results with problems, less bad than those shown, are not shown: --out DIR "
            "writes every group's counts (DIR/groups, Parquet) and every finding (DIR/findings.json)") in text
    assert "totals: 1,000,000 groups, 9 processes" in text


GENERATED_WITH_SCENARIOS = """
[generate]
groups = 1500
seed = 5
instances = [1, 4]
queues = [1, 5]
brokers = 2
colliding_client_ids = 0.2
strategies = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]

[[scenarios]]
name = "everyone"
rolling_restart = "group"

[[scenarios]]
name = "b1-write-only"
broker_perm = { "broker-01" = 2 }
"""


def test_generated_scenario_states_are_rows_of_every_table(tmp_path):
    import pyarrow.parquet as pq

    fleet = tmp_path / "fleet.toml"
    fleet.write_text(GENERATED_WITH_SCENARIOS, encoding="utf-8")
    target = tmp_path / "out"
    code, out, err = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local", "--out", str(target),
                             "--format", "json")
    assert code == 1 and err == ""
    doc, summary = json.loads(out), json.loads((target / "summary.json").read_text())
    lines = (target / "findings.json").read_text().splitlines()
    # every finding is written: the problem states of every group, a PLAN004 for every generated topic
    assert summary["findings_written"] == len(lines) == sum(summary["finding_counts"].values())
    assert summary["finding_counts"]["PLAN004"] == 1500
    groups = pq.read_table(target / "groups").to_pylist()
    everyone = [r for r in groups if r["scenario"] == "everyone"]
    rollout = next(s for s in summary["scenarios"] if s["name"] == "everyone")["rollout"]
    assert sum(r["moved"] for r in everyone) == rollout["moves"] and rollout["steps"] == 8
    assert sum(r["pause"] for r in everyone) == rollout["pause_moves"]
    assert {r["step_name"] for r in everyone} == {f"{d} process {i}" for d in ("down", "up") for i in range(1, 5)}
    # the states' ids: 1..8 for everyone's steps, 9 for b1-write-only's one step
    assert {r["scenario_id"] for r in everyone} == set(range(1, 9))
    processes = pq.read_table(target / "processes").to_pylist()
    up1 = {(r["group_id"], r["process"]): r["client_id"] for r in processes if r["scenario_id"] == 2}
    base = {(r["group_id"], r["process"]): r["client_id"] for r in processes if r["scenario_id"] == 0}
    restarted = [k for k in up1 if k[1] == 0 and up1[k] != base[k]]
    assert restarted and all(up1[k].endswith("#2147483648") for k in restarted)  # 2^31 - 1 + 1: after any
    assert doc["scenarios"][1]["rollout"] == rollout
