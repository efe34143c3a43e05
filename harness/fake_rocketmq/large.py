"""A large cluster, played over the real protocol: `python -m harness.fake_rocketmq.large [--groups 2000] [--brokers 2]
[--queues 5]` serves a name server and brokers and prints the name server's address, until killed.

Every group consumes a topic of its own with `--queues` queues on every broker (2,000 groups on 2 brokers of 5: 20,000
queues, and each group's retry topic), by 1 to 4 processes; the numbers are drawn once from a fixed seed, so every
run serves the same cluster, answer for answer. One group in a hundred has two processes that report one client id
(seed 004's incident), one in a hundred has no consumer connected but offsets committed (its consumers died), one
in fifty has dead letters; every queue has messages written and most of them consumed.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
from dataclasses import replace

from harness.fake_rocketmq import FakeCluster, FakeGroup
from rmqplan.model.fleet import Queue
from rmqplan.sources.remoting.frame import Command, decode, encode


class Recorded(FakeCluster):
    """A cluster whose facts do not change: each answer is made once, then served as recorded (its `opaque`
    set to the request's), so that the time measured is the reader's, not this server's."""

    def __init__(self, *args, **kwargs):
        self._recorded: dict[tuple, Command] = {}
        super().__init__(*args, **kwargs)

    def _answer(self, request: Command, name: str) -> bytes:
        key = (name, request.code, tuple(sorted(request.ext_fields.items())))
        response = self._recorded.get(key)
        if response is None:
            response = self._recorded[key] = decode(super()._answer(request, name)[4:])
        return encode(replace(response, opaque=request.opaque))


def large_cluster(groups: int = 2000, brokers: int = 2, queues: int = 5, seed: int = 7) -> FakeCluster:
    rng = random.Random(seed)
    cluster = Recorded(brokers=brokers, topic="T0000", queues=queues, group="g0000", clients=("10.0.0.1@1",))
    cluster.groups.clear()
    cluster.topics.clear()
    names = list(cluster.brokers)
    for i in range(groups):
        group, topic = f"g{i:04d}", f"T{i:04d}"
        retry, dlq = f"%RETRY%{group}", f"%DLQ%{group}"
        cluster.topics[topic] = queues
        cluster.topics[retry] = 1
        processes = rng.randint(1, 4)
        clients = tuple(f"10.1.{i // 250}.{i % 250}@{1000 + p}#{rng.randrange(10 ** 12)}" for p in range(processes))
        if i % 100 == 1:  # two processes with one fixed instanceName on one host
            clients = (f"10.1.{i // 250}.{i % 250}@orders-node",) * 2
        offsets = {}
        for b in names:
            for q in range(queues):
                mq = Queue(topic, b, q)
                written = rng.randint(0, 100_000)
                cluster.written[mq] = written
                offsets[mq] = max(written - rng.choice((0, 0, 0, 5, 50)), 0)
            offsets[Queue(retry, b, 0)] = 0
        if i % 50 == 3:
            cluster.topics[dlq] = 1
            cluster.written[Queue(dlq, names[0], 0)] = rng.randint(1, 500)
        if i % 100 == 5:  # every consumer died: none connected, the offsets stay
            clients = ()
        cluster.groups[group] = FakeGroup(clients, (topic, retry), offsets=offsets)
    for server in (cluster.namesrv_server, *cluster.brokers.values()):
        server.keep_requests = False  # a long-running server: what it was asked is not kept
    return cluster


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.fake_rocketmq.large", description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--brokers", type=int, default=2)
    parser.add_argument("--queues", type=int, default=5, help="queues of each topic on each broker")
    args = parser.parse_args(argv)
    cluster = large_cluster(args.groups, args.brokers, args.queues)
    print(cluster.namesrv, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
