"""The golden cases of Go processes: inputs drawn here, answers computed by rocketmq-client-go's own strategy
functions (the program in tests/golden/go, built with the `go` command against the module v2.1.2), recorded in
tests/golden/go-allocation-cases.jsonl. `python -m tests.planner.go_golden` draws, builds, runs and records them
again; tests/planner/test_go_golden.py checks the record against the program and against rmqplan."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "golden" / "go"
RECORD = ROOT / "tests" / "golden" / "go-allocation-cases.jsonl"
BUILT = ROOT / ".cache" / "golden-go" / "golden"
INPUT_FIELDS = ("id", "client", "strategy", "queues", "client_ids", "virtual_nodes", "consumer_idcs", "config_queues")

# Names that sort otherwise in Go (UTF-8 bytes) than in Java (UTF-16 units): U+FFFF and U+1F600
TOPICS = ["TopicTest", "orders", "\uffff", "\U0001F600t"]
BROKERS = ["broker-a", "broker-b", "hz@broker-a", "sh@broker-b", "hz@", "hz@x@", "@hz", "\uffffb", "\U0001F600b"]
ROOMS = ["hz", "sh", "", "x"]


def _client_ids(rnd: random.Random) -> list[str]:
    hosts = [f"10.0.{rnd.randint(0, 3)}.{rnd.randint(1, 250)}" for _ in range(rnd.randint(1, 4))]
    out = []
    for _ in range(rnd.randint(1, 12)):
        kind = rnd.random()
        host = rnd.choice(hosts)
        if kind < 0.5:
            out.append(f"{host}@{rnd.choice([1, 1, rnd.randint(2, 40000)])}")  # ip@pid, pid 1 in containers
        elif kind < 0.7:
            out.append(f"{host}@{rnd.choice(['orders', 'n1', 'n2'])}")  # WithInstance
        elif kind < 0.8:
            out.append(f"{host}@{rnd.randint(2, 40000)}@{rnd.choice(['unit-a', 'u'])}")  # WithUnitName
        elif kind < 0.9:
            out.append(rnd.choice(["\uffff@1", "\U0001F600@1", "a\U0001F600@1", "a\uffff@1"]))
        else:
            out.append(rnd.choice(out) if out else f"{host}@1")  # a repeated id: one per connection
    if rnd.random() < 0.03:
        out.append("")
    return out


def _queues(rnd: random.Random, strategy: str) -> list[list]:
    topics = rnd.sample(TOPICS, rnd.choice([1, 1, 1, 2]))
    brokers = rnd.sample(BROKERS, rnd.randint(1, 4))
    if strategy == "MACHINE_ROOM" and rnd.random() < 0.7:
        brokers = list(dict.fromkeys(brokers + ["hz@broker-a", "sh@broker-b"]))
    queues = [[t, b, i] for t in topics for b in brokers for i in range(rnd.choice([0, 1, 2, 4, 8, 16]))]
    rnd.shuffle(queues)
    if queues and rnd.random() < 0.1:
        queues.append(list(rnd.choice(queues)))  # given twice: the route's set holds it once
    if rnd.random() < 0.03:
        queues = []
    return queues


def cases(seed: int = 2112, per_strategy: int = 70) -> list[dict]:
    """The inputs: every Go strategy with repeated, empty and non-ASCII client ids, queues of several topics and
    brokers (room@name and its odd splits), 0 to 40 virtual nodes, CONFIG lists naming other queues."""
    rnd = random.Random(seed)
    out = []
    for strategy in ("AVG", "AVG_BY_CIRCLE", "MACHINE_ROOM_NEARBY", "MACHINE_ROOM", "CONSISTENT_HASH", "CONFIG"):
        for k in range(per_strategy):
            case = {"id": f"go-{strategy.lower()}-{k}", "client": "go", "strategy": strategy,
                    "queues": _queues(rnd, strategy), "client_ids": _client_ids(rnd)}
            if strategy == "CONSISTENT_HASH":
                case["virtual_nodes"] = rnd.choice([0, 1, 2, 3, 5, 10, 10, 20, 40]) if k else 0
            elif strategy == "MACHINE_ROOM":
                case["consumer_idcs"] = sorted(set(rnd.sample(ROOMS, rnd.randint(0, 3))))
            elif strategy == "CONFIG":
                pool = case["queues"] + [["Other", "broker-a", 3], [TOPICS[0], "broker-z", 0]]
                case["config_queues"] = [list(q) for q in rnd.sample(pool, rnd.randint(0, min(5, len(pool))))]
            out.append(case)
    return out


def go_command() -> Optional[str]:
    return shutil.which("go")


def build(go: str, output: Path = BUILT) -> Path:
    """Builds the program (fetching the module through the Go module proxy when it is not cached yet)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GOFLAGS": "-mod=mod -buildvcs=false"}
    subprocess.run([go, "build", "-o", str(output), "."], cwd=PROGRAM, env=env, check=True, capture_output=True,
                   timeout=600)
    return output


def run(binary: Path, inputs: list[dict]) -> list[dict]:
    """The program's answer to each case, in order."""
    text = "".join(json.dumps({k: c[k] for k in INPUT_FIELDS if k in c}, ensure_ascii=False) + "\n"
                   for c in inputs)
    done = subprocess.run([str(binary)], input=text.encode(), capture_output=True, check=True, timeout=120)
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def read_record() -> list[dict]:
    return [json.loads(line) for line in RECORD.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> int:
    go = go_command()
    if go is None:
        print("no go command on PATH", file=sys.stderr)
        return 2
    inputs = cases()
    answers = run(build(go), inputs)
    with RECORD.open("w", encoding="utf-8") as out:
        for case, answer in zip(inputs, answers, strict=True):
            assert answer["id"] == case["id"]
            out.write(json.dumps({**case, "expected": answer["allocation"]}, ensure_ascii=False) + "\n")
    print(f"{len(inputs)} cases recorded in {RECORD.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
