"""The rule API, in the Fixit style: a rule is a small class with its code, its docs and its own examples.

A rule reads a resolved `Project` (facts, not syntax) and yields `Finding`s. Its `VALID` and `INVALID` examples are
small projects (path -> source text) in Java, Python and Go; the test suite lints each one and checks that VALID ones
give no finding of this rule and INVALID ones give exactly the expected findings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable

from rmqlint.findings import Finding
from rmqlint.fixes import Fix
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
    SEVERITY: ClassVar[str]  # "error" | "warning" | "info": the severity of its findings, or of the worst of them
    # Severities some of its findings take instead (RMQ005: "warning" for a bound that is merely never used).
    OTHER_SEVERITIES: ClassVar[tuple[str, ...]] = ()
    SUMMARY: ClassVar[str]  # one line
    # Ruff-style documentation, Markdown: "## What it does", "## Why is this bad?", "## Example", "## Fix"
    DOCS: ClassVar[str]
    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []
    # Why no Python code can make this rule's mistake (the Python clients have no such setting): then its INVALID
    # examples need not include Python. Empty for most rules.
    NO_PYTHON_MISTAKE: ClassVar[str] = ""
    # Why no Java code can make it (a mistake only one Python client allows): then its INVALID examples need not
    # include Java.
    NO_JAVA_MISTAKE: ClassVar[str] = ""
    # Why no Go code can make it (rocketmq-client-go has no such setting, or its compiler refuses the mistake): then
    # its examples need not include Go.
    NO_GO_MISTAKE: ClassVar[str] = ""
    # Whether the rule also speaks in test sources when the `tests` setting is "quiet" (the default): test code
    # fakes groups, names and failures on purpose, but a committed secret is leaked wherever it is.
    IN_QUIET_TESTS: ClassVar[bool] = False
    # Whether the text report may show the code its findings point at: False when those lines hold a secret (the
    # report then shows no code frame for the finding, and hides its lines from every other finding's frame).
    SHOWS_SOURCE: ClassVar[bool] = True

    def check(self, project: Project) -> Iterable[Finding]:
        raise NotImplementedError

    def looks_at(self, project: Project) -> bool:
        """Whether the project holds anything this rule examines: a VALID example must (it is a near miss, not an
        empty project). The test suite checks it for every VALID example."""
        return bool(project.files)

    @classmethod
    def severity_label(cls) -> str:
        """"error", or "error/warning" for a rule whose findings take one of several severities."""
        return "/".join((cls.SEVERITY, *cls.OTHER_SEVERITIES))

    def finding(self, message, location, related=(), severity: str | None = None, fix: Fix | None = None) -> Finding:
        """`message`: text, or parts from `rmqlint.findings.message` citing other places; every cited place must
        be one of `related` (each a `Related` with a short note), which may name more places than the message.
        `severity`: SEVERITY unless given (one of OTHER_SEVERITIES). `fix`: the edits that make it go away, when
        the rule can tell (`rmqlint.fixes`)."""
        if severity is not None and severity != self.SEVERITY and severity not in self.OTHER_SEVERITIES:
            raise ValueError(f"{self.CODE} does not report {severity!r} findings")
        return Finding(self.CODE, severity or self.SEVERITY, message, location, tuple(related), fix)
