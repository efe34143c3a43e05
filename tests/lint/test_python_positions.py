"""The targeted position pass gives the spans libcst's PositionProvider gives, for any node asked for."""

from __future__ import annotations

import random
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from rmqlint.frontends.python.positions import spans_of

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.glob("tests/lint/fixtures/**/*.py"), *ROOT.glob("examples/**/*.py"),
                  ROOT / "rmqlint/frontends/python/index.py"])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_spans_equal_position_provider(path):
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = list(positions)
    for wanted in (nodes, random.Random(7).sample(nodes, min(50, len(nodes)))):
        spans = spans_of(module, wanted)
        for node in wanted:
            r, s = positions[node], spans[id(node)]
            assert (r.start.line, r.start.column, r.end.line, r.end.column) == (
                s.line, s.column, s.end_line, s.end_column), type(node).__name__


# Compound statements whose range libcst ends at their last clause (a handler, `else`, `finally`), at the end of a
# function and of the module: the case a real module showed (a callback ending in `except ...: return ...`).
CLAUSE_ENDINGS = [
    "def f(msg):\n    with db() as txn:\n        try:\n            x = 1\n        except Exception as e:\n"
    "            txn.rollback()\n            return 2\n",
    "def f():\n    try:\n        x = 1\n    finally:\n        y = 2\n",
    "def f():\n    for a in b:\n        pass\n    else:\n        z = 1\n",
    "def f():\n    try:\n        x = 1\n    except* ValueError:\n        y = 2\n",
    "def f():\n    try:\n        x = 1\n    except A:\n        y = 2\n    else:\n        z = 3\n\n\nclass C:\n    pass",
]


@pytest.mark.parametrize("source", CLAUSE_ENDINGS)
def test_spans_of_statements_ending_in_a_clause(source):
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node, r in positions.items():  # each node asked for alone: its clauses are not wanted themselves
        s = spans_of(module, [node])[id(node)]
        assert (r.start.line, r.start.column, r.end.line, r.end.column) == (
            s.line, s.column, s.end_line, s.end_column), type(node).__name__


def test_a_callback_ending_in_a_handler_is_analysed():
    from rmqlint.frontends.python.parse import parse_python

    source = ("from rocketmq.client import ConsumeStatus\n\n\ndef on_message(msg):\n    try:\n        handle(msg)\n"
              "        return ConsumeStatus.CONSUME_SUCCESS\n    except Exception:\n"
              "        return ConsumeStatus.RECONSUME_LATER\n\n\nclass Servicer:\n    def sell(self):\n        return 1")
    facts = parse_python("inventory.py", source.encode())
    assert facts.problems == []
    listener = facts.listener_classes["on_message"]
    assert (listener.location.line, listener.location.end_line, listener.location.end_column) == (4, 9, 45)
    assert [loc.line for loc in listener.reconsume_later] == [9]


@pytest.mark.parametrize("indent", ["\t", "  ", "    ", " \t"])
def test_positions_are_those_of_the_file_whatever_its_indentation(indent):
    # A statement is laid out alone for its positions: with libcst's default indentation (four spaces) instead of
    # the file's, every column and byte offset inside a block was off by the difference.
    from rmqlint.frontends.python.parse import parse_python

    source = (f'from rocketmq.client import PushConsumer\n\n\ndef start():\n{indent}c = PushConsumer("CID")\n'
              f'{indent}if c:\n{indent}{indent}c.set_instance_name("node")  # x\n')
    facts = parse_python("c.py", source.encode())
    setting = facts.clients[0].instance_name
    line = source.splitlines()[6]
    assert (setting.location.line, setting.location.column) == (7, line.index("c.set") + 1)
    assert (setting.written.line, setting.written.column, setting.written.text) == (7, line.index('"node"') + 1,
                                                                                    '"node"')
    assert source.encode()[setting.written.start:setting.written.end] == b'"node"'
