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
