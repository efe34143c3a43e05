"""Adding a language is one module and one registry line, adding a rule one module (README, Development): a toy
language plugged into the frontend registry is linted end to end, and a toy rules package is discovered and passes
the checks every shipped rule passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rmqlint import frontends
from rmqlint.discover import source_kind
from rmqlint.engine import LintOptions, lint
from rmqlint.facts import ClientFact, FileFacts, Setting
from rmqlint.frontends.base import Frontend
from rmqlint.text import add_suppressions, decode, point
from rmqlint.values import Lit
from rmqlint.rules import discover
from tests.lint import test_rules as shipped_rule_checks


class ToyFrontend(Frontend):
    """`*.mqconf`: one consumer per line, `consumer <group> instance=<name>`; `#` starts a comment."""

    name = "toy"
    languages = ("toy",)

    def claims(self, path: str) -> bool:
        return path.endswith(".mqconf")

    def worth_parsing(self, data: bytes) -> bool:
        return b"consumer" in data

    def parse(self, path: str, data: bytes) -> FileFacts:
        facts = FileFacts(path=path, language="toy")
        decoded = decode(path, data, what="a toy configuration")
        if decoded.text is None:
            facts.problems.append(decoded.problem)
            return facts
        for number, line in enumerate(decoded.text.splitlines(), start=1):
            code, _, comment = line.partition("#")
            add_suppressions(facts.suppressions, comment, number)
            words = code.split()
            if len(words) == 3 and words[0] == "consumer" and words[2].startswith("instance="):
                where = point(path, number, code.index("instance=") + 1)
                facts.clients.append(ClientFact(
                    role="push_consumer", api="toy", location=point(path, number), name=words[1],
                    group=Setting(Lit(words[1]), point(path, number, 10)),
                    instance_name=Setting(Lit(words[2].partition("=")[2]), where)))
        return facts


@pytest.fixture
def toy_language():
    frontends.register(ToyFrontend())
    try:
        yield
    finally:
        frontends.unregister("toy")


def test_a_registered_language_is_discovered_parsed_linked_and_checked(toy_language, tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "clients.mqconf").write_text(
        "# two consumers\n"
        "consumer orders_cg instance=node-1\n"
        "consumer audit_cg instance=node-2  # rmqlint: disable=RMQ001\n")
    (tmp_path / "svc" / "other.mqconf").write_text("nothing here\n")
    assert source_kind("svc/clients.mqconf") == "toy"

    result = lint(LintOptions(paths=[tmp_path], use_cache=False))
    assert [(f.code, f.location.path, f.location.line, f.location.column) for f in result.findings] == [
        ("RMQ001", "svc/clients.mqconf", 2, 20)]
    assert 'fixed to "node-1"' in result.findings[0].message
    assert result.files_checked == 2 and result.parsed == 1  # the prefilter kept other.mqconf from the parser


def test_unregistered_languages_are_not_read(tmp_path: Path):
    assert source_kind("svc/clients.mqconf") is None
    with pytest.raises(ValueError):
        frontends.register(frontends.frontend_named("java"))


def test_a_rules_package_is_discovered_and_its_rule_passes_the_shipped_rules_checks():
    from tests.lint.toy_rules.rmq016_empty_group import EmptyGroup

    assert discover("tests.lint.toy_rules") == [EmptyGroup]
    shipped_rule_checks.test_rule_metadata_and_docs(EmptyGroup)
    for example in EmptyGroup.INVALID:
        findings, _project = shipped_rule_checks._lint_example(EmptyGroup, example)
        assert sorted((f.location.path, f.location.line) for f in findings) == sorted(example.expect)
    for example in EmptyGroup.VALID:
        findings, project = shipped_rule_checks._lint_example(EmptyGroup, example)
        assert findings == [] and EmptyGroup().looks_at(project)
