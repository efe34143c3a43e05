"""Applying fixes: one applier for every language, and the unified diff of what it would write.

`plan` reads each file a chosen fix edits and builds its new bytes:
- a file reached through a symbolic link is the file the link names, by its path in the project (the path git
  tracks and a patch names; two links to one file are one file); one outside the project is not fixed;
- a fix is taken whole or not at all; each file it edits must still hold the bytes the run read (their hash), and
  each edit the text it replaces (the file may have changed since it was linted); its edits must not overlap the edits already taken in that file (an identical edit, the same
  constant fixed for two findings, is taken once); a fix that does not fit waits for the next round;
- edits are made on the bytes, each replacement encoded in the file's own codec: everything else stays byte for
  byte (a GBK file stays GBK, CRLF stays CRLF, comments and formatting stay);
- the new text must parse as well as the old did (the file's frontend reports no problem it did not report
  before); otherwise the fixes of that file are tried one by one, and those that break it are left out.

`write` replaces a file atomically (a temporary file in the same directory, the file's mode, `os.replace`), after
checking the file still holds what was read: a concurrent run never leaves a half-written file, and never writes
over another run's edits. `unified_diff` prints a change as `git apply` reads it.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from rmqlint.cache import content_hash
from rmqlint.findings import Finding
from rmqlint.fixes import SAFE, Edit, Fix
from rmqlint.interrupts import deferred


@dataclass
class FileChange:
    path: str  # relative to the project root
    before: bytes
    after: bytes
    findings: list[Finding] = field(default_factory=list)  # the findings whose fixes it makes


@dataclass
class Plan:
    changes: list[FileChange]
    skipped: list[str]  # one line each: a fix left out, and why
    waiting: int = 0  # fixes that overlap others taken in this round: another round may take them


def applicable(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.applicability == SAFE)


def plan(root: Path | str, findings: Iterable[Finding], unsafe: bool = False, verify: bool = True) -> Plan:
    """The new bytes of every file the applicable fixes of `findings` edit (paths relative to `root`)."""
    return plan_fixes(root, [(f.fix, f) for f in findings if applicable(f, unsafe)], verify)


def plan_fixes(root: Path | str, items: list[tuple[Fix, Finding]], verify: bool = True) -> Plan:
    """As `plan`, for fixes given with the finding each makes go away (any object with `code` and `location`)."""
    root = Path(root)
    sources: dict[str, bytes | None] = {}
    taken: list[Fix] = []  # in the order given
    finding_of: dict[Fix, list[Finding]] = {}
    skipped: list[str] = []
    waiting = 0
    real: dict[str, str | None] = {}
    for fix, finding in items:
        for path in fix.paths - real.keys():
            real[path] = real_path(root, path)
        outside = sorted(path for path in fix.paths if real[path] is None)
        if outside:
            skipped.append(f"{_where(finding)}: {finding.code} not fixed: {outside[0]} is a symbolic link to a file "
                           f"outside the project")
            continue
        fix = fix.renamed({path: real[path] for path in fix.paths})
        if fix in finding_of:  # the same edits for another finding (one literal behind two findings)
            finding_of[fix].append(finding)
            continue
        problem = None
        for edit in fix.edits:
            if edit.path not in sources:
                sources[edit.path] = _read(root / edit.path)
            problem = _stale(edit, sources[edit.path])
            if problem is not None:
                break
        for path, digest in fix.digests:
            if problem is None and sources.get(path) is not None and content_hash(sources[path]) != digest:
                problem = f"{path} changed since it was linted"
        if problem is not None:
            skipped.append(f"{_where(finding)}: {finding.code} not fixed: {problem}")
            continue
        if any(_overlaps(edit, [e for other in taken for e in other.edits if e.path == edit.path])
               for edit in fix.edits):
            waiting += 1
            continue
        taken.append(fix)
        finding_of[fix] = [finding]

    while verify:  # leave out the fixes that would break a file, until every file parses as well as before
        broken = _breaking(taken, sources)
        if not broken:
            break
        for fix in broken:
            taken.remove(fix)
            skipped.extend(f"{_where(f)}: {f.code} not fixed: the file would no longer parse" for f in finding_of[fix])

    changes = []
    for path in sorted({e.path for fix in taken for e in fix.edits}):
        fixes = [fix for fix in taken if path in fix.paths]
        after = apply_edits(sources[path], [e for fix in fixes for e in fix.edits if e.path == path])
        if after != sources[path]:
            changes.append(FileChange(path, sources[path], after,
                                      [f for fix in fixes for f in finding_of[fix]]))
    return Plan(changes, skipped, waiting)


def real_path(root: Path | str, rel: str) -> str | None:
    """The file at `rel` (relative to `root`), through any symbolic links, relative to the root: the path git
    tracks for it (a patch of a link's path does not apply), and one file however many links reach it. None when
    it is outside the root: nothing there is fixed."""
    top = os.path.realpath(root)
    relative = os.path.relpath(os.path.realpath(os.path.join(top, rel)), top)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace(os.sep, "/")


def _breaking(taken: list[Fix], sources: dict[str, bytes | None]) -> list[Fix]:
    """The fixes that make a file parse worse: in a file that does, its fixes are tried one by one, in order."""
    broken: list[Fix] = []
    for path in sorted({e.path for fix in taken for e in fix.edits}):
        fixes = [fix for fix in taken if path in fix.paths]
        before = sources[path]
        if _parses_as_well(path, before, apply_edits(before, [e for f in fixes for e in f.edits if e.path == path])):
            continue
        kept: list[Fix] = []
        for fix in fixes:
            trial = [e for f in kept + [fix] for e in f.edits if e.path == path]
            if _parses_as_well(path, before, apply_edits(before, trial)):
                kept.append(fix)
            else:
                broken.append(fix)
    return broken


def _where(finding: Finding) -> str:
    return f"{finding.location.path}:{finding.location.line}"


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _stale(edit: Edit, data: bytes | None) -> str | None:
    """Why the edit cannot be made on `data` (None: it can)."""
    if data is None:
        return f"{edit.path} cannot be read"
    span = edit.span
    if not 0 <= span.start <= span.end <= len(data):
        return f"{edit.path} changed since it was linted"
    try:
        if data[span.start:span.end].decode(span.encoding) != span.text:
            return f"{edit.path} changed since it was linted"
        edit.replacement.encode(span.encoding)
    except UnicodeError:
        return f"the new text cannot be written in {edit.path}'s encoding ({span.encoding})"
    except LookupError:
        return f"unknown encoding {span.encoding}"
    return None


def _overlaps(edit: Edit, taken: Iterable[Edit]) -> bool:
    for other in taken:
        if other == edit:
            continue
        a, b = edit.span, other.span
        if a.start < b.end and b.start < a.end:
            return True
        if a.start == a.end == b.start == b.end:  # two insertions at one point: their order would be a guess
            return True
        if (a.start == a.end and b.start < a.start < b.end) or (b.start == b.end and a.start < b.start < a.end):
            return True
    return False


def apply_edits(data: bytes, edits: Iterable[Edit]) -> bytes:
    """`data` with every edit made (edits of one file, not overlapping; positions are those of `data`)."""
    out = []
    at = 0
    for edit in sorted(set(edits), key=lambda e: (e.span.start, e.span.end)):
        out.append(data[at:edit.span.start])
        out.append(edit.replacement.encode(edit.span.encoding))
        at = edit.span.end
    out.append(data[at:])
    return b"".join(out)


def _parses_as_well(path: str, before: bytes, after: bytes) -> bool:
    """No problem (a syntax error, a file that cannot be read) the frontend did not report before the edit."""
    from rmqlint.frontends import frontend_for

    frontend = frontend_for(path)
    if frontend is None:
        return True
    old = Counter(p.message for p in frontend.parse(path, before).problems)
    new = Counter(p.message for p in frontend.parse(path, after).problems)
    return not (new - old)


# --- writing ----------------------------------------------------------------------------------------------------


class WriteError(Exception):
    pass


def write(root: Path | str, change: FileChange) -> None:
    """Replace the file with `change.after`, atomically, keeping its mode; WriteError (one line) when it cannot,
    or when it no longer holds `change.before` (another run changed it)."""
    target = os.path.realpath(os.path.join(root, change.path))  # a symlink stays a symlink: its target changes
    directory = os.path.dirname(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError as err:
        raise WriteError(f"{change.path}: {err.strerror or err}") from None
    tmp = None
    try:
        with deferred():  # a signal here acts once the name is kept, for the cleanup below
            fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".rmqlint-fix", dir=directory)
        with os.fdopen(fd, "wb") as fh:
            fh.write(change.after)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if _read(Path(target)) != change.before:
            raise WriteError(f"{change.path}: changed while it was being fixed; not written")
        os.replace(tmp, target)
    except OSError as err:
        _remove(tmp)
        raise WriteError(f"{change.path}: {err.strerror or err}") from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: str | None) -> None:
    if path is None:
        return
    with deferred():
        try:
            os.unlink(path)
        except OSError:
            pass


# --- diff ---------------------------------------------------------------------------------------------------------


def unified_diff(shown: str, before: bytes, after: bytes, context: int = 3) -> bytes:
    """The change as a unified diff with `a/` and `b/` prefixes, as `git apply` (and `patch -p1`) read it: bytes,
    so any encoding and line end goes through as it is; a last line without a line end is marked."""
    a, b = _lines(before), _lines(after)
    name = _quoted(shown)
    out = [f"diff --git a/{name} b/{name}\n".encode(), f"--- a/{name}\n".encode(), f"+++ b/{name}\n".encode()] \
        if not name.startswith('"') else \
        [f'diff --git "a/{name[1:]} "b/{name[1:]}\n'.encode(), f'--- "a/{name[1:]}\n'.encode(),
         f'+++ "b/{name[1:]}\n'.encode()]
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n".encode())
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_marked(b" ", line) for line in a[i1:i2])
                continue
            out.extend(_marked(b"-", line) for line in a[i1:i2])
            out.extend(_marked(b"+", line) for line in b[j1:j2])
    return b"".join(out) if len(out) > 3 else b""


def _lines(data: bytes) -> list[bytes]:
    """Lines ending in "\\n" (a "\\r" before it stays in the line, as git sees it)."""
    lines = data.split(b"\n")
    result = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1])
    return result


def _marked(mark: bytes, line: bytes) -> bytes:
    if line.endswith(b"\n"):
        return mark + line
    return mark + line + b"\n\\ No newline at end of file\n"


def _range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def _quoted(path: str) -> str:
    """A path as git writes it in a patch: C-quoted (with the opening quote) when it holds a quote, a backslash,
    a control or non-ASCII character."""
    if all(32 <= ord(c) < 127 and c not in '"\\' for c in path):
        return path
    escapes = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    out = []
    for char in path:
        if char in escapes:
            out.append(escapes[char])
        elif 32 <= ord(char) < 127:
            out.append(char)
        else:
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogateescape"))
    return '"' + "".join(out) + '"'
