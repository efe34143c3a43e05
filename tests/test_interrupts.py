"""Ctrl-C (SIGINT) and SIGTERM in both commands: one line (`rmqplan: interrupted`, `terminated`), exit status 130
(143), no traceback, and nothing temporary left beside the output: the output is the previous one or the new
one, whole. The signal is sent at known points, never after a delay: at every step of writing an output (each
bytecode of ours, each return from the library functions they call), at the start of each stage of
`simulate --plan`, and to a command blocked on a server that does not answer or on its input."""

from __future__ import annotations

import gc
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rmqlint.output import run_command, write_atomically
from rmqplan.cli import run
from rmqplan.report.render import out_directory
from tests.planner.remoting_server import FakeCluster, answer

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
OURS = tuple(str(REPO / folder) for folder in ("rmqlint", "planner"))
CO_GENERATOR = 0x20


def _interrupt_at(step: int, body) -> bool:
    """Run `body` with SIGINT sent to this process at its `step`-th step: a bytecode of ours, or a return from a
    function of the standard library or another package (whose insides act as one step: before its effect or
    after it). True when the signal was sent, False when `body` has fewer steps."""
    count, sent = 0, False

    def local(frame, event, arg):
        nonlocal count, sent
        if sent:
            return None
        if event == ("opcode" if frame.f_trace_opcodes else "return"):
            count += 1
            if count == step:
                sent = True
                signal.raise_signal(signal.SIGINT)
        return local

    def on_call(frame, event, arg):
        ours = frame.f_code.co_filename.startswith(OURS)
        if not ours and frame.f_code.co_flags & CO_GENERATOR:
            return None  # a library generator closed by the garbage collector: a signal there is lost by Python
        frame.f_trace_opcodes = ours
        return local

    # No collection inside: a finalizer the collector runs (an earlier test's socket or generator) would be counted
    # as a step, and a KeyboardInterrupt raised in a finalizer is printed and dropped by Python, not raised.
    gc.collect()
    gc.disable()
    sys.settrace(on_call)
    try:
        body()
    finally:
        sys.settrace(None)
        gc.enable()
    return sent


def _every_step(body, check) -> int:
    """`body` interrupted at each of its steps in turn, and `check()` after each; returns the steps."""
    step = 1
    while True:
        try:
            if not _interrupt_at(step, body):
                return step - 1
        except KeyboardInterrupt:
            pass
        else:
            raise AssertionError(f"step {step}: SIGINT was sent and the body returned as if it had not")
        check(step)
        step += 1


@pytest.mark.parametrize("previous", [False, True], ids=["new", "replaced"])
def test_an_output_directory_interrupted_at_any_step_is_the_previous_one_or_the_new_one(tmp_path, previous):
    target = tmp_path / "plan"
    if previous:
        target.mkdir()
        (target / "plan.json").write_text("previous")

    def write():
        with out_directory(target, marker="plan.json", option="--plan") as staging:
            (staging / "plan.json").write_text("new")

    def check(step):
        assert [p.name for p in tmp_path.iterdir()] in ([], ["plan"]), f"step {step}"
        if target.exists():
            assert [p.name for p in target.iterdir()] == ["plan.json"], f"step {step}"
            assert (target / "plan.json").read_text() in ("previous", "new"), f"step {step}"
        else:
            assert not previous, f"step {step}: the previous output is gone"

    write()  # warm: the first run's imports are not steps of writing
    assert _every_step(write, check) > 100
    assert (target / "plan.json").read_text() == "new"


@pytest.mark.parametrize("previous", [False, True], ids=["new", "replaced"])
def test_a_file_written_atomically_and_interrupted_at_any_step_is_the_previous_one_or_the_new_one(tmp_path, previous):
    target = tmp_path / "graph.mmd"
    if previous:
        target.write_text("previous")
    write_atomically(tmp_path / "warm", "warm")
    os.remove(tmp_path / "warm")

    def check(step):
        assert [p.name for p in tmp_path.iterdir()] in ([], ["graph.mmd"]), f"step {step}"
        assert not target.exists() or target.read_text() in ("previous", "new"), f"step {step}"
        assert previous is False or target.exists(), f"step {step}"

    assert _every_step(lambda: write_atomically(target, "new"), check) > 20


def test_a_fix_written_and_interrupted_at_any_step_leaves_the_file_as_it_was_or_fixed(tmp_path):
    from rmqlint.apply import FileChange, write

    source = tmp_path / "Orders.java"
    source.write_bytes(b"before\n")
    fix = FileChange("Orders.java", b"before\n", b"after\n")
    write(tmp_path, fix)  # warm

    def check(step):
        assert [p.name for p in tmp_path.iterdir()] == ["Orders.java"], f"step {step}"
        assert source.read_bytes() in (b"before\n", b"after\n"), f"step {step}"
        source.write_bytes(b"before\n")

    source.write_bytes(b"before\n")
    assert _every_step(lambda: write(tmp_path, fix), check) > 20


def test_the_facts_cache_written_and_interrupted_at_any_step_leaves_no_temporary_file(tmp_path):
    from rmqlint.cache import _write_atomically

    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _write_atomically(folder, "index.json", {"run": 0})  # warm

        def check(step):
            assert [p.name for p in tmp_path.iterdir()] == ["index.json"], f"step {step}"

        assert _every_step(lambda: _write_atomically(folder, "index.json", {"run": 1}), check) > 10
    finally:
        os.close(folder)


# A function at the start of each stage of `simulate --plan`: reading the fleet, simulating, finding the fewest
# moves, writing the plan files, moving them into place, writing the report.
STAGES = ["load_fleet", "simulate", "compare", "write_plan", "_move_into_place", "render_text"]


def _interrupted_when(name: str, body) -> None:
    """Run `body` with SIGINT sent when a function called `name` is entered."""

    def on_call(frame, event, arg):
        if frame.f_code.co_name == name and frame.f_code.co_filename.startswith(OURS):
            sys.settrace(None)
            signal.raise_signal(signal.SIGINT)
        return None

    sys.settrace(on_call)
    try:
        body()
    finally:
        sys.settrace(None)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("previous", [False, True], ids=["new", "replaced"])
def test_simulate_plan_interrupted_at_each_stage_says_so_in_one_line_and_leaves_no_temporary_folder(
        tmp_path, monkeypatch, stage, previous):
    fleet = tmp_path / "fleet.toml"
    fleet.write_bytes((REPO / "examples" / "fleet.toml").read_bytes())
    plan = tmp_path / "plan"
    argv = ["simulate", "--fleet", str(fleet), "--engine", "local", "--plan", str(plan)]
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    if previous:
        assert run_command("rmqplan", lambda: run(argv, sys.stdout, sys.stderr)) == 1
        before = {p.relative_to(plan): p.read_bytes() for p in plan.rglob("*") if p.is_file()}
        out.truncate(0)
    codes = []

    def simulate():
        try:
            codes.append(run_command("rmqplan", lambda: run(argv, sys.stdout, sys.stderr)))
        except KeyboardInterrupt:
            codes.append("KeyboardInterrupt escaped")

    _interrupted_when(stage, simulate)
    assert codes == [130] and err.getvalue() == "rmqplan: interrupted\n" and out.getvalue().strip("\0") == ""
    assert sorted(p.name for p in tmp_path.iterdir()) in (["fleet.toml"], ["fleet.toml", "plan"])
    if STAGES.index(stage) < STAGES.index("_move_into_place"):  # as it was
        assert ({p.relative_to(plan): p.read_bytes() for p in plan.rglob("*") if p.is_file()} == before
                if previous else not plan.exists())
    else:  # a signal while the plan is moved into place acts once it is there
        assert (plan / "plan.json").is_file()


def _rmqplan(*argv: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "rmqplan"), *argv], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.parametrize("sig, status, line", [(signal.SIGINT, 130, "rmqplan: interrupted"),
                                               (signal.SIGTERM, 143, "rmqplan: terminated")])
@pytest.mark.parametrize("waiting_for", ["the name server", "the second read of the offsets"])
def test_status_stopped_while_it_waits_for_a_server(tmp_path, sig, status, line, waiting_for):
    asked, release = threading.Event(), threading.Event()
    code = 106 if waiting_for == "the name server" else 208  # GET_BROKER_CLUSTER_INFO, GET_CONSUME_STATS
    calls = []

    def hang(request, name):
        calls.append(name)
        if code == 208 and len(calls) == 1:
            return answer(request, body=cluster.body(208))  # the first read of the offsets is answered
        asked.set()
        release.wait(60)  # no answer: the command waits, and the test signals it now
        return None

    cluster = FakeCluster(answers={code: hang})
    proc = _rmqplan("status", "--namesrv", cluster.namesrv, "--interval", "0.01", "--timeout", "60",
                    "--html", str(tmp_path / "page.html"))
    try:
        assert asked.wait(60), proc.stderr.read() if proc.poll() is not None else "the command never asked"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        release.set()
        proc.kill()
        cluster.close()
    assert (proc.returncode, err, out) == (status, line + "\n", "")
    assert list(tmp_path.iterdir()) == []


def _blocked_reading_a_pipe(pid: int) -> bool:
    try:
        return "pipe" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


def test_simulate_interrupted_while_it_reads_its_fleet_from_standard_input(tmp_path):
    if not Path(f"/proc/{os.getpid()}/wchan").exists():
        pytest.skip("no /proc/PID/wchan to see that the command is waiting for its input")
    proc = _rmqplan("simulate", "--fleet", "-", "--plan", str(tmp_path / "plan"), stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not _blocked_reading_a_pipe(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert (proc.returncode, err, out) == (130, "rmqplan: interrupted\n", "")
    assert list(tmp_path.iterdir()) == []


_LOADED = """
import json, sys, sysconfig
before = set(sys.modules)
import {module}
std = sysconfig.get_paths()["stdlib"]  # not platstdlib: in a virtual environment, it holds site-packages
print(json.dumps(sorted(name for name in set(sys.modules) - before
                        if not (getattr(sys.modules[name], "__file__", None) or std).startswith(std))))
"""
# What takes the time of an import: numpy and the other packages installed beside us (numpy alone takes 40 ms),
# the planner's layers (the strategies' registry, the fleet model) and rmqlint's facts, frontends and rules.
HEAVY = ("rmqplan.", "rmqlint.facts", "rmqlint.findings", "rmqlint.frontends", "rmqlint.rules", "rmqlint.engine",
         "rmqlint.reporters")


@pytest.mark.parametrize("module", ["rmqplan.cli", "rmqlint.cli"])
def test_the_scripts_import_no_command_module_before_main_makes_ctrl_c_one_line(module):
    """The `rmqlint` and `rmqplan` scripts import their cli module and then call `main`, which makes Ctrl-C one
    line: a Ctrl-C during that import is a traceback, so it is kept short."""
    done = subprocess.run([sys.executable, "-c", _LOADED.format(module=module)], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout)) - {module}
    assert all(name.split(".")[0] in ("rmqlint", "rmqplan") for name in loaded), loaded  # no installed package
    assert not [name for name in loaded if name.startswith(HEAVY)], loaded


def _helper_of(pid: int):
    """A helper process `pid` spawned (multiprocessing's spawn_main), or None yet."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmdline = (entry / "cmdline").read_bytes()
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid and b"spawn_main" in cmdline:
                return int(entry.name)
    return None


def test_ctrl_c_from_the_terminal_while_a_helper_process_starts_is_one_line(tmp_path):
    """The terminal sends SIGINT to the whole process group, the local engine's helper processes too: they start
    with it blocked (a helper still importing its modules would print a traceback), and this process stops them."""
    from rmqplan.engines.cpus import usable_cpus

    if usable_cpus() < 2:
        pytest.skip("one usable CPU: the local engine starts no helper process")
    fleet = tmp_path / "generated.toml"
    fleet.write_text("[generate]\ngroups = 600000\n")  # 37 chunks: one helper on two CPUs
    proc = _rmqplan("simulate", "--fleet", str(fleet), "--engine", "local", start_new_session=True)
    try:
        helper = None
        while helper is None and proc.poll() is None:
            helper = _helper_of(proc.pid)
        assert helper is not None, f"no helper process started: {proc.communicate()}"
        blocked = next(int(line.split()[1], 16) for line in Path(f"/proc/{helper}/status").read_text().splitlines()
                       if line.startswith("SigBlk:"))
        assert blocked & (1 << (signal.SIGINT - 1)), "the helper can get Ctrl-C: it would print a traceback"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert (proc.returncode, err) == (130, "rmqplan: interrupted\n")
