"""Usage errors of both commands, run as a person runs them: each line starts with the command, names what was
meant when a word is close to a known one (an option, a subcommand, a choice, a configuration key), and the
status is 2. `rmqlint explain` without a code lists the codes as `rmqplan explain` does."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rmqlint.rules import ALL_RULES

BIN = Path(sys.executable).parent


def run(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
    done = subprocess.run([str(BIN / argv[0]), *argv[1:]], capture_output=True, text=True, cwd=cwd, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("argv, line", [
    (("rmqlint", "--formt", "json"), "rmqlint: unknown option --formt: did you mean --format?"),
    (("rmqlint", "--output-format", "json"), "rmqlint: unknown option --output-format: did you mean --format?"),
    (("rmqlint", "graph", "--formt", "dot"), "rmqlint graph: unknown option --formt: did you mean --format?"),
    (("rmqlint", "--format", "jsn"), "rmqlint: argument --format: invalid choice: 'jsn': did you mean 'json'? "
                                     "(choose from 'text', 'concise', 'json', 'sarif', 'github')"),
    (("rmqlint", "expain"), "rmqlint: expain: no such file or directory; did you mean 'rmqlint explain'?"),
    (("rmqlint", "explain", "fixed-instance"), "rmqlint explain: unknown rule 'fixed-instance' (did you mean "
                                                "fixed-instance-name? 'rmqlint explain' lists them)"),
    # the typo, not "the following arguments are required: --fleet"
    (("rmqplan", "simulate", "--flet", "fleet.toml"), "rmqplan simulate: error: unknown option --flet: did you "
                                                      "mean --fleet?"),
    (("rmqplan", "check", ".", "--output-format", "json"), "rmqplan check: error: unknown option --output-format: "
                                                           "did you mean --format?"),
])
def test_a_typo_names_what_was_meant(argv, line):
    assert run(*argv) == (2, "", line + "\n")


def test_a_misspelt_command_names_the_closest():
    code, out, err = run("rmqplan", "simulat")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("rmqplan: error: argument COMMAND: invalid choice: 'simulat': did you mean 'simulate'? "
                          "(choose from 'allocate', 'simulate', ")


def test_an_unknown_option_beside_a_missing_required_one_says_both():
    code, out, err = run("rmqplan", "simulate", "--verbose")
    assert (code, out) == (2, "")
    assert err.splitlines() == ["rmqplan simulate: error: unknown option --verbose (see rmqplan simulate --help)",
                                "rmqplan simulate: error: the following arguments are required: --fleet"]


def test_options_after_a_double_dash_are_paths_not_typos(tmp_path):
    code, _out, err = run("rmqlint", "--no-cache", "--", "--formt", cwd=tmp_path)
    assert code == 2 and err == "rmqlint: --formt: no such file or directory\n"


def test_an_unknown_configuration_key_names_the_closest_one(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.rmqlint]\nselct = ["RMQ001"]\n', encoding="utf-8")
    code, out, err = run("rmqlint", "--no-cache", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert err == "rmqlint: pyproject.toml: tool.rmqlint.selct: unknown key; did you mean 'select'?\n"


def test_explain_without_a_code_lists_the_codes_as_rmqplan_does():
    code, out, err = run("rmqlint", "explain")
    assert (code, err) == (0, "")
    rows = [re.split(r"\s{2,}", line) for line in out.splitlines()]
    assert rows == [[r.CODE, r.NAME, r.severity_label(), r.SUMMARY] for r in ALL_RULES]
    plan_code, plan_out, _ = run("rmqplan", "explain")  # the same columns, two spaces apart
    assert plan_code == 0 and all(len(re.split(r"\s{2,}", line)) == 4 for line in plan_out.splitlines())


@pytest.mark.parametrize("argv, prog", [
    (("rmqplan", "simulate", "--fleet", "missing.toml"), "rmqplan"),
    (("rmqplan", "allocate", "missing.jsonl"), "rmqplan"),
    (("rmqplan", "explain", "PLAN999"), "rmqplan"),
    (("rmqplan", "check", "missing-dir"), "rmqplan"),
    (("rmqplan", "status"), "rmqplan status"),
    (("rmqlint", "missing-dir"), "rmqlint"),
    (("rmqlint", "explain", "RMQ999"), "rmqlint explain"),
    (("rmqlint", "graph", "missing-dir"), "rmqlint graph"),
    (("rmqlint", "--unsafe-fixes"), "rmqlint"),
])
def test_every_error_line_starts_with_the_command(tmp_path, argv, prog):
    code, out, err = run(*argv, cwd=tmp_path)
    assert code == 2 and out == "" and err
    assert all(line.startswith(f"{prog}: ") for line in err.splitlines()), err
