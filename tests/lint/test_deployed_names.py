"""RMQ001 from the build and the deployment: client and framework releases that name consumers the same in every
container, and names made from the host, where replicas share an IP; the releases' facts; the memo of the findings
follows edits of build and deployment files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rmqlint.client_releases import binder_made_name, client_default_name, consume_thread_max_default, \
    starter_made_name, starter_pool
from rmqlint.engine import lint_sources
from rules._examples import line_of

POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>{group}</groupId>
      <artifactId>{artifact}</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""

HOST_NETWORK = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  replicas: 3
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      hostNetwork: true
      containers:
        - name: orders
          image: registry.example.com/orders:1
"""

ONE_PER_NODE = HOST_NETWORK.replace("          image: registry.example.com/orders:1\n",
                                    "          image: registry.example.com/orders:1\n"
                                    "          ports:\n            - containerPort: 8080\n")

LISTENER = """\
package com.example.orders;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "orders_consumer")
public class OrderListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""

CONSUMER = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class OrderConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_consumer");
        consumer.subscribe("OrderTopic", "*");
        consumer.start();
    }
}
"""


def project(pom: str, deployment: str, code: dict[str, str]) -> dict[str, str]:
    return {"orders/pom.xml": pom, "deploy/orders.yaml": deployment, **code}


def rmq001(files: dict[str, str]) -> list[tuple[str, int, str]]:
    return [(f.location.path, f.location.line, f.message) for f in lint_sources(files) if f.code == "RMQ001"]


def pom(artifact: str, version: str, group: str = "org.apache.rocketmq") -> str:
    return POM.format(group=group, artifact=artifact, version=version)


def test_client_default_before_4_9_on_shared_ips():
    files = project(pom("rocketmq-client", "4.8.0"), HOST_NETWORK,
                    {"orders/src/main/java/com/example/orders/OrderConsumer.java": CONSUMER})
    ((path, line, message),) = rmq001(files)
    assert (path, line) == ("orders/pom.xml", line_of(pom("rocketmq-client", "4.8.0"), "<version>4.8.0"))
    assert "the pid" in message and "172.17.0.1" in message and "up to 3 processes" in message
    # near misses: 4.9.0 names it pid#nanoTime; one replica per node (a host port) keeps the IPs apart
    assert rmq001({**files, "orders/pom.xml": pom("rocketmq-client", "4.9.0")}) == []
    assert rmq001({**files, "deploy/orders.yaml": ONE_PER_NODE}) == []


def test_starter_releases():
    listener = {"orders/src/main/java/com/example/orders/OrderListener.java": LISTENER}
    keys = {"orders/src/main/resources/application.yml":
            "rocketmq:\n  consumer:\n    access-key: ${AK}\n    secret-key: ${SK}\n"}
    ((_p, _l, with_keys),) = rmq001(project(pom("rocketmq-spring-boot-starter", "2.1.1"), HOST_NETWORK,
                                            {**listener, **keys}))
    assert "accessKey|secretKey|consumerGroup|pid" in with_keys and "secret key" in with_keys
    ((_p, _l, without_keys),) = rmq001(project(pom("rocketmq-spring-boot-starter", "2.1.1"), HOST_NETWORK, listener))
    assert "which runs rocketmq-client 4.7.1" in without_keys  # the client's default: the pid
    assert rmq001(project(pom("rocketmq-spring-boot-starter", "2.2.3"), HOST_NETWORK, listener)) == []


def test_starter_2_0_2_and_2_0_3_names_hold_no_pid():
    """2.0.3 names every listener's consumer by its container bean (fixed text, with keys or without), 2.0.2 with
    keys AK|SK|group: the same in every process, so upgrading the client would not help; the advice says to upgrade
    the starter."""
    listener = {"orders/src/main/java/com/example/orders/OrderListener.java": LISTENER}
    keys = {"orders/src/main/resources/application.yml":
            "rocketmq:\n  consumer:\n    access-key: ${AK}\n    secret-key: ${SK}\n"}
    for code in (listener, {**listener, **keys}):
        ((_p, _l, message),) = rmq001(project(pom("rocketmq-spring-boot-starter", "2.0.3"), HOST_NETWORK, code))
        assert "instance name org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer_<n>, the same in " \
               "every process (it holds no pid)" in message
        assert "upgrade the starter" in message and "upgrade the client" not in message
    ((_p, _l, message),) = rmq001(project(pom("rocketmq-spring-boot-starter", "2.0.2"), HOST_NETWORK,
                                          {**listener, **keys}))
    assert "accessKey|secretKey|consumerGroup, the same in every process" in message and "secret key" in message
    # near misses: 2.0.2 without keys leaves the name to the client (4.4.0's pid: said as the client's default);
    # 2.0.4 adds the pid; one replica per node keeps the IPs apart
    ((_p, _l, message),) = rmq001(project(pom("rocketmq-spring-boot-starter", "2.0.2"), HOST_NETWORK, listener))
    assert "the client's default instance name, the pid" in message
    ((_p, _l, message),) = rmq001(project(pom("rocketmq-spring-boot-starter", "2.0.4"), HOST_NETWORK,
                                          {**listener, **keys}))
    assert "accessKey|secretKey|consumerGroup|pid, the same in every container" in message
    assert rmq001(project(pom("rocketmq-spring-boot-starter", "2.0.3"), ONE_PER_NODE, listener)) == []


BOM_POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>com.alibaba.cloud</groupId>
        <artifactId>spring-cloud-alibaba-dependencies</artifactId>
        <version>{version}</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>com.alibaba.cloud</groupId>
      <artifactId>spring-cloud-starter-stream-rocketmq</artifactId>
    </dependency>
  </dependencies>
</project>
"""

BINDINGS = """\
spring:
  cloud:
    stream:
      bindings:
        orders-in-0:
          destination: OrderTopic
          group: orders_consumer
"""


def test_spring_cloud_alibaba_binder():
    files = project(BOM_POM.format(version="2021.0.4.0"), HOST_NETWORK,
                    {"orders/src/main/resources/application.yml": BINDINGS})
    ((path, line, message),) = rmq001(files)
    assert (path, line) == ("orders/pom.xml", line_of(BOM_POM, "<version>{version}"))
    assert "spring-cloud-starter-stream-rocketmq 2021.0.4.0 gives every clustering consumer the instance name " \
           "group|pid" in message
    assert rmq001({**files, "orders/pom.xml": BOM_POM.format(version="2021.0.5.0")}) == []
    # a broadcasting binding takes every queue: its client id splits none (2.2.x and 2021.x spellings); a model
    # known only at run time is not known to be broadcasting
    rocketmq = ("      rocketmq:\n        bindings:\n          orders-in-0:\n"
                "            consumer:\n              {model}\n")
    for model in ("broadcasting: true", "messageModel: BROADCASTING"):
        assert rmq001({**files, "orders/src/main/resources/application.yml":
                       BINDINGS + rocketmq.format(model=model)}) == []
    assert len(rmq001({**files, "orders/src/main/resources/application.yml":
                       BINDINGS + rocketmq.format(model="messageModel: ${MODEL}")})) == 1
    # no input binding with a group: no consumer of the binder
    assert rmq001({**files, "orders/src/main/resources/application.yml": BINDINGS.replace(
        "          group: orders_consumer\n", "")}) == []


def test_release_facts():
    assert client_default_name("4.8.0").pattern == "pid" and not client_default_name("4.9.0").per_container
    assert client_default_name(None) is None
    assert starter_made_name("2.2.0", False).pattern == "nameServer@pid"
    assert starter_made_name("2.0.1", True) is None and starter_made_name("2.2.3", True) is None
    assert starter_made_name("2.0.3", False).fixed and starter_made_name("2.0.2", True).fixed
    assert starter_made_name("2.0.2", False) is None and not starter_made_name("2.0.4", True).fixed
    assert not starter_made_name("2.2.0", False).fixed and not binder_made_name("2.2.7.RELEASE", False).fixed
    assert binder_made_name("2021.1", False) is None and binder_made_name("2021.1", True).holds_secret
    assert binder_made_name("2.2.7.RELEASE", False).per_container
    assert consume_thread_max_default("4.4.0") == 64 and consume_thread_max_default("4.5.1") == 20
    assert consume_thread_max_default(None) == 20
    assert [starter_pool(v) for v in ("2.1.1", "2.2.2", "2.2.3", "2.3.0", None)] == [
        "max", "number", "number", "both", "both"]


PY_NOTIFIER = """\
import socket
import uuid

from rocketmq.client import ConsumeStatus, PushConsumer


def on_notice(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("notifier")
consumer.set_instance_name("notifier-" + socket.gethostname())
consumer.subscribe("Notices", on_notice)
consumer.start()
"""


def test_python_name_from_the_host_name_on_host_networking():
    """socket.gethostname() is the node's name on host networking: the replicas on one node share it, their IP and
    pid 1, so the C++ client's ip@pid#name is one id; reported at the setter with the pod's name as the fix."""
    files = {"notifier/requirements.txt": "rocketmq-client-python==2.0.0\n",
             "deploy/orders.yaml": HOST_NETWORK.replace("orders", "notifier"), "notifier/main.py": PY_NOTIFIER}
    ((path, line, message),) = rmq001(files)
    assert (path, line) == ("notifier/main.py", line_of(PY_NOTIFIER, "set_instance_name"))
    assert "made from the host name" in message and "downward API" in message
    # near misses: each pod its own host name off host networking; a UUID is unique per process
    assert rmq001({**files, "deploy/orders.yaml": files["deploy/orders.yaml"].replace("      hostNetwork: true\n",
                                                                                      "")}) == []
    assert rmq001({**files, "notifier/main.py": PY_NOTIFIER.replace("socket.gethostname()", "uuid.uuid4().hex")}) \
        == []


def test_an_edit_of_the_build_file_is_seen_by_the_cached_run(tmp_path):
    root = tmp_path / "shop"
    for rel, text in project(pom("rocketmq-client", "4.8.0"), HOST_NETWORK,
                             {"orders/src/main/java/com/example/orders/OrderConsumer.java": CONSUMER}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".rmqlint.toml").write_text("")

    def run() -> str:
        return subprocess.run([sys.executable, "-m", "rmqlint", "."], cwd=root, capture_output=True, text=True).stdout

    assert "RMQ001" in run() and "RMQ001" in run()  # the second from the memo
    (root / "orders/pom.xml").write_text(pom("rocketmq-client", "4.9.4"))
    assert "RMQ001" not in run()
    (root / "deploy/orders.yaml").write_text(HOST_NETWORK.replace("replicas: 3", "replicas: 1"))
    (root / "orders/pom.xml").write_text(pom("rocketmq-client", "4.8.0"))
    assert "RMQ001" not in run()  # one replica: nobody to share the IP with
