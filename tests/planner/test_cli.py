"""`rmqplan` end to end: exit codes, text and JSON output, bad input, engines, `--out`."""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rmqplan.cli import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "fleet.toml")
FIXTURES = Path(__file__).parent / "fixtures"


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_example_text_report_puts_the_findings_first_and_the_map_on_request():
    code, out, err = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local")
    assert code == 1 and err == ""  # error-level findings
    lines = out.splitlines()
    assert lines[1].startswith("totals: 3 groups, 8 processes,")
    assert lines[2:5] == ["scenario scale-out: 5 queues change owner (5 duplicate risk, 0 pause)",
                          "findings: 6 errors, the worst first", ""]
    # each finding: what and where, then why and what follows, wrapped under their own text
    assert lines[5:11] == [
        "PLAN001 error: 5 of 8 queues of OrderEvents are consumed by no process of group orders_legacy",
        "    (broker-a: 3, 4, 5, 6, 7)",
        "  why: 10.0.0.5#1, 10.0.0.5#2, 10.0.0.5#3 all report client id 10.0.0.5@1 (pid 1 on client 4.5.1 (<",
        "       4.9.0 uses the pid alone)), so each computes the same share",
        "  effect: their messages pile up unread", ""]
    assert all(len(line) <= 100 for line in lines[1:])
    assert not any(line.startswith(("baseline", "  group ")) for line in lines)  # the listing is asked for
    assert lines[-1] == "more: --details lists each group and topic, --assignments every process's queues"
    code, out, err = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local", "--details")
    lines = out.splitlines()
    assert lines.index("baseline") > max(i for i, line in enumerate(lines) if line.startswith("PLAN"))
    assert "  group consumer_group (clustering, AVG, 2 processes)" in lines
    assert "    TopicTest: 4 queues, 2 processes, orphaned 2, duplicated 2, idle 0" in lines
    assert any(line.split() == ["192.168.1.10#1", "192.168.1.10@XUJIAN_MACBOOK", "broker-a:", "0,", "1"]
               for line in lines)
    assert any(line.split() == ["(nobody)", "broker-a:", "2,", "3"] for line in lines)
    assert "more: --details" not in out


def test_findings_wrap_to_the_terminal_width_and_columns(monkeypatch):
    from rmqplan.report.render import report_width

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("COLUMNS", raising=False)
    assert report_width(io.StringIO()) == 100  # a pipe or a file
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(80, 24): os.terminal_size((72, 30)))
    assert report_width(Terminal()) == 72
    monkeypatch.setenv("COLUMNS", "60")
    assert report_width(io.StringIO()) == report_width(Terminal()) == 60
    _, out, _ = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local")
    entries = [block.splitlines() for block in out.split("\n\n") if block.startswith("PLAN")]
    assert len(entries) == 6 and all(len(line) <= 60 for entry in entries for line in entry)
    assert all(line.startswith("    ") or line.startswith(("  why: ", "  effect: ", "       ", "          "))
               for entry in entries for line in entry[1:])


def test_json_follows_the_output_contract():
    code, out, _ = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and set(doc) == {"scenarios", "findings", "totals", "finding_counts"}
    assert doc["totals"]["groups"] == 3 and doc["totals"]["assignments"] == 27
    assert doc["finding_counts"] == {"PLAN001": 2, "PLAN002": 4, "PLAN003": 0, "PLAN004": 0, "PLAN005": 0,
                                     "PLAN006": 0, "PLAN007": 0, "PLAN008": 0, "PLAN009": 0}  # all listed
    assert [s["name"] for s in doc["scenarios"]] == ["baseline", "scale-out"]
    entry = doc["scenarios"][0]["groups"][0]
    assert set(entry) == {"group", "topic", "orphaned_queues", "duplicated_queues", "idle_instances", "moved_queues"}
    # the worst group first: orders_legacy loses 9 queues (5 orphaned, 4 duplicated), consumer_group 5, orders none
    assert [(e["group"], e["topic"]) for e in doc["scenarios"][0]["groups"]] == [
        ("orders_legacy", "OrderEvents"), ("orders_legacy", "%RETRY%orders_legacy"),
        ("consumer_group", "TopicTest"), ("consumer_group", "%RETRY%consumer_group"),
        ("orders", "OrderEvents"), ("orders", "%RETRY%orders")]
    entry = doc["scenarios"][0]["groups"][2]
    assert entry["orphaned_queues"] == [["TopicTest", "broker-a", 2], ["TopicTest", "broker-a", 3]]
    assert entry["duplicated_queues"] == [["TopicTest", "broker-a", 0], ["TopicTest", "broker-a", 1]]
    scale = doc["scenarios"][1]["groups"]
    assert [(e["group"], e["topic"]) for e in scale] == [("orders", "OrderEvents"), ("orders", "%RETRY%orders")]
    assert [q[2] for q in scale[0]["moved_queues"]] == [2, 4, 5, 6, 7]
    f = doc["findings"][0]
    assert set(f) >= {"code", "severity", "scenario", "group", "topic", "message"}
    assert [(x["group"], x["code"], len(x["queues"])) for x in doc["findings"]] == [
        ("orders_legacy", "PLAN001", 5), ("orders_legacy", "PLAN002", 3), ("orders_legacy", "PLAN002", 1),
        ("consumer_group", "PLAN001", 2), ("consumer_group", "PLAN002", 2), ("consumer_group", "PLAN002", 1)]
    assert {x["code"] for x in doc["findings"]} == {"PLAN001", "PLAN002"}


def test_assignments_add_every_instance_with_its_queues():
    _, out, _ = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local", "--format", "json", "--assignments")
    entry = next(e for e in json.loads(out)["scenarios"][0]["groups"] if e["group"] == "consumer_group")
    assert entry["instances"] == [
        {"instance": "192.168.1.10#1", "client_id": "192.168.1.10@XUJIAN_MACBOOK", "host": "192.168.1.10",
         "queues": [["TopicTest", "broker-a", 0], ["TopicTest", "broker-a", 1]]},
        {"instance": "192.168.1.10#2", "client_id": "192.168.1.10@XUJIAN_MACBOOK", "host": "192.168.1.10",
         "queues": [["TopicTest", "broker-a", 0], ["TopicTest", "broker-a", 1]]},
    ]


def test_a_clean_fleet_exits_0(tmp_path):
    fleet = tmp_path / "ok.toml"
    fleet.write_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 4\n[[groups]]\nname = "g"\n'
                     'subscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h1", "h2"]\n')
    code, out, _ = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local")
    assert code == 0 and "findings: none" in out


@pytest.mark.parametrize("name", ["bad_many.toml", "bad_syntax.toml", "binary.toml", "bad_encoding.toml",
                                  "missing.toml"])
def test_bad_fleet_exits_2_with_lines_naming_the_file(name):
    code, out, err = rmqplan("simulate", "--fleet", str(FIXTURES / name), "--engine", "local")
    assert code == 2 and out == ""
    assert err and all(line.startswith(f"rmqplan: {FIXTURES / name}") for line in err.splitlines())
    assert "Traceback" not in err


def test_usage_errors_exit_2():
    assert rmqplan()[0] == 2
    code, _, err = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "gpu")
    assert code == 2 and "invalid choice" in err
    assert rmqplan("simulate")[0] == 2  # --fleet is required


def test_allocate_delegates_to_the_allocate_command(tmp_path):
    golden = (ROOT / "tests" / "golden" / "allocation-cases.jsonl").read_text().splitlines()[:3]
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(golden) + "\n")
    code, out, _ = rmqplan("allocate", str(cases))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [x["id"] for x in lines] == [json.loads(g)["id"] for g in golden]
    assert all(x["allocation"] == json.loads(g)["expected"] for x, g in zip(lines, golden))


def _without_java_env() -> dict:
    env = dict(os.environ, JAVA_HOME="/nonexistent-jdk", PYTHONPATH=str(ROOT))
    return env


def test_without_java_local_engine_works_and_spark_engine_is_one_line():
    env = _without_java_env()
    local = subprocess.run([sys.executable, "-m", "rmqplan.cli", "simulate", "--fleet", EXAMPLE, "--engine", "local"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert local.returncode == 1 and "PLAN001" in local.stdout
    spark = subprocess.run([sys.executable, "-m", "rmqplan.cli", "simulate", "--fleet", EXAMPLE, "--engine", "spark"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert spark.returncode == 2 and spark.stdout == ""
    assert len(spark.stderr.strip().splitlines()) == 1 and "Traceback" not in spark.stderr
    assert spark.stderr.startswith("rmqplan: ")


def test_small_generated_fleet_runs_on_the_local_engine(tmp_path):
    fleet = tmp_path / "gen.toml"
    fleet.write_text("[generate]\ngroups = 4\nseed = 7\ninstances = [2, 3]\ncolliding_client_ids = 1.0\n")
    code, out, _ = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local", "--format", "json")
    doc = json.loads(out)
    topics = [e["topic"] for e in doc["scenarios"][0]["groups"] if not e["topic"].startswith("%RETRY%")]
    assert len(topics) == 4
    # every generated group collides (one client id for all its processes): all duplicate their share
    assert code == 1 and {f["code"] for f in doc["findings"]} >= {"PLAN001", "PLAN002"}


def test_a_large_generated_fleet_runs_on_the_local_engine(tmp_path):
    fleet = tmp_path / "gen.toml"
    fleet.write_text("[generate]\ngroups = 100000\ncolliding_client_ids = 0.01\n")
    code, out, err = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local")
    assert code == 1 and err == ""
    assert "totals: 100,000 groups" in out
    assert re.search(r"^\.\.\. and [\d,]+ more findings not shown \(all findings by code: PLAN001 [\d,]+, .*\); "
                     r"--out DIR writes every finding to DIR/findings\.json$", out, re.M)


def test_conf_and_master_reach_the_engine_options(monkeypatch):
    seen = {}

    def fake_report(sim, options, choice, out, err, progress):
        seen["options"] = options
        return 0

    monkeypatch.setattr("rmqplan.cli._report", fake_report)
    code, _, _ = rmqplan("simulate", "--fleet", EXAMPLE, "--engine", "local", "--master", "local[2]",
                         "--conf", "spark.a=1", "spark.b=2", "--conf", "spark.c=3", "--assignments")
    options = seen["options"]
    assert code == 0 and options.master == "local[2]" and options.assignments and options.engine == "local"
    assert options.conf == ("spark.a=1", "spark.b=2", "spark.c=3")


def test_the_process_map_is_for_small_groups_unless_assignments_are_asked(tmp_path):
    fleet = tmp_path / "big.toml"
    fleet.write_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 40\n[[groups]]\nname = "g"\n'
                     'subscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\ncount = 20\n')
    _, out, _ = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local", "--details")
    assert "    T: 40 queues, 20 processes, orphaned 0, duplicated 0, idle 0" in out.splitlines()
    assert "h#20" not in out  # 20 processes: too many for the map
    _, out, _ = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local", "--assignments")
    assert any(line.split()[:1] == ["h#20"] and line.endswith("b: 38, 39") for line in out.splitlines())


def test_a_few_hundred_generated_groups_give_the_same_json_on_both_engines(spark, tmp_path):
    """Every group (not only the problem ones) with every process's queues, identical on both engines."""
    fleet = tmp_path / "gen.toml"
    fleet.write_text('[generate]\ngroups = 300\nseed = 5\ninstances = [1, 12]\nqueues = [1, 8]\nbrokers = 2\n'
                     'colliding_client_ids = 0.1\nstrategies = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]\n')
    docs = {}
    for engine in ("local", "spark"):
        code, out, err = rmqplan("simulate", "--fleet", str(fleet), "--engine", engine, "--format", "json",
                                 "--assignments")
        docs[engine] = (code, json.loads(out))
    assert docs["spark"] == docs["local"]
    code, doc = docs["spark"]
    entries = doc["scenarios"][0]["groups"]
    assert code == 1 and len(entries) == 600  # a main and a retry topic per group
    assert sum(len(i["queues"]) for e in entries for i in e["instances"]) > 0
    assert {f["code"] for f in doc["findings"]} >= {"PLAN001", "PLAN002", "PLAN003"}


def test_version_says_which_rmqplan_this_is():
    done = subprocess.run([str(Path(sys.executable).parent / "rmqplan"), "--version"], capture_output=True, text=True)
    from rmqlint.cache import package_version

    assert (done.returncode, done.stdout, done.stderr) == (0, f"rmqplan {package_version()}\n", "")


def test_explain_prints_a_codes_documentation_by_code_or_name():
    from rmqplan.report.codes import CODES, DOC_HEADINGS
    from rmqplan.report.findings import SEVERITY

    assert [c.code for c in CODES] == list(SEVERITY) == [f"PLAN00{i}" for i in range(1, 10)]
    for c in CODES:
        code, out, err = rmqplan("explain", c.code.lower())
        assert code == 0 and err == "" and out.startswith(f"# {c.code} {c.name} ({c.severity})\n")
        positions = [out.index(h + "\n") for h in DOC_HEADINGS]
        assert positions == sorted(positions), f"{c.code}: the four headings, in order"
        assert rmqplan("explain", c.name)[1] == out
    code, out, err = rmqplan("explain")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == [c.code for c in CODES]
    code, out, err = rmqplan("explain", "PLAN099")
    assert code == 2 and out == "" and err.startswith("rmqplan: unknown code 'PLAN099' (rmqplan explain lists them")


def test_the_fleet_can_come_from_standard_input():
    text = Path(EXAMPLE).read_text(encoding="utf-8")
    done = subprocess.run([str(Path(sys.executable).parent / "rmqplan"), "simulate", "--fleet", "-"], input=text,
                          capture_output=True, text=True, cwd=ROOT)
    from_file = subprocess.run([str(Path(sys.executable).parent / "rmqplan"), "simulate", "--fleet",
                                "examples/fleet.toml"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == from_file.returncode == 1
    assert done.stdout == from_file.stdout.replace("examples/fleet.toml", "<stdin>")
    bad = subprocess.run([str(Path(sys.executable).parent / "rmqplan"), "simulate", "--fleet", "-"],
                         input='[[groups]]\nname = 3\n', capture_output=True, text=True)
    assert bad.returncode == 2 and "<stdin>: groups[0].name: expected a string, got 3\n" in bad.stderr


def test_a_group_without_processes_is_an_error(tmp_path):
    base = '[[brokers]]\nname = "a"\n[[topics]]\nname = "T"\nread_queues = 4\n[[groups]]\nname = "g"\n' \
           'subscriptions = [{ topic = "T" }]\n'
    for extra, expected in (("", "groups[0].instances: missing: a group needs its processes"),
                            ("instances = []\n", "groups[0].instances: expected at least one instance set, got an "
                                                 "empty array")):
        path = tmp_path / "fleet.toml"
        path.write_text(base + extra, encoding="utf-8")
        code, out, err = rmqplan("simulate", "--fleet", str(path))
        assert code == 2 and out == "" and err.startswith(f"rmqplan: {path}: {expected}") and len(err.splitlines()) == 1


def test_one_of_each_is_counted_in_the_singular(tmp_path):
    path = tmp_path / "one.toml"
    path.write_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 1\n[[groups]]\nname = "g"\n'
                    'subscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h1"]\n'
                    '[[scenarios]]\nname = "join"\ngroup = "g"\nadd_instances = [{ hosts = ["h2"] }]\n'
                    '[[scenarios]]\nname = "restart"\nrolling_restart = true\n', encoding="utf-8")
    code, out, err = rmqplan("simulate", "--fleet", str(path), "--compare-strategies", "--details")
    assert code == 0, err
    lines = out.splitlines()
    assert "  group g (clustering, AVG, 1 process)" in lines and "    T: 1 queue, 1 process, orphaned 0, " \
        "duplicated 0, idle 0" in lines
    assert "totals: 1 group, 1 process, 2 queues, 2 assignments, 0 orphaned, 0 duplicated, 0 idle" in lines
    assert "findings: 1 warning" in lines and "fleet of 1 group)" in err + out
    assert any(line.startswith("  join (g), 1 step, 2 queues: ") for line in lines)
    assert not re.findall(r"\b1 (?:\w+ )?(?:groups|processes|queues|assignments|steps|moves|findings|ids)\b", out + err)


@pytest.mark.parametrize("mistake, first", [
    ('count = 0\n', "groups[0].instances[0].count: expected an integer >= 1, got 0"),
    ('count = 1\ncont = 1\n', "groups[0].instances[0].cont: unknown key; did you mean 'count'?"),
])
def test_a_fleet_with_thousands_of_errors_shows_the_first_hundred_and_how_many_more(tmp_path, mistake, first):
    fleet = tmp_path / "errors.toml"
    instance = '[[groups.instances]]\nhosts = ["10.0.0.1"]\n' + mistake
    fleet.write_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 4\n[[groups]]\nname = "g"\n'
                     'subscriptions = [{ topic = "T" }]\n' + instance * 5_000)
    code, out, err = rmqplan("simulate", "--fleet", str(fleet), "--engine", "local")
    lines = err.splitlines()
    assert code == 2 and out == "" and len(lines) == 101
    assert lines[0].endswith(f"{fleet}: {first}")
    assert lines[99].endswith(f"{fleet}: {first.replace('instances[0]', 'instances[99]')}")
    assert lines[100].endswith(f"{fleet}: ... and 4,900 more errors (the first 100 are shown)")
