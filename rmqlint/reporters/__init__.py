"""Reporters: each turns a `LintResult` into the complete text to print (written at once by the CLI)."""

from __future__ import annotations

import os
from pathlib import Path

FORMATS = ("text", "concise", "json", "sarif", "github")


def render(fmt: str, result) -> str:
    if fmt == "text":
        from rmqlint.reporters.text import render_text as renderer
    elif fmt == "concise":
        from rmqlint.reporters.text import render_concise as renderer
    elif fmt == "json":
        from rmqlint.reporters.json import render_json as renderer
    elif fmt == "sarif":
        from rmqlint.reporters.sarif import render_sarif as renderer
    elif fmt == "github":
        from rmqlint.reporters.github import render_github as renderer
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return renderer(result)


def display_path(root: Path | str, rel: str, base: str | None = None) -> str:
    """A path of the project (relative to `root`) as a person or a CI annotation opens it from the current
    directory (or `base`): relative to it when the file lies inside it, else absolute. Always '/'-separated."""
    full = os.path.normpath(os.path.join(os.path.abspath(root), rel))
    start = os.path.abspath(base or os.getcwd())
    if full == start:
        return "."
    inside = start.rstrip(os.sep) + os.sep
    if full.startswith(inside):
        return full[len(inside):].replace(os.sep, "/")
    return full.replace(os.sep, "/")


def display_message(finding, root: Path | str, base: str | None = None) -> str:
    """The finding's message with every place it cites as `path:line` openable from the current directory."""
    return finding.render_message(lambda loc: display_path(root, loc.path, base))


def fingerprints(result) -> list[str]:
    """Each finding's fingerprint (`rmqlint.baseline`), for the reports that carry them."""
    from rmqlint.baseline import fingerprints as compute

    return compute(result.root, result.findings)
