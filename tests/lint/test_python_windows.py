"""A large Python module analysed in windows gives the facts the whole module gives."""

from __future__ import annotations

import random

import pytest

from rmqlint.frontends import python_parse, python_windows
from rmqlint.frontends.python_parse import parse_python

HEAD = '''from rocketmq.client import PushConsumer, Producer, Message, ConsumeStatus
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
    out = [HEAD]
    for i in range(parts):
        snippet = rng.choice(SNIPPETS)
        out.append(snippet.format(i=i, j=rng.randrange(max(i, 1))))
    return "\n".join(out)


def _known(constants: dict) -> dict:
    """What is known of each constant: its text, or that it is not known (the reasons may differ)."""
    return {name: getattr(value, "text", None) for name, value in constants.items()}


def _facts(text: str):
    return parse_python("shop/big.py", text.encode())


@pytest.mark.parametrize("seed", range(6))
def test_windows_give_the_facts_of_the_whole_module(seed, monkeypatch):
    text = _module(seed, 160)
    whole = _facts(text)
    monkeypatch.setattr(python_parse, "LARGE_MODULE_CHARS", 1_000)
    monkeypatch.setattr(python_windows, "WINDOW_CHARS", 2_000)
    monkeypatch.setattr(python_windows, "SMALL_UNIT_CHARS", 600)
    windowed = _facts(text)
    assert whole.problems == windowed.problems == []
    assert windowed.clients == whole.clients
    assert windowed.produced == whole.produced
    assert windowed.listener_classes == whole.listener_classes
    assert _known(windowed.constants) == _known(whole.constants)
    assert len(whole.clients) > 10


def test_a_large_module_is_cut_into_several_windows():
    text = _module(3, 400)
    import ast

    plan = python_windows.plan_windows(ast.parse(text), text)
    assert len(plan.windows) == 1  # under 192 KB of kept units: one window
    big = "\n".join([HEAD] + [SNIPPETS[1].format(i=i) for i in range(6000)])
    plan = python_windows.plan_windows(ast.parse(big), big)
    assert len(plan.windows) > 1
    for window in plan.windows:
        # functions and imports a window needs come with it, objects never do
        assert all(u.binds <= {"PushConsumer", "Producer", "Message", "ConsumeStatus", "os", "NAME_SERVER",
                               "GROUP_PREFIX", "TAG", "on_message", "Listener"} for u in window.preamble)
