"""PLAN009: processes of one group whose clients compute the strategy differently. It names the codes and their
processes and lists the orphaned and doubled queues their disagreement leaves; codes that agree (AVG in Go and
Java), one code with a shared client id, and one client alone give none."""

from __future__ import annotations

import io
import json

from rmqplan.cli import run
from rmqplan.engines import local
from rmqplan.model.identity import shared_client_ids
from rmqplan.report.codes import BY_CODE
from rmqplan.report.findings import find
from rmqplan.sources.fleet_file import parse_fleet_text

BASE = """
[[brokers]]
name = "hz@broker-a"
[[brokers]]
name = "sh@broker-b"
[[topics]]
name = "T"
read_queues = 8
"""


def _group(strategy: str, instances: str) -> str:
    return f'[[groups]]\nname = "g"\n{strategy}\nsubscriptions = [{{ topic = "T" }}]\n{instances}'


GO_AND_JAVA = ('[[groups.instances]]\nhosts = ["10.0.0.5", "10.0.0.6"]\nclient = "go"\n'
               '[[groups.instances]]\nhosts = ["10.0.0.7", "10.0.0.8", "10.0.0.9"]\n')


def _findings(text: str):
    fleet = parse_fleet_text(BASE + text, "fleet.toml")
    sim = local.simulate(fleet)
    return sim, find(sim)


def test_go_and_java_consistent_hash_rings_leave_queues_orphaned_and_doubled():
    sim, findings = _findings(_group('strategy = "CONSISTENT_HASH"', GO_AND_JAVA))
    r = next(r for r in sim.results if r.topic == "T")
    assert not shared_client_ids(r.processes) and r.orphaned and r.duplicated
    plan009 = [f for f in findings if f.code == "PLAN009"]
    assert [f.topic for f in plan009] == ["T", "%RETRY%g"]  # the retry topic's two queues too
    f = plan009[0]
    assert (f.severity, f.group, f.topic) == ("error", "g", "T")
    # every orphaned and doubled queue is one the codes disagree on, and is listed
    assert sorted(f.queues) == sorted(r.orphaned + r.duplicated)
    assert "2 processes (10.0.0.5#1, 10.0.0.6#1) with CONSISTENT_HASH of rocketmq-client-go (10 virtual nodes)" \
        in f.message
    assert "3 processes (10.0.0.7#1, 10.0.0.8#1, 10.0.0.9#1) with CONSISTENT_HASH (10 virtual nodes) of the Java " \
           "client" in f.message
    assert f.effect == f"{len(r.orphaned)} are consumed by no process and {len(r.duplicated)} are held by two or more"
    assert f.headline.startswith(f"{len(f.queues)} of 16 queues of T are orphaned or doubled because the processes of "
                                 "group g compute CONSISTENT_HASH (10 virtual nodes) with different client code")


def test_codes_that_agree_give_no_finding():
    # AVG and AVG_BY_CIRCLE do Java's arithmetic in Go: a mixed group splits its queues as one
    for strategy in ('strategy = "AVG"', 'strategy = "AVG_BY_CIRCLE"'):
        sim, findings = _findings(_group(strategy, GO_AND_JAVA))
        assert not any(r.orphaned or r.duplicated for r in sim.results)
        assert not [f for f in findings if f.code == "PLAN009"]


def test_a_shared_client_id_with_agreeing_codes_is_not_a_disagreement():
    # two Go processes in pid-1 containers on one address share 10.0.0.5@1; Java and Go AVG agree on the split
    instances = ('[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 2\npid = 1\nclient = "go"\n'
                 '[[groups.instances]]\nhosts = ["10.0.0.7", "10.0.0.8"]\n')
    sim, findings = _findings(_group('strategy = "AVG"', instances))
    codes = {f.code for f in findings}
    assert {"PLAN001", "PLAN002"} <= codes and "PLAN009" not in codes


def test_one_client_alone_gives_no_finding():
    instances = '[[groups.instances]]\nhosts = ["10.0.0.5", "10.0.0.6", "10.0.0.7"]\nclient = "go"\n'
    _, findings = _findings(_group('strategy = "CONSISTENT_HASH"', instances))
    assert not [f for f in findings if f.code == "PLAN009"]


def test_java_releases_whose_machine_room_classes_differ_disagree_too():
    # before 4.8.0 MACHINE_ROOM took its block from all the queues, from 4.8.0 on from the picked ones
    instances = ('[[groups.instances]]\nhosts = ["10.0.0.5", "10.0.0.6"]\nclient_version = "4.7.1"\n'
                 '[[groups.instances]]\nhosts = ["10.0.0.7"]\n')
    sim, findings = _findings(_group('strategy = "MACHINE_ROOM"\nconsumer_idcs = ["sh"]', instances))
    f = next(f for f in findings if f.code == "PLAN009")
    assert "with MACHINE_ROOM of the Java client before 4.8.0" in f.message
    assert "1 process (10.0.0.7#1) with MACHINE_ROOM of the Java client" in f.why


def _cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    return run(list(argv), out, err), out.getvalue()


def test_plan009_in_json_text_html_and_explain(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text(BASE + _group('strategy = "CONSISTENT_HASH"', GO_AND_JAVA), encoding="utf-8")
    code, out = _cli("simulate", "--fleet", str(path), "--format", "json")
    found = [f for f in json.loads(out)["findings"] if f["code"] == "PLAN009"]
    assert code == 1 and len(found) == 2 and all(f["queues"] and f["severity"] == "error" for f in found)
    code, out = _cli("simulate", "--fleet", str(path))
    assert code == 1 and "PLAN009 error: " in out and "of T are orphaned or doubled because the processes of group g" in out
    page = tmp_path / "report.html"
    code, _ = _cli("simulate", "--fleet", str(path), "--html", str(page))
    assert code == 1 and "PLAN009" in page.read_text(encoding="utf-8")
    code, out = _cli("explain", "PLAN009")
    assert code == 0 and "rocketmq-client-go" in out and BY_CODE["PLAN009"].name == "clients-disagree"


def test_go_broadcasting_processes_in_pid_1_containers_share_the_go_clients_offsets_file():
    instances = ('[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 2\npid = 1\nclient = "go"\n'
                 '[[groups.instances]]\nhosts = ["10.0.0.6"]\ncount = 2\nclient = "go"\n')
    _, findings = _findings(_group('model = "broadcasting"', instances))
    shared = [f for f in findings if f.code == "PLAN007"]
    assert len(shared) == 1  # distinct pids on 10.0.0.6: distinct ids, distinct files
    assert "~/.rocketmq_client_go/10.0.0.5@1/g/offset.json" in shared[0].message


def test_plan009_is_a_rule_of_rmqplan_checks_sarif():
    from rmqplan.check import PLAN_RULES
    from rmqplan.report.codes import CODES

    assert [r.CODE for r in PLAN_RULES] == [c.code for c in CODES]
    assert (PLAN_RULES[-1].NAME, PLAN_RULES[-1].SEVERITY) == ("clients-disagree", "error")
