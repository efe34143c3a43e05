"""Both commands' output as a shell user meets it, in a fresh process each: a reader that goes away (`| head`)
ends the output quietly; a full disk (`> /dev/full`) and a standard output closed before the start (`>&-`) are
one line and exit 2 in every command; files and directories written by -o, --out, --plan and --html follow the
umask."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ORDERS = "examples/orders-on-host-network"

# Every command of both tools, with arguments that make it print something, and its exit status.
COMMANDS = [
    (1, "rmqlint", "examples/fixed-instance-name", "--no-cache"),
    (1, "rmqlint", "examples/tag-case-drift", "--no-cache", "--format", "sarif"),
    (1, "rmqlint", "examples/fixed-instance-name", "--no-cache", "--diff", "--unsafe-fixes"),
    (0, "rmqlint", "rules"),
    (0, "rmqlint", "explain", "RMQ001"),
    (0, "rmqlint", "graph", "examples/tag-case-drift", "--no-cache"),
    (0, "rmqlint", "--version"),
    (0, "rmqlint", "--help"),
    (1, "rmqplan", "simulate", "--fleet", "examples/fleet.toml"),
    (1, "rmqplan", "simulate", "--fleet", "examples/fleet.toml", "--format", "json"),
    (0, "rmqplan", "allocate", "tests/golden/allocation-cases.jsonl"),
    (0, "rmqplan", "fleet", "--from-code", ORDERS, "--deploy", f"{ORDERS}/deploy", "--cluster", f"{ORDERS}/cluster"),
    (1, "rmqplan", "check", ORDERS, "--deploy", f"{ORDERS}/deploy", "--cluster", f"{ORDERS}/cluster", "--no-cache"),
    (0, "rmqplan", "explain", "PLAN001"),
    (0, "rmqplan", "explain"),
    (0, "rmqplan", "--version"),
    (0, "rmqplan", "--help"),
    (0, "rmqplan", "simulate", "--help"),
]


def _run(args, stdout, timeout=300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / args[0]), *args[1:]], cwd=REPO, stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=timeout, **kwargs)


@pytest.mark.parametrize("status, args", [(c[0], c[1:]) for c in COMMANDS], ids=[" ".join(c[1:]) for c in COMMANDS])
def test_a_closed_pipe_ends_quietly_and_a_full_disk_or_a_closed_output_is_one_line_and_exit_2(status, args):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: every write meets a closed pipe
    try:
        piped = _run(args, write)
    finally:
        os.close(write)
    assert piped.returncode == status and "Traceback" not in piped.stderr  # quiet: what the command says anyway
    with open("/dev/full", "w") as full:
        done = _run(args, full)
    assert done.returncode == 2
    assert done.stderr == piped.stderr + f"{args[0]}: cannot write the output: No space left on device\n"
    closed = _run(args, None, preexec_fn=lambda: os.close(1))  # `>&-`
    assert closed.returncode == 2
    assert closed.stderr == piped.stderr + f"{args[0]}: cannot write the output: standard output is closed\n"
    if args[:2] in (("rmqlint", "rules"), ("rmqplan", "simulate")):
        assert piped.stderr == ""


def _modes(root: Path) -> dict[str, int]:
    out = {root.name: stat.S_IMODE(root.stat().st_mode)}
    if root.is_dir():
        for path in root.rglob("*"):
            out[str(path.relative_to(root.parent))] = stat.S_IMODE(path.stat().st_mode)
    return out


@pytest.mark.parametrize("umask", [0o002, 0o027])
def test_written_files_and_directories_follow_the_umask(tmp_path, umask):
    pytest.importorskip("pyarrow")
    fleet = tmp_path / "fleet.toml"
    fleet.write_text((REPO / "examples" / "fleet.toml").read_text(encoding="utf-8")
                     + '\n[[scenarios]]\nname = "rolling"\ngroup = "orders"\nrolling_restart = true\n',
                     encoding="utf-8")
    written = {
        "out": ("rmqplan", "simulate", "--fleet", str(fleet), "--out", str(tmp_path / "out")),
        "plan": ("rmqplan", "simulate", "--fleet", str(fleet), "--plan", str(tmp_path / "plan")),
        "page.html": ("rmqplan", "simulate", "--fleet", str(fleet), "--html", str(tmp_path / "page.html")),
        "written.toml": ("rmqplan", "fleet", "--from-code", ORDERS, "--deploy", f"{ORDERS}/deploy", "-o",
                         str(tmp_path / "written.toml")),
        "graph.mmd": ("rmqlint", "graph", "examples/tag-case-drift", "--no-cache", "-o", str(tmp_path / "graph.mmd")),
        "baseline.json": ("rmqlint", "examples/tag-case-drift", "--no-cache", "--write-baseline",
                          str(tmp_path / "baseline.json")),
    }
    for name, args in written.items():
        done = _run(args, subprocess.PIPE, preexec_fn=lambda: os.umask(umask))
        assert done.returncode in (0, 1), done.stderr
        modes = _modes(tmp_path / name)
        assert len(modes) > (1 if name in ("out", "plan") else 0)
        for path, mode in modes.items():
            expected = (0o777 if (tmp_path / path).is_dir() else 0o666) & ~umask
            assert mode == expected, f"{path}: {oct(mode)}, expected {oct(expected)} under umask {oct(umask)}"
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary file left behind"


# Each command that writes a file, with the target put last.
WRITERS = {
    "html": ("rmqplan", "simulate", "--fleet", "examples/fleet.toml", "--html"),
    "fleet": ("rmqplan", "fleet", "--from-code", ORDERS, "--deploy", f"{ORDERS}/deploy", "-o"),
    "graph": ("rmqlint", "graph", "examples/tag-case-drift", "--no-cache", "-o"),
    "baseline": ("rmqlint", "examples/tag-case-drift", "--no-cache", "--write-baseline"),
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_link_keeps_pointing_at_its_file_and_an_old_file_keeps_its_mode(tmp_path, name):
    real = tmp_path / "real"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link"
    link.symlink_to(real)
    done = _run((*WRITERS[name], str(link)), subprocess.PIPE)
    assert done.returncode in (0, 1), done.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)  # the link's file replaced, not the link
    assert real.read_text() != "old\n" and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_fifo_or_a_device_is_written_in_place_not_replaced_by_a_file(tmp_path, name):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    try:
        done = _run((*WRITERS[name], str(fifo)), subprocess.PIPE, timeout=120)
    finally:
        if reader.is_alive():  # the command never opened it: unblock the reader
            with open(fifo, "wb"):
                pass
        reader.join(timeout=60)
    assert done.returncode in (0, 1), done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode) and received and received[0]
    if os.geteuid() == 0:  # a twin of /dev/full (renaming over the real one as root would replace the device)
        full = tmp_path / "full"
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        done = _run((*WRITERS[name], str(full)), subprocess.PIPE)
        assert done.returncode == 2 and "No space left on device" in done.stderr
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
        assert stat.S_ISCHR(full.stat().st_mode)


@pytest.mark.parametrize("option, marker", [("--out", "summary.json"), ("--plan", "plan.json")])
def test_a_linked_out_directory_is_replaced_where_the_link_points(tmp_path, option, marker):
    pytest.importorskip("pyarrow")
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    for _ in range(2):  # the second run replaces the first one's output
        done = _run(("rmqplan", "simulate", "--fleet", "examples/fleet.toml", option, str(link)), subprocess.PIPE)
        assert done.returncode == 1, done.stderr
        assert link.is_symlink() and os.readlink(link) == str(real) and (real / marker).is_file()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]  # nothing left beside them


def test_a_closed_stream_that_the_command_does_not_need_changes_nothing(tmp_path):
    def closing(*fds):
        return lambda: [os.close(fd) for fd in fds]

    graph = _run(("rmqlint", "graph", "examples/tag-case-drift", "--no-cache", "-o", str(tmp_path / "g.mmd")), None,
                 preexec_fn=closing(1))
    assert graph.returncode == 0 and graph.stderr == "" and (tmp_path / "g.mmd").read_text().startswith("flowchart")
    quiet = subprocess.run([str(BIN / "rmqplan"), "simulate", "--fleet", "examples/fleet.toml"], cwd=REPO,
                           stdout=subprocess.PIPE, preexec_fn=closing(2), timeout=300)
    assert quiet.returncode == 1 and b"PLAN001" in quiet.stdout
    no_input = _run(("rmqplan", "simulate", "--fleet", "-"), subprocess.PIPE, preexec_fn=closing(0))
    assert no_input.returncode == 2 and no_input.stdout == ""
    assert no_input.stderr == "rmqplan: <stdin>: groups: missing: a fleet needs [[groups]] (or a [generate] section)\n"
