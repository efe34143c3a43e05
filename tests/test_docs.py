"""The README and docs/ say what the tools do now.

- Every `$ command` block (a fenced block whose first line is `$ ...`) in README.md and the reference pages of
  docs/ is what the command prints now, run from the repository root; the Mermaid graph of the outputs page is what `rmqlint graph`
  draws; the rule and code tables list the registered rules and plan codes.
- docs/fleet-format.md is the fleet parser's reference: each table lists exactly the keys the parser takes
  (`rmqplan.sources.fleet_file`, and `rmqplan allocate`'s case fields), every example parses where the table says,
  and every default written as a value is what the parser assumes when the key is left out.
A change of output, of a key or of a default must update the documents.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rmqplan.allocate import CASE_FIELDS, parse_case
from rmqplan.allocation.strategies import generatable_names, names
from rmqplan.sources import fleet_file
from rmqplan.sources.fleet_file import parse_fleet_document

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# Pages whose `$ command` blocks run from the repository root; docs/rmqlint-fixes.md runs its own in a scratch
# project (tests/test_docs_fixes.py).
RUN_FROM_ROOT = [REPO / "README.md", *(REPO / "docs" / f"{name}.md" for name in (
    "rules-and-configuration", "outputs-and-integrations", "planner-commands", "fleet-format", "engines-and-clusters",
    "development"))]
FLEET_FORMAT = REPO / "docs" / "fleet-format.md"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------ commands and their output


def _shown_commands() -> list[tuple[str, str, str]]:
    """(document, command, the output shown under it) for every `$ command` block."""
    out = []
    for path in RUN_FROM_ROOT:
        for m in re.finditer(r"^```[^\n]*\n\$ ([^\n]+)\n(.*?)^```", _text(path), re.M | re.S):
            out.append((path.name, m.group(1), m.group(2)))
    return out


def _run(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "120"}
    done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=REPO, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("document, command, shown", _shown_commands(), ids=[f"{d}: {c}" for d, c, _ in _shown_commands()])
def test_each_command_shown_prints_what_it_shows(document, command, shown):
    assert _run(*command.split()) == shown


def test_the_readme_shows_the_three_commands_of_make_run():
    shown = {command for document, command, _ in _shown_commands() if document == "README.md"}
    assert {"rmqlint examples/ --no-cache", "rmqplan simulate --fleet examples/fleet.toml",
            "rmqplan check examples/orders-on-host-network --deploy examples/orders-on-host-network/deploy "
            "--cluster examples/orders-on-host-network/cluster"} <= shown


def test_the_graph_shown_is_the_graph_of_the_tag_case_example():
    page = _text(REPO / "docs" / "outputs-and-integrations.md")
    shown = re.search(r"```mermaid\n(.*?)```", page, re.S).group(1)
    assert _run("rmqlint", "graph", "examples/tag-case-drift", "--format", "mermaid") == shown


def _table_rows(path: Path, prefix: str) -> list[list[str]]:
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in _text(path).splitlines() if line.startswith(f"| {prefix}")]


def test_the_rule_and_code_tables_are_the_registered_ones():
    from rmqlint.rules import ALL_RULES
    from rmqplan.report.codes import CODES

    rules = _table_rows(REPO / "docs" / "rules-and-configuration.md", "RMQ")
    assert [(row[0], row[1]) for row in rules] == [(r.CODE, r.severity_label().replace("/", " / ")) for r in ALL_RULES]
    codes = _table_rows(REPO / "docs" / "planner-commands.md", "PLAN")
    assert [(row[0], row[1]) for row in codes] == [(c.code, c.severity) for c in CODES]


def test_links_between_documents_lead_somewhere():
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)", _text(path)):
            if not target.startswith("http"):
                assert (path.parent / target).is_file(), f"{path.name} links to {target}"


# ------------------------------------------------------------------------------------------- the fleet format


def _sections() -> dict[str, list[dict]]:
    """Each table of the fleet format page under its heading: rows of {key, type, default, example, meaning}."""
    out: dict[str, list[dict]] = {}
    heading = None
    for line in _text(FLEET_FORMAT).splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            continue
        if line.startswith("| `") and heading is not None:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            key, type_, default, example, meaning = cells
            out.setdefault(heading, []).append({"key": key.strip("`"), "type": type_, "default": default,
                                                "example": example, "meaning": meaning})
    return out


# heading -> (the parser's keys, where in a document an example of the section goes)
SECTIONS = {
    "The top level": (fleet_file.TOP_KEYS, lambda doc: doc),
    "`[defaults]`": (fleet_file.DEFAULTS_KEYS, lambda doc: doc.setdefault("defaults", {})),
    "`[[brokers]]`": (fleet_file.BROKER_KEYS, lambda doc: doc["brokers"][0]),
    "`[[topics]]`": (fleet_file.TOPIC_KEYS, lambda doc: doc["topics"][0]),
    "`[[groups]]`": (fleet_file.GROUP_KEYS, lambda doc: doc["groups"][0]),
    "subscriptions": (fleet_file.SUBSCRIPTION_KEYS, lambda doc: doc["groups"][0]["subscriptions"][0]),
    "`[[groups.instances]]`": (fleet_file.INSTANCE_KEYS, lambda doc: doc["groups"][0]["instances"][0]),
    "`[[scenarios]]`": (fleet_file.SCENARIO_KEYS, lambda doc: doc["scenarios"][0]),
    "set_queues": (fleet_file.SET_QUEUES_KEYS, lambda doc: doc["scenarios"][0].setdefault(
        "set_queues", [{"topic": "OrderEvents", "read_queues": 16}])[0]),
    "`[generate]`": (fleet_file.GENERATE_KEYS, lambda doc: doc["generate"]),
}
ALLOCATE = "`rmqplan allocate`'s input"

BASE = {
    "brokers": [{"name": "broker-a"}, {"name": "broker-b"}],
    "topics": [{"name": "OrderEvents", "read_queues": 8}],
    "groups": [{"name": "orders", "subscriptions": [{"topic": "OrderEvents"}], "instances": [{"hosts": ["10.0.0.5"]}]},
               {"name": "orders_legacy", "subscriptions": [{"topic": "OrderEvents"}],
                "instances": [{"hosts": ["10.0.0.6"]}]}],
    "scenarios": [{"name": "s", "group": "orders"}],
    "generate": {"groups": 3},
}
BASE_CASE = {"id": 1, "strategy": "AVG", "queues": [["T", "broker-a", 0]], "client_ids": ["10.0.0.1@1"]}


def _code_spans(cell: str) -> list[str]:
    return [span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", cell)]


def _with(section: str, assignments: str, base=None) -> dict:
    doc = copy.deepcopy(BASE if base is None else base)
    SECTIONS[section][1](doc).update(tomllib.loads(assignments))
    return doc


def test_every_table_lists_exactly_the_keys_the_parser_takes():
    sections = _sections()
    for heading, (keys, _) in SECTIONS.items():
        assert [row["key"] for row in sections[heading]] == list(keys), heading
    assert [row["key"] for row in sections[ALLOCATE]] == list(CASE_FIELDS)


def test_every_example_parses_where_its_table_says():
    for heading, rows in _sections().items():
        for row in rows:
            if heading == ALLOCATE:
                members = [s for s in _code_spans(row["example"]) if '": ' in s]
                assert members, row["key"]
                case = {**BASE_CASE, **json.loads("{" + ", ".join(members) + "}")}
                assert row["key"] in case
                if row["key"] != "expected":
                    parse_case(case)
                continue
            lines = [s for s in _code_spans(row["example"]) if " = " in s]
            if not lines and "table" in row["type"]:  # a table of its own: its section has the examples
                assert row["example"].startswith("see ["), row["key"]
                continue
            assert lines, f"{heading} {row['key']}: no example"
            own = [line for line in lines if row["key"] in tomllib.loads(line)]
            needed = [line for line in lines if line not in own]  # what the example needs (a strategy)
            assert own, f"{heading} {row['key']}: no example of the key itself"
            for line in own:
                parse_fleet_document(_with(heading, "\n".join([*needed, line])), "fleet.toml")


def test_every_default_written_as_a_value_is_the_parsers():
    checked = 0
    for heading, rows in _sections().items():
        for row in rows:
            literal = re.fullmatch(r"`([^`]+)`", row["default"])
            if literal is None:
                continue
            checked += 1
            key = row["key"]
            if heading == ALLOCATE:
                value = json.loads(literal.group(1))
                without = {k: v for k, v in BASE_CASE.items() if k != key}
                if key in ("id", "strategy", "queues", "client_ids"):
                    continue
                assert parse_case({**without, key: value}) == parse_case(without), key
                continue
            value = tomllib.loads(f"x = {literal.group(1)}")["x"]
            base = copy.deepcopy(BASE)
            SECTIONS[heading][1](base).pop(key, None)
            written = copy.deepcopy(base)
            SECTIONS[heading][1](written)[key] = value
            assert parse_fleet_document(written, "f") == parse_fleet_document(base, "f"), f"{heading} {key}"
    assert checked >= 25


def test_the_strategies_listed_are_the_registered_ones():
    rows = {(h, r["key"]): r for h, rs in _sections().items() for r in rs}
    listed = set(re.findall(r"`([A-Z_]+)`", rows[("`[[groups]]`", "strategy")]["meaning"]))
    assert listed == set(names())
    drawn = set(re.findall(r"\b([A-Z][A-Z_]+[A-Z])\b", rows[("`[generate]`", "strategies")]["meaning"]))
    assert drawn == set(generatable_names())


# ----------------------------------------------------------------------------------------------- --engine's help


def test_engine_help_is_what_the_engine_page_says():
    from rmqplan.cli import ENGINE_HELP

    page = " ".join(_text(REPO / "docs" / "engines-and-clusters.md").split())
    assert f"`--engine`: {ENGINE_HELP}" in page
    default = ENGINE_HELP.split(";")[0].removeprefix("auto (default): ")  # the README says what auto picks
    assert f"`--engine auto`: {default})" in " ".join(_text(REPO / "README.md").split())
    done = subprocess.run([str(BIN / "rmqplan"), "simulate", "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "10000"})
    assert ENGINE_HELP in " ".join(done.stdout.split())


# ------------------------------------------------------------------------------ synopses, keys, examples of code


def _synopses() -> list[tuple[str, list[str], set[str]]]:
    """(document, command words, the options written) for every synopsis line of a plain code block: a line that
    starts with `rmqlint` or `rmqplan <command>`, with its indented continuation lines, comments left out."""
    out = []
    for path in RUN_FROM_ROOT:
        for block in re.findall(r"^```\n(.*?)^```", _text(path), re.M | re.S):
            current = None
            for line in block.splitlines():
                text = line.split("#", 1)[0]
                if re.match(r"(rmqlint|rmqplan)\b", line):
                    words = text.split()
                    command = words[:2] if words[0] == "rmqplan" or (len(words) > 1 and words[1] in
                                                                      ("rules", "explain", "graph")) else words[:1]
                    current = (path.name, command, set())
                    out.append(current)
                elif current is None or not line.startswith(" "):
                    current = None
                    continue
                current[2].update(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", text))
    return out


def _accepted(command: list[str]) -> set[str]:
    import argparse

    from rmqlint.cli import build_parser as rmqlint_parser
    from rmqplan.cli import build_parser as rmqplan_parser

    if command == ["rmqlint"]:
        parser = rmqlint_parser()
    elif command[0] == "rmqplan" and len(command) > 1 and not command[1].startswith("-"):
        parser = next(a for a in rmqplan_parser()._actions if isinstance(a, argparse._SubParsersAction)) \
            .choices[command[1]]
    elif command == ["rmqplan"] or command[0] == "rmqplan":
        parser = rmqplan_parser()
    else:
        return set()  # rmqlint rules / explain / graph: parsers of their own, checked by their `$` blocks
    return {s for a in parser._actions for s in a.option_strings}


def test_every_option_a_synopsis_writes_is_one_the_command_takes():
    synopses = _synopses()
    assert len(synopses) >= 10
    for document, command, options in synopses:
        accepted = _accepted(command)
        if accepted:
            assert options <= accepted, (document, command, sorted(options - accepted))
    documented = {o for d, c, opts in synopses if d == "planner-commands.md" and c == ["rmqplan", "check"]
                  for o in opts}
    assert {"--fail-on", "--exit-zero", "--cluster", "--namesrv", "--nodes"} <= documented


def _key_rows(heading: str) -> list[str]:
    """The keys of the table that follows `heading` on the outputs page."""
    page = _text(REPO / "docs" / "outputs-and-integrations.md")
    table = page[page.index(heading):].split("\n\n")[1]
    return [re.match(r"\| `([a-z_]+)` \|", line).group(1) for line in table.splitlines()[2:]]


def test_the_json_keys_documented_are_the_keys_written_both_ways():
    rmqlint_doc = json.loads(_run("rmqlint", "examples/tag-case-drift", "--no-cache", "--format", "json"))
    check_doc = json.loads(_run("rmqplan", "check", "examples/orders-on-host-network", "--deploy",
                                "examples/orders-on-host-network/deploy", "--format", "json", "--no-cache"))
    top = _key_rows("The JSON report's keys")
    page = _text(REPO / "docs" / "outputs-and-integrations.md")
    check_only = {key for key in top if f"| `{key}` | `rmqplan check` only" in page}
    assert check_only == {"assumptions"}
    assert list(rmqlint_doc) == [k for k in top if k not in check_only]
    assert set(check_doc) == set(top) and check_doc["assumptions"]  # no --cluster: the layout is assumed
    finding_keys = _key_rows("A finding:")
    assert all(list(f) == finding_keys for f in rmqlint_doc["findings"] + check_doc["findings"])
    shown = json.loads(re.search(r"```json\n(.*?)```", page, re.S).group(1))
    assert list(shown) == list(rmqlint_doc)
    assert set(shown["findings"][0]) <= set(finding_keys)


def test_the_example_rule_of_the_development_page_takes_a_free_code_and_joins_the_registry(tmp_path):
    """The page's rule, dropped into a copy of the rules package as the page says, is discovered beside every shipped
    rule (`rmqlint rules` does the same discovery) under the next free code."""
    import shutil

    import rmqlint.rules as shipped
    from rmqlint.rules import ALL_RULES, discover

    page = _text(REPO / "docs" / "development.md")
    source = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "(Rule):" in b)
    module = re.search(r"`rules/(rmq\d{3}_\w+)\.py`", page).group(1)
    package = tmp_path / "doc_rules"
    shutil.copytree(Path(shipped.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / f"{module}.py").write_text(source, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        found = discover("doc_rules")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "doc_rules" or m.startswith("doc_rules.")]:
            del sys.modules[name]
    taken = {rule.CODE for rule in ALL_RULES}
    (new,) = [rule for rule in found if rule.CODE not in taken]
    assert len(found) == len(ALL_RULES) + 1
    free = next(f"RMQ{n:03d}" for n in range(1, 100) if f"RMQ{n:03d}" not in taken)
    assert new.CODE == free == module[:6].upper()


def test_the_saved_cluster_outputs_shown_are_read_as_the_page_says(tmp_path):
    from rmqplan.sources.mqadmin import read_cluster_dir

    page = _text(REPO / "docs" / "planner-commands.md")
    section = page[page.index("### Saved cluster outputs"):page.index("## The HTML report")]
    examples = re.findall(r"^`([\w%.-]+)`:\n\n```text\n(.*?)^```", section, re.M | re.S)
    assert [name for name, _ in examples] == ["topicRoute-OrderEvents.json", "clusterList.txt",
                                              "consumerConnection-orders_cg.txt", "consumerProgress-orders_cg.txt"]
    for name, text in examples:
        (tmp_path / name).write_text(text, encoding="utf-8")
    snapshot = read_cluster_dir(tmp_path)
    assert snapshot.problems == []
    (queues,) = snapshot.routes["OrderEvents"].queues
    assert (queues.broker, queues.read_queues, queues.write_queues, queues.readable) == ("broker-a", 8, 8, True)
    assert [(b.name, b.broker_id) for b in snapshot.brokers] == [("broker-a", 0)]
    assert [c.client_id for c in snapshot.consumers["orders_cg"].connections] == ["10.2.0.5@orders-node",
                                                                                 "10.2.0.6@orders-node"]
    backlog = {(q.topic, q.queue_id): o.backlog for q, o in snapshot.progress["orders_cg"].queues.items()}
    assert backlog == {("%RETRY%orders_cg", 0): 0, ("OrderEvents", 0): 20, ("OrderEvents", 1): 0}


def test_pytest_markers_written_are_registered_and_given_to_pytest_not_to_make():
    """`-m 'not slow'` goes to pytest: make takes no pytest options, and a marker no test has selects nothing."""
    markers = {line.split(":")[0].strip().strip('"') for line in tomllib.loads(
        _text(REPO / "pyproject.toml"))["tool"]["pytest"]["ini_options"]["markers"]}
    for path in DOCS:
        for line in _text(path).splitlines():
            for expression in re.findall(r"(?<![\w-])(?<!python )-m (?:'([^']+)'|([a-z]+))", line):
                words = set(" ".join(expression).replace("(", " ").replace(")", " ").split())
                assert words - {"not", "and", "or"} <= markers, (path.name, line)
                before = line[:line.index(f"-m '{expression[0]}'" if expression[0] else f"-m {expression[1]}")]
                assert "make " not in line or "pytest" in before, (path.name, line)  # a make target takes none
