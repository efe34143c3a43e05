"""The rules: their catalog, their logic on hand-built facts, and their own VALID/INVALID examples run through the
real frontends and engine."""

from __future__ import annotations

import re

import pytest

from rmqlint.facts import ClientFact, FileFacts, Listener, Location, ProducedTag, Setting, Subscription
from rmqlint.project import Project
from rmqlint.values import Dynamic, Lit
from rmqlint.rules import ALL_RULES, rule_by_code
from rmqlint.rules.rmq001_fixed_instance_name import FixedInstanceName
from rmqlint.rules.rmq002_tag_case_drift import TagCaseDrift, subscribed_tags
from rmqlint.rules.rmq003_broadcasting_retry import BroadcastingRetry

# --- the catalog ----------------------------------------------------------------------------------------------


def test_catalog_is_in_code_order_with_unique_codes():
    codes = [rule.CODE for rule in ALL_RULES]
    assert codes == sorted(codes) and codes[:3] == ["RMQ001", "RMQ002", "RMQ003"] and "RMQ900" in codes
    assert len({rule.NAME for rule in ALL_RULES}) == len(ALL_RULES)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.CODE)
def test_rule_metadata_and_docs(rule):
    assert re.fullmatch(r"RMQ\d{3}", rule.CODE)
    assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", rule.NAME)
    assert rule.SEVERITY in ("error", "warning", "info")
    assert rule.SUMMARY and "\n" not in rule.SUMMARY
    headings = re.findall(r"^## (.+)$", rule.DOCS, flags=re.M)
    assert headings == ["What it does", "Why is this bad?", "Example", "Fix"]
    assert rule.VALID and rule.INVALID
    for example in rule.INVALID:
        assert example.expect, "an INVALID example must expect at least one finding"
        for path, line in example.expect:
            assert path in example.files and 1 <= line <= len(example.files[path].splitlines())


def test_rule_by_code():
    assert rule_by_code("RMQ002") is TagCaseDrift
    assert rule_by_code("rmq003") is BroadcastingRetry
    assert rule_by_code("RMQ999") is None


def test_severities_match_the_catalog():
    assert (FixedInstanceName.SEVERITY, TagCaseDrift.SEVERITY, BroadcastingRetry.SEVERITY) == (
        "error",
        "error",
        "warning",
    )


def test_examples_cover_java_and_python():
    for rule in ALL_RULES:
        for kind in ("VALID", "INVALID"):
            paths = [p for example in getattr(rule, kind) for p in example.files]
            assert any(p.endswith(".java") for p in paths) or (kind == "INVALID" and rule.NO_JAVA_MISTAKE), (
                rule.CODE, kind)
            if kind == "INVALID" and rule.NO_PYTHON_MISTAKE:
                continue
            assert any(p.endswith(".py") for p in paths), (rule.CODE, kind)


def test_examples_cover_go():
    """Every rule with a Go form shows it: a Go file among its INVALID and its VALID examples."""
    for rule in ALL_RULES:
        if rule.NO_GO_MISTAKE:
            continue
        for kind in ("VALID", "INVALID"):
            assert any(p.endswith(".go") for example in getattr(rule, kind) for p in example.files), (rule.CODE, kind)


# --- rule logic on hand-built facts ---------------------------------------------------------------------------


def loc(path: str, line: int) -> Location:
    return Location(path, line, 1, line, 10)


def setting(value, path: str = "A.java", line: int = 1) -> Setting:
    if isinstance(value, str):
        value = Lit(value)
    return Setting(value, loc(path, line))


def project_of(*files: FileFacts) -> Project:
    return Project(root=".", files={f.path: f for f in files})


def consumer(**kw) -> ClientFact:
    kw.setdefault("role", "push_consumer")
    kw.setdefault("api", "java")
    kw.setdefault("location", loc("A.java", 1))
    kw.setdefault("group", setting("g"))
    return ClientFact(**kw)


def lint(rule, project):
    return sorted(rule().check(project), key=lambda f: f.sort_key())


class TestFixedInstanceName:
    def run(self, client):
        return lint(FixedInstanceName, project_of(FileFacts("A.java", "java", clients=[client])))

    def test_fixed_name_on_clustering_push_consumer(self):
        (finding,) = self.run(consumer(instance_name=setting("XUJIAN_MACBOOK", line=7)))
        assert (finding.code, finding.severity, finding.location.line) == ("RMQ001", "error", 7)
        assert finding.message == (
            'instanceName is fixed to "XUJIAN_MACBOOK" on clustering consumer group "g": every replica on one host '
            "reports the same client id, so replicas consume the same queues and other queues are consumed by nobody; "
            "remove the name, or, to keep several consumers of the group in one process apart, append what is unique "
            'per process: "@" + UtilAll.getPid() + "#" + System.nanoTime() (not the host name: on host networking it '
            "is the node's)"
        )

    @pytest.mark.parametrize("model", [None, "CLUSTERING", "MessageModel.CLUSTERING"])
    def test_clustering_spelled_any_way(self, model):
        client = consumer(instance_name=setting("n"), message_model=setting(model) if model else None)
        assert len(self.run(client)) == 1

    def test_lite_pull_consumer(self):
        subscribed = [Subscription(Lit("T"), Lit("*"), "TAG", loc("C.java", 2))]
        assert len(self.run(consumer(role="lite_pull_consumer", instance_name=setting("n"),
                                     subscriptions=subscribed))) == 1

    def test_lite_pull_consumer_without_subscription_is_quiet(self):
        # assign() mode: the consumer picks its own queues and never rebalances
        assert self.run(consumer(role="lite_pull_consumer", instance_name=setting("n"))) == []

    @pytest.mark.parametrize(
        "change",
        [
            dict(instance_name=setting(Dynamic("env"))),
            dict(instance_name=setting("DEFAULT")),
            dict(instance_name=None),
            dict(role="producer"),
            dict(role="simple_consumer"),
            dict(message_model=setting("BROADCASTING")),
            dict(message_model=setting(Dynamic("property"))),
            dict(unit_name=setting(Dynamic("zone"))),
        ],
        ids=["dynamic", "DEFAULT", "absent", "producer", "simple", "broadcasting", "dynamic-model", "dynamic-unit"],
    )
    def test_quiet(self, change):
        kw = dict(instance_name=setting("fixed"))
        kw.update(change)
        assert self.run(consumer(**kw)) == []

    def test_fixed_unit_name_still_collides(self):
        assert len(self.run(consumer(instance_name=setting("n"), unit_name=setting("u")))) == 1

    def test_python2_message_explains_the_pid(self):
        (finding,) = self.run(consumer(api="python2", instance_name=setting("w")))
        assert "pid" in finding.message and "host networking" in finding.message
        # without a name the id is ip@pid#DEFAULT: removing it is no fix where pids are shared
        assert "removing the name helps only where pids differ" in finding.message
        assert "remove the name," not in finding.message and "a random UUID" in finding.message

    def test_unknown_group_is_named_by_client(self):
        (finding,) = self.run(consumer(group=setting(Dynamic("env")), name="consumer", instance_name=setting("n")))
        assert "consumer (group not resolved)" in finding.message


class TestSubscribedTags:
    @pytest.mark.parametrize(
        "expression, tags",
        [
            ("*", None),
            ("", None),
            ("TagA", {"TagA"}),
            (" TagA || TagB ||", {"TagA", "TagB"}),
            ("TagA||*", None),
            ("||", None),
        ],
    )
    def test_split_and_trim_like_the_client(self, expression, tags):
        assert subscribed_tags(expression) == tags


class TestTagCaseDrift:
    def run(self, produced, subs, selector="TAG"):
        producer = FileFacts(
            "P.java",
            "java",
            produced=[ProducedTag(Lit(t) if isinstance(t, str) else t, Lit(g) if isinstance(g, str) else g,
                                  loc("P.java", i + 10)) for i, (t, g) in enumerate(produced)],
        )
        client = consumer(
            location=loc("C.py", 1),
            subscriptions=[
                Subscription(Lit(t) if isinstance(t, str) else t, Lit(e) if isinstance(e, str) else e, selector,
                             loc("C.py", i + 20))
                for i, (t, e) in enumerate(subs)
            ],
        )
        return lint(TagCaseDrift, project_of(producer, FileFacts("C.py", "python", clients=[client])))

    def test_tag_differing_in_case(self):
        (finding,) = self.run([("TopicTest", "aaaaa")], [("TopicTest", "Aaaaa")])
        assert (finding.code, finding.location.path, finding.location.line) == ("RMQ002", "C.py", 20)
        assert finding.message == (
            'subscribed tag "Aaaaa" on topic "TopicTest" does not match the produced tag "aaaaa" at P.java:10: tags '
            'are compared exactly and case-sensitively, so those messages never reach group "g"'
        )

    def test_produced_tag_is_not_trimmed(self):
        (finding,) = self.run([("T", "TagA ")], [("T", "TagA")])
        assert '"TagA " at P.java:10' in finding.message

    def test_related_lists_every_producer_the_message_counts(self):
        (finding,) = self.run([("T", "taga"), ("T", "taga"), ("T", "TAGA"), ("T", "TagA")], [("T", "TagA")])
        assert '"TAGA" at P.java:12, "taga" at P.java:10 (and 1 more)' in finding.message
        assert [(r.location.line, r.message) for r in finding.related] == [
            (12, 'produces tag "TAGA" on topic "T"'),
            (10, 'produces tag "taga" on topic "T"'),
            (11, 'produces tag "taga" on topic "T"'),
        ]

    def test_drifting_producer_reported_even_when_another_is_exact(self):
        (finding,) = self.run([("T", "TagA"), ("T", "taga"), ("T", "taga")], [("T", "TagA || TagB")])
        assert '"taga" at P.java:11 (and 1 more)' in finding.message
        assert '"TagA" at' not in finding.message

    def test_a_place_is_counted_once(self):
        producer = FileFacts("P.java", "java", produced=[ProducedTag(Lit("T"), Lit("a"), loc("P.java", 5))] * 2)
        client = consumer(subscriptions=[Subscription(Lit("T"), Lit("A"), "TAG", loc("C.java", 2))])
        project = project_of(producer, FileFacts("C.java", "java", clients=[client]))
        (finding,) = lint(TagCaseDrift, project)
        assert '"a" at P.java:5:' in finding.message

    def test_one_finding_per_drifting_subscribed_tag(self):
        findings = self.run([("T", "a"), ("T", "b")], [("T", "A || B")])
        assert len(findings) == 2

    @pytest.mark.parametrize(
        "produced, subs",
        [
            ([("T", "aaaaa")], [("T", "aaaaa")]),
            ([("T", "aaaaa")], [("T", " aaaaa ")]),
            ([("T", "aaaaa")], [("T", "*")]),
            ([("T", "aaaaa")], [("U", "Aaaaa")]),
            ([("T", "aaaaa")], [("T", "Aaaaa || aaaaa")]),
            ([("T", Dynamic("call"))], [("T", "Aaaaa")]),
            ([(Dynamic("env"), "aaaaa")], [("T", "Aaaaa")]),
            ([("T", "aaaaa")], [(Dynamic("env"), "Aaaaa")]),
            ([("T", "aaaaa")], [("T", Dynamic("env"))]),
            ([("T", "aaaaa")], [("T", "Aaaab")]),
        ],
    )
    def test_quiet(self, produced, subs):
        assert self.run(produced, subs) == []

    def test_sql92_is_not_a_tag_list(self):
        assert self.run([("T", "aaaaa")], [("T", "Aaaaa")], selector="SQL92") == []

    def test_producers_subscriptions_do_not_count(self):
        client = ClientFact("producer", "java", loc("C.java", 1),
                            subscriptions=[Subscription(Lit("T"), Lit("A"), "TAG", loc("C.java", 2))])
        produced = [ProducedTag(Lit("T"), Lit("a"), loc("C.java", 3))]
        facts = FileFacts("C.java", "java", clients=[client], produced=produced)
        assert lint(TagCaseDrift, project_of(facts)) == []


class TestBroadcastingRetry:
    def run(self, **kw):
        kw.setdefault("message_model", setting("BROADCASTING"))
        return lint(BroadcastingRetry, project_of(FileFacts("A.java", "java", clients=[consumer(**kw)])))

    def listener(self, kind="concurrently", later=(), throws=()):
        return Listener(kind, loc("A.java", 30), [loc("A.java", n) for n in later], [loc("A.java", n) for n in throws])

    def test_reconsume_later_is_the_most_telling(self):
        (finding,) = self.run(
            listeners=[self.listener(later=[40, 35], throws=[33])],
            max_reconsume_times=setting("10", line=12),
            delay_level=setting("3", line=13),
        )
        assert (finding.code, finding.severity, finding.location.line) == ("RMQ003", "warning", 35)
        assert finding.message == (
            'broadcasting consumer group "g" returns RECONSUME_LATER, but broadcasting never retries: a failed message '
            "is dropped with a log line (no %RETRY% topic, no DLQ); also: returns RECONSUME_LATER at A.java:40, "
            "throws from its listener at A.java:33, sets maxReconsumeTimes at A.java:12, "
            "sets a delay level at A.java:13"
        )

    @pytest.mark.parametrize(
        "kw, line",
        [
            (dict(listeners=[Listener("spring", loc("A.java", 30), [], [loc("A.java", 33)])],
                  delay_level=setting("2", line=13)), 33),
            (dict(max_reconsume_times=setting("3", line=12), delay_level=setting("2", line=13)), 12),
            (dict(delay_level=setting("-1", line=13)), 13),
            (dict(max_reconsume_times=setting(Dynamic("cfg"), line=12)), 12),
        ],
    )
    def test_order_of_evidence(self, kw, line):
        (finding,) = self.run(**kw)
        assert finding.location.line == line

    @pytest.mark.parametrize(
        "kw",
        [
            dict(message_model=None, listeners=[Listener("concurrently", loc("A.java", 3), [loc("A.java", 4)])]),
            dict(message_model=setting("CLUSTERING"), max_reconsume_times=setting("3")),
            dict(message_model=setting(Dynamic("cfg")), max_reconsume_times=setting("3")),
            dict(listeners=[Listener("concurrently", loc("A.java", 3))]),
            dict(max_reconsume_times=setting("-1"), delay_level=setting("0")),
            dict(consume_mode=setting("ORDERLY"), max_reconsume_times=setting("3")),
            dict(consume_mode=setting(Dynamic("x")), max_reconsume_times=setting("3")),
            dict(listeners=[Listener("orderly", loc("A.java", 3), [loc("A.java", 4)])]),
            dict(role="producer", max_reconsume_times=setting("3")),
        ],
        ids=["clustering-default", "clustering", "dynamic-model", "nothing", "defaults", "orderly", "dynamic-mode",
             "orderly-listener", "producer"],
    )
    def test_quiet(self, kw):
        assert self.run(**kw) == []

    def test_concurrently_mode_written_out(self):
        assert len(self.run(consume_mode=setting("ConsumeMode.CONCURRENTLY"), max_reconsume_times=setting("3"))) == 1


# --- every rule's own examples, through the real frontends, linker and engine ---------------------------------


def _examples(kind: str):
    for rule in ALL_RULES:
        for number, example in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, example, id=f"{rule.CODE}-{kind.lower()}-{number}")


def _lint_example(rule, example):
    from rmqlint.engine import SourceIndex, lint_sources
    from rmqlint.linker import Linker

    findings = lint_sources(dict(example.files), rules=[rule()])
    problems = [f"{f.location.path}:{f.location.line}: {f.message}" for f in findings if f.code == "RMQ900"]
    assert rule.CODE == "RMQ900" or not problems, f"the example does not parse cleanly: {problems}"
    index = SourceIndex.in_memory({p: t.encode("utf-8") for p, t in example.files.items()})
    index.scan()
    project = Linker(index.facts, index, root="").link()
    return [f for f in findings if f.code == rule.CODE], project


@pytest.mark.parametrize("rule, example", list(_examples("INVALID")))
def test_invalid_example_reports_exactly_the_expected_findings(rule, example):
    findings, _project = _lint_example(rule, example)
    got = sorted((f.location.path, f.location.line) for f in findings)
    assert got == sorted(example.expect), example.note
    for finding in findings:
        assert finding.severity in (rule.SEVERITY, *rule.OTHER_SEVERITIES) and finding.message
        # Every place a message cites is a related location, and every related location is a real place.
        related = [r.location for r in finding.related]
        assert set(finding.cited()) <= set(related), finding.message
        for r in finding.related:
            assert r.message and r.location.path in example.files
            assert 1 <= r.location.line <= len(example.files[r.location.path].splitlines())


@pytest.mark.parametrize("rule, example", list(_examples("VALID")))
def test_valid_example_is_quiet(rule, example):
    findings, project = _lint_example(rule, example)
    assert [f"{f.location.path}:{f.location.line}: {f.message}" for f in findings] == [], example.note
    # A near miss, not an empty project: the frontends must have seen what the rule looks at.
    assert rule().looks_at(project), f"the example gives the rule nothing to look at: {example.note}"
