"""RMQ001: a fixed instanceName on a clustering consumer."""

from __future__ import annotations

from typing import Iterable

from rmqlint.findings import Finding, Related
from rmqlint.fixes import UNSAFE, Fix, after, appended, removal
from rmqlint.project import Project
from rmqlint.values import Dynamic, Lit, alternatives, literal_texts
from rmqlint.rules._consumers import CLUSTERING, REBALANCING_ROLES, describe_group, message_model
from rmqlint.rules._deployed_names import deployed_collisions
from rmqlint.rules._examples import line_of
from rmqlint.rules._fixing import Unfixable, go_packages, python_module
from rmqlint.rules.base import Example, Rule

# The value every client starts with; a clustering consumer replaces it at start, so writing it is harmless.
DEFAULT_INSTANCE_NAME = "DEFAULT"

_JAVA_LAPTOP_NAME = """\
package com.example.order;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class Consumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("consumer_group");
        consumer.setNamesrvAddr("127.0.0.1:9876");
        consumer.setInstanceName("XUJIAN_MACBOOK");
        consumer.subscribe("TopicTest", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            System.out.printf("%s Receive New Messages: %s %n", Thread.currentThread().getName(), msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }
}
"""

_JAVA_CONSTANTS = """\
package com.example.billing;

public final class MqNames {
    public static final String GROUP = "billing_consumer";
    public static final String NODE = "billing-" + "node";

    private MqNames() {
    }
}
"""

_JAVA_CONSTANT_USER = """\
package com.example.billing;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;

public class BillingPuller {
    private final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(MqNames.GROUP);

    public void start() throws MQClientException {
        consumer.setNamesrvAddr("127.0.0.1:9876");
        consumer.setInstanceName(MqNames.NODE);
        consumer.subscribe("BillingTopic", "*");
        consumer.start();
    }
}
"""

_SPRING_LISTENER = """\
package com.example.audit;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(
    topic = "AuditTopic",
    consumerGroup = "audit_consumer",
    instanceName = "${audit.mq.instance:audit-node}")
public class AuditListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_CONFIG = """\
rocketmq:
  name-server: 127.0.0.1:9876
  consumer:
    group: report_puller
    topic: ReportTopic
    instance-name: report-node
"""

_PYTHON2 = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    print(msg.id, msg.body)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_ORDER")
consumer.set_name_server_address("127.0.0.1:9876")
consumer.set_instance_name("order-worker")
consumer.subscribe("OrderTopic", on_message)
consumer.start()
"""

_JAVA_EITHER_NAME = """\
package com.example.order;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class RegionalConsumer {
    public static void main(String[] args) throws Exception {
        boolean primary = args.length > 0 && args[0].equals("primary");
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("regional_consumer");
        consumer.setInstanceName(primary ? "orders-primary" : "orders-standby");
        consumer.subscribe("OrderTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_PYTHON2_BRANCHES = """\
import os

from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


if os.getenv("REGION") == "eu":
    name = "orders-eu"
else:
    name = "orders-us"

consumer = PushConsumer("regional_orders")
consumer.set_instance_name(name)
consumer.subscribe("OrderTopic", on_message)
consumer.start()
"""

# Names no code writes: a starter release that makes the name the same in every container, deployed on host
# networking with several replicas per node; a name made from the host name there; the Python 2.x client there.
_STARTER_POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.rocketmq</groupId>
      <artifactId>rocketmq-spring-boot-starter</artifactId>
      <version>2.2.0</version>
    </dependency>
  </dependencies>
</project>
"""

_HOST_NETWORK_DEPLOYMENT = """\
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
          image: registry.example.com/orders:1.4.2
"""

_POD_NETWORK_DEPLOYMENT = _HOST_NETWORK_DEPLOYMENT.replace("      hostNetwork: true\n", "")

_SPRING_ORDERS = """\
package com.example.orders;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "orders_consumer")
public class OrderListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_JAVA_CLIENT_POM = _STARTER_POM.replace("rocketmq-spring-boot-starter", "rocketmq-client").replace(
    "<version>2.2.0</version>", "<version>4.9.4</version>")

_JAVA_HOSTNAME = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class OrderConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_consumer");
        consumer.setInstanceName("orders-" + System.getenv("HOSTNAME"));
        consumer.subscribe("OrderTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_PYTHON_REQUIREMENTS = "rocketmq-client-python==2.0.0\n"

_PYTHON_COMPOSE = """\
services:
  worker:
    image: registry.example.com/worker:2.1
    network_mode: host
    deploy:
      replicas: 2
"""

_PYTHON_WORKER = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("worker_group")
consumer.subscribe("TaskTopic", on_message)
consumer.start()
"""

# --- near misses that must stay quiet ---

_JAVA_PARTLY_DYNAMIC_NAME = """\
package com.example.order;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class RegionalConsumer {
    public static void main(String[] args) throws Exception {
        String name = "orders-local";
        if (System.getenv("HOSTNAME") != null) {
            name = "orders-" + System.getenv("HOSTNAME");
        }
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("regional_consumer");
        consumer.setInstanceName(name);
        consumer.subscribe("OrderTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_PYTHON2_PARTLY_DYNAMIC = """\
import os
import socket

from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("regional_orders")
consumer.set_instance_name("dev" if os.getenv("DEBUG") else socket.gethostname())
consumer.subscribe("OrderTopic", on_message)
consumer.start()
"""

_JAVA_PRODUCER_AND_DEFAULT = """\
package com.example.order;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class OrderClients {
    public static void main(String[] args) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("order_producer");
        producer.setInstanceName("order-producer");
        producer.start();

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order_consumer");
        consumer.setInstanceName("DEFAULT");
        consumer.subscribe("OrderTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_JAVA_BROADCASTING = """\
package com.example.cache;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class CacheInvalidator {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("cache_invalidator");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.setInstanceName("cache-node");
        consumer.subscribe("CacheTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_JAVA_DYNAMIC_MODEL = """\
package com.example.cache;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class ConfigurableConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("configurable_consumer");
        consumer.setMessageModel(MessageModel.valueOf(System.getProperty("mq.model", "CLUSTERING")));
        consumer.setInstanceName("configurable-node");
        consumer.subscribe("CacheTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_LISTENER_NO_NAME = """\
package com.example.audit;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "AuditTopic", consumerGroup = "audit_consumer", instanceName = "${AUDIT_INSTANCE}")
public class AuditListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_LISTENER_ABSENT = """\
package com.example.audit;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "AuditTopic", consumerGroup = "audit_consumer")
public class AuditHistoryListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_PYTHON2_DYNAMIC = """\
import os
import socket

from rocketmq.client import ConsumeStatus, MessageModel, Producer, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


producer = Producer("PID_ORDER")
producer.set_instance_name("order-producer")

consumer = PushConsumer("CID_ORDER")
consumer.set_instance_name(os.environ.get("POD_NAME", socket.gethostname()))
consumer.subscribe("OrderTopic", on_message)
consumer.start()

notifier = PushConsumer("CID_NOTIFY", message_model=MessageModel.BROADCASTING)
notifier.set_instance_name("notify-node")
notifier.subscribe("NotifyTopic", on_message)
notifier.start()
"""


_GO_FIXED = """\
package main

import (
\t"context"

\t"github.com/apache/rocketmq-client-go/v2"
\t"github.com/apache/rocketmq-client-go/v2/consumer"
\t"github.com/apache/rocketmq-client-go/v2/primitive"
)

func main() {
\tc, _ := rocketmq.NewPushConsumer(
\t\tconsumer.WithGroupName("orders_consumer"),
\t\tconsumer.WithNsResolver(primitive.NewPassthroughResolver([]string{"127.0.0.1:9876"})),
\t\tconsumer.WithInstance("orders-node"),
\t)
\t_ = c.Subscribe("OrderTopic", consumer.MessageSelector{},
\t\tfunc(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\t\t\treturn consumer.ConsumeSuccess, nil
\t\t})
\t_ = c.Start()
}
"""
_GO_MOD = """\
module github.com/acme/orders

go 1.21

require github.com/apache/rocketmq-client-go/v2 v2.1.2
"""
# No name: rocketmq-client-go reports ip@pid, the same in pid-1 containers that share the node's IP.
_GO_DEFAULT = _GO_FIXED.replace('\t\tconsumer.WithInstance("orders-node"),\n', "")
_GO_BROADCASTING = _GO_FIXED.replace('consumer.WithInstance("orders-node"),',
                                     'consumer.WithInstance("orders-node"),\n\t\tconsumer.WithConsumerModel(consumer.BroadCasting),')
_GO_POD_NAME = _GO_FIXED.replace('\t"context"\n', '\t"context"\n\t"os"\n').replace(
    'consumer.WithInstance("orders-node")', 'consumer.WithInstance("orders-" + os.Getenv("POD_NAME"))')


_JAVA_CLASS_NAME = """\
package com.example.events;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public abstract class EventConsumer {
    private DefaultMQPushConsumer consumer;

    protected abstract String topic();

    public void start() throws Exception {
        consumer = new DefaultMQPushConsumer("events_consumer");
        consumer.setInstanceName(getClass().getSimpleName());
        consumer.subscribe(topic(), "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_JAVA_CLASS_NAME_UNIQUE = _JAVA_CLASS_NAME.replace(
    "getClass().getSimpleName()", 'getClass().getSimpleName() + "@" + UtilAll.getPid() + "#" + System.nanoTime()').replace(
    "import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;",
    "import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;\n"
    "import org.apache.rocketmq.common.UtilAll;")

_PYTHON2_CLASS_NAME = """\
from rocketmq.client import ConsumeStatus, PushConsumer


class EventConsumer:
    topic = "events"

    def start(self):
        consumer = PushConsumer("events_consumer")
        consumer.set_name_server_address("127.0.0.1:9876")
        consumer.set_instance_name(type(self).__name__)
        consumer.subscribe(self.topic, self.handle)
        consumer.start()

    def handle(self, msg):
        return ConsumeStatus.CONSUME_SUCCESS
"""

_PYTHON2_CLASS_NAME_UNIQUE = _PYTHON2_CLASS_NAME.replace(
    "type(self).__name__", "type(self).__name__ + str(uuid.uuid4())").replace("from rocketmq", "import uuid\nfrom rocketmq")


class FixedInstanceName(Rule):
    CODE = "RMQ001"
    NAME = "fixed-instance-name"
    SEVERITY = "error"
    SUMMARY = "A clustering consumer's instanceName is fixed, so replicas sharing an IP report the same client id"
    DOCS = """\
## What it does
Finds clustering consumers (push consumers, lite pull consumers, Spring `@RocketMQMessageListener`s, Spring
`rocketmq.consumer.*` configuration, Python 2.x `PushConsumer`s, Go `rocketmq.NewPushConsumer` /
`NewPullConsumer` with `consumer.WithInstance(..)`) whose `instanceName` is fixed in code or
configuration: a string literal, a constant, a Spring property that resolves to the same text in every replica
(placed there by `@Value`, a `@ConfigurationProperties` bean's getter or `environment.getProperty`, as each profile
sets it), or the name of a class (`getClass().getSimpleName()`, Python `type(self).__name__`), which is the same in
every replica whatever it is.

It also finds names no code writes, where the project's build and deployment files show the collision: a module
whose build file (`pom.xml`, `build.gradle`, `requirements.txt`) names a release that gives consumers a name that is
the same in every container, and whose deployment (a Kubernetes workload or docker-compose service among the
project's files) lets several replicas share an IP (host networking with more than one replica per node, at worst):
- rocketmq-client before 4.9.0: a consumer with no name gets the pid, which is 1 in every container;
- rocketmq-spring-boot-starter 2.2.0: `nameServer@pid`; 2.0.4 to 2.1.1 with access keys:
  `accessKey|secretKey|consumerGroup|pid`; 2.0.3 the listener container's bean name
  (`org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer_<n>`) and 2.0.2 with access keys
  `accessKey|secretKey|consumerGroup`, fixed text that is the same in every process whatever its pid (only a
  newer starter helps: the starter overrides any client's default); the others leave the client's default
  (2.2.1 adds the time, and from 2.2.3 the client names its consumers);
- Spring Cloud Alibaba's RocketMQ binder (`spring-cloud-starter-stream-rocketmq`, Maven): 2.2.7 to 2.2.10 and
  2021.0.1.0 to 2021.0.4.0 `[accessKey|secretKey|]group|pid`; earlier ones with keys
  `accessKey|secretKey|topic|pid|pid` (from 2021.0.5.0 the time is added);
- the Python 2.x client: `ip@pid#instanceName`;
- rocketmq-client-go v2 (`go.mod`), every release: `ip@pid` for a consumer without `WithInstance`;
reported at the release in the build file (the Python client at the deployment's host networking line), and a name
made from the host name (`System.getenv("HOSTNAME")`, `InetAddress.getLocalHost()`, `socket.gethostname()`,
`${HOSTNAME}`) or the pid alone on such a deployment, reported where it is set: on host networking the host name is
the node's.

## Why is this bad?
A client id is `clientIP@instanceName` (plus `@unitName` when set). A clustering consumer that keeps the default
`DEFAULT` replaces it at start with its pid (clients >= 4.9.0: `pid#nanoTime`), which is what makes two processes on
one host distinct. A fixed instanceName is never replaced. Every replica that shares an IP (several JVMs on one
host, containers on host networking) then reports the same client id. Each process computes its own share of the
queues from the sorted list of client ids, and processes with the same id compute the same share: they consume the
same queues twice, and the remaining queues are consumed by nobody. Their messages pile up silently: in a reported case,
two consumers on one laptop both named `XUJIAN_MACBOOK` took queues 0 and 1, and queues 2 and 3 were never
consumed.

Where containers run on host networking, every replica on a node reports the node's IP, and its host name is the
node's name; every container's process is pid 1. So a name made of the pid or the host name and fixed text, as the
releases above make it, is shared by the replicas on one node. Clients before 4.9.0 do not skip bridge interfaces
when they choose their address (`RemotingUtil.getLocalAddress`): on a node that also runs Docker they may report the
bridge's 172.17.0.1, the same on every node. And containers on Docker's default bridge on different hosts get the
same addresses (the first one 172.17.0.2 on each host). A name with the pod's name in it, or the time, keeps them
apart. When several replicas share a secret-bearing name, the secret key is also in the client id that every
broker logs.

rocketmq-client-go reports `ip@pid` when no instance name is set, in every release (it never adds the time), and
`ip@name` for `WithInstance(name)`: a fixed name collides on one host, and without one, pid-1 containers that share
an IP collide (rocketmq-client-go#536: consumers in containers reporting the docker0 address). It takes the address
of the first network interface that is up, so a node's Docker bridge (172.17.0.1) may be what every replica reports.
The Python 2.x client (the C++ core) puts the pid into the client id (`ip@pid#instanceName`); there, replicas
collide when they also share the pid, as containers on host networking do (every container's process is pid 1),
and only a per-replica instanceName tells them apart.

Producers do not take part in rebalancing, and broadcasting consumers take every queue anyway, so a fixed name is
not reported on them. A value that cannot be known statically (environment, hostname, pid) is not reported. A
name that is one of several (`primary ? "orders-a" : "orders-b"`, a variable set in the branches of an `if`) is
reported when every one of them is fixed: replicas that take the same branch collide; when one branch is unique per
replica (the hostname), it is not reported.

## Example
```java
DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("consumer_group");
consumer.setInstanceName("XUJIAN_MACBOOK");   // every replica: 10.0.0.5@XUJIAN_MACBOOK
consumer.subscribe("TopicTest", "*");
```

## Fix
Remove the setter: the client then picks a name unique per process (clients >= 4.9.0: `pid#nanoTime`). In Spring,
drop `instanceName` from `@RocketMQMessageListener` (its default `DEFAULT` is replaced at start). Before 4.9.0 that
name is the pid alone, and the Python 2.x client's id keeps the pid (`ip@pid#DEFAULT`): where replicas share an IP
and a pid (containers on host networking are all pid 1) removing the name is not enough, and a name unique per
process, as below, is needed.

Several consumers of one group in one process on purpose (one per topic, or a pool) need a name each: on clients
before 4.9.0 they would otherwise share the process's client instance, which refuses the group a second time
("The consumer group has been created before"). Keep the fixed name as a prefix per consumer and append what is
unique per process, as the client does for a name it replaces:
```java
consumer.setInstanceName("orders-" + i + "@" + UtilAll.getPid() + "#" + System.nanoTime());
```
Something unique per replica works too, but choose it for where the replicas run:
- not the host name (`HOSTNAME`, `InetAddress.getLocalHost().getHostName()`, Python `socket.gethostname()`): on
  host networking it is the node's name, which every replica on that node shares;
- not the pid alone in containers: every container's entrypoint is pid 1;
- the pod's name, given by the downward API, is unique per pod:
  ```yaml
  env:
    - name: POD_NAME
      valueFrom: {fieldRef: {fieldPath: metadata.name}}
  ```
  with `consumer.setInstanceName("orders-" + System.getenv("POD_NAME"))`, or `${POD_NAME}` in Spring configuration.

In Go, remove `WithInstance` only where the pids differ; else append what is unique per process,
`consumer.WithInstance("orders-node@" + strconv.Itoa(os.Getpid()) + "#" + strconv.FormatInt(time.Now().UnixNano(), 10))`,
or name each replica by the pod (`os.Getenv("POD_NAME")`).
`rmqlint --fix --unsafe-fixes` makes the name unique per process and keeps the fixed part, which still tells apart
consumers of one group that run in one process on purpose: Java appends what the client itself uses for a name it
replaces (`"XUJIAN_MACBOOK@" + UtilAll.getPid() + "#" + System.nanoTime()`), Go the same from `os.Getpid()` and
`time.Now().UnixNano()` (the imports of `os`, `strconv` and `time` added when missing), Python a random UUID (a container's
process is pid 1; `import uuid` added before the code that runs it, and no fix where `uuid` names something else
there, as the message then says), Spring configuration `-${random.uuid}`, which Spring Boot fills in once per
process; a `@RocketMQMessageListener` loses its `instanceName` attribute (the starter does not read placeholders
there). The fix is unsafe because the client id changes, and with it what dashboards and scripts show.
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/order/Consumer.java": _JAVA_LAPTOP_NAME},
            expect=(("src/main/java/com/example/order/Consumer.java", line_of(_JAVA_LAPTOP_NAME, "setInstanceName")),),
            note="a literal instanceName on a push consumer",
        ),
        Example(
            {"src/main/java/com/example/events/EventConsumer.java": _JAVA_CLASS_NAME},
            expect=(("src/main/java/com/example/events/EventConsumer.java",
                     line_of(_JAVA_CLASS_NAME, "setInstanceName")),),
            note="the name of the subclass that runs: a fixed text, the same in every replica",
        ),
        Example(
            {"events.py": _PYTHON2_CLASS_NAME},
            expect=(("events.py", line_of(_PYTHON2_CLASS_NAME, "set_instance_name")),),
            note="Python: type(self).__name__, the same in every replica",
        ),
        Example(
            {
                "src/main/java/com/example/billing/MqNames.java": _JAVA_CONSTANTS,
                "src/main/java/com/example/billing/BillingPuller.java": _JAVA_CONSTANT_USER,
            },
            expect=(
                (
                    "src/main/java/com/example/billing/BillingPuller.java",
                    line_of(_JAVA_CONSTANT_USER, "setInstanceName"),
                ),
            ),
            note="a constant from another class, on a lite pull consumer",
        ),
        Example(
            {"src/main/java/com/example/audit/AuditListener.java": _SPRING_LISTENER},
            expect=(("src/main/java/com/example/audit/AuditListener.java", line_of(_SPRING_LISTENER, "instanceName")),),
            note="a Spring listener whose placeholder falls back to a fixed default",
        ),
        Example(
            {"src/main/resources/application.yml": _SPRING_CONFIG},
            expect=(("src/main/resources/application.yml", line_of(_SPRING_CONFIG, "instance-name")),),
            note="the Spring Boot lite pull consumer configured by rocketmq.consumer.*",
        ),
        Example(
            {"consumer.py": _PYTHON2},
            expect=(("consumer.py", line_of(_PYTHON2, "set_instance_name")),),
            note="a Python 2.x PushConsumer",
        ),
        Example(
            {"src/main/java/com/example/order/RegionalConsumer.java": _JAVA_EITHER_NAME},
            expect=(("src/main/java/com/example/order/RegionalConsumer.java",
                     line_of(_JAVA_EITHER_NAME, "setInstanceName")),),
            note="one of two fixed names: every replica of either kind shares its name",
        ),
        Example(
            {"consumer.py": _PYTHON2_BRANCHES},
            expect=(("consumer.py", line_of(_PYTHON2_BRANCHES, "set_instance_name")),),
            note="Python: a name assigned a fixed text in both branches of an if",
        ),
        Example(
            {"orders/pom.xml": _STARTER_POM, "deploy/orders.yaml": _HOST_NETWORK_DEPLOYMENT,
             "orders/src/main/java/com/example/orders/OrderListener.java": _SPRING_ORDERS},
            expect=(("orders/pom.xml", line_of(_STARTER_POM, "<version>2.2.0</version>")),),
            note="no name in the code: starter 2.2.0 names it nameServer@pid, 3 replicas on host networking",
        ),
        Example(
            {"orders/pom.xml": _JAVA_CLIENT_POM, "deploy/orders.yaml": _HOST_NETWORK_DEPLOYMENT,
             "orders/src/main/java/com/example/orders/OrderConsumer.java": _JAVA_HOSTNAME},
            expect=(("orders/src/main/java/com/example/orders/OrderConsumer.java",
                     line_of(_JAVA_HOSTNAME, "setInstanceName")),),
            note="a name made from HOSTNAME, the node's name on host networking",
        ),
        Example(
            {"worker/requirements.txt": _PYTHON_REQUIREMENTS, "worker/docker-compose.yml": _PYTHON_COMPOSE,
             "worker/worker.py": _PYTHON_WORKER},
            expect=(("worker/docker-compose.yml", line_of(_PYTHON_COMPOSE, "network_mode: host")),),
            note="Python 2.x: ip@pid#DEFAULT in 2 containers on the host's network",
        ),
        Example(
            {"orders/main.go": _GO_FIXED, "orders/go.mod": _GO_MOD},
            expect=(("orders/main.go", line_of(_GO_FIXED, "WithInstance")),),
            note="Go: WithInstance fixes the name of a rocketmq-client-go push consumer",
        ),
        Example(
            {"orders/go.mod": _GO_MOD, "deploy/orders.yaml": _HOST_NETWORK_DEPLOYMENT, "orders/main.go": _GO_DEFAULT},
            expect=(("orders/go.mod", line_of(_GO_MOD, "require")),),
            note="Go, no name: every rocketmq-client-go release reports ip@pid, 3 pid-1 replicas on host networking",
        ),
    ]

    VALID = [
        Example(
            {"orders/src/main/java/com/example/orders/OrderConsumer.java": _JAVA_HOSTNAME},
            note="name from the environment, no deployment in the project",
        ),
        Example({"src/main/java/com/example/events/EventConsumer.java": _JAVA_CLASS_NAME_UNIQUE},
                note="a class's name followed by the pid and the start time: unique per process"),
        Example({"events.py": _PYTHON2_CLASS_NAME_UNIQUE}, note="Python: a class's name and a random UUID"),
        Example(
            {"src/main/java/com/example/order/OrderClients.java": _JAVA_PRODUCER_AND_DEFAULT},
            note="a fixed name on a producer; an explicit DEFAULT on a consumer is replaced at start",
        ),
        Example(
            {"src/main/java/com/example/cache/CacheInvalidator.java": _JAVA_BROADCASTING},
            note="broadcasting consumers take every queue",
        ),
        Example(
            {"src/main/java/com/example/cache/ConfigurableConsumer.java": _JAVA_DYNAMIC_MODEL},
            note="the message model is not known statically",
        ),
        Example(
            {"src/main/java/com/example/audit/AuditListener.java": _SPRING_LISTENER_NO_NAME},
            note="a placeholder without default and without a configured value is unknown",
        ),
        Example(
            {"src/main/java/com/example/audit/AuditHistoryListener.java": _SPRING_LISTENER_ABSENT},
            note="no instanceName: the annotation's default DEFAULT is replaced at start",
        ),
        Example({"consumer.py": _PYTHON2_DYNAMIC}, note="Python: dynamic name, a producer, a broadcasting consumer"),
        Example(
            {"src/main/java/com/example/order/RegionalConsumer.java": _JAVA_PARTLY_DYNAMIC_NAME},
            note="a fixed name in one branch, the host's in the other: the deployed branch may be the unique one",
        ),
        Example({"consumer.py": _PYTHON2_PARTLY_DYNAMIC}, note="Python: one branch of the name is the hostname"),
        Example(
            {"orders/pom.xml": _STARTER_POM.replace("2.2.0", "2.2.1"), "deploy/orders.yaml": _HOST_NETWORK_DEPLOYMENT,
             "orders/src/main/java/com/example/orders/OrderListener.java": _SPRING_ORDERS},
            note="starter 2.2.1 adds System.nanoTime() to the name it makes",
        ),
        Example(
            {"orders/pom.xml": _STARTER_POM, "deploy/orders.yaml": _POD_NETWORK_DEPLOYMENT,
             "orders/src/main/java/com/example/orders/OrderListener.java": _SPRING_ORDERS},
            note="starter 2.2.0 on the pod network: each replica its own IP",
        ),
        Example(
            {"orders/pom.xml": _JAVA_CLIENT_POM, "deploy/orders.yaml": _POD_NETWORK_DEPLOYMENT,
             "orders/src/main/java/com/example/orders/OrderConsumer.java": _JAVA_HOSTNAME},
            note="HOSTNAME on the pod network is the pod's name",
        ),
        Example(
            {"worker/requirements.txt": _PYTHON_REQUIREMENTS,
             "worker/docker-compose.yml": _PYTHON_COMPOSE.replace("    network_mode: host\n", ""),
             "worker/worker.py": _PYTHON_WORKER},
            note="Python 2.x in 2 containers on compose's own network: an IP each",
        ),
        Example({"orders/main.go": _GO_BROADCASTING}, note="Go: a broadcasting consumer takes every queue"),
        Example({"orders/main.go": _GO_POD_NAME}, note="Go: the name made from the pod's name"),
        Example(
            {"orders/go.mod": _GO_MOD, "deploy/orders.yaml": _POD_NETWORK_DEPLOYMENT, "orders/main.go": _GO_DEFAULT},
            note="Go, no name, on the pod network: each replica its own IP",
        ),
    ]

    def looks_at(self, project: Project) -> bool:
        """A consumer, or a client with an instanceName."""
        return any(c.role != "producer" or c.instance_name for _f, c in project.clients())

    def check(self, project: Project) -> Iterable[Finding]:
        for facts, client in project.clients():
            if client.role not in REBALANCING_ROLES or client.instance_name is None:
                continue
            # Every value the name may take (each branch of `c ? "a" : "b"`) must be fixed: one branch from the
            # environment may be the one that runs.
            names = literal_texts(client.instance_name.value)
            made_of = _same_in_every_process(client.instance_name.value) if names is None else None
            if made_of is None and (names is None or any(name == DEFAULT_INSTANCE_NAME or not name.strip()
                                                         for name in names)):
                continue
            # A unitName that differs per replica still makes the client ids distinct.
            if client.unit_name is not None and literal_texts(client.unit_name.value) is None:
                continue
            if message_model(client) != CLUSTERING:
                continue
            # A lite pull consumer rebalances only the topics it subscribes to; one that assign()s its queues
            # (or subscribes where we cannot see) may not rebalance at all.
            if client.role == "lite_pull_consumer" and not client.subscriptions:
                continue
            at = client.instance_name.location
            # Where the consumer is created, when the name is set elsewhere (a setter line, a config file).
            related = [] if client.location == at else [Related(client.location, f"clustering consumer "
                                                                                    f"{describe_group(client)}")]
            if made_of is not None:
                yield self.finding(self._made_of_message(client, made_of), at, related)
                continue
            fix, refused = unique_name_fix(facts, client)
            message = self._message(client, names) + (f"; no fix is offered: {refused}" if refused else "")
            yield self.finding(message, at, related, fix=fix)
        # Names no code writes: what the client or framework release and the deployment make of them.
        for collision in deployed_collisions(project):
            yield self.finding(collision.message, collision.location, collision.related)

    @staticmethod
    def _made_of_message(client, made_of: str) -> str:
        """A name made from a class's name: the same text in every replica, whatever the text is."""
        if client.api == "python2":
            who, unique = ("every replica sharing an IP and a pid (containers on host networking are all pid 1) "
                           "reports the same client id"), "a random UUID (str(uuid.uuid4()))"
        else:
            who, unique = "every replica on one host reports the same client id", \
                '"@" + UtilAll.getPid() + "#" + System.nanoTime()'
        return (f"instanceName is made from {made_of} on clustering consumer {describe_group(client)}, the same text "
                f"in every replica: {who}, so replicas consume the same queues and other queues are consumed by "
                f"nobody; append what is unique per process: {unique}")

    @staticmethod
    def _message(client, names: list[str]) -> str:
        fixed = " or ".join(f'"{name}"' for name in names)
        if len(names) > 1:
            fixed += " (a fixed name in every branch)"
        head = f"instanceName is fixed to {fixed} on clustering consumer {describe_group(client)}: "
        if client.api == "go":
            # Without a name rocketmq-client-go reports ip@pid: shared by pid-1 containers on one IP.
            return (head + "every replica on one host reports the same client id (ip@name), so replicas consume the "
                    "same queues and other queues are consumed by nobody; removing WithInstance helps only where "
                    "pids differ (rocketmq-client-go then reports ip@pid, and the pid is 1 in every container), so "
                    "append what is unique per process, which also keeps several consumers of the group in one "
                    f"process apart: {GO_UNIQUE} (not the host name: on host networking it is the node's)")
        if client.api == "python2":
            # The C++ core builds ip@pid#instanceName: the collision needs a shared pid as well.
            why = (
                "every replica sharing an IP and a pid (containers on host networking are all pid 1) reports the "
                "same client id"
            )
            unique = ("a random UUID (not the pid, 1 in every container, nor the host name, which on host networking "
                      "is the node's)")
        else:
            why = "every replica on one host reports the same client id"
            unique = ('"@" + UtilAll.getPid() + "#" + System.nanoTime() (not the host name: on host networking it is '
                      "the node's)")
        if client.api == "python2":
            # Without a name the id is ip@pid#DEFAULT: still shared by pid-1 containers on one IP.
            return (head + why + ", so replicas consume the same queues and other queues are consumed by nobody; "
                    "removing the name helps only where pids differ (the id keeps the pid, 1 in every container), so "
                    f"append what is unique per process, which also keeps several consumers of the group in one "
                    f"process apart: {unique}")
        return (head + why + ", so replicas consume the same queues and other queues are consumed by nobody; remove "
                f"the name, or, to keep several consumers of the group in one process apart, append what is unique "
                f"per process: {unique}")


def _same_in_every_process(value) -> str | None:
    """What a name is made from when its text is not known here but is the same in every process (a class's
    name: `Dynamic.per` "none"), in every alternative; else None."""
    reasons = []
    for alternative in alternatives(value):
        if isinstance(alternative, Dynamic) and alternative.per == "none":
            reasons.append(alternative.reason)
        elif not isinstance(alternative, Lit):
            return None
    return " or ".join(dict.fromkeys(reasons)) or None


# What is unique per process, after the fixed name (which keeps apart consumers of one group in one process):
# the Java client's own choice for a name it replaces (`pid#nanoTime`), a random UUID in Python (a container's
# process is pid 1), Spring Boot's `${random.uuid}` in configuration it binds.
JAVA_UNIQUE = 'org.apache.rocketmq.common.UtilAll.getPid() + "#" + System.nanoTime()'
PYTHON_UNIQUE = "uuid.uuid4().hex"
GO_UNIQUE = 'strconv.Itoa(os.Getpid()) + "#" + strconv.FormatInt(time.Now().UnixNano(), 10)'
GO_PACKAGES = ("os", "strconv", "time")
SPRING_UNIQUE = "-${random.uuid}"


def unique_name_fix(facts, client) -> tuple[Fix | None, str]:
    """Unsafe (the client id changes, and with it what monitoring shows): the fixed name made unique per process,
    in the way of each API; a Spring listener's `instanceName` attribute is dropped (the starter does not read
    placeholders there, and the annotation's default `DEFAULT` is replaced at start). With no fix, why not, when
    the reason is the code's (not where the frontend knows no place to edit)."""
    setting = client.instance_name
    if client.api == "spring-listener":
        if setting.removal is None:
            return None, ""
        return Fix("drop instanceName: the client names each process itself", (removal(setting.removal),), UNSAFE), ""
    if setting.written is None:
        return None, ""
    literal = setting.value.origin if isinstance(setting.value, Lit) else None
    if client.api == "java":
        return Fix("make the name unique per process (pid and start time)",
                   (appended(setting.written, literal, "@", JAVA_UNIQUE),), UNSAFE), ""
    if client.api == "spring-config":
        return Fix("make the name unique per process (${random.uuid})", (after(setting.written, SPRING_UNIQUE),),
                   UNSAFE), ""
    if client.api == "go" and setting.written.path == facts.path:  # the imports go in the client's file
        try:
            edits = [appended(setting.written, literal, "@", GO_UNIQUE), *go_packages(facts, setting, GO_PACKAGES)]
        except Unfixable as err:
            return None, str(err)
        return Fix("make the name unique per process (pid and start time)", tuple(edits), UNSAFE), ""
    if client.api == "python2" and setting.written.path == facts.path:  # the import goes in the client's file
        try:
            edits = [appended(setting.written, literal, "@", PYTHON_UNIQUE),
                     *python_module(facts, setting, "uuid")]
        except Unfixable as err:
            return None, str(err)
        return Fix("make the name unique per process (a random UUID)", tuple(edits), UNSAFE), ""
    return None, ""
