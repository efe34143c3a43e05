"""`rmqplan check` reads and writes rmqlint's facts cache: a `.rmqlint_cache` committed as a symbolic link, or
holding one, is not used there either, and nothing outside the project is written."""

from __future__ import annotations

import os

import pytest

from rmqplan.cli import main
from tests.lint.test_cache_links import LAYOUTS, OUTSIDE_TEXT, outside_state, plant
from tests.lint.test_engine_fixtures import java_project


@pytest.mark.parametrize("layout", LAYOUTS)
def test_check_never_follows_links_in_the_cache(tmp_path, monkeypatch, capsys, layout):
    root = java_project(tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text(OUTSIDE_TEXT)
    before = outside_state(outside)
    named = plant(root, outside, layout)
    monkeypatch.chdir(root)

    for _run in range(2):
        with pytest.raises(SystemExit):
            main(["check", "."])

    assert outside_state(outside) == before and sorted(p.name for p in outside.iterdir()) == ["victim"]
    said = [line for line in capsys.readouterr().err.splitlines() if "cache" in line]
    assert said == [f"{named}: a symbolic link: the facts cache is not used"]
    assert os.path.islink(root / named)  # left as the repository has it
