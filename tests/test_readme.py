"""The README shows real output: each `$ command` block it prints on the bundled examples is what the command prints
now, and its Mermaid graph is what `rmqlint graph` draws. A change of output or of an example must update it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def _shown_output(command: str) -> str:
    """The lines the README prints under `$ command`, up to the end of its code block."""
    readme = _readme()
    start = readme.index(f"$ {command}\n") + len(f"$ {command}\n")
    return readme[start:readme.index("```", start)]


def _run(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "120"}
    done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=REPO, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("command", [
    "rmqlint examples/ --no-cache",
    "rmqplan simulate --fleet examples/fleet.toml",
    "rmqplan check examples/orders-on-host-network --deploy examples/orders-on-host-network/deploy "
    "--cluster examples/orders-on-host-network/cluster",
])
def test_the_readme_prints_what_the_command_prints(command):
    assert _run(*command.split()) == _shown_output(command)


def test_the_readme_graph_is_the_graph_of_the_tag_case_example():
    readme = _readme()
    shown = re.search(r"```mermaid\n(.*?)```", readme, re.S).group(1)
    assert _run("rmqlint", "graph", "examples/tag-case-drift", "--format", "mermaid") == shown
