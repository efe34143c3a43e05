"""What `pip install rmqtools` puts in an environment: the packages `rmqlint` (with its rules as `rmqlint.rules`)
and `rmqplan`, built from the repository's folders rmqlint/, rules/ and planner/. Nothing named `rules` or
`planner`, which other distributions install (django-rules installs `rules`)."""

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALLED_AS = {"rmqlint": "rmqlint", "rules": "rmqlint.rules", "planner": "rmqplan"}  # folder -> import name


def test_every_package_folder_is_installed_under_its_name():
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {}
    for folder, name in INSTALLED_AS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            folders[".".join((name, *parts))] = init.parent
    assert set(tool["packages"]) == set(folders)
    assert {tool["package-dir"][n] for n in INSTALLED_AS.values()} == set(INSTALLED_AS)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("source")  # a copy: the build writes build/ and *.egg-info beside the sources
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in INSTALLED_AS:
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check",
                           "-w", str(out), str(source)], capture_output=True, text=True, timeout=600)
    if done.returncode and "Could not" in done.stderr and "setuptools" in done.stderr:
        pytest.skip(f"no setuptools to build the wheel with (PyPI out of reach?): {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stderr
    return next(out.glob("rmqtools-*.whl"))


def test_the_wheel_holds_only_our_names(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"rmqlint", "rmqplan"}
    assert "rmqlint/rules/rmq001_fixed_instance_name.py" in names
    assert "rmqplan/allocation/strategies/avg.py" in names


def test_both_tools_run_beside_other_rules_and_planner_packages(wheel, tmp_path):
    """The wheel unpacked beside a `rules` and a `planner` of someone else's, first on the path."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    for other in ("rules", "planner"):
        (site / other).mkdir()
        (site / other / "__init__.py").write_text("OWNER = 'someone else'\n")
    check = ("import rules, planner, rmqlint.rules, rmqplan.cli; "
             "assert rules.OWNER == planner.OWNER == 'someone else'; print(rmqlint.rules.__file__)")
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(str(site)), done.stderr
    lint = subprocess.run([sys.executable, "-m", "rmqlint", "--no-cache", str(ROOT / "examples" / "fixed-instance-name")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert lint.returncode == 1 and "RMQ001" in lint.stdout, lint.stderr
    plan = subprocess.run([sys.executable, "-m", "rmqplan.cli", "simulate", "--fleet", str(ROOT / "examples" / "fleet.toml"),
                           "--engine", "local"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert plan.returncode == 1 and "PLAN001" in plan.stdout, plan.stderr
