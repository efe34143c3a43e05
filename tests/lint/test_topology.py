"""`rmqlint graph`: the topology graph, and each output format read back by a real parser."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import networkx as nx
import pytest

from rmqlint.cli import main
from rmqlint.engine import SourceIndex
from rmqlint.linker import Linker
from rmqlint.topology import build_topology, render, subscription_tags

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / ".venv" / "node" / "node_modules"

PRODUCER = """\
package shop;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class Orders {
    void send(DefaultMQProducer producer, byte[] body) throws Exception {
        producer.send(new Message("OrderEvents", "Created", body));
        producer.send(new Message("OrderEvents", "Paid", body));
    }
}
"""

CONSUMER = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on(msg):
    return ConsumeStatus.CONSUME_SUCCESS


billing = PushConsumer("billing_cg")
billing.subscribe("OrderEvents", on, "Paid || Refunded")
audit = PushConsumer("audit_cg")
audit.subscribe("OrderEvents", on, "*")
"""


def _project(files: dict[str, str]):
    index = SourceIndex.in_memory({p: t.encode() for p, t in files.items()})
    index.scan()
    return Linker(index.facts, index, root="").link()


def test_producers_topics_tags_groups_services():
    graph = build_topology(_project({"orders/src/main/java/shop/Orders.java": PRODUCER,
                                     "billing/consumer.py": CONSUMER}))
    kinds = {n: graph.nodes[n]["kind"] for n in graph}
    assert sorted(n for n, k in kinds.items() if k == "tag") == [
        "tag:OrderEvents:Created", "tag:OrderEvents:Paid", "tag:OrderEvents:Refunded"]
    assert graph.has_edge("producer:orders/src/main/java/shop/Orders.java", "tag:OrderEvents:Paid")
    assert graph.has_edge("tag:OrderEvents:Paid", "group:billing_cg")
    assert graph.has_edge("topic:OrderEvents", "group:audit_cg")  # `*`: the whole topic
    assert not graph.has_edge("tag:OrderEvents:Created", "group:billing_cg")
    assert graph.has_edge("group:billing_cg", "service:billing")
    assert graph.nodes["group:billing_cg"]["places"] == ["billing/consumer.py:8"]
    assert graph.graph["unknown"] == 0


def test_unknown_values_are_left_out_and_counted():
    consumer = CONSUMER.replace('PushConsumer("billing_cg")', 'PushConsumer(os.environ["GROUP"])')
    graph = build_topology(_project({"billing/consumer.py": "import os\n" + consumer}))
    assert "group:billing_cg" not in graph and graph.graph["unknown"] == 1


def test_subscription_tags_split_as_the_client_does():
    assert subscription_tags(" a || b ||") == {"a", "b"}
    assert subscription_tags("*") is None and subscription_tags("") is None and subscription_tags("a || *") is None


@pytest.fixture(scope="module")
def example_graph():
    graph = build_topology(_project({p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
                                     for p in (ROOT / "examples").rglob("*")
                                     if p.suffix in (".java", ".py", ".properties", ".yml")}))
    assert len(graph) > 20
    return graph


def test_graphml_and_json_read_back(example_graph, tmp_path):
    path = tmp_path / "g.graphml"
    path.write_text(render(example_graph, "graphml"), encoding="utf-8")
    back = nx.read_graphml(path)
    assert set(back.nodes) == set(example_graph.nodes) and set(back.edges) == set(example_graph.edges)
    data = json.loads(render(example_graph, "json"))
    assert {n["id"] for n in data["nodes"]} == set(example_graph.nodes)
    assert {(e["source"], e["target"]) for e in data["edges"]} == set(example_graph.edges)


def test_graphml_of_names_with_control_characters_is_xml():
    """XML 1.0 cannot hold ESC or NUL, not even as character references: a tag holding them is written escaped, as
    the other text formats show it, and the file still parses."""
    graph = build_topology(_project({"src/Shop.java": PRODUCER.replace('"Paid"', '"Pa\\u001bid\\u0000"')}))
    document = ElementTree.fromstring(render(graph, "graphml").encode("utf-8"))
    namespace = "{http://graphml.graphdrawing.org/xmlns}"
    ids = {node.get("id") for node in document.iter(f"{namespace}node")}
    labels = {data.text for data in document.iter(f"{namespace}data")}
    assert "tag:OrderEvents:Pa\\x1bid\\x00" in ids and "OrderEvents:Pa\\x1bid\\x00" in labels
    assert "tag:OrderEvents:Pa\x1bid\x00" in graph  # the graph itself keeps the name (JSON writes it as it is)


def test_dot_reads_back(example_graph):
    pydot = pytest.importorskip("pydot")
    (dot,) = pydot.graph_from_dot_data(render(example_graph, "dot"))
    names = {n.get_name().strip('"') for n in dot.get_nodes()} - {"node", "edge", "graph"}
    assert names == set(example_graph.nodes)
    assert len(dot.get_edges()) == example_graph.number_of_edges()


def test_mermaid_is_valid_for_mermaid_itself(example_graph, tmp_path):
    node = shutil.which("node")
    if node is None or not (NODE_MODULES / "mermaid").is_dir():
        pytest.skip("node and the mermaid package are needed (make install-test puts mermaid in .venv/node)")
    path = tmp_path / "g.mmd"
    path.write_text(render(example_graph, "mermaid"), encoding="utf-8")
    # ES modules resolve packages from the script's own place: run a copy that sits beside node_modules.
    script = NODE_MODULES.parent / "mermaid_parse.mjs"
    shutil.copyfile(ROOT / "tests" / "lint" / "tools" / "mermaid_parse.mjs", script)
    done = subprocess.run([node, str(script), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "flowchart" in done.stdout
    broken = tmp_path / "broken.mmd"
    broken.write_text("flowchart LR\n  a -->\n", encoding="utf-8")
    assert subprocess.run([node, str(script), str(broken)], capture_output=True, timeout=120).returncode == 1


def test_the_command_writes_atomically_and_says_what_is_wrong(tmp_path, capsys):
    out = tmp_path / "g.json"
    assert main(["graph", str(ROOT / "examples"), "--format", "json", "-o", str(out), "--no-cache"]) == 0
    assert json.loads(out.read_text())["nodes"]
    assert main(["graph", str(tmp_path / "missing")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
