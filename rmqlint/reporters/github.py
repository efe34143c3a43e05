"""GitHub Actions workflow commands: one `::error file=..,line=..,col=..,endLine=..,endColumn=..,title=CODE::msg`
annotation per finding (warnings as `::warning`, info as `::notice`), after a `::notice title=assumed::` line for
each assumption the findings rest on. Paths, in `file=` and in messages, are
relative to `$GITHUB_WORKSPACE` (the checkout) when it is set, else to the current directory. The path and the
message are text a person reads in the log and the annotation: `printable` escapes their control characters, and
GitHub's own escaping (`%0A`, `%3A`, ...) then keeps each annotation one workflow command."""

from __future__ import annotations

import os

from rmqlint.printable import printable
from rmqlint.reporters import display_message, display_path

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result) -> str:
    base = os.environ.get("GITHUB_WORKSPACE") or None
    lines = [f"::notice title=assumed::{_escape_data(printable(line))}" for line in result.assumptions or ()]
    for f in result.findings:
        loc = f.location
        props = ",".join(
            [
                f"file={_escape_property(printable(display_path(result.root, loc.path, base)))}",
                f"line={loc.line}",
                f"col={loc.column}",
                f"endLine={loc.end_line}",
                f"endColumn={loc.end_column}",
                f"title={_escape_property(f.code)}",
            ]
        )
        text = printable(display_message(f, result.root, base))
        lines.append(f"::{_COMMAND.get(f.severity, 'warning')} {props}::{_escape_data(text)}")
    return "".join(line + "\n" for line in lines)
