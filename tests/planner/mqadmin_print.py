"""What `mqadmin` prints, written the way its commands write it, for tests of the readers.

- `topic_route_json`: `TopicRouteSubCommand` prints `TopicRouteData.toJson(true)`, fastjson's pretty format:
  a tab per level, `"key":value` with no space, bean fields in name order, a `Map<Long, String>` with bare numeric
  keys written on one line and its closing brace on the next (fastjson breaks the line only before string keys);
- `topic_route_list`: the `-l` table (`%-45s %-32s %-50s %-10s %-11s %-5s`, Java's `HashMap.toString()`);
- `cluster_list`: `ClusterListSubCommand`'s base table (5.x columns; a broker that does not answer has a blank
  version and empty statistics);
- `consumer_connection`: `ConsumerConnectionSubCommand`, the current table (4.9.3 on) or the older numbered form.
"""

from __future__ import annotations

import json


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _bean(fields: dict, indent: int) -> str:
    """A bean: fields sorted by name, each on its own line."""
    pad = "\t" * (indent + 1)
    rows = [f"{pad}{_string(k)}:{_value(v, indent + 1)}" for k, v in sorted(fields.items()) if v is not None]
    return "{\n" + ",\n".join(rows) + "\n" + "\t" * indent + "}"


def _value(value, indent: int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, LongMap):
        if not value.items:
            return "{}"
        inner = ",".join(f"{k}:{_string(v)}" for k, v in value.items.items())
        return "{" + inner + "\n" + "\t" * indent + "}"
    if isinstance(value, dict):
        return _bean(value, indent) if value else "{}"
    if isinstance(value, list):
        if not value:
            return "[]"
        pad = "\t" * (indent + 1)
        return "[\n" + ",\n".join(pad + _value(v, indent + 1) for v in value) + "\n" + "\t" * indent + "]"
    raise TypeError(type(value))


class LongMap:
    """A `HashMap<Long, String>`: fastjson writes its keys bare."""

    def __init__(self, items: dict[int, str]):
        self.items = dict(sorted(items.items()))


def topic_route_json(brokers: list[dict], *, old_flag: bool = False) -> str:
    """`brokers`: [{"name", "cluster", "addrs": {id: addr}, "read", "write", "perm"}]."""
    flag = "topicSynFlag" if old_flag else "topicSysFlag"
    route = {
        "brokerDatas": [{"brokerAddrs": LongMap(b["addrs"]), "brokerName": b["name"], "cluster": b["cluster"],
                         **({} if old_flag else {"enableActingMaster": False})} for b in brokers],
        "filterServerTable": {},
        "queueDatas": [{"brokerName": b["name"], "perm": b["perm"], "readQueueNums": b["read"], flag: 0,
                        "writeQueueNums": b["write"]} for b in brokers],
    }
    return _bean(route, 0) + "\n"


def topic_route_list(brokers: list[dict]) -> str:
    fmt = "%-45s %-32s %-50s %-10s %-11s %-5s\n"
    out = [fmt % ("#ClusterName", "#BrokerName", "#BrokerAddrs", "#ReadQueue", "#WriteQueue", "#Perm")]
    for b in sorted(brokers, key=lambda b: b["name"]):
        addrs = "{" + ", ".join(f"{k}={v}" for k, v in sorted(b["addrs"].items())) + "}"
        out.append(fmt % (b["cluster"], b["name"], addrs, b["read"], b["write"], b["perm"]))
    out.append("-" * 158 + "\n")
    out.append(fmt % ("Total:", len(brokers), "", sum(b["read"] for b in brokers),
                      sum(b["write"] for b in brokers), ""))
    return "".join(out)


def cluster_list(rows: list[dict]) -> str:
    """`rows`: [{"cluster", "name", "id", "addr", "version" ("" when the broker did not answer)}]."""
    header = "%-22s  %-22s  %-4s  %-22s %-16s  %16s  %30s  %-22s  %-11s  %-12s  %-8s  %-10s\n"
    row = "%-22s  %-22s  %-4s  %-22s %-16s  %16s  %30s  %-22s  %11s  %-12s  %-8s  %10s\n"
    out = [header % ("#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)",
                     "#OutTPS(LOAD)", "#Timer(Progress)", "#PCWait(ms)", "#Hour", "#SPACE", "#ACTIVATED")]
    for r in rows:
        answered = bool(r["version"])
        q = "0" if answered else ""
        out.append(row % (r["cluster"], r["name"], r["id"], r["addr"], r["version"],
                          "%9.2f(%s,%sms)" % (12.3 if answered else 0.0, q, q),
                          "%9.2f(%s,%sms|%s,%sms)" % (40.1 if answered else 0.0, q, q, "N" if answered else "",
                                                      "N" if answered else ""),
                          "%d-%d(%.1fw, %.1f, %.1f)" % (0, 0, 0.0, 0.0, 0.0), q, "%2.2f" % 474311.72,
                          "%.4f" % 0.12, "true" if answered and r["id"] == 0 else "false"))
    return "".join(out)


def consumer_connection(connections: list[tuple[str, str, str, str]], subscriptions: list[tuple[str, str]],
                        consume_type: str, model: str, *, old: bool = False) -> str:
    """`connections`: (client id, address, language, version name); `subscriptions`: (topic, expression)."""
    out = []
    if old:
        for i, (cid, addr, lang, version) in enumerate(connections, 1):
            out.append("%03d  %-32s %-22s %-8s %s\n" % (i, cid, addr, lang, version))
        out.append("\nBelow is subscription:")
        for i, (topic, expression) in enumerate(subscriptions, 1):
            out.append("%03d  Topic: %-40s SubExpression: %s\n" % (i, topic, expression))
    else:
        out.append("%-36s %-22s %-10s %s\n" % ("#ClientId", "#ClientAddr", "#Language", "#Version"))
        for cid, addr, lang, version in connections:
            out.append("%-36s %-22s %-10s %s\n" % (cid, addr, lang, version))
        out.append("\nBelow is subscription:\n")
        out.append("%-20s %s\n" % ("#Topic", "#SubExpression"))
        for topic, expression in subscriptions:
            out.append("%-20s %s\n" % (topic, expression))
        out.append("\n")
    out.append(f"ConsumeType: {consume_type}\n")
    out.append(f"MessageModel: {model}\n")
    out.append("ConsumeFromWhere: CONSUME_FROM_LAST_OFFSET\n")
    return "".join(out)
