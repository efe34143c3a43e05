"""What installing the distribution (`pip install .`) puts in an environment: the packages `rmqlint` (with its rules
as `rmqlint.rules`) and `rmqplan`, built from the repository's folders rmqlint/, rules/ and planner/. Nothing named
`rules` or `planner`, which other distributions install (django-rules installs `rules`). The documents install it
by the name pyproject.toml gives it, never by another project's."""

import importlib.metadata
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
INSTALLED_AS = {"rmqlint": "rmqlint", "rules": "rmqlint.rules", "planner": "rmqplan"}  # folder -> import name
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
NAME = canonicalize_name(PROJECT["name"])


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
    return next(out.glob(f"{NAME}-*.whl"))


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


# ------------------------------------------------------------------------------------------ the distribution name


def test_the_installed_version_is_found_under_the_distribution_name():
    """`rmqlint --version`, the JSON report and the cache key find the installed distribution by its name."""
    from rmqlint.cache import package_version

    assert package_version() == importlib.metadata.version(NAME) == PROJECT["version"]


def _install_words(text: str) -> list[str]:
    """Each requirement or path after `pip install` or `pip wheel` in `text`, in order."""
    found = []
    for line in text.splitlines():
        for m in re.finditer(r"pip (?:install|wheel) ([^`#)\n]*)", line):
            skip = False
            for word in shlex.split(m.group(1).replace(", or", " ")):
                if word in ("&&", "||", ";", "|"):  # the shell's next command (a Dockerfile's RUN ... && rm ...)
                    break
                if skip or word.startswith("-"):
                    skip = word in ("-w", "--wheel-dir", "-r")  # an option's value is no requirement
                    continue
                found.append(word if word.strip(".") == "" else word.rstrip(".,;:"))
    return found


def _install_commands() -> list[tuple[str, str]]:
    """(document, requirement or path) for each in README.md and docs/."""
    return [(path.name, word) for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
            for word in _install_words(path.read_text(encoding="utf-8"))]


def test_every_install_command_names_this_distribution_or_a_path():
    """A name after `pip install` is looked up on PyPI, where another project may hold it (`rmqtools` is someone
    else's RabbitMQ tools): the documents name this distribution, one of its dependencies, a checkout, a wheel
    built from it or a git URL of this repository."""
    dependencies = {canonicalize_name(Requirement(r).name)
                    for r in [*PROJECT["dependencies"], *sum(PROJECT["optional-dependencies"].values(), [])]}
    commands = _install_commands()
    assert commands
    for document, word in commands:
        if word.startswith(("git+", "https://")):
            assert word.rstrip("/").rsplit("/", 1)[1].split("@")[0] == NAME, (document, word)
        elif word.startswith((".", "/", "dist/")):
            if word.endswith(".whl"):
                assert word.rsplit("/", 1)[1].startswith(f"{NAME.replace('-', '_')}-{PROJECT['version']}-"), word
        else:
            assert canonicalize_name(Requirement(word).name) in {NAME, *dependencies}, (document, word)


def test_the_readme_installs_from_a_checkout_until_a_release_is_published():
    """No release is on PyPI: the README's install is `pip install .` in a checkout (a name from the index would be
    whatever project holds it there). When a release is published, the README may name it instead."""
    install = (ROOT / "README.md").read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    assert _install_words(install)[0] in (".", ".[spark]"), _install_words(install)
    assert "not published on PyPI" in " ".join(install.split())


def test_the_spark_engine_s_install_line_names_this_distribution():
    from rmqplan.engines.choice import SPARK_EXTRA

    requirement = Requirement(shlex.split(SPARK_EXTRA.removeprefix("pip install "))[0])
    assert (canonicalize_name(requirement.name), requirement.extras) == (NAME, {"spark"})
