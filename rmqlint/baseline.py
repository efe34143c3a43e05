"""Baselines: adopt rmqlint on a codebase that has findings today, and fail only on new ones.

A finding's fingerprint says what it is about, not where: its code, its file, and the code it points at (the
text of its location, blanks collapsed), with a number that tells apart findings of one code on the same text in
one file. Lines inserted above it, or a method around it renamed, leave the fingerprint as it was; an edit of the
flagged code itself makes a new finding. SARIF carries it as `partialFingerprints` (key `rmqlint/v1`), so code
scanning tracks the same finding across commits, and JSON as `fingerprint`.

The baseline file (`--write-baseline FILE`, read by `--baseline FILE`) is JSON:

    {"rmqlint_baseline": 1,
     "findings": [{"code": "RMQ001", "path": "src/main/java/Consumer.java", "fingerprint": "9c1f...",
                   "line": 16, "message": "instanceName is fixed to ..."}]}

`path` is relative to the project root (the directory holding .git, pyproject.toml or .rmqlint.toml), so the file
reads the same from any directory; `line` and `message` are there for people reading it (or its diff in a review)
and are not matched. A finding is left out of the report when an entry has its code, path and fingerprint; each
entry stands for one finding. Writing the file again records today's findings: a fixed finding drops out, and
entries of files outside the paths linted in that run are kept.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from rmqlint.findings import Finding
from rmqlint.text import split_lines

FORMAT = 1
SARIF_KEY = "rmqlint/v1"
_SNIPPET_LIMIT = 500  # characters of the flagged code that count


class BaselineError(Exception):
    """A baseline file that cannot be read or is not one: one line, exit 2."""


@dataclass(frozen=True)
class Entry:
    code: str
    path: str
    fingerprint: str
    line: int = 0
    message: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return self.code, self.path, self.fingerprint


def fingerprints(root: Path | str, findings: list[Finding]) -> list[str]:
    """The fingerprint of each finding (paths relative to `root`), in order."""
    texts: dict[str, list[str] | None] = {}
    subjects = []
    for finding in findings:
        path = finding.location.path
        if path not in texts:
            texts[path] = _lines(Path(root) / path)
        subjects.append(_subject(finding, texts[path]))
    # Findings of one code on the same text of one file are told apart by their order (by message, then place).
    order = sorted(range(len(findings)), key=lambda i: (findings[i].code, findings[i].location.path, subjects[i],
                                                          findings[i].message, findings[i].sort_key()))
    seen: Counter = Counter()
    result = [""] * len(findings)
    for i in order:
        finding = findings[i]
        key = (finding.code, finding.location.path, subjects[i])
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256("\0".join((*key, str(occurrence))).encode("utf-8", "surrogatepass"))
        result[i] = digest.hexdigest()[:20]
    return result


def _lines(path: Path) -> list[str] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return split_lines(data.decode("utf-8", "replace"))[0]


def _subject(finding: Finding, lines: list[str] | None) -> str:
    """The code the finding points at, blanks collapsed; its message (without the places it cites) where that
    cannot be read (a file that is not text, a position past its end)."""
    loc = finding.location
    if lines is not None and 1 <= loc.line <= len(lines):
        last = min(loc.end_line, len(lines), loc.line + 20)
        if last == loc.line:
            text = lines[loc.line - 1][loc.column - 1:max(loc.end_column - 1, loc.column)]
        else:
            text = "\n".join([lines[loc.line - 1][loc.column - 1:], *lines[loc.line:last - 1],
                              lines[last - 1][:loc.end_column - 1] if last == loc.end_line else lines[last - 1]])
        snippet = " ".join(text.split())[:_SNIPPET_LIMIT]
        if snippet:
            return snippet
    return "".join(part for part in finding.parts if isinstance(part, str))


# --- the file ---------------------------------------------------------------------------------------------------


def load(path: str) -> list[Entry]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline file (write one with --write-baseline)") from None
    except OSError as err:
        raise BaselineError(f"{path}: {err.strerror or err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BaselineError(f"{path}: not a baseline file (not JSON: {err})") from None
    if not isinstance(data, dict) or data.get("rmqlint_baseline") != FORMAT or not isinstance(data.get("findings"),
                                                                                             list):
        raise BaselineError(f'{path}: not a baseline file (expected {{"rmqlint_baseline": {FORMAT}, "findings": '
                            "[...]}, as --write-baseline writes it)")
    entries = []
    for index, item in enumerate(data["findings"]):
        if not (isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("code", "path", "fingerprint"))):
            raise BaselineError(f"{path}: findings[{index}]: expected code, path and fingerprint (strings)")
        line = item.get("line", 0)
        message = item.get("message", "")
        entries.append(Entry(item["code"], item["path"], item["fingerprint"],
                             line if type(line) is int else 0, message if isinstance(message, str) else ""))
    return entries


def split(findings: list[tuple[Finding, str]], entries: Iterable[Entry]) -> tuple[list[tuple[Finding, str]], int]:
    """(the findings, with their fingerprints, that the baseline does not hold; how many it holds). Each entry
    holds one finding."""
    left = Counter(entry.key for entry in entries)
    new = []
    known = 0
    for finding, fingerprint in findings:
        key = (finding.code, finding.location.path, fingerprint)
        if left[key] > 0:
            left[key] -= 1
            known += 1
        else:
            new.append((finding, fingerprint))
    return new, known


def entries_of(findings: list[Finding], prints: list[str]) -> list[Entry]:
    return [Entry(f.code, f.location.path, p, f.location.line, f.message) for f, p in zip(findings, prints)]


def write(path: str, entries: list[Entry], kept: Iterable[Entry] = ()) -> None:
    """Write the baseline atomically: `entries` (today's findings) and `kept` (entries of files not linted)."""
    every = sorted({*entries, *kept}, key=lambda e: (e.path, e.line, e.code, e.fingerprint))
    document = {
        "rmqlint_baseline": FORMAT,
        "findings": [{"code": e.code, "path": e.path, "fingerprint": e.fingerprint, "line": e.line,
                      "message": e.message} for e in every],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    from rmqlint.output import write_atomically

    try:
        write_atomically(path, text)  # the umask's permissions, like any other file the user writes
    except OSError as err:
        raise BaselineError(f"{path}: {err.strerror or err}") from None


def outside(entries: Iterable[Entry], linted: list[str]) -> list[Entry]:
    """The entries of files under none of the `linted` directories or files (relative to the root, "" for all)."""
    def covered(path: str) -> bool:
        return any(not prefix or path == prefix or path.startswith(prefix + "/") for prefix in linted)

    return [entry for entry in entries if not covered(entry.path)]
