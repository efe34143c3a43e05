"""The local engine's `--out` on several processes (`rmqplan.engines.chunk_tasks`): the same tables, findings and summaries
as one process, whoever takes which chunk; a helper's failure is the run's failure."""

import multiprocessing
import os
import pickle

import pyarrow.parquet as pq
import pytest

from rmqplan.engines.chunk_tasks import ChunkJob, HelperFailed, helpers_for, run_job
from rmqplan.engines.chunks import chunks, out_ids
from rmqplan.report.findings import find_by_result as find  # what --out writes: result order
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.generated.states import fleet_generated_scenarios
from rmqplan.engines.local import simulate
from rmqplan.model.simulation import OutRequest
from rmqplan.report.out_tables import BrokerIds
from rmqplan.allocation.strategies import plugin_classes

GENERATED = """
version = 1
[generate]
groups = 2400
seed = 13
instances = [1, 9]
queues = [1, 12]
brokers = 2
colliding_client_ids = 0.1
strategies = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]

[[scenarios]]
name = "everyone"
rolling_restart = "group"

[[scenarios]]
name = "b1-write-only"
broker_perm = { "broker-01" = 2 }
"""
CHUNK = 300  # 8 chunks: every process gets several


def _job(directory, find_=find, text=GENERATED) -> ChunkJob:
    fleet = parse_fleet_text(text, "fleet.toml")
    os.makedirs(directory, exist_ok=True)
    return ChunkJob(fleet.generate, fleet_generated_scenarios(fleet), OutRequest(str(directory), find_),
                    out_ids(fleet, 0, BrokerIds()), list(chunks(fleet.generate, CHUNK)), plugin_classes())


def _run(directory, helpers, find_=find):
    job = _job(directory, find_)
    with open(directory / "findings.json", "w", encoding="utf-8") as findings:
        summaries, written = run_job(job, helpers, findings)
    return summaries, written, (directory / "findings.json").read_text(encoding="utf-8")


def _table(directory, name):
    table = pq.read_table(directory / name)
    return sorted(tuple(row.values()) for row in table.to_pylist())


def test_helpers_write_what_one_process_writes(tmp_path):
    alone = _run(tmp_path / "alone", 0)
    shared = _run(tmp_path / "shared", 2)
    assert shared[0] == alone[0]  # summaries, in group order
    assert shared[1] == alone[1] > 0 and shared[2] == alone[2]  # the findings, line for line in group order
    assert shared[2].count("\n") == shared[1]
    for name in ("assignments", "groups", "processes"):
        assert _table(tmp_path / "shared", name) == _table(tmp_path / "alone", name), name
    parts = sorted(p.name for p in (tmp_path / "shared" / "assignments").iterdir())
    assert parts[0] == "part-generated-0.parquet" and len(parts) >= 2  # helpers wrote their own part files
    assert not [p for p in (tmp_path / "shared").rglob(".*")]  # no hidden part left behind


def test_the_local_engine_with_helpers_gives_the_same_simulation(tmp_path):
    plain = GENERATED[:GENERATED.index("[[scenarios]]")].replace("groups = 2400", "groups = 40000")
    fleet = parse_fleet_text(plain, "fleet.toml")  # three chunks of CHUNK_GROUPS
    results = []
    for helpers in (0, 1):
        directory = tmp_path / f"h{helpers}"
        directory.mkdir()
        sim = simulate(fleet, OutRequest(str(directory), find), helpers=helpers)
        results.append((sim.totals, sim.problem_counts, sim.omitted_results, sim.findings_written,
                        [(r.group, r.topic, r.scenario) for r in sim.results],
                        (directory / "findings.json").read_text(encoding="utf-8")))
    assert results[1] == results[0]
    assert _table(tmp_path / "h1", "processes") == _table(tmp_path / "h0", "processes")


def _fails_in_helpers(sim):
    if multiprocessing.current_process().name != "MainProcess":
        raise ValueError("broken in a helper")
    return find(sim)


def _dies_in_helpers(sim):
    if multiprocessing.current_process().name != "MainProcess":
        os._exit(3)
    return find(sim)


def test_an_error_in_a_helper_is_raised_here(tmp_path):
    with pytest.raises(ValueError, match="broken in a helper"):
        _run(tmp_path / "out", 1, _fails_in_helpers)


def test_a_helper_that_dies_fails_the_run(tmp_path):
    with pytest.raises(HelperFailed, match="exit code 3"):
        _run(tmp_path / "out", 1, _dies_in_helpers)


def test_how_many_helpers(tmp_path):
    job = _job(tmp_path)  # 8 chunks
    assert helpers_for(job, cpus=1) == 0
    assert helpers_for(job, cpus=2) == 1
    assert helpers_for(job, cpus=16) == 3  # each process keeps at least two chunks
    few = ChunkJob(job.spec, job.scenarios, job.out, job.ids, job.chunks[:3], job.plugins)
    assert helpers_for(few, cpus=16) == 0


class _LocalStrategy:  # stands for a plug-in class pickle cannot name (defined where no import finds it)
    def __reduce__(self):
        raise pickle.PicklingError("not importable")


def test_no_helpers_when_a_plugin_strategy_cannot_be_handed_over(tmp_path):
    job = _job(tmp_path)
    unpicklable = ChunkJob(job.spec, job.scenarios, job.out, job.ids, job.chunks, [_LocalStrategy()])
    assert helpers_for(unpicklable, cpus=4) == 0


def _cgroups(tmp_path, own: str, files: dict):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "self-cgroup").write_text(own)
    for name, text in files.items():
        path = tmp_path / "fs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path / "fs"), str(tmp_path / "self-cgroup")


@pytest.mark.parametrize("own, files, quota", [
    ("0::/kubepods/pod1/c1\n", {"kubepods/pod1/c1/cpu.max": "200000 100000\n"}, 2.0),  # v2, a pod's limit
    ("0::/\n", {"cpu.max": "150000 100000\n"}, 1.5),  # v2 inside the container's namespace
    ("0::/user.slice\n", {"user.slice/cpu.max": "max 100000\n"}, None),  # v2, no limit
    ("4:cpu,cpuacct:/docker/abc\n", {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "50000",
                                     "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000"}, 0.5),  # v1, --cpus=0.5
    ("1:cpu:/\n", {"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, None),  # v1, no limit
    ("1:cpu:/\n", {}, None),  # nothing readable
])
def test_the_cgroup_quota_is_read_as_cpus(tmp_path, own, files, quota):
    from rmqplan.engines.cpus import cgroup_cpu_quota

    assert cgroup_cpu_quota(*_cgroups(tmp_path, own, files)) == quota


def test_a_cpu_quota_caps_the_usable_cpus(tmp_path):
    from rmqplan.engines.cpus import usable_cpus

    affinity = len(os.sched_getaffinity(0))
    assert usable_cpus(*_cgroups(tmp_path / "a", "0::/\n", {"cpu.max": "50000 100000"})) == 1  # at least one
    assert usable_cpus(*_cgroups(tmp_path / "b", "0::/\n", {"cpu.max": "max 100000"})) == affinity
    assert usable_cpus(*_cgroups(tmp_path / "c", "0::/\n", {"cpu.max": f"{100000 * affinity + 1} 100000"})) \
        == affinity  # rounded up, never above the affinity


def test_without_semaphores_the_job_runs_here_alone(tmp_path, monkeypatch):
    def no_semaphores(method=None):
        raise OSError(38, "Function not implemented")  # /dev/shm missing

    alone = _run(tmp_path / "alone", 0)
    monkeypatch.setattr(multiprocessing, "get_context", no_semaphores)
    assert _run(tmp_path / "fallback", 2) == alone
    assert sorted(p.name for p in (tmp_path / "fallback" / "assignments").iterdir()) == ["part-generated-0.parquet"]
