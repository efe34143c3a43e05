"""The Python frontend parses with libcst only the statements that can hold facts (`python.slice`): the facts are
those of the whole module, at the module's own lines, for every Python file the tests ship."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from rmqlint.facts import Location
from rmqlint.frontends.python import parse as python_parse, slice as python_slice
from rmqlint.frontends.python.parse import parse_python
from rmqlint.rules import ALL_RULES

REPO = Path(__file__).resolve().parents[2]


def _python_sources() -> list[tuple[str, str]]:
    found = []
    for base in (REPO / "tests" / "lint" / "fixtures", REPO / "examples"):
        found += [(p.relative_to(REPO).as_posix(), p.read_text()) for p in sorted(base.rglob("*.py"))]
    for rule in ALL_RULES:
        for kind in ("VALID", "INVALID"):
            for number, example in enumerate(getattr(rule, kind)):
                found += [(f"{rule.CODE}-{kind}-{number}/{path}", text) for path, text in example.files.items()
                          if path.endswith(".py")]
    return found


def _whole_module(text: str, tree: ast.Module) -> python_slice.Slice:
    return python_slice._join(text, [python_slice._describe(node) for node in tree.body])


@pytest.mark.parametrize("path, text", _python_sources(), ids=lambda v: v if "/" in str(v) else "")
def test_the_slice_gives_the_facts_of_the_whole_module(path, text, monkeypatch):
    sliced = parse_python(path, text.encode())
    monkeypatch.setattr(python_parse, "slice_module", _whole_module)
    whole = parse_python(path, text.encode())
    assert (sliced.clients, sliced.produced, sliced.listener_classes, sliced.suppressions, sliced.problems) == (
        whole.clients, whole.produced, whole.listener_classes, whole.suppressions, whole.problems)
    # Constants of left-out statements are missing (big literals, code): those kept are the module's own.
    assert {name: whole.constants[name] for name in sliced.constants} == sliced.constants


HEAD = '''\
"""Order handling: a lot of code, one consumer."""
import logging

from rocketmq.client import ConsumeStatus, PushConsumer

log = logging.getLogger(__name__)
'''

HANDLER = '''

def handle_{n}(event):
    name = event["name"]
    total = 0
    for item in event["items"]:
        total += item
    return name, total
'''

CONSUMER = '''
# the consumer
NAME = "orders-node"


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("orders_cg")
consumer.set_instance_name(NAME)  # rmqlint: disable=RMQ003
consumer.subscribe("Orders", on_message)
'''


def test_a_large_module_is_analysed_from_its_consumer_statements_at_their_own_lines():
    table = "TABLE = {\n" + "".join(f'    "key{i}": {i},\n' for i in range(2000)) + "}\n"
    text = HEAD + table + "".join(HANDLER.format(n=n) for n in range(300)) + CONSUMER
    sliced = python_slice.slice_module(text, ast.parse(text))
    assert len(sliced.text) < len(text) / 10  # neither the table nor the handlers
    facts = parse_python("orders.py", text.encode())
    lines = text.splitlines()
    (consumer,) = facts.clients
    at = next(n for n, line in enumerate(lines, 1) if "set_instance_name" in line)
    assert consumer.instance_name.location == Location("orders.py", at, 1, at, 33)
    assert consumer.listeners[0].location.line == next(n for n, line in enumerate(lines, 1) if "def on_message" in line)
    assert facts.suppressions == {at: ["RMQ003"]}
    assert facts.constants["NAME"].text == "orders-node" and "TABLE" not in facts.constants


def test_a_name_bound_in_a_left_out_statement_and_read_by_the_consumer_is_kept():
    text = ("from rocketmq.client import PushConsumer\n\n"
            "def unrelated():\n    group = 'local only'\n    return group\n\n"
            "GROUP = 'a'\nif unrelated():\n    GROUP = {'x': 1}['x']\n\n"
            "c = PushConsumer(GROUP)\n")
    facts = parse_python("m.py", text.encode())
    assert facts.clients[0].group.value.alternatives[0].text == "a"  # both assignments are seen


def test_a_module_without_rocketmq_keeps_its_constants():
    facts = parse_python("settings.py", b"import os\nTOPIC = 'orders'\nTABLE = [1, 2, 3]\ndef f():\n    return 1\n")
    assert facts.constants["TOPIC"].text == "orders" and "f" not in facts.constants


# --- random modules: the slice's facts are the whole module's --------------------------------------------------

RANDOM_HEAD = '''from rocketmq.client import PushConsumer, Producer, Message, ConsumeStatus
import os

NAME_SERVER = "10.0.0.1:9876"
GROUP_PREFIX = "shop_"
TAG = "created"


def on_message(msg):
    if msg.body:
        return ConsumeStatus.CONSUME_SUCCESS
    return ConsumeStatus.RECONSUME_LATER


class Listener:
    def consume(self, message):
        return 1

'''

SNIPPETS = [
    # a module-level consumer configured over several statements (the variable is rebound later)
    '''consumer = PushConsumer(GROUP_PREFIX + "orders_{i}")
consumer.set_name_server_address(NAME_SERVER)
consumer.set_instance_name("node-{i}")
consumer.subscribe("Orders{i}", on_message, TAG + " || paid")
''',
    # a function with its own consumer
    '''def start_{i}():
    c = PushConsumer("group_{i}")
    c.set_message_model(0)
    c.subscribe("Topic{i}", on_message, "*")
    return c
''',
    # a message sent with a tag
    '''msg = Message("Orders{i}")
msg.set_tags(TAG)
''',
    # a big data table, unrelated
    '''TABLE_{i} = {{
''' + "".join(f'    "key-{{i}}-{n}": [{n}, "v{n}", {{{{"a": {n}}}}}],\n' for n in range(120)) + '''}}
''',
    # a constant assigned twice in the module (never a constant)
    '''TAG = "paid{i}"
''',
    # a producer created once and used much later
    '''producer_{i} = Producer("producer_group_{i}")
''',
    '''def use_{i}():
    producer_{j}.set_group("g{i}")
''',
]


def _module(seed: int, parts: int) -> str:
    rng = random.Random(seed)
    out = [RANDOM_HEAD]
    for i in range(parts):
        snippet = rng.choice(SNIPPETS)
        out.append(snippet.format(i=i, j=rng.randrange(max(i, 1))))
    return "\n".join(out)



@pytest.mark.parametrize("seed", range(6))
def test_random_modules_give_the_facts_of_the_whole_module(seed, monkeypatch):
    text = _module(seed, 160)
    sliced = parse_python("shop/big.py", text.encode())
    monkeypatch.setattr(python_parse, "slice_module", _whole_module)
    whole = parse_python("shop/big.py", text.encode())
    assert sliced.problems == whole.problems == []
    assert (sliced.clients, sliced.produced, sliced.listener_classes) == (
        whole.clients, whole.produced, whole.listener_classes)
    assert {name: whole.constants[name] for name in sliced.constants} == sliced.constants
    assert len(whole.clients) > 10
