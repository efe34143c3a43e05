"""A hand-written fleet is weighed before it is expanded (`rmqplan.model.fleet_size`): a few hundred bytes that
declare billions of processes, queues or restart states get one line and exit 2 within bounded memory, where they
took gigabytes and ended in a MemoryError traceback; and the weight is an upper bound of what the simulation then
holds, for every fleet the generators of the other property tests write."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.real_fleet import fleet_toml
from rmqplan.allocation.rebalances import BASELINE
from rmqplan.engines.local import simulate
from rmqplan.model.fleet_size import MAX_ENTRIES, REBALANCE_ENTRIES, fleet_size
from rmqplan.sources.fleet_file import FleetError, parse_fleet_text
from rmqplan.sources.fleet_writer import write_fleet
from tests.planner.test_fleet_writer import planned_fleets
from tests.planner.test_scenarios_reference import fleets as scenario_fleets, toml as scenario_toml

RMQPLAN = Path(sys.executable).parent / "rmqplan"
HOSTS = ", ".join(f'"10.0.{i // 250}.{i % 250}"' for i in range(1000))
HEAD = '[[brokers]]\nname = "broker-a"\n\n[[brokers]]\nname = "broker-b"\n\n'

# Each a small file that declares a simulation far beyond memory.
BOMBS = {
    "1,000 hosts x 100,000 processes": HEAD + f"""[[topics]]
name = "T"
read_queues = 8

[[groups]]
name = "g"
subscriptions = [{{ topic = "T" }}]

[[groups.instances]]
hosts = [{HOSTS}]
count = 100000
""",
    "a rolling restart of 100,000 processes": HEAD + """[[topics]]
name = "T"
read_queues = 8

[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]

[[groups.instances]]
hosts = ["10.0.0.1"]
count = 100000

[[scenarios]]
name = "restart"
rolling_restart = true
""",
    "65,536 queues on each of 2,000 brokers": "".join(f'[[brokers]]\nname = "b{i}"\n' for i in range(2000)) + """
[[topics]]
name = "T"
read_queues = 65536

[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]

[[groups.instances]]
hosts = ["10.0.0.1"]
""",
    "100 broadcasting processes on 65,536 queues, scaled to 100,000": HEAD + """[[topics]]
name = "T"
read_queues = 65536

[[groups]]
name = "g"
model = "broadcasting"
subscriptions = [{ topic = "T" }]

[[groups.instances]]
name = "g"
hosts = ["10.0.0.1"]
count = 100

[[scenarios]]
name = "scale"
replicas = { "g" = 100000 }
""",
}


def _one_gigabyte() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_a_small_fleet_that_declares_too_much_gets_one_line_and_exit_2(name, tmp_path):
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(BOMBS[name])
    assert fleet.stat().st_size < 60_000
    done = subprocess.run([str(RMQPLAN), "simulate", "--fleet", str(fleet)], capture_output=True, text=True,
                          timeout=120, preexec_fn=_one_gigabyte)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith(f"rmqplan: {fleet}: too large to simulate whole: ") and f"at most {MAX_ENTRIES:,}" \
        in lines[0] and "'g' alone" in lines[0] and "[generate]" in lines[0]


def test_the_examples_and_a_company_sized_fleet_are_well_under_the_bound():
    repo = Path(__file__).resolve().parents[2]
    assert fleet_size(parse_fleet_text((repo / "examples" / "fleet.toml").read_text(), "f")).entries < 1_000
    company = fleet_size(parse_fleet_text(fleet_toml(2000, 7), "f"))
    assert company.entries < MAX_ENTRIES / 2


def test_the_line_names_the_group_that_holds_the_most():
    text = BOMBS["a rolling restart of 100,000 processes"].replace('[[scenarios]]', '''[[groups]]
name = "small"
subscriptions = [{ topic = "T" }]

[[groups.instances]]
hosts = ["10.0.0.2"]

[[scenarios]]''')
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "fleet.toml")
    assert "group 'g' alone" in e.value.errors[0]


def held(sim) -> int:
    """What the simulation holds, counted as `fleet_size` counts it: per rebalance its own weight, its queues and
    assignments; per group and state its processes once."""
    total = 0
    states = [[r for r in sim.results if r.scenario == BASELINE]]
    states += [step.results for name in sim.scenarios[1:] for step in sim.steps.get(name, [])]
    for results in states:
        processes: dict[str, set] = {}
        for r in results:
            total += REBALANCE_ENTRIES + len(r.queues) + sum(len(qs) for qs in r.assignment.values())
            processes.setdefault(r.group, set()).update(p.instance for p in r.processes)
        total += sum(len(p) for p in processes.values())
    return total


@settings(max_examples=150, deadline=None)
@given(planned_fleets())
def test_the_weight_bounds_what_groups_of_every_shape_hold(planned):
    fleet = parse_fleet_text(write_fleet(planned), "fleet.toml")
    assert held(simulate(fleet)) <= fleet_size(fleet).entries


@settings(max_examples=150, deadline=None)
@given(scenario_fleets())
def test_the_weight_bounds_what_scenarios_hold(f):
    fleet = parse_fleet_text(scenario_toml(f), "fleet.toml")
    assert held(simulate(fleet)) <= fleet_size(fleet).entries


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 40), st.integers(0, 10_000))
def test_the_weight_bounds_what_a_company_fleet_and_its_scenarios_hold(groups, seed):
    fleet = parse_fleet_text(fleet_toml(groups, seed), "fleet.toml")
    assert held(simulate(fleet)) <= fleet_size(fleet).entries


def _run(*args) -> tuple[int, str, str]:
    import io

    from rmqplan import cli

    out, err = io.StringIO(), io.StringIO()
    code = cli.run([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_max_entries_lowers_and_raises_the_bound(tmp_path):
    fleet = tmp_path / "fleet.toml"
    repo = Path(__file__).resolve().parents[2]
    fleet.write_text((repo / "examples" / "fleet.toml").read_text())
    size = fleet_size(parse_fleet_text(fleet.read_text(), "f"))
    entries = size.entries
    code, out, err = _run("simulate", "--fleet", fleet, "--max-entries", entries - 1)
    assert (code, out) == (2, "")
    assert err == (f"rmqplan: {fleet}: too large to simulate whole: its groups' processes, queues and assignments in "
                   f"every state come to as many as {entries:,} entries (at most {entries - 1:,}; group "
                   f"{size.largest_group!r} alone {size.largest_entries:,}): split the fleet, run fewer scenarios at "
                   "once, describe it with [generate] (it works in chunks), or raise --max-entries\n")
    code, out, err = _run("simulate", "--fleet", fleet, "--max-entries", entries)
    assert code == 1 and "totals: 3 groups" in out
    code, out, err = _run("simulate", "--fleet", fleet, "--max-entries", "0")
    assert code == 2 and "--max-entries: expected 1 or more, got 0" in err


def test_status_weighs_the_connected_groups_fleet_and_says_to_read_fewer():
    from tests.planner.remoting_server import FakeCluster

    clients = tuple(f"10.0.0.{i}@1" for i in range(1, 41))
    cluster = FakeCluster(brokers=2, topic="Orders", queues=64, group="orders", clients=clients)
    try:
        code, out, err = _run("status", "--namesrv", cluster.namesrv, "--interval", "0", "--max-entries", 100)
        assert (code, out) == (2, ""), err
        [line] = err.splitlines()
        assert line.startswith(f"rmqplan: the name server {cluster.namesrv}: too large to simulate whole: "), line
        assert "(at most 100; group 'orders' alone" in line
        assert line.endswith("read fewer groups at once (--group), or raise --max-entries"), line
        code, out, err = _run("status", "--namesrv", cluster.namesrv, "--interval", "0")
        assert code in (0, 1) and "orders" in out, err
    finally:
        cluster.close()


def test_memory_running_out_beyond_a_raised_bound_is_one_line_and_exit_2(tmp_path):
    """Raised past what the machine has (here a 350 MB address-space limit), simulate ends with one line, not a
    MemoryError traceback, and leaves the page it was asked for unwritten."""
    groups = [f'[[topics]]\nname = "T{g}"\nread_queues = 100\n\n[[groups]]\nname = "g{g}"\nmodel = "broadcasting"\n'
              f'subscriptions = [{{ topic = "T{g}" }}]\n\n[[groups.instances]]\nhosts = ["10.0.0.{g}"]\ncount = 100\n'
              for g in range(250)]  # 2.5M assignments: about 400 MB
    fleet = tmp_path / "fleet.toml"
    fleet.write_text('[[brokers]]\nname = "broker-a"\n\n' + "\n".join(groups))
    page = tmp_path / "page.html"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (350 << 20, 350 << 20))

    done = subprocess.run([str(RMQPLAN), "simulate", "--fleet", str(fleet), "--max-entries", "100000000",
                           "--html", str(page)], capture_output=True, text=True, timeout=300, preexec_fn=limited)
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == ("rmqplan: out of memory: this machine (or its limit for this process) has "
                                            "too little for these inputs; output files are left as they were")
    assert not page.exists() and list(tmp_path.iterdir()) == [fleet]


@pytest.mark.parametrize("spec, line", [
    ("groups = 1\ninstances = [100000000, 100000000]", "a generated group alone "),
    ("groups = 1\nqueues = [100000000, 100000000]", "a generated group alone "),
    ("groups = 1\nbrokers = 100000000", "generate.brokers: expected an integer from 1 to 1024, got 100000000"),
    ("groups = 1000000000000", "generate.groups: expected an integer from 1 to 1000000000, got 1000000000000"),
])
def test_a_generate_table_that_declares_too_much_gets_one_line_and_exit_2(spec, line, tmp_path):
    """Each of these ran out of memory (2-3 GB at a 3 GB limit) or ran on past a minute."""
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(f"[generate]\n{spec}\n")
    done = subprocess.run([str(RMQPLAN), "simulate", "--fleet", str(fleet)], capture_output=True, text=True,
                          timeout=120, preexec_fn=_one_gigabyte)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr[-2000:]
    assert len(done.stderr.splitlines()) == 1 and line in done.stderr, done.stderr
    if "alone" in line:
        assert done.stderr.endswith(": give [generate] fewer instances, queues or brokers, or raise --max-entries\n")


def test_a_chunk_takes_fewer_groups_as_the_spec_allows_larger_ones():
    from rmqplan.engines.chunks import CHUNK_ENTRIES, CHUNK_GROUPS, chunk_groups, chunks
    from rmqplan.model.fleet import GenerateSpec
    from rmqplan.model.fleet_size import generated_group_entries

    default = GenerateSpec(groups=100_000)
    assert chunk_groups(default) == CHUNK_GROUPS
    large = GenerateSpec(groups=2_000, instances=(100, 1_000), queues=(100, 1_000), brokers=16)
    mean = generated_group_entries(large, mean=True)
    assert chunk_groups(large) * mean <= CHUNK_ENTRIES < (chunk_groups(large) + 1) * mean
    assert list(chunks(large))[-1][1] == 2_000 and len(list(chunks(large))) == -(-2_000 // chunk_groups(large))
    huge = GenerateSpec(groups=3, instances=(50_000, 100_000), queues=(30_000, 65_536), brokers=64)
    assert chunk_groups(huge) == 1


@settings(max_examples=25, deadline=None)
@given(groups=st.integers(1, 40), seed=st.integers(0, 1000), low=st.integers(1, 6), span=st.integers(0, 6),
       queues=st.tuples(st.integers(1, 6), st.integers(0, 6)), brokers=st.integers(1, 3),
       colliding=st.sampled_from([0.0, 0.5, 1.0]),
       strategies=st.lists(st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]), min_size=1, max_size=3,
                           unique=True),
       scenario=st.sampled_from(["", "remove_brokers", "rolling_restart = true"]))
def test_the_weight_bounds_what_a_small_generated_fleet_holds(groups, seed, low, span, queues, brokers, colliding,
                                                             strategies, scenario):
    names = ", ".join(f'"{s}"' for s in strategies)
    text = (f"[generate]\ngroups = {groups}\nseed = {seed}\ninstances = [{low}, {low + span}]\n"
            f"queues = [{queues[0]}, {queues[0] + queues[1]}]\nbrokers = {brokers}\n"
            f"colliding_client_ids = {colliding}\nstrategies = [{names}]\n")
    if scenario == "remove_brokers" and brokers > 1:
        first = parse_fleet_text(text, "fleet.toml").generate.broker_names()[0]
        text += f'\n[[scenarios]]\nname = "s"\nremove_brokers = ["{first}"]\n'
    elif scenario.startswith("rolling"):
        text += f'\n[[scenarios]]\nname = "s"\n{scenario}\n'
    fleet = parse_fleet_text(text, "fleet.toml")
    assert held(simulate(fleet)) <= fleet_size(fleet).entries
