"""Discovery: the project root, .gitignore (with and without git), skipped directories, excludes, explicit files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rmqlint import discover as discover_module
from rmqlint.discover import DiscoveryError, discover, find_root
from tests.lint.test_engine_fixtures import write_project

FILES = {
    "src/A.java": "class A {}",
    "src/gen/G.java": "class G {}",
    "app/main.py": "x = 1",
    "app/notes.txt": "not source",
    "config/application-prod.yml": "a: 1",
    "config/other.yml": "a: 1",
    "target/classes/T.java": "class T {}",
    "node_modules/x/index.py": "",
    ".venv/lib/site.py": "",
    "sub/build/B.java": "class B {}",
    "logs/debug.java": "class D {}",
}
GITIGNORE = "logs/\n*.tmp.py\n"


@pytest.fixture(params=["git", "walk"])
def mode(request, monkeypatch):
    if request.param == "walk":
        monkeypatch.setattr(discover_module, "_run", lambda argv: None)  # as without git
    return request.param


def build(tmp_path: Path, mode: str) -> Path:
    files = dict(FILES, **{".gitignore": GITIGNORE, "app/scratch.tmp.py": "", "src/.gitignore": "gen/\n"})
    return write_project(tmp_path / "proj", files, git=True)


def test_project_files(tmp_path, mode):
    root = build(tmp_path, mode)
    found = discover([root], root)
    assert found.files == ["app/main.py", "config/application-prod.yml", "src/A.java"]
    assert found.report == set(found.files)
    assert found.kinds["config/application-prod.yml"] == "spring"


def test_excludes_apply_to_explicit_files_too(tmp_path, mode):
    root = build(tmp_path, mode)
    found = discover([root / "src" / "A.java", root / "app"], root, exclude=["app/**"])
    assert found.files == ["config/application-prod.yml", "src/A.java"]
    assert found.report == {"src/A.java"}


def test_report_only_the_given_paths_but_index_everything(tmp_path, mode):
    root = build(tmp_path, mode)
    found = discover([root / "app"], root)
    assert found.report == {"app/main.py"} and "src/A.java" in found.files


def test_explicit_ignored_file_is_linted(tmp_path, mode):
    root = build(tmp_path, mode)
    found = discover([root / "logs" / "debug.java"], root)
    assert found.report == {"logs/debug.java"}


def test_missing_path_is_an_error(tmp_path):
    root = write_project(tmp_path / "p", {"A.java": ""})
    with pytest.raises(DiscoveryError, match="nope.java: no such file or directory"):
        discover([root / "nope.java"], root)


def test_root_is_the_nearest_marked_ancestor(tmp_path):
    write_project(tmp_path / "repo", {"svc/src/A.java": "", "pyproject.toml": ""}, git=True)
    (tmp_path / "repo" / ".rmqlint.toml").unlink(missing_ok=True)
    assert find_root([tmp_path / "repo" / "svc" / "src"]) == (tmp_path / "repo").resolve()
    assert find_root([tmp_path / "repo" / "svc" / "src" / "A.java"]) == (tmp_path / "repo").resolve()


def test_root_without_markers_is_the_common_directory(tmp_path, monkeypatch):
    (tmp_path / "a" / "x").mkdir(parents=True)
    (tmp_path / "a" / "y").mkdir()
    # Markers above tmp_path (a checkout containing /tmp) would win; none are expected there.
    monkeypatch.setattr(discover_module, "ROOT_MARKERS", (".no-such-marker",))
    assert find_root([tmp_path / "a" / "x", tmp_path / "a" / "y"]) == (tmp_path / "a").resolve()


def test_paths_in_separate_projects_are_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(discover_module, "ROOT_MARKERS", (".rmqlint.toml",))
    write_project(tmp_path / "a", {"A.java": ""})
    write_project(tmp_path / "b", {"B.java": ""})
    with pytest.raises(DiscoveryError, match="different projects"):
        find_root([tmp_path / "a" / "A.java", tmp_path / "b"])
    assert find_root([tmp_path / "a", tmp_path / "a" / "A.java"]) == (tmp_path / "a").resolve()


def test_run_captures_output_and_reports_failure():
    from rmqlint.discover import _run

    assert _run(["git", "--version"]).startswith(b"git version")
    assert _run(["git", "no-such-subcommand"]) is None  # fails: its stderr goes nowhere
    assert _run(["rmqlint-no-such-program"]) is None
