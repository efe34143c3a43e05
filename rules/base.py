"""The rule API, in the Fixit style: a rule is a small class with its code, its docs and its own examples.

A rule reads a resolved `Project` (facts, not syntax) and yields `Finding`s. Its `VALID` and `INVALID` examples are
small projects (path -> source text) in Java and Python; the test suite lints each one and checks that VALID ones
give no finding of this rule and INVALID ones give exactly the expected findings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable

from rmqlint.findings import Finding
from rmqlint.project import Project


@dataclass(frozen=True)
class Example:
    """A tiny project. `files` maps a relative path to its text. For INVALID examples, `expect` lists the
    (path, line) of every finding the rule must report, in any order."""

    files: dict
    expect: tuple = ()
    note: str = ""


class Rule:
    CODE: ClassVar[str]
    NAME: ClassVar[str]  # kebab-case, e.g. "fixed-instance-name"
    SEVERITY: ClassVar[str]  # "error" | "warning" | "info"
    SUMMARY: ClassVar[str]  # one line
    # Ruff-style documentation, Markdown: "## What it does", "## Why is this bad?", "## Example", "## Fix"
    DOCS: ClassVar[str]
    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []
    # Whether the rule also speaks in test sources when the `tests` setting is "quiet" (the default): test code
    # fakes groups, names and failures on purpose, but a committed secret is leaked wherever it is.
    IN_QUIET_TESTS: ClassVar[bool] = False

    def check(self, project: Project) -> Iterable[Finding]:
        raise NotImplementedError

    def looks_at(self, project: Project) -> bool:
        """Whether the project holds anything this rule examines: a VALID example must (it is a near miss, not an
        empty project). The test suite checks it for every VALID example."""
        return bool(project.files)

    def finding(self, message, location, related=()) -> Finding:
        """`message`: text, or parts from `rmqlint.findings.message` citing other places; every cited place must
        be one of `related` (each a `Related` with a short note), which may name more places than the message."""
        return Finding(self.CODE, self.SEVERITY, message, location, tuple(related))
