"""Small project builders shared by the engine, cache, discovery and CLI tests (no tests here)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

CONSTANTS_JAVA = """\
package com.app;

public final class Names {
    public static final String INSTANCE = "fixed-" + "worker";
    public static final String TOPIC = "orders";
}
"""

CONSUMER_JAVA = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Consumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("group_a");
        consumer.setInstanceName(Names.INSTANCE);
        consumer.subscribe(Names.TOPIC, "TagA");
        consumer.start();
    }
}
"""
CONSUMER_FINDING_LINE = 8  # the setInstanceName call

OTHER_CONSUMER_JAVA = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Other {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("group_b");
        consumer.setInstanceName("other-fixed");
        consumer.start();
    }
}
"""

PLAIN_JAVA = """\
package com.app;

public class Plain {
    int add(int a, int b) { return a + b; }
}
"""

OLD = 1_600_000_000  # a modification time long before any test run: the cache may trust the stat


def write_project(root: Path, files: dict[str, str | bytes], git: bool = False, age_files: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        if age_files:
            os.utime(path, (OLD, OLD))
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    else:
        (root / ".rmqlint.toml").write_text("", encoding="utf-8")  # marks the project root
    return root


def java_project(root: Path, **kw) -> Path:
    return write_project(
        root,
        {
            "src/main/java/com/app/Names.java": CONSTANTS_JAVA,
            "src/main/java/com/app/Consumer.java": CONSUMER_JAVA,
            "src/main/java/com/app/Plain.java": PLAIN_JAVA,
        },
        **kw,
    )


# A module deployed on host networking whose consumers set no instanceName: the client release (pom.xml) and the
# replica count (the manifest) decide whether replicas on one node report one client id (RMQ001 at the release).
CLIENT_POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.rocketmq</groupId>
      <artifactId>rocketmq-client</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""

HOST_NETWORK_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: orders}}
  template:
    metadata:
      labels: {{app: orders}}
    spec:
      hostNetwork: true
      containers:
        - name: orders
          image: registry.example.com/orders:1.4.2
"""

ORDERS_CONSUMER_JAVA = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class OrderConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_consumer");%s
        consumer.subscribe("OrderTopic", "*");
        consumer.start();
    }
}
"""
UNNAMED = ""
FROM_HOSTNAME = '\n        consumer.setInstanceName(System.getenv("HOSTNAME"));'  # the node's name on host networking

ORDERS_POM = "orders/pom.xml"
ORDERS_DEPLOYMENT = "deploy/orders.yaml"
ORDERS_CONSUMER = "orders/src/main/java/com/example/orders/OrderConsumer.java"


def deployed_files(version: str = "4.9.3", replicas: int = 3, name: str = UNNAMED) -> dict[str, str]:
    """The deployed orders module: rocketmq-client `version`, `replicas` on host networking, a consumer `name`d."""
    return {ORDERS_POM: CLIENT_POM.format(version=version),
            ORDERS_DEPLOYMENT: HOST_NETWORK_DEPLOYMENT.format(replicas=replicas),
            ORDERS_CONSUMER: ORDERS_CONSUMER_JAVA % name}
