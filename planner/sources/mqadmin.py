"""A live cluster as saved `mqadmin` outputs (`rmqplan fleet --cluster DIR`).

The directory holds what an operator saved, one file per command:

- `topicRoute-<Topic>.json`: `mqadmin topicRoute -t <Topic>` (fastjson, see `rmqplan.sources.relaxed_json`;
  the output does not name the topic, the file name does). `queueDatas` give each broker's `readQueueNums`,
  `writeQueueNums` and `perm` (bits: 2 write, 4 read, 6 both; the broker registers its topics with its own
  permission folded in, so this is the effective permission); `brokerDatas` the cluster and addresses.
  Older brokers spell the system-flag field `topicSynFlag`; it is not used. The `-l` table form is read too.
- `clusterList.txt`: `mqadmin clusterList`: cluster, broker name, BID (0 = master), address, version. The
  columns after the version contain spaces and are not read.
- `consumerConnection-<group>.txt`: `mqadmin consumerConnection -g <group>`: the connected clients (client id,
  address, language, version as `V4_9_4`), the group's subscriptions (the topic, then the expression, which may
  hold spaces), `ConsumeType`, `MessageModel`. Both the current table and the older numbered form
  (`001  Topic: T  SubExpression: *`) are read. The `%RETRY%<group>` subscription that every clustering consumer
  adds is kept as printed; `retry` on the subscription says so.
- `consumerProgress-<group>.txt`: `mqadmin consumerProgress -g <group>` (with or without `-s`): per queue the
  topic, broker, queue id, broker offset and the group's offset (the columns after them, client IP, diff,
  inflight and last time, vary with the release and are not needed): the group's backlog. Note that mqadmin asks
  each broker for the topics the group has committed an offset on there, so a broker where it never consumed
  anything (every queue orphaned) is missing from its output; `rmqplan status` asks per topic.

Saved outputs are messy: log lines before the table (`RocketMQLog:WARN ...`), or the command's error when
it was saved with `2>&1`. Lines before the output proper are skipped; a consumer group that is not online
(`CODE: 206 ... not online` / `Not found the consumer group connection`) is a group with no connection, and a topic
the name server does not know (`No topic route info`) is listed in `missing_topics`. Any other error is one
`SourceProblem` quoting mqadmin.

`read_cluster_dir(path)` never raises on bad content: what cannot be read is a `SourceProblem`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

from rmqplan.sources import relaxed_json
from rmqplan.model.fleet import Queue
from rmqplan.sources.cluster import (
    RETRY_PREFIX,
    ClusterBroker,
    ClusterSnapshot,
    ConnectedSubscription,
    Connection,
    ConsumeProgress,
    ConsumerConnection,
    QueueOffsets,
    RouteBroker,
    RouteQueues,
    TopicRoute,
)
from rmqplan.sources.origin import Origin, SourceProblem
from rmqplan.sources.remoting import codes
from rmqplan.sources.remoting.limits import MAX_VALUES, route_claims

ROUTE_PREFIX, ROUTE_SUFFIX = "topicRoute-", ".json"
CONSUMER_PREFIX, CONSUMER_SUFFIX = "consumerConnection-", ".txt"
PROGRESS_PREFIX, PROGRESS_SUFFIX = "consumerProgress-", ".txt"
CLUSTER_LIST = "clusterList.txt"
MAX_FILE_BYTES = 16 * 1024 * 1024
_VERSION_NAME = re.compile(r"^V(\d+)_(\d+)_(\d+)(?:_(\w+))?$")
NOT_ONLINE = ("not online", "Not found the consumer group connection")
NO_ROUTE = "No topic route info in name server for the topic"


def mqadmin_error(text: str) -> Optional[tuple[int, str]]:
    """(line, message) of the error mqadmin printed instead of its output (a saved `2>&1`), or None.

    The message is the `CODE: .. DESC: ..` of the cause when there is one, else the first exception line."""
    first = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if "DESC:" in line:
            return number, line[line.find("CODE:"):] if "CODE:" in line else line
        if first is None and ("Exception" in line or line.startswith("Error:")) and not line.startswith("at "):
            first = (number, line)
    return first


def version_from_name(name: str) -> Optional[str]:
    """`V4_9_4` -> `4.9.4`, `V5_0_0_SNAPSHOT` -> `5.0.0-SNAPSHOT`; None for anything else."""
    m = _VERSION_NAME.match(name.strip())
    if not m:
        return None
    version = f"{m.group(1)}.{m.group(2)}.{m.group(3)}"
    return f"{version}-{m.group(4)}" if m.group(4) else version


# --- topicRoute ---------------------------------------------------------------------------------------------


class _Bad(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def _int_field(obj: relaxed_json.JsonObject, key: str, what: str) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        line = obj.lines.get(key, 0)
        raise _Bad(line, f"{what}: `{key}` must be a non-negative whole number, found {value!r}")
    return value


def parse_topic_route(text: str, topic: str, path: str,
                      max_values: Optional[int] = None) -> tuple[Optional[TopicRoute], list[SourceProblem]]:
    """A topic's route from `mqadmin topicRoute` output (JSON, or the `-l` table). With `max_values`, JSON holding
    more values than that raises relaxed_json.TooManyValues."""
    rows = text.splitlines()
    start = next((i for i, row in enumerate(rows) if row.lstrip().startswith(("{", "#ClusterName"))), None)
    if start is None:
        error = mqadmin_error(text)
        if error is not None:
            return None, [SourceProblem(Origin(path, error[0]), f"mqadmin failed: {error[1]}")]
        return None, [SourceProblem(Origin(path, 1), "not a topicRoute output" if text.strip()
                                    else "empty: the command printed nothing (its error goes to stderr)")]
    if rows[start].lstrip().startswith("#ClusterName"):
        return _parse_route_table(text, topic, path)
    try:
        # parsed from the first `{`, with the lines before it kept (blank) so that lines stay the file's
        data = relaxed_json.parse("\n" * start + "\n".join(rows[start:]), max_values)
    except relaxed_json.TooManyValues:
        raise
    except relaxed_json.RelaxedJsonError as err:
        return None, [SourceProblem(Origin(path, err.line), f"not a topicRoute output: {err.message}")]
    if not isinstance(data, relaxed_json.JsonObject) or "queueDatas" not in data:
        return None, [SourceProblem(Origin(path, 1), "not a topicRoute output: no `queueDatas`")]
    problems: list[SourceProblem] = []
    queues: list[RouteQueues] = []
    brokers: list[RouteBroker] = []
    lists: dict[str, list] = {}
    for key in ("queueDatas", "brokerDatas"):
        value = data.get(key)
        lists[key] = value if isinstance(value, list) else []
        if value is not None and not isinstance(value, list):
            problems.append(SourceProblem(Origin(path, data.lines[key]), f"not a topicRoute output: `{key}` is "
                                                                        "not a list"))
    for i, item in enumerate(lists["queueDatas"]):
        what = f"queueDatas[{i}]"
        try:
            if not isinstance(item, relaxed_json.JsonObject):
                raise _Bad(data.lines.get("queueDatas", 0), f"{what} is not an object")
            name = item.get("brokerName")
            if not isinstance(name, str) or not name:
                raise _Bad(item.lines.get("brokerName", data.lines["queueDatas"]), f"{what}: no brokerName")
            line = item.lines.get("readQueueNums", item.lines.get("brokerName", 0))
            queues.append(RouteQueues(name, _int_field(item, "readQueueNums", what),
                                      _int_field(item, "writeQueueNums", what), _int_field(item, "perm", what),
                                      Origin(path, line)))
        except _Bad as bad:
            problems.append(SourceProblem(Origin(path, bad.line), bad.message))
    for i, item in enumerate(lists["brokerDatas"]):
        if not isinstance(item, relaxed_json.JsonObject) or not isinstance(item.get("brokerName"), str):
            problems.append(SourceProblem(Origin(path, data.lines.get("brokerDatas", 0)),
                                          f"brokerDatas[{i}]: no brokerName"))
            continue
        addrs = item.get("brokerAddrs")
        addresses = {}
        if isinstance(addrs, dict):
            for key, value in addrs.items():
                if isinstance(value, str) and str(key).lstrip("-").isdigit():
                    addresses[int(key)] = value
        cluster = item.get("cluster")
        brokers.append(RouteBroker(item["brokerName"], cluster if isinstance(cluster, str) else "", addresses,
                                   Origin(path, item.lines.get("brokerName", 0))))
    return TopicRoute(topic, queues, brokers, Origin(path, 1)), problems


_ROUTE_ROW = re.compile(r"^(\S+)\s+(\S+)\s+(\{[^}]*\})\s+(\d+)\s+(\d+)\s+(\d+)\s*$")


def _parse_route_table(text: str, topic: str, path: str) -> tuple[Optional[TopicRoute], list[SourceProblem]]:
    """`mqadmin topicRoute -l`: `#ClusterName #BrokerName #BrokerAddrs #ReadQueue #WriteQueue #Perm` rows,
    the addresses as Java prints a map (`{0=10.0.0.1:10911, 1=...}`), a dashed rule and a `Total:` line."""
    queues, brokers, problems = [], [], []
    header_seen = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        header_seen = header_seen or stripped.startswith("#ClusterName")
        if not header_seen or not stripped or stripped.startswith(("#", "Total:")) or set(stripped) == {"-"}:
            continue
        m = _ROUTE_ROW.match(stripped)
        if not m:
            problems.append(SourceProblem(Origin(path, number), "not a topicRoute -l row"))
            continue
        cluster, broker, addrs, read, write, perm = m.groups()
        addresses = {}
        for part in addrs[1:-1].split(","):
            key, _, value = part.strip().partition("=")
            if key.strip().isdigit() and value:
                addresses[int(key)] = value.strip()
        origin = Origin(path, number)
        queues.append(RouteQueues(broker, int(read), int(write), int(perm), origin))
        brokers.append(RouteBroker(broker, cluster, addresses, origin))
    if not queues and not problems:
        problems.append(SourceProblem(Origin(path, 1), "topicRoute -l output with no broker row"))
    return (TopicRoute(topic, queues, brokers, Origin(path, 1)) if queues else None), problems


# --- clusterList ----------------------------------------------------------------------------------------------


def parse_cluster_list(text: str, path: str) -> tuple[list[ClusterBroker], list[SourceProblem]]:
    """Brokers from `mqadmin clusterList`. The `-m` statistics form has no addresses and gives no broker."""
    brokers: list[ClusterBroker] = []
    problems: list[SourceProblem] = []
    header_seen = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#Cluster Name"):
            header_seen = "#BID" in stripped and "#Addr" in stripped
            if not header_seen:
                problems.append(SourceProblem(Origin(path, number),
                                              "clusterList without #BID/#Addr columns (the -m form?): not read"))
                return [], problems
            continue
        if not header_seen:
            continue
        tokens = stripped.split()
        if len(tokens) < 4 or not tokens[2].isdigit() or ":" not in tokens[3]:
            problems.append(SourceProblem(Origin(path, number), "not a clusterList row"))
            continue
        # The version is blank when the broker did not answer; the next column then starts with a number.
        version = tokens[4] if len(tokens) > 4 and (tokens[4].startswith("V") or tokens[4].replace("_", "").isalpha()) else ""
        brokers.append(ClusterBroker(tokens[0], tokens[1], int(tokens[2]), tokens[3], version,
                                     Origin(path, number)))
    if not header_seen and not problems:
        error = mqadmin_error(text)
        problems.append(SourceProblem(Origin(path, error[0]), f"mqadmin failed: {error[1]}") if error else
                        SourceProblem(Origin(path, 1), "not a clusterList output: no `#Cluster Name` header"))
    return brokers, problems


# --- consumerConnection ---------------------------------------------------------------------------------------

_SUB_MARK = "Below is subscription:"
_OLD_SUB = re.compile(r"^\d+\s+Topic:\s*(\S+)\s+SubExpression:\s*(.*)$")
_OLD_ROW = re.compile(r"^\d{3,}\s+\S+@")  # `001  10.0.0.1@pid ...`: a numbered connection row


def parse_consumer_connection(text: str, group: str, path: str) -> tuple[Optional[ConsumerConnection],
                                                                         list[SourceProblem]]:
    connections: list[Connection] = []
    subscriptions: list[ConnectedSubscription] = []
    problems: list[SourceProblem] = []
    consume_type = message_model = None
    model_origin = None
    section = "before"  # log lines may come first: the table starts at `#ClientId` or a numbered row
    saw_anything = False
    for number, raw in enumerate(text.splitlines(), 1):
        origin = Origin(path, number)
        line = raw.strip()
        if section == "before":
            if line.startswith("#ClientId") or _OLD_ROW.match(line):
                section = "connections"
            elif _SUB_MARK not in line:
                continue
        if _SUB_MARK in line:
            section = "subscriptions"
            saw_anything = True
            line = line.split(_SUB_MARK, 1)[1].strip()  # the old form printed the first row on this line
            if not line:
                continue
        if not line or line.startswith("#"):
            saw_anything = saw_anything or line.startswith("#ClientId")
            continue
        key, sep, value = line.partition(":")
        if sep and key in ("ConsumeType", "MessageModel", "ConsumeFromWhere"):
            section = "footer"
            saw_anything = True
            if key == "ConsumeType":
                consume_type = value.strip() or None
            elif key == "MessageModel":
                message_model, model_origin = value.strip() or None, origin
            continue
        if section == "connections":
            tokens = line.split()
            if _OLD_ROW.match(line):  # the old numbered form: `001  clientId  addr  language  version`
                tokens = tokens[1:]
            # a client id may hold spaces (a fixed instance name; a run of them reads as one): the last three
            # columns never do
            if len(tokens) < 4 or ":" not in tokens[-3] or not tokens[-2].replace("_", "").isalpha():
                problems.append(SourceProblem(origin, "not a consumerConnection client row"))
                continue
            address, language, version = tokens[-3:]
            connections.append(Connection(" ".join(tokens[:-3]), address, language, version_from_name(version),
                                          origin, version))
            saw_anything = True
        elif section == "subscriptions":
            m = _OLD_SUB.match(line)
            if m:
                topic, expression = m.group(1), m.group(2).strip()
            else:
                topic, _, expression = line.partition(" ")
                expression = expression.strip()
            subscriptions.append(ConnectedSubscription(topic, expression, origin))
    if not saw_anything:
        error = mqadmin_error(text)
        if error is not None and any(mark in error[1] for mark in NOT_ONLINE):
            return ConsumerConnection(group, [], [], None, None, Origin(path, error[0]), not_online=True), []
        if error is not None:
            return None, [SourceProblem(Origin(path, error[0]), f"mqadmin failed: {error[1]}")]
        return None, [SourceProblem(Origin(path, 1), "not a consumerConnection output" if text.strip() else
                                    "empty: the command printed nothing (a group that is not online prints its "
                                    "error on stderr: save with 2>&1)")]  # one line, not one per row
    return ConsumerConnection(group, connections, subscriptions, consume_type, message_model, Origin(path, 1),
                              model_origin), problems


# --- consumerProgress -----------------------------------------------------------------------------------------


def parse_consumer_progress(text: str, group: str, path: str) -> tuple[Optional[ConsumeProgress],
                                                                      list[SourceProblem]]:
    """A group's offsets per queue from `mqadmin consumerProgress -g <group>`: rows under the `#Topic` header,
    up to the `Consume TPS` / `Diff Total` lines."""
    queues: dict[Queue, QueueOffsets] = {}
    problems: list[SourceProblem] = []
    header = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("#Topic"):
            header = number
            continue
        if header is None or not line:
            continue
        if line.startswith(("Consume TPS", "Consume Diff", "Consume Inflight", "Diff Total")):
            break
        tokens = line.split()
        if len(tokens) < 5 or not all(t.lstrip("-").isdigit() for t in tokens[2:5]):
            problems.append(SourceProblem(Origin(path, number), "not a consumerProgress row"))
            continue
        topic, broker, qid, broker_offset, consumer_offset = tokens[0], tokens[1], *map(int, tokens[2:5])
        queue = Queue(topic, broker, qid)
        # the last consume time is printed in the local time of the machine that ran mqadmin: not read
        queues[queue] = QueueOffsets(queue, broker_offset, max(consumer_offset, 0), 0, Origin(path, number))
    if header is None:
        error = mqadmin_error(text)
        if error is not None:
            return None, [SourceProblem(Origin(path, error[0]), f"mqadmin failed: {error[1]}")]
        return None, [SourceProblem(Origin(path, 1), "not a consumerProgress -g output: no `#Topic` header"
                                    if text.strip() else "empty: the command printed nothing")]
    return ConsumeProgress(group, queues, Origin(path, header)), problems


# --- the directory --------------------------------------------------------------------------------------------


def _read_text(path: Path, problems: list[SourceProblem]) -> Optional[str]:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            problems.append(SourceProblem(Origin(str(path)), f"{size >> 20} MB is too large for an mqadmin output"))
            return None
        data = path.read_bytes()
    except OSError as err:
        problems.append(SourceProblem(Origin(str(path)), f"cannot read: {err.strerror or err}"))
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # PowerShell's `>` writes UTF-16 with a byte order mark
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            problems.append(SourceProblem(Origin(str(path)), "not UTF-16 after its byte order mark"))
            return None
    if b"\0" in data:
        problems.append(SourceProblem(Origin(str(path)), "binary file, not an mqadmin output"))
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        problems.append(SourceProblem(Origin(str(path), line), f"not UTF-8 (byte 0x{data[err.start]:02x})"))
        return None


def read_cluster_dir(directory: str | os.PathLike) -> ClusterSnapshot:
    """Every saved mqadmin output in `directory` (not recursive). Other files are ignored, but one that looks
    like a misnamed output (`topicRoute_X.json`, `consumerConnection-g.log`) is a problem naming the file name
    the reader expects."""
    snapshot = ClusterSnapshot()
    root = Path(directory)
    try:
        entries = sorted(p for p in root.iterdir() if p.is_file())
    except OSError as err:
        snapshot.problems.append(SourceProblem(Origin(str(root)), f"cannot list: {err.strerror or err}"))
        return snapshot
    for path in entries:
        name, label = path.name, str(path)
        if name.startswith(ROUTE_PREFIX) and name.endswith(ROUTE_SUFFIX):
            topic = name[len(ROUTE_PREFIX):-len(ROUTE_SUFFIX)]
            text = _read_text(path, snapshot.problems)
            if text is None or not topic:
                continue
            try:
                route, problems = parse_topic_route(text, topic, label, MAX_VALUES[codes.GET_ROUTEINFO_BY_TOPIC])
            except relaxed_json.TooManyValues:
                route, problems = None, [SourceProblem(Origin(label, 1), (
                    f"holds more than {MAX_VALUES[codes.GET_ROUTEINFO_BY_TOPIC]:,} values, more than a real "
                    "cluster's route: not read"))]
            claims = None if route is None else route_claims(route)
            if claims is not None:  # as from a live server: a saved file in a repository is input nobody vetted
                route, problems = None, [*problems, SourceProblem(Origin(label, 1), claims)]
            for problem in problems:
                if NO_ROUTE in problem.message:
                    snapshot.missing_topics[topic] = problem.origin
                else:
                    snapshot.problems.append(problem)
            if route is not None:
                snapshot.routes[topic] = route
        elif name == CLUSTER_LIST:
            text = _read_text(path, snapshot.problems)
            if text is not None:
                brokers, problems = parse_cluster_list(text, label)
                snapshot.brokers.extend(brokers)
                snapshot.problems.extend(problems)
        elif name.startswith(CONSUMER_PREFIX) and name.endswith(CONSUMER_SUFFIX):
            group = name[len(CONSUMER_PREFIX):-len(CONSUMER_SUFFIX)]
            text = _read_text(path, snapshot.problems)
            if text is None or not group:
                continue
            consumer, problems = parse_consumer_connection(text, group, label)
            snapshot.problems.extend(problems)
            if consumer is not None:
                snapshot.consumers[group] = consumer
        elif name.startswith(PROGRESS_PREFIX) and name.endswith(PROGRESS_SUFFIX):
            group = name[len(PROGRESS_PREFIX):-len(PROGRESS_SUFFIX)]
            text = _read_text(path, snapshot.problems)
            if text is None or not group:
                continue
            progress, problems = parse_consumer_progress(text, group, label)
            snapshot.problems.extend(problems)
            if progress is not None:
                snapshot.progress[group] = progress
        else:
            expected = next((e for p, e in _EXPECTED_NAMES if name.lower().startswith(p)), None)
            if expected is not None:
                snapshot.problems.append(SourceProblem(Origin(label), f"not read: an mqadmin output must be "
                                                                      f"named {expected}"))
    return snapshot


_EXPECTED_NAMES = (("topicroute", f"{ROUTE_PREFIX}<Topic>{ROUTE_SUFFIX}"),
                   ("consumerconnection", f"{CONSUMER_PREFIX}<group>{CONSUMER_SUFFIX}"),
                   ("consumerprogress", f"{PROGRESS_PREFIX}<group>{PROGRESS_SUFFIX}"),
                   ("clusterlist", CLUSTER_LIST))
