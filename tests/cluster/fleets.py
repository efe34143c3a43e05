"""What the live tests hand to rmqplan, and how they read its answer back.

- `write_code`: the consumer groups as a user's code would hold them (one Maven module per group, its client
  release in the pom, the consumer's settings as literals), for `rmqplan fleet --from-code`.
- `save_outputs`: the mqadmin outputs `rmqplan fleet --cluster` reads (topicRoute-<T>.json, clusterList.txt,
  consumerConnection-<group>.txt), saved from the running cluster exactly as mqadmin printed them.
- `rmqplan`: the installed command, run as a user runs it.
- `holders`: queue -> the sorted client ids holding it, from rmqplan's JSON or from the consumers' own reports.
- `connected_ids`: which process of a fleet `rmqplan fleet` wrote from a consumerConnection output is which
  connected client (rmqplan names a process whose client replaced its default name with an id of its own: the
  holders are compared by the connected ids).
- `dump_toml`: enough TOML to write back a fleet that a test completed (rooms, CONFIG lists, scenarios).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from tests.cluster.rocketmq import Cluster

BIN = Path(sys.executable).parent
STRATEGY_CLASSES = {
    "AVG": "AllocateMessageQueueAveragely",
    "AVG_BY_CIRCLE": "AllocateMessageQueueAveragelyByCircle",
    "CONSISTENT_HASH": "AllocateMessageQueueConsistentHash",
    "CONFIG": "AllocateMessageQueueByConfig",
    "MACHINE_ROOM": "AllocateMessageQueueByMachineRoom",
}


@dataclass
class GroupCode:
    """One consumer group as the code declares it."""

    group: str
    subscriptions: dict[str, str]
    client: str = "4.9.8"
    model: str = "CLUSTERING"
    strategy: str = "AVG"
    virtual_nodes: Optional[int] = None
    instance_name: Optional[str] = None
    unit_name: Optional[str] = None
    settings: dict = field(default_factory=dict)
    kind: str = "push"  # or "lite_pull": a DefaultLitePullConsumer


def _java_string(s: str) -> str:
    return json.dumps(s)  # a JSON string literal is a Java string literal for these names


def write_code(root: Path, groups: list[GroupCode]) -> None:
    for g in groups:
        module = root / g.group
        src = module / "src" / "main" / "java" / "live"
        src.mkdir(parents=True)
        (module / "pom.xml").write_text(f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>live</groupId>
  <artifactId>{g.group}</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.rocketmq</groupId>
      <artifactId>rocketmq-client</artifactId>
      <version>{g.client}</version>
    </dependency>
  </dependencies>
</project>
""")
        cls = "DefaultLitePullConsumer" if g.kind == "lite_pull" else "DefaultMQPushConsumer"
        lines = [f"{cls} consumer = new {cls}({_java_string(g.group)});",
                 'consumer.setNamesrvAddr(System.getenv("NAMESRV_ADDR"));']
        for topic, expression in g.subscriptions.items():
            lines.append(f"consumer.subscribe({_java_string(topic)}, {_java_string(expression)});")
        if g.model != "CLUSTERING":
            lines.append(f"consumer.setMessageModel(MessageModel.{g.model});")
        if g.strategy == "CONSISTENT_HASH" and g.virtual_nodes is not None:
            lines.append(f"consumer.setAllocateMessageQueueStrategy(new AllocateMessageQueueConsistentHash("
                         f"{g.virtual_nodes}));")
        elif g.strategy == "MACHINE_ROOM_NEARBY":
            lines.append("consumer.setAllocateMessageQueueStrategy(new AllocateMachineRoomNearby("
                         "new AllocateMessageQueueAveragely(), Rooms.RESOLVER));")
        elif g.strategy != "AVG":
            lines.append(f"consumer.setAllocateMessageQueueStrategy(new {STRATEGY_CLASSES[g.strategy]}());")
        if g.instance_name is not None:
            lines.append(f"consumer.setInstanceName({_java_string(g.instance_name)});")
        if g.unit_name is not None:
            lines.append(f"consumer.setUnitName({_java_string(g.unit_name)});")
        if g.kind != "lite_pull":
            lines += ["consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->",
                      "    ConsumeConcurrentlyStatus.CONSUME_SUCCESS);"]
        lines.append("consumer.start();")
        body = "\n".join("        " + line for line in lines)
        name = "".join(part.capitalize() for part in g.group.replace("-", "_").split("_")) + "Consumer"
        (src / f"{name}.java").write_text(f"""package live;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.rebalance.*;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class {name} {{
    public static void main(String[] args) throws Exception {{
{body}
    }}
}}
""")


def save_outputs(cluster: Cluster, out: Path, topics: list[str], groups: list[str]) -> None:
    """What an operator saves for `rmqplan fleet --cluster`: mqadmin's output, as printed."""
    out.mkdir(parents=True, exist_ok=True)
    n = ("-n", cluster.namesrv)
    (out / "clusterList.txt").write_text(cluster.admin("clusterList", *n))
    for topic in topics:
        (out / f"topicRoute-{topic}.json").write_text(cluster.admin("topicRoute", *n, "-t", topic))
    for group in groups:
        (out / f"consumerConnection-{group}.txt").write_text(cluster.admin("consumerConnection", *n, "-g", group))


def rmqplan(*args: str, ok=(0, 1)) -> subprocess.CompletedProcess:
    done = subprocess.run([str(BIN / "rmqplan"), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert done.returncode in ok, f"rmqplan {' '.join(map(str, args))}: exit {done.returncode}\n{done.stderr}"
    return done


Holders = dict[tuple[str, str, str, int], list[str]]  # (group, topic, broker, queue) -> sorted client ids


Labels = dict[tuple[str, str], str]  # (group, process label) -> the connected client id it is


def connected_ids(fleet_text: str) -> Labels:
    """(group, label) -> the client id connected, for the instance sets `rmqplan fleet` wrote from connected
    clients (the comment `# connected now: ID (...)` above each); labels as rmqplan numbers processes: `host#n`,
    the n-th of the group on that host."""
    out: Labels = {}
    group, note, numbers = None, None, {}
    doc = tomllib.loads(fleet_text)
    sets = iter([(g["name"], i) for g in doc["groups"] for i in g.get("instances", [])])
    for line in fleet_text.splitlines():
        if line.startswith("# connected now: "):
            note = line[len("# connected now: "):].split(" (", 1)[0]
        elif line.startswith("[[groups.instances]]"):
            group, inst = next(sets)
            for host in inst["hosts"]:
                for _ in range(inst.get("count", 1)):
                    n = numbers[(group, host)] = numbers.get((group, host), 0) + 1
                    if note is not None:
                        out[(group, f"{host}#{n}")] = note
            note = None
    return out


def predicted(groups: list[dict], ids: Optional[Labels] = None) -> Holders:
    """Holders of each queue in rmqplan's JSON groups of one state (`--assignments`), by client id (the connected
    one for a process `ids` names). A process holds a queue once, whichever of its rebalances gave it (a CONFIG
    list naming the topic's queues is returned for the retry topic's rebalance too): its process queue table is a
    map."""
    ids = ids or {}
    held: dict[tuple[str, str], tuple[str, set]] = {}  # (group, process label) -> (client id, queues)
    for entry in groups:
        for inst in entry["instances"]:
            key = (entry["group"], inst["instance"])
            _, queues = held.setdefault(key, (ids.get(key, inst["client_id"]), set()))
            queues.update(tuple(q) for q in inst["queues"])
    out: Holders = {}
    for (group, _), (client_id, queues) in held.items():
        for topic, broker, qid in queues:
            out.setdefault((group, topic, broker, qid), []).append(client_id)
    return {k: sorted(v) for k, v in out.items()}


def observed(states: dict[str, list[dict]]) -> Holders:
    """Holders of each queue the consumers report, per group: their own process queue tables."""
    out: Holders = {}
    for group, answers in states.items():
        for answer in answers:
            for topic, broker, qid in answer["queues"]:
                out.setdefault((group, topic, broker, qid), []).append(answer["client_id"])
    return {k: sorted(v) for k, v in out.items()}


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {v!r}")


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def dump_toml(doc: dict) -> str:
    """A fleet document as TOML: top-level scalars, then arrays of tables (one level of nesting: instances)."""
    lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in doc.items() if not _is_tables(v)]
    for key, items in doc.items():
        if not _is_tables(items):
            continue
        for item in items:
            lines += ["", f"[[{key}]]"]
            lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in item.items() if not _is_tables(v)]
            for sub, subitems in item.items():
                if _is_tables(subitems):
                    for s in subitems:
                        lines += ["", f"[[{key}.{sub}]]"]
                        lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in s.items()]
    return "\n".join(lines) + "\n"


def _is_tables(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)
