"""TOML a repository or a user hands us is refused before tomllib sees it when parsing it would take unbounded memory
(long dotted keys are quadratic), with one line naming the file and the key's line; ordinary files still parse."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rmqlint import bounded_toml
from rmqlint.bounded_toml import MAX_KEY_PARTS, REPOSITORY, TomlRefused
from rmqlint.config import ConfigError, load_settings

CODES = {"RMQ001", "RMQ900"}
DEEP = ".".join(["a"] * 2_000)  # 4 KB; tomllib keeps 2,000 prefixes of it, 16 MB (40,000 parts: 6 GB)


def refused(text: str, limits=REPOSITORY) -> TomlRefused:
    with pytest.raises(TomlRefused) as err:
        bounded_toml.loads(text, limits)
    return err.value


@pytest.mark.parametrize("text, line", [
    (f"[tool.x]\n{DEEP} = 1\n", 2),                      # a dotted key
    (f"x = 1\n\n[{DEEP}]\n", 3),                         # a table header
    (f"[[{DEEP}]]\n", 1),                                 # an array of tables
    (f'a = 1\nb = {{ c = 2, {DEEP} = 3 }}\n', 2),         # a key in an inline table
    ('"q".' * MAX_KEY_PARTS + '"q" = 1\n', 1),            # quoted parts count as parts
    ("a . " * MAX_KEY_PARTS + "a = 1\n", 1),              # so do spaced ones
])
def test_a_key_of_too_many_parts_is_refused_with_its_line(text, line):
    err = refused(text)
    assert err.line == line and err.reason == f"a key of more than {MAX_KEY_PARTS} dotted parts: too deep to parse"


def test_what_real_files_hold_is_read():
    key = ".".join(["a"] * MAX_KEY_PARTS)
    text = (f"[tool.poetry.group.dev.dependencies]\npytest = '*'\n{key} = 1\n"
            f'description = "{".".join(["word"] * 40)}"\nhosts = ["10.0.0.1", "10.0.0.2"]\n'
            f'"dotted.name.in.quotes" = 2\n')
    doc = bounded_toml.loads(text)
    assert doc["tool"]["poetry"]["group"]["dev"]["dependencies"]["a"]["a"]
    fleet = (Path(__file__).parents[1] / "golden" / "fleet-cases.toml").read_text(encoding="utf-8")
    assert bounded_toml.loads(fleet) == __import__("tomllib").loads(fleet)


def test_too_many_names_and_too_many_bytes_are_refused():
    names = "".join(f"k{i} = 1\n" for i in range(REPOSITORY.max_names + 1))
    assert refused(names).reason == (f"more than {REPOSITORY.max_names:,} keys and table names "
                                     f"({REPOSITORY.max_names + 1:,}): too many to parse")
    assert bounded_toml.loads(names, bounded_toml.Limits(max_bytes=REPOSITORY.max_bytes, max_names=None))
    large = "# " + "x" * REPOSITORY.max_bytes + "\n"
    err = refused(large)
    assert err.line == 0 and err.reason.startswith("larger than 2 MB (") and err.reason.endswith("too large to parse")


def test_nesting_deeper_than_the_parser_recurses_is_refused():
    assert refused("a = " + "[" * 5_000 + "]" * 5_000 + "\n").reason == "nested too deeply to parse"


def test_a_file_over_the_limit_is_not_read_whole(tmp_path):
    path = tmp_path / "big.toml"
    with open(path, "wb") as fh:
        fh.truncate(REPOSITORY.max_bytes * 50)  # 100 MB of zeros, never in memory
    with pytest.raises(TomlRefused, match=r"larger than 2 MB \(104,857,600 bytes\)"):
        bounded_toml.load(path)


@pytest.mark.parametrize("name, text, expected", [
    ("pyproject.toml", f'[tool.rmqlint]\nfail-on = "error"\n[tool.other]\n{DEEP} = 1\n',
     "pyproject.toml:4: a key of more than 16 dotted parts: too deep to parse"),
    (".rmqlint.toml", f"[{DEEP}]\n", ".rmqlint.toml:1: a key of more than 16 dotted parts: too deep to parse"),
    # tomllib's own recursion limit: was an internal error
    (".rmqlint.toml", "x = " + "[" * 2_000 + "]" * 2_000 + "\n", ".rmqlint.toml: nested too deeply to parse"),
])
def test_settings_that_cannot_be_parsed_safely_are_one_line(tmp_path, monkeypatch, name, text, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path, CODES)
    assert err.value.lines == [expected]


def test_rmqlint_exits_2_with_the_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text(f"[tool.rmqlint]\n{DEEP} = 1\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "rmqlint", str(tmp_path), "--no-cache"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "rmqlint: pyproject.toml:2: a key of more than 16 dotted parts: too deep to parse\n"
