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
    """A finding's path as a person (or a CI annotation) can open it: relative to the current directory (or
    `base`), with `..` when the file lies outside it. Always '/'-separated."""
    full = os.path.join(root, rel)
    start = os.path.abspath(base or os.getcwd())
    try:
        return os.path.relpath(full, start).replace(os.sep, "/")
    except ValueError:  # another drive on Windows
        return full.replace(os.sep, "/")
