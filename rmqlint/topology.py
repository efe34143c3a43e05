"""The project's messaging topology as a graph: producers -> topic and tag -> consumer groups -> services.

Built with networkx from the linked facts (`rmqlint.project.Project`), so it shows what the linter knows: values
resolved across files and configuration, and nothing guessed (a topic, tag or group that is not known is left
out, and counted in the graph's `unknown` attribute). Nodes carry `kind` (producer, topic, tag, group, service),
`label` and `places` (the `path:line` of each fact behind them); edges carry `kind` (produces, subscribes, has,
runs-in).

- A producer is the source file that sends (RocketMQ has no producer identity a consumer could see).
- A tag node is `topic:tag`, linked from its topic; a subscription to every tag (`*`) links the group to the
  topic itself.
- A service is the build module (Maven artifactId, Gradle project, Python project) holding the consumer's file,
  else the directory above `src/main` (or the file's directory).

`render(graph, format)` writes Mermaid, Graphviz DOT, GraphML or JSON (node-link); names in the text formats
(Mermaid, DOT, GraphML) show their control characters escaped (`printable`), JSON keeps them.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from typing import TYPE_CHECKING, Callable, Optional

from rmqlint.printable import printable
from rmqlint.project import Project
from rmqlint.text import subscribed_tags as subscription_tags
from rmqlint.values import known_texts, literal_texts

if TYPE_CHECKING:
    import networkx as nx

FORMATS = ("mermaid", "dot", "graphml", "json")


def build_topology(project: Project, service_of: Optional[Callable[[str], str]] = None,
                   only: Optional[set[str]] = None) -> nx.DiGraph:
    """The graph of `project` (of the files in `only`, when given; values are still resolved across the whole
    project). `service_of(path)` names the service a file belongs to (default: `module_directory`)."""
    import networkx as nx  # imported when a graph is drawn: the rules do not need it

    service_of = service_of or module_directory
    graph = nx.DiGraph(unknown=0)
    unknown = Counter()

    def node(key: str, kind: str, label: str, place: Optional[str] = None) -> str:
        if key not in graph:
            graph.add_node(key, kind=kind, label=label, places=[])
        if place and place not in graph.nodes[key]["places"]:
            graph.nodes[key]["places"].append(place)
        return key

    def edge(a: str, b: str, kind: str) -> None:
        graph.add_edge(a, b, kind=kind)

    for facts, produced in project.produced():
        if only is not None and facts.path not in only:
            continue
        place = f"{produced.location.path}:{produced.location.line}"
        # A value that is one of several (`refund ? "Refunded" : "Settled"`): an edge for each known alternative.
        if not known_texts(produced.topic):
            unknown["produced topic"] += 1
            continue
        producer = node(f"producer:{facts.path}", "producer", facts.path.rsplit("/", 1)[-1], place)
        if literal_texts(produced.tag) is None:
            unknown["produced tag"] += 1
        for topic_text in known_texts(produced.topic):
            topic = node(f"topic:{topic_text}", "topic", topic_text)
            tags = [text for text in known_texts(produced.tag) if text.strip()]
            for text in tags:
                tag = node(f"tag:{topic_text}:{text}", "tag", f"{topic_text}:{text}", place)
                edge(topic, tag, "has")
                edge(producer, tag, "produces")
            if not tags:
                edge(producer, topic, "produces")

    for facts, client in project.clients():
        if client.role == "producer" or (only is not None and facts.path not in only):
            continue
        group_texts = literal_texts(client.group.value) if client.group is not None else None
        if not group_texts:
            unknown["consumer group"] += 1
            continue
        place = f"{client.location.path}:{client.location.line}"
        service_name = service_of(facts.path)
        for group_text in group_texts:
            group = node(f"group:{group_text}", "group", group_text, place)
            edge(group, node(f"service:{service_name}", "service", service_name), "runs-in")
            for sub in client.subscriptions:
                if not known_texts(sub.topic):
                    unknown["subscribed topic"] += 1
                    continue
                expressions = literal_texts(sub.expression) if sub.selector == "TAG" else None
                for topic_text in known_texts(sub.topic):
                    topic = node(f"topic:{topic_text}", "topic", topic_text)
                    for expression in expressions if expressions is not None else [None]:
                        tags = subscription_tags(expression) if expression is not None else None
                        if tags is None:  # SQL92, every tag or an unknown expression: the topic, unfiltered here
                            edge(topic, group, "subscribes")
                            continue
                        for text in sorted(tags):
                            tag = node(f"tag:{topic_text}:{text}", "tag", f"{topic_text}:{text}",
                                       f"{sub.location.path}:{sub.location.line}")
                            edge(topic, tag, "has")
                            edge(tag, group, "subscribes")
    graph.graph["unknown"] = sum(unknown.values())
    return graph


def module_directory(path: str) -> str:
    """Without a build file: the directory above `src/main` or `src/test` (the Maven and Gradle layout), else
    the file's directory."""
    for marker in ("/src/main/", "/src/test/"):
        if marker in f"/{path}":
            return f"/{path}".split(marker, 1)[0].strip("/") or "(project root)"
    return path.rpartition("/")[0] or "(project root)"


# --- output -------------------------------------------------------------------------------------------------

_MERMAID_SHAPES = {"producer": ('["', '"]'), "topic": ('[("', '")]'), "tag": ('(["', '"])'),
                   "group": ('{{"', '"}}'), "service": ('[["', '"]]')}
_ORDER = ("producer", "topic", "tag", "group", "service")
_MERMAID_STYLES = {"producer": "fill:#e8f0fe,stroke:#4a6fa5", "topic": "fill:#fff4d6,stroke:#b8860b",
                   "tag": "fill:#fffbea,stroke:#b8860b", "group": "fill:#e6f4ea,stroke:#2e7d32",
                   "service": "fill:#f3e8fd,stroke:#6a1b9a"}


def _ordered_nodes(graph: nx.DiGraph) -> list[str]:
    return sorted(graph.nodes, key=lambda n: (_ORDER.index(graph.nodes[n]["kind"]), graph.nodes[n]["label"], n))


def _mermaid_text(text: str) -> str:
    """A label inside Mermaid's double quotes: control characters escaped (`printable`), quotes and markup
    characters as entity codes."""
    out = []
    for ch in printable(text):
        if ch in '"#<>&':
            out.append(f"#{ord(ch)};")
        else:
            out.append(ch)
    return "".join(out)


def to_mermaid(graph: nx.DiGraph) -> str:
    ids = {n: f"n{i}" for i, n in enumerate(_ordered_nodes(graph))}
    lines = ["flowchart LR"]
    for n in ids:
        attrs = graph.nodes[n]
        left, right = _MERMAID_SHAPES[attrs["kind"]]
        lines.append(f"  {ids[n]}{left}{_mermaid_text(attrs['label'])}{right}")
    for a, b in sorted(graph.edges, key=lambda e: (ids[e[0]], ids[e[1]])):
        lines.append(f"  {ids[a]} -->|{graph.edges[a, b]['kind']}| {ids[b]}")
    for kind in _ORDER:
        members = [ids[n] for n in ids if graph.nodes[n]["kind"] == kind]
        if members:
            lines.append(f"  classDef {kind} {_MERMAID_STYLES[kind]}")
            lines.append(f"  class {','.join(members)} {kind}")
    return "\n".join(lines) + "\n"


def _dot_string(text: str) -> str:
    """A DOT quoted string of `text` with its control characters escaped (`printable`): one line of the file."""
    return '"' + printable(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


_DOT_SHAPES = {"producer": "box", "topic": "cylinder", "tag": "ellipse", "group": "hexagon", "service": "component"}


def to_dot(graph: nx.DiGraph) -> str:
    lines = ["digraph rocketmq {", "  rankdir=LR;"]
    for n in _ordered_nodes(graph):
        attrs = graph.nodes[n]
        lines.append(f"  {_dot_string(n)} [label={_dot_string(attrs['label'])}, shape={_DOT_SHAPES[attrs['kind']]}, "
                     f"kind={_dot_string(attrs['kind'])}];")
    for a, b in sorted(graph.edges):
        lines.append(f"  {_dot_string(a)} -> {_dot_string(b)} [label={_dot_string(graph.edges[a, b]['kind'])}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_graphml(graph: nx.DiGraph) -> str:
    """GraphML, with the node ids, labels and places `printable`: XML 1.0 cannot hold control characters (not even
    as character references), so a name holding one would make the file unreadable; the escapes keep names apart."""
    import networkx as nx

    flat = nx.DiGraph()
    for n in _ordered_nodes(graph):
        attrs = graph.nodes[n]
        flat.add_node(printable(n), kind=attrs["kind"], label=printable(attrs["label"]),
                      places=printable(" ".join(attrs["places"])))
    for a, b in sorted(graph.edges):
        flat.add_edge(printable(a), printable(b), kind=graph.edges[a, b]["kind"])
    buffer = io.BytesIO()
    nx.write_graphml(flat, buffer, encoding="utf-8")
    return buffer.getvalue().decode("utf-8")


def to_json(graph: nx.DiGraph) -> str:
    data = {"nodes": [{"id": n, **graph.nodes[n]} for n in _ordered_nodes(graph)],
            "edges": [{"source": a, "target": b, **graph.edges[a, b]} for a, b in sorted(graph.edges)],
            "unknown": graph.graph.get("unknown", 0)}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render(graph: nx.DiGraph, fmt: str) -> str:
    return {"mermaid": to_mermaid, "dot": to_dot, "graphml": to_graphml, "json": to_json}[fmt](graph)
