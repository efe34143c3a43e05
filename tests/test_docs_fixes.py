"""docs/rmqlint-fixes.md shows real output: its project is written from the page, its commands run in order in a
fresh git repository, and each prints what the page shows. A change of output must update the page.

`python -m tests.test_docs_fixes --write` runs the commands and writes their output into the page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "rmqlint-fixes.md"
BIN = Path(sys.executable).parent
_FILE = re.compile(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)```", re.S)
_BLOCK = re.compile(r"```\n(\$ .*?)```", re.S)


def project(page: str) -> dict[str, str]:
    return dict(_FILE.findall(page))


def commands(page: str) -> list[tuple[str, str]]:
    """(command, the output shown under it), in page order."""
    found = []
    for block in _BLOCK.findall(page):
        current = None
        for line in block.splitlines(keepends=True):
            if line.startswith("$ "):
                current = [line[2:].rstrip("\n"), ""]
                found.append(current)
            elif current is not None:
                current[1] += line
    return [(command, shown) for command, shown in found]


def run_all(page: str, where: Path) -> list[str]:
    for rel, text in project(page).items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(where)], check=True)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "COLUMNS": "120"}
    outputs = []
    for command, _shown in commands(page):
        done = subprocess.run(["bash", "-c", f"{command} 2>&1"], cwd=where, capture_output=True, text=True,
                              env=env, timeout=300)
        outputs.append(done.stdout)
    return outputs


def test_the_page_prints_what_the_commands_print(tmp_path):
    page = PAGE.read_text(encoding="utf-8")
    assert len(project(page)) == 3 and len(commands(page)) >= 10
    for (command, shown), printed in zip(commands(page), run_all(page, tmp_path)):
        assert printed == shown, command


def _write() -> None:
    page = PAGE.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        outputs = iter(run_all(page, Path(tmp)))

    def filled(match: re.Match) -> str:
        lines = []
        for line in match.group(1).splitlines(keepends=True):
            if line.startswith("$ "):
                lines.append(line)
                lines.append(next(outputs))
        return "```\n" + "".join(lines) + "```"

    PAGE.write_text(_BLOCK.sub(filled, page), encoding="utf-8")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    _write()
