"""A repository that commits `.rmqlint_cache` as a symbolic link, or links inside it: the cache is not used, one
line says so, and nothing outside the project is created or changed (dangling links included)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rmqlint.cache import CACHE_DIR, CACHE_FILE, FACTS_FILE
from rmqlint.engine import LintOptions, lint
from tests.lint.test_engine_fixtures import java_project

OUTSIDE_TEXT = "belongs to someone else\n"


def outside_state(outside: Path) -> dict[str, str]:
    return {str(p.relative_to(outside)): p.read_text() for p in sorted(outside.rglob("*")) if p.is_file()}


def summary(result):
    return [(f.code, f.location.path, f.location.line, f.message) for f in result.findings]


def plant(root: Path, outside: Path, layout: str) -> str:
    """The links of `layout`; the path the line about them names."""
    cache = root / CACHE_DIR
    if layout == "folder-link":
        os.symlink(outside, cache)
        return CACHE_DIR
    if layout == "dangling-folder-link":
        os.symlink(outside / "made-by-rmqlint", cache)
        return CACHE_DIR
    cache.mkdir()
    name, target = {
        "dangling-gitignore": (".gitignore", outside / "new-gitignore"),
        "dangling-tag": ("CACHEDIR.TAG", outside / "new-tag"),
        "index-link": (CACHE_FILE, outside / "victim"),
        "dangling-facts": (FACTS_FILE, outside / "new-facts"),
    }[layout]
    os.symlink(target, cache / name)
    return f"{CACHE_DIR}/{name}"


LAYOUTS = ["folder-link", "dangling-folder-link", "dangling-gitignore", "dangling-tag", "index-link",
           "dangling-facts"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_links_in_the_cache_are_never_followed(tmp_path, monkeypatch, capsys, layout):
    root = java_project(tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text(OUTSIDE_TEXT)
    before = outside_state(outside)
    expected = summary(lint(LintOptions(paths=[root], use_cache=False)))
    named = plant(root, outside, layout)
    monkeypatch.chdir(root)

    first, second = lint(LintOptions(paths=[root])), lint(LintOptions(paths=[root]))

    assert summary(first) == summary(second) == expected
    assert second.parsed == 2  # nothing was cached
    assert outside_state(outside) == before and sorted(p.name for p in outside.iterdir()) == ["victim"]
    err = capsys.readouterr().err
    assert err == f"{named}: a symbolic link: the facts cache is not used\n"  # once, for both runs


def test_a_real_cache_folder_is_still_used(tmp_path, capsys):
    root = java_project(tmp_path)
    lint(LintOptions(paths=[root]))
    assert lint(LintOptions(paths=[root])).parsed == 0
    assert capsys.readouterr().err == ""
    cache = root / CACHE_DIR
    assert not any(p.is_symlink() for p in cache.iterdir())
    assert {".gitignore", "CACHEDIR.TAG", CACHE_FILE, FACTS_FILE} <= {p.name for p in cache.iterdir()}
