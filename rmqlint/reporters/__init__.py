"""Reporters: each turns a `LintResult` into the complete text to print (written at once by the CLI)."""

from __future__ import annotations

import os
from pathlib import Path

FORMATS = ("text", "json", "sarif", "github")


def render(fmt: str, result) -> str:
    if fmt == "text":
        from rmqlint.reporters.text import render_text as renderer
    elif fmt == "json":
        from rmqlint.reporters.json import render_json as renderer
    elif fmt == "sarif":
        from rmqlint.reporters.sarif import render_sarif as renderer
    elif fmt == "github":
        from rmqlint.reporters.github import render_github as renderer
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return renderer(result)


def display_path(root: Path, rel: str, base: str | None = None) -> str:
    """A finding's path as a person (or a CI annotation) wants it: relative to the current directory (or `base`)
    when the file is under it, else relative to the project root. Always '/'-separated."""
    full = os.path.join(root, rel)
    start = os.path.abspath(base or os.getcwd())
    try:
        shown = os.path.relpath(full, start)
    except ValueError:  # another drive on Windows
        return rel
    return rel if shown.startswith("..") else shown.replace(os.sep, "/")
