"""Both commands' output as a shell user meets it, in a fresh process each: a reader that goes away (`| head`)
ends the output quietly; a full disk (`> /dev/full`) is one line and exit 2 in every command; files and
directories written by -o, --out, --plan and --html follow the umask."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
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


def _run(args, stdout, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / args[0]), *args[1:]], cwd=REPO, stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=300, **kwargs)


@pytest.mark.parametrize("status, args", [(c[0], c[1:]) for c in COMMANDS], ids=[" ".join(c[1:]) for c in COMMANDS])
def test_a_closed_pipe_ends_quietly_and_a_full_disk_is_one_line_and_exit_2(status, args):
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
