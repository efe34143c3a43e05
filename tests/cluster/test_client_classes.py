"""rmqplan's rules for client releases against the releases' own classes (tests/cluster/probe/ClientClasses.java,
run on the jars of every release in tests/cluster/maven/, no broker needed):

- `buildMQClientId`: a unitName is left out only when `UtilAll.isBlank` says so (no-break spaces and NEL stay),
  lite pull and pull consumers add "@STREAM" from 4.9.4 on, the default name becomes the pid before 4.9.0 and
  pid#nanoTime from 4.9.0 on, whatever the consumer's kind;
- the strategies' allocations, release by release: MACHINE_ROOM took its block from every queue before 4.8.0 and
  checked nothing before 4.9.3; the others are the same in every release.
"""

from __future__ import annotations

import random
import re

import pytest

from rmqplan.allocation.strategies import StrategyError, allocate, for_release, parse_strategy_name
from rmqplan.model.fleet import CLUSTERING, InstanceSpec, Queue
from rmqplan.model.identity import (SYNTHETIC_NANOTIME_BASE, SYNTHETIC_PID_BASE, client_id_for)
from rmqplan.model.javaorder import sort_client_ids, sort_queues
from tests.cluster import rocketmq

pytestmark = pytest.mark.cluster

UNITS = [None, "blue", "", " ", "\t\u3000\u2028", "\u00a0", "\u2007", "\u202f", "\u0085", " \u00a0 ", "\u180e"]
KINDS = ("push", "lite_pull", "pull")
LITE_PULL_SINCE = (4, 6, 0)  # DefaultLitePullConsumer appeared in 4.6.0


def _hex(text: str) -> str:
    return text.encode("utf-8").hex()


def _version(release: str) -> tuple[int, ...]:
    return tuple(map(int, release.split(".")))


@pytest.fixture(scope="module")
def releases(rocketmq_home):
    return rocketmq.RELEASES


def _predicted_pattern(spec: InstanceSpec) -> str:
    """rmqplan's client id for the spec on 10.0.0.1, as a pattern: its synthetic pid and nanoTime stand for any."""
    client_id, _ = client_id_for(spec, CLUSTERING, "10.0.0.1", 1)
    pattern = re.escape(client_id)
    pattern = pattern.replace(str(SYNTHETIC_NANOTIME_BASE + 1), r"\d+").replace(str(SYNTHETIC_PID_BASE + 1), r"\d+")
    return pattern


def test_client_ids_are_what_each_release_builds(releases):
    checked = 0
    for release in releases:
        questions, specs = [], []
        for kind in KINDS:
            for instance in ("n", None):
                for unit in UNITS:
                    questions.append(["id", kind, "-" if instance is None else _hex(instance),
                                      "-" if unit is None else _hex(unit)])
                    specs.append(InstanceSpec("p", ("10.0.0.1",), instance_name=instance, unit_name=unit,
                                              client_version=release, consumer=kind))
        answers = rocketmq.ask_classes(release, questions)
        for question, spec, answer in zip(questions, specs, answers):
            if "missing" in answer:  # no lite pull consumer before 4.6.0
                assert spec.consumer == "lite_pull" and _version(release) < LITE_PULL_SINCE, answer
                continue
            assert "client_id" in answer, (release, question, answer)
            assert re.fullmatch(_predicted_pattern(spec), answer["client_id"]), (release, spec, answer)
            checked += 1
    assert checked > 400
    # not vacuous: the releases do differ where rmqplan says they do
    [old, new] = [rocketmq.ask_classes(r, [["id", "lite_pull", _hex("n"), "-"]])[0] for r in ("4.9.3", "4.9.4")]
    assert (old["client_id"], new["client_id"]) == ("10.0.0.1@n", "10.0.0.1@n@STREAM")
    [kept] = rocketmq.ask_classes("5.3.3", [["id", "push", _hex("n"), _hex("\u00a0")]])
    assert kept["client_id"] == "10.0.0.1@n@\u00a0"


ROOMS = ["hz", "sh", "bj"]


def _random_case(rng: random.Random) -> tuple[str, dict, list[Queue], list[str]]:
    name = rng.choice(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM"])
    brokers = [f"{rng.choice(ROOMS)}@b{i}" if rng.random() < 0.8 else f"b{i}" for i in range(rng.randint(1, 4))]
    queues = sort_queues({Queue("T", b, rng.randrange(9)) for b in brokers for _ in range(rng.randint(0, 6))})
    pool = [f"10.0.0.{rng.randrange(3)}@{rng.randrange(40)}" for _ in range(6)]
    cids = sort_client_ids([rng.choice(pool) for _ in range(rng.randint(1, 7))])
    params = {"virtual_nodes": rng.choice([1, 3, 10])} if name == "CONSISTENT_HASH" else {}
    if name == "MACHINE_ROOM":
        params = {"consumer_idcs": rng.sample(ROOMS, rng.randint(1, 2))}
    return name, params, queues, cids


def _param(name: str, params: dict) -> str:
    if name == "MACHINE_ROOM":
        return ",".join(_hex(r) for r in params["consumer_idcs"])
    return str(params.get("virtual_nodes", "-"))


def test_each_release_allocates_as_rmqplan_says_it_does(releases):
    rng = random.Random(20251125)
    cases = [_random_case(rng) for _ in range(400)]
    legacy_differs = 0
    for release in releases:
        questions, expected = [], []
        for name, params, queues, cids in cases:
            current = rng.choice(cids)
            questions.append(["allocate", name, _param(name, params), _hex(current), ",".join(_hex(c) for c in cids),
                              ",".join(f"{_hex(q.topic)}/{_hex(q.broker)}/{q.queue_id}" for q in queues) or "-"])
            spec = for_release(parse_strategy_name(name, **params), release)
            try:
                share = [list(q) for q in allocate(spec, queues, cids, current)]
            except StrategyError as e:
                share = {"error": f"{e.java_exception}: {e.message}"}
            expected.append(share)
            if name == "MACHINE_ROOM" and spec.classes_before == (4, 8, 0):
                today = allocate_or_error(parse_strategy_name(name, **params), queues, cids, current)
                legacy_differs += today != share
        for question, want, answer in zip(questions, expected, rocketmq.ask_classes(release, questions)):
            got = answer["queues"] if "queues" in answer else answer
            assert got == want, (release, question, answer)
    assert legacy_differs > 10  # MACHINE_ROOM before 4.8.0 is not today's for many of the cases


def allocate_or_error(spec, queues, cids, current):
    try:
        return [list(q) for q in allocate(spec, queues, cids, current)]
    except StrategyError as e:
        return {"error": f"{e.java_exception}: {e.message}"}
