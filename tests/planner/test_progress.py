"""Progress on stderr: on a terminal (a pty here) the engine line and a status line rewritten in place, erased
before the report; nothing at all when stderr is a pipe."""

import io
import json
import os
import pty
import subprocess
import sys
import threading
import time
from pathlib import Path

from rmqplan.cli import run
from rmqplan.report.progress import CLEAR, Progress

ROOT = Path(__file__).resolve().parents[2]


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_status_waits_for_the_delay_is_rate_limited_and_erased_on_close():
    clock, screen = Clock(), Terminal()
    p = Progress(screen, delay=0.5, interval=0.1, clock=clock)
    p.groups(10, 100)
    assert screen.getvalue() == ""  # a quick run leaves nothing
    clock.now = 1.0
    p.groups(60, 100)  # 50 groups in 1 s since the first report: 40 more take 0.8 s
    clock.now = 1.05
    p.groups(70, 100)  # within the interval: skipped
    assert screen.getvalue() == CLEAR + "rmqplan: 60 of 100 generated groups (60%), 1.0 s, about 0.8 s left"
    p.note("rmqplan: a line that stays")  # printed above the status line, which is redrawn
    assert screen.getvalue().endswith(CLEAR + "rmqplan: a line that stays\n"
                                      "rmqplan: 60 of 100 generated groups (60%), 1.0 s, about 0.8 s left")
    p.close()
    assert screen.getvalue().endswith(CLEAR)


def test_the_time_left_is_reckoned_from_the_pace_after_the_start():
    clock, screen = Clock(), Terminal()
    p = Progress(screen, delay=0, interval=0, clock=clock)
    clock.now = 3.0  # a slow start: interpreter, helpers
    p.groups(10, 100)
    assert screen.getvalue() == CLEAR + "rmqplan: 10 of 100 generated groups (10%), 3.0 s"  # no pace yet
    clock.now = 4.0
    p.groups(40, 100)  # 30 groups a second since: 60 more take 2 s, not the 4.5 s the whole run's pace says
    assert screen.getvalue().endswith(CLEAR + "rmqplan: 40 of 100 generated groups (40%), 4.0 s, about 2.0 s left")


def test_nothing_is_written_when_stderr_is_not_a_terminal():
    p = Progress.for_stream(io.StringIO())
    p.note("x")
    p.status("y", force=True)
    p.groups(1, 2)
    p.close()
    assert not p.live


def _fleet(tmp_path, groups: int) -> str:
    path = tmp_path / "gen.toml"
    path.write_text(f"[generate]\ngroups = {groups}\nseed = 11\ncolliding_client_ids = 0.01\n")
    return str(path)


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _on_a_terminal(fleet: str) -> tuple[int, bytes, str]:
    """`rmqplan simulate --fleet F --format json` with stderr on a pty: (exit code, stdout, what the pty got)."""
    primary, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rmqplan.cli", "simulate", "--fleet", fleet, "--format", "json"],
                            stdout=subprocess.PIPE, stderr=secondary, cwd=ROOT)
    os.close(secondary)
    reader = threading.Thread(target=lambda: seen.append(_read_all(primary)))
    seen: list = []
    reader.start()
    out, _ = proc.communicate(timeout=300)
    reader.join(timeout=10)
    os.close(primary)
    return proc.returncode, out, seen[0].decode()


def test_a_local_run_on_a_terminal_shows_the_engine_and_groups_done(tmp_path):
    fleet = _fleet(tmp_path, 600_000)  # a couple of seconds: long enough for the status line to appear
    code, out, screen = _on_a_terminal(fleet)
    assert code == 1 and json.loads(out)["totals"]["groups"] == 600_000
    assert screen.startswith("rmqplan: local engine (auto: 600,000 generated groups)\r\n")
    assert "generated groups (" in screen and " left" in screen
    assert screen.endswith(CLEAR)  # erased before the report


def test_a_long_hand_written_run_on_a_terminal_shows_its_steps(tmp_path):
    lines = ['[[brokers]]', 'name = "b"']
    for g in range(8000):  # about two seconds of expanding, allocating, describing and reporting
        lines += ['[[topics]]', f'name = "T{g}"', 'read_queues = 8', '[[groups]]', f'name = "G{g}"',
                  f'subscriptions = [{{ topic = "T{g}" }}]', '[[groups.instances]]', f'hosts = ["10.0.{g % 250}.1"]',
                  'count = 2']
    fleet = tmp_path / "fleet.toml"
    fleet.write_text("\n".join(lines) + "\n")
    code, out, screen = _on_a_terminal(str(fleet))
    assert code == 0 and json.loads(out)["totals"]["groups"] == 8000
    assert "rmqplan: local engine (auto: a hand-written fleet of 8,000 groups)\r\n" in screen
    steps = ("reading ", "expanding 8,000 hand-written groups", "allocating 16,000 rebalances",
             "describing 16,000 rebalances", "finding problems", "writing the report")
    shown = [step for step in steps if CLEAR + "rmqplan: " + step in screen]
    assert shown, screen  # at least one step was on the screen long enough to be drawn
    assert screen.endswith(CLEAR)  # erased before the report


def test_phases_are_redrawn_with_the_time_until_the_next_or_close():
    screen = Terminal()
    p = Progress(screen, delay=0, interval=0.01)
    p.phase("reading fleet.toml")
    time.sleep(0.1)
    assert CLEAR + "rmqplan: reading fleet.toml, 0." in screen.getvalue()
    p.phase("finding problems")
    time.sleep(0.1)
    assert screen.getvalue().rsplit(CLEAR, 1)[1].startswith("rmqplan: finding problems, ")
    p.close()
    after = screen.getvalue()
    assert after.endswith(CLEAR)
    time.sleep(0.05)
    assert screen.getvalue() == after  # the ticker stopped with close


def test_the_same_run_piped_writes_nothing_on_stderr(tmp_path):
    done = subprocess.run([sys.executable, "-m", "rmqplan.cli", "simulate", "--fleet", _fleet(tmp_path, 600_000),
                           "--format", "json"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 1 and done.stderr == ""
    assert json.loads(done.stdout)["totals"]["groups"] == 600_000


def test_a_spark_run_on_a_terminal_shows_stages_and_tasks(spark, tmp_path):
    """In this process, on the suite's Spark session: the watcher polls the real status tracker."""
    from rmqplan.engines.spark_session import StatusWatcher

    lines = []
    watcher = StatusWatcher(lines.append, interval=0.05)

    def slow(batches):
        for b in batches:
            time.sleep(1.0)
            yield b

    with watcher:
        spark.range(0, 4, 1, 2).mapInArrow(slow, "id long").collect()
    assert any("stage " in line and " of 2 tasks done" in line for line in lines), lines
    assert all(line.startswith("rmqplan: Spark local[") for line in lines)

    primary, secondary = pty.openpty()
    with os.fdopen(secondary, "w") as terminal:
        out = io.StringIO()
        code = run(["simulate", "--fleet", _fleet(tmp_path, 3_000), "--engine", "spark"], out, terminal)
    screen = _read_all(primary).decode()
    os.close(primary)
    assert code == 1 and out.getvalue().startswith("rmqplan: ")
    assert screen.startswith("rmqplan: spark engine (--engine spark)\r\n")
    assert "rmqplan: Spark local[" in screen and screen.endswith(CLEAR)
