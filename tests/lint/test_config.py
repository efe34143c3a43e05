"""Settings from pyproject.toml / .rmqlint.toml, their errors, and the command line on top."""

from __future__ import annotations

from pathlib import Path

import pytest

from rmqlint.config import ConfigError, Settings, load_settings
from rmqlint.engine import LintOptions, known_codes, resolve_settings

CODES = {"RMQ001", "RMQ002", "RMQ003", "RMQ900"}


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_defaults_without_files(tmp_path):
    settings = load_settings(tmp_path, CODES)
    assert settings == Settings()
    assert settings.fail_on == "warning" and all(settings.enabled(c) for c in CODES)


def test_pyproject_section(tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname="x"\n[tool.rmqlint]\nselect=["RMQ0"]\nignore=["rmq002"]\n'
                                       'exclude=["gen/**"]\nfail-on="error"\n')
    settings = load_settings(tmp_path, CODES)
    assert (settings.select, settings.ignore, settings.exclude, settings.fail_on) == (
        ["RMQ0"], ["RMQ002"], ["gen/**"], "error")
    assert [c for c in sorted(CODES) if settings.enabled(c)] == ["RMQ001", "RMQ003"]


def test_pyproject_without_section_is_defaults(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.black]\nline-length = 100\n')
    assert load_settings(tmp_path, CODES) == Settings()


def test_dedicated_file_wins(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.rmqlint]\nfail-on="info"\n')
    write(tmp_path / ".rmqlint.toml", 'fail-on="error"\n')
    assert load_settings(tmp_path, CODES).fail_on == "error"


@pytest.mark.parametrize(
    "text, message",
    [
        ('[tool.rmqlint]\nselct=["RMQ001"]\n', "pyproject.toml: tool.rmqlint.selct: unknown key"),
        ('[tool.rmqlint]\nselect="RMQ001"\n', "pyproject.toml: tool.rmqlint.select: expected a list of strings, got a string"),
        ('[tool.rmqlint]\nignore=["RMQ999"]\n', "pyproject.toml: tool.rmqlint.ignore: unknown rule code or prefix 'RMQ999'"),
        ('[tool.rmqlint]\nfail-on="fatal"\n', "pyproject.toml: tool.rmqlint.fail-on: expected one of error, warning, info, got 'fatal'"),
        ('[tool.rmqlint]\nfail-on=1\n', "got an integer"),
        ('[tool.rmqlint]\nexclude=[1]\n', "tool.rmqlint.exclude: expected a list of strings"),
        ('tool.rmqlint = 3\n', "[tool.rmqlint] must be a table"),
        ('[tool.rmqlint\n', "pyproject.toml: invalid TOML: "),
    ],
)
def test_errors_are_one_clear_line(tmp_path, text, message):
    write(tmp_path / "pyproject.toml", text)
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path, CODES)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_invalid_toml_names_the_position(tmp_path):
    write(tmp_path / ".rmqlint.toml", 'select = ["RMQ001"]\nfail-on = = 1\n')
    with pytest.raises(ConfigError, match=r"\.rmqlint\.toml: invalid TOML: .*line"):
        load_settings(tmp_path, CODES)


def test_command_line_overrides(tmp_path):
    write(tmp_path / ".rmqlint.toml", 'select=["RMQ001"]\nfail-on="error"\n')
    options = LintOptions(paths=[tmp_path], select=["RMQ002", "RMQ003"], fail_on="info")
    settings = resolve_settings(tmp_path, options)
    assert settings.select == ["RMQ002", "RMQ003"] and settings.fail_on == "info"
    with pytest.raises(ConfigError, match="--ignore: unknown rule code or prefix 'XYZ1'"):
        resolve_settings(tmp_path, LintOptions(paths=[tmp_path], ignore=["XYZ1"]))


def test_known_codes_include_rmq900():
    assert {"RMQ001", "RMQ002", "RMQ003", "RMQ900"} <= known_codes()


def test_tests_setting(tmp_path):
    assert load_settings(tmp_path, CODES).tests == "quiet"
    write(tmp_path / "pyproject.toml", '[tool.rmqlint]\ntests = "lint"\n')
    assert load_settings(tmp_path, CODES).tests == "lint"
    write(tmp_path / "pyproject.toml", '[tool.rmqlint]\ntests = true\n')
    with pytest.raises(ConfigError, match=r"/pyproject.toml: tool.rmqlint.tests: expected one of quiet, lint, "
                                          r"got a boolean$"):
        load_settings(tmp_path, CODES)


@pytest.mark.parametrize("path, test", [
    ("src/test/java/A.java", True), ("svc/src/test/resources/application.yml", True), ("tests/a.py", True),
    ("pkg/tests/data/x.py", True), ("test_a.py", True), ("pkg/a_test.py", True), ("pkg/conftest.py", True),
    ("src/main/java/TestA.java", False), ("src/main/java/test/A.java", False), ("pkg/testing.py", False),
    ("pkg/latest.py", False), ("contests/a.py", False), ("src/main/resources/test_a.yml", False),
])
def test_test_sources(path, test):
    from rmqlint.discover import is_test_source

    assert is_test_source(path) is test


def test_every_problem_at_once_naming_the_file_as_it_opens_from_here(tmp_path, monkeypatch):
    import subprocess
    import sys

    (tmp_path / "svc").mkdir()
    write(tmp_path / "svc" / "pyproject.toml",
          '[tool.rmqlint]\nselct = ["RMQ001"]\nignore = ["RMQ999", "XYZ"]\nfail-on = "fatal"\ntests = "skip"\n')
    write(tmp_path / "svc" / "A.java", "class A {}\n")
    done = subprocess.run([str(Path(sys.executable).parent / "rmqlint"), "svc", "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "rmqlint: svc/pyproject.toml: tool.rmqlint.selct: unknown key; did you mean 'select'?",
        "rmqlint: svc/pyproject.toml: tool.rmqlint.ignore: unknown rule code or prefix 'RMQ999'",
        "rmqlint: svc/pyproject.toml: tool.rmqlint.ignore: unknown rule code or prefix 'XYZ'",
        "rmqlint: svc/pyproject.toml: tool.rmqlint.fail-on: expected one of error, warning, info, got 'fatal'",
        "rmqlint: svc/pyproject.toml: tool.rmqlint.tests: expected one of quiet, lint, got 'skip'",
    ]
    monkeypatch.chdir(tmp_path / "svc")
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path / "svc", CODES)
    assert err.value.lines[0].startswith("pyproject.toml: tool.rmqlint.selct: ")  # from inside: its own name


def test_thousands_of_configuration_errors_show_the_first_hundred_and_how_many_more(tmp_path):
    import subprocess
    import sys

    codes = ", ".join(f'"X{i}"' for i in range(5_000))
    write(tmp_path / ".rmqlint.toml", f"select = [{codes}]\n")
    write(tmp_path / "A.java", "class A {}\n")
    for command in (["rmqlint", "."], ["rmqplan", "check", "."]):
        done = subprocess.run([str(Path(sys.executable).parent / command[0]), *command[1:], "--no-cache"],
                              cwd=tmp_path, capture_output=True, text=True)
        lines = done.stderr.splitlines()
        assert done.returncode == 2 and len(lines) == 101, done.stderr[-500:]
        assert lines[99] == f"{command[0]}: .rmqlint.toml: select: unknown rule code or prefix 'X99'"
        assert lines[100] == f"{command[0]}: ... and 4,900 more errors (the first 100 are shown)"
