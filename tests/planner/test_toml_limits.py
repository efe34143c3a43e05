"""The planner's TOML inputs go through rmqlint.bounded_toml: a fleet.toml or a pyproject.toml with a key of thousands
of dotted parts is one line naming the file and the line (tomllib would take memory growing with the square of the
key), and a lock file larger than the settings' limit still gives its client package's version."""

from __future__ import annotations

import io

import pytest

from rmqlint.bounded_toml import MAX_KEY_PARTS, REPOSITORY
from rmqplan.cli import run
from rmqplan.sources.buildfiles import read_pyproject
from rmqplan.sources.fleet_file import FleetError, load_fleet, parse_fleet_text
from rmqplan.sources.services import configured_nodes, explicit_services

DEEP = ".".join(["a"] * 2_000)
TOO_DEEP = f"a key of more than {MAX_KEY_PARTS} dotted parts: too deep to parse"
FLEET = '[[brokers]]\nname = "b"\n\n[[topics]]\nname = "T"\nread_queues = 4\n'


def test_a_fleet_with_a_long_dotted_key_is_one_line(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text(FLEET + f"\n[scenarios]\n{DEEP} = 1\n", encoding="utf-8")
    with pytest.raises(FleetError) as err:
        load_fleet(path)
    assert err.value.errors == [f"{path}:9: {TOO_DEEP}"]
    out, errors = io.StringIO(), io.StringIO()
    assert run(["simulate", "--fleet", str(path)], out, errors) == 2
    assert errors.getvalue() == f"rmqplan: {path}:9: {TOO_DEEP}\n"


def test_a_fleet_naming_thousands_of_tables_is_one_line(tmp_path):
    """A fleet has a few tables however many groups it holds; 3 MB of distinct headers ([t1.a], [t2.a], ...) took
    tomllib 450 MB. Dotted keys make tables too."""
    for name, body in (("headers", "".join(f"[t{i}.a]\nk = 1\n" for i in range(2_000))),
                       ("keys", "[scenarios]\n" + "".join(f"t{i}.a = 1\n" for i in range(2_000)))):
        path = tmp_path / f"{name}.toml"
        path.write_text(FLEET + body, encoding="utf-8")
        out, errors = io.StringIO(), io.StringIO()
        assert run(["simulate", "--fleet", str(path)], out, errors) == 2
        assert errors.getvalue().startswith(f"rmqplan: {path}: more than 1,000 distinct tables"), errors.getvalue()


def test_a_big_ordinary_fleet_still_parses():
    groups = "".join(f'[[groups]]\nname = "g{i}"\nsubscriptions = [{{ topic = "T", expression = "*" }}]\n'
                     f'[[groups.instances]]\nhosts = ["10.0.{i // 250}.{i % 250}"]\ncount = 2\n' for i in range(5_000))
    text = FLEET + groups  # 5,000 groups, 130,000 names: more than a repository's settings file may hold
    assert len(parse_fleet_text(text, "fleet.toml").groups) == 5_000


def test_pyproject_read_by_the_planner_is_bounded_too(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f'[project]\nname = "svc"\n\n[tool.rmqplan]\nnodes = 2\n{DEEP} = 1\n', encoding="utf-8")
    (problem,) = configured_nodes(pyproject)[1]
    assert str(problem) == f"{pyproject}:6: cannot read [tool.rmqplan]: {TOO_DEEP}"
    (problem,) = explicit_services(pyproject)[1]
    assert str(problem) == f"{pyproject}:6: cannot read [tool.rmqplan.services]: {TOO_DEEP}"
    problems = []
    assert read_pyproject(pyproject, problems) is None and [str(p) for p in problems] == [f"{pyproject}:6: {TOO_DEEP}"]


def test_rmqplan_check_stops_at_the_settings_line(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(f"[tool.rmqlint]\n{DEEP} = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert run(["check", ".", "--no-cache"], out, err) == 2
    # rmqlint's settings, then what the [tool.rmqplan] readers make of the same file (every problem of it at once)
    assert err.getvalue().splitlines() == [f"rmqplan: pyproject.toml:2: {TOO_DEEP}",
                                           f"rmqplan: pyproject.toml:2: cannot read [tool.rmqplan.services]: {TOO_DEEP}",
                                           f"rmqplan: pyproject.toml:2: cannot read [tool.rmqplan]: {TOO_DEEP}"]


def test_only_the_client_packages_of_a_big_lock_file_are_parsed(tmp_path):
    packages = [f'[[package]]\nname = "other-{i}"\nversion = "1.0.{i}"\n\n[package.dependencies]\n'
                f'{DEEP if i == 7 else "x"} = "*"\n\n' for i in range(40_000)]
    packages.insert(20_000, '[[package]]\nname = "rocketmq_client_python"\nversion = "2.0.1rc1"\n\n'
                            '[package.extras]\ntest = ["pytest"]\n\n')
    lock = "".join(packages) + '[metadata]\nlock-version = "2.0"\n'
    assert len(lock.encode()) > REPOSITORY.max_bytes
    (tmp_path / "poetry.lock").write_text(lock, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.poetry]\nname = "notifier"\n[tool.poetry.dependencies]\n'
                                             'rocketmq-client-python = "^2.0"\n', encoding="utf-8")
    (dep,) = read_pyproject(tmp_path / "pyproject.toml", []).dependencies
    assert dep.version == "2.0.1rc1"
    assert dep.version_origin.line == lock[: lock.index('version = "2.0.1rc1"')].count("\n") + 1
