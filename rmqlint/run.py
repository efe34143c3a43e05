"""A lint run as the command line asks for it: lint, then fix (`--fix`, `--unsafe-fixes`) or show the fixes as a
diff (`--diff`), write suppression comments (`--add-suppressions`), write or apply a baseline (`--write-baseline`,
`--baseline`), and hand back the result to report.

Fixing runs to a fixed point, as ruff's does: the fixes that do not overlap are applied, the project is linted
again, and what is fixable then (a fix that had to wait, two edits of one literal; a finding a fix revealed, the
case of a tag RMQ010's separator made readable to RMQ002) is applied in the next round, until a round changes
nothing, up to MAX_ROUNDS. Lines about what was done (or could not be) go to stderr, so that the report on stdout
stays one document in every format.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rmqlint import apply, baseline
from rmqlint.engine import LintOptions, LintResult, lint
from rmqlint.findings import Finding
from rmqlint.reporters import display_path

# Each round lints the project again. The rules' fixes reveal at most one more (RMQ010 then RMQ002), and each
# overlapping edit of one literal takes a round: ten leaves room for both, and fixes that undo each other stop
# after ten quick rounds (ruff allows 100 over hundreds of rules) and are said.
MAX_ROUNDS = 10


@dataclass
class RunOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    add_suppressions: bool = False
    baseline: str | None = None
    write_baseline: str | None = None


@dataclass
class RunOutcome:
    result: LintResult
    diff: bytes | None = None  # --diff: the patch to print (empty: nothing would change)


def run(options: LintOptions, run_options: RunOptions, say: Callable[[str], None]) -> RunOutcome:
    """Raises ConfigError, DiscoveryError, BaselineError (exit 2)."""
    entries = baseline.load(run_options.baseline) if run_options.baseline else None
    result = lint(options)
    if run_options.diff:
        return RunOutcome(_reported(result, entries), _diff(result, entries, run_options, say))
    if run_options.fix:
        result = _fix(options, result, run_options.unsafe_fixes, say)
    if run_options.add_suppressions:
        result = _suppress(options, result, _reported(result, entries).findings, say)
    if run_options.write_baseline:
        entries = _write_baseline(result, options, run_options.write_baseline, say)
    return RunOutcome(_reported(result, entries))


def _reported(result: LintResult, entries) -> LintResult:
    """The result with the findings the baseline holds left out."""
    if entries is None:
        return result
    prints = baseline.fingerprints(result.root, result.findings)
    new, known = baseline.split(list(zip(result.findings, prints)), entries)
    # With findings left out, whether the run fails is decided again, by the root project's fail-on.
    return dataclasses.replace(result, findings=[f for f, _p in new], baselined=known, failing=None)


def _diff(result: LintResult, entries, run_options: RunOptions, say) -> bytes:
    if run_options.add_suppressions:
        from rmqlint.suppress import suppression_edits

        findings = _reported(result, entries).findings
        fixes, problems = suppression_edits(result.root, findings)
        for problem in problems:
            say(f"rmqlint: {problem}")
        plan = apply.plan_fixes(result.root, [(fix, _FileNote(fix)) for fix in fixes])
        what = "suppression comments"
    else:
        plan = apply.plan(result.root, result.findings, unsafe=run_options.unsafe_fixes)
        what = "fixes"
    for line in plan.skipped:
        say(f"rmqlint: {line}")
    patch = b"".join(apply.unified_diff(_patch_path(result.root, change.path), change.before, change.after)
                     for change in plan.changes)
    if plan.changes and not run_options.add_suppressions:
        count = sum(len(change.findings) for change in plan.changes)
        say(f"rmqlint: {count} finding{'s' if count != 1 else ''} would be fixed in {len(plan.changes)} "
            f"file{'s' if len(plan.changes) != 1 else ''}" + (" (more in a next round)" if plan.waiting else ""))
    elif not plan.changes:
        say(f"rmqlint: no {what} to make")
    hidden = _hidden_unsafe(result.findings) if not run_options.unsafe_fixes and not run_options.add_suppressions \
        else 0
    if hidden:
        say(f"rmqlint: {hidden} more would be fixed with --unsafe-fixes")
    return patch


def _patch_path(root, rel: str) -> str:
    """A path as `git apply` run in the current directory reads it; relative to the project root when the file is
    outside the current directory (apply the patch from the root then)."""
    shown = display_path(root, rel)
    return rel if shown.startswith("/") else shown


def _hidden_unsafe(findings: list[Finding]) -> int:
    return sum(1 for f in findings if f.fix is not None and not apply.applicable(f, unsafe=False))


def _fix(options: LintOptions, result: LintResult, unsafe: bool, say) -> LintResult:
    fixed, files = 0, set()
    said: set[str] = set()  # a fix left out is said once, not in every round
    for _round in range(MAX_ROUNDS):
        plan = apply.plan(result.root, result.findings, unsafe=unsafe)
        for line in plan.skipped:
            if line not in said:
                said.add(line)
                say(f"rmqlint: {line}")
        written = _write(result.root, plan, say)
        fixed += sum(len(change.findings) for change in written)
        files.update(change.path for change in written)
        if not written:
            break
        result = lint(options)
    else:
        if apply.plan(result.root, result.findings, unsafe=unsafe).changes:
            say(f"rmqlint: still fixable after {MAX_ROUNDS} rounds of fixes (do fixes undo each other?): the findings "
                f"left are reported")
    if fixed:
        say(f"rmqlint: fixed {fixed} finding{'s' if fixed != 1 else ''} in {len(files)} "
            f"file{'s' if len(files) != 1 else ''}")
    hidden = 0 if unsafe else _hidden_unsafe(result.findings)
    if hidden:
        say(f"rmqlint: {hidden} more fixable with --unsafe-fixes")
    return result


def _write(root, plan: apply.Plan, say) -> list[apply.FileChange]:
    written = []
    for change in plan.changes:
        try:
            apply.write(root, change)
        except apply.WriteError as err:
            say(f"rmqlint: {err}")
            continue
        written.append(change)
    return written


def _suppress(options: LintOptions, result: LintResult, findings: list[Finding], say) -> LintResult:
    """Comments for `findings` (those the baseline does not hold); the project linted again when any is written."""
    from rmqlint.suppress import suppression_edits

    fixes, problems = suppression_edits(result.root, findings)
    for problem in problems:
        say(f"rmqlint: {problem}")
    plan = apply.plan_fixes(result.root, [(fix, _FileNote(fix)) for fix in fixes])
    for line in plan.skipped:
        say(f"rmqlint: {line}")
    written = _write(result.root, plan, say)
    if written:
        count = sum(len(fix.edits) for fix in fixes if fix.paths & {c.path for c in written})
        say(f"rmqlint: added suppression comments on {count} line{'s' if count != 1 else ''} in {len(written)} "
            f"file{'s' if len(written) != 1 else ''}")
    return lint(options) if written else result


class _FileNote:
    """What a file's suppression comments stand for in the applier's messages."""

    code = "suppressions"

    def __init__(self, fix):
        from rmqlint.facts import Location

        self.location = Location(fix.edits[0].path, fix.edits[0].span.line, 1, fix.edits[0].span.line, 2)


def _write_baseline(result: LintResult, options: LintOptions, path: str, say) -> list[baseline.Entry]:
    """Write the baseline and return its entries (not read back: the file may be a FIFO or a device)."""
    prints = baseline.fingerprints(result.root, result.findings)
    entries = baseline.entries_of(result.findings, prints)
    kept: list[baseline.Entry] = []
    if os.path.isfile(path):  # not a device or FIFO (/dev/full reads without end): nothing to keep there
        try:
            kept = baseline.outside(baseline.load(path), _linted(result.root, options.paths))
        except baseline.BaselineError:
            kept = []  # not a baseline (yet): written anew
    baseline.write(path, entries, kept)
    say(f"rmqlint: wrote {len(entries)} finding{'s' if len(entries) != 1 else ''} to the baseline {path}"
        + (f" (and kept {len(kept)} of files not linted now)" if kept else ""))
    return list({*entries, *kept})  # as the file holds them


def _linted(root: Path, paths: list[Path]) -> list[str]:
    """The linted paths relative to the root ("" for the whole project)."""
    rels = []
    top = Path(root).resolve()
    for path in paths:
        try:
            rel = Path(path).resolve().relative_to(top).as_posix()
        except ValueError:
            continue
        rels.append("" if rel == "." else rel)
    return rels
