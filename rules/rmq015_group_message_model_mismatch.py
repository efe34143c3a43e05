"""RMQ015: one consumer group registered with different message models (clustering here, broadcasting there)."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from rmqlint.facts import ClientFact, Location
from rmqlint.findings import Finding, Related, message
from rmqlint.project import Project
from rmqlint.rules._consumers import BROADCASTING, CLUSTERING, GRPC_APIS, REBALANCING_ROLES, message_model
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._known import fully_known
from rmqlint.rules.base import Example, Rule

_SPRING_ORDERS = """\
package com.example.shop;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "shop_consumer")
public class OrderListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_CACHE = """\
package com.example.shop;

import org.apache.rocketmq.spring.annotation.MessageModel;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "shop_consumer",
    messageModel = MessageModel.BROADCASTING)
public class OrderCacheListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_PYTHON = """\
from rocketmq.client import ConsumeStatus, MessageModel, PushConsumer


def on_order(msg):
    return ConsumeStatus.CONSUME_SUCCESS


workers = PushConsumer("order_workers")
workers.subscribe("OrderTopic", on_order)
workers.start()

cache = PushConsumer("order_workers")
cache.set_message_model(MessageModel.BROADCASTING)
cache.subscribe("OrderTopic", on_order)
cache.start()
"""

# --- near misses that must stay quiet ---

_SPRING_CACHE_OWN_GROUP = _SPRING_CACHE.replace('consumerGroup = "shop_consumer"', 'consumerGroup = "shop_cache"')

_PYTHON_OK = """\
import os

from rocketmq.client import ConsumeStatus, MessageModel, PushConsumer


def on_order(msg):
    return ConsumeStatus.CONSUME_SUCCESS


workers = PushConsumer("order_workers")
workers.subscribe("OrderTopic", on_order)
workers.start()

cache = PushConsumer("order_cache")
cache.set_message_model(MessageModel.BROADCASTING)
cache.subscribe("OrderTopic", on_order)
cache.start()

either = PushConsumer("order_workers")
either.set_message_model(MessageModel.BROADCASTING if os.getenv("LOCAL") else MessageModel.CLUSTERING)
either.subscribe("OrderTopic", on_order)
either.start()
"""


def _model_place(client: ClientFact) -> Location:
    return client.message_model.location if client.message_model is not None else client.location



_GO_CACHE = go_file("""\
func main() {
	c, _ := rocketmq.NewPushConsumer(
		consumer.WithGroupName("shop_consumer"),
		consumer.WithConsumerModel(consumer.BroadCasting),
	)
	_ = c.Subscribe("OrderTopic", consumer.MessageSelector{},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}
""")
_GO_CACHE_OWN_GROUP = _GO_CACHE.replace('"shop_consumer"', '"shop_cache"')


class GroupMessageModelMismatch(Rule):
    CODE = "RMQ015"
    NAME = "group-message-model-mismatch"
    SEVERITY = "error"
    SUMMARY = "One consumer group is registered with different message models (clustering here, broadcasting there)"
    DOCS = """\
## What it does
Collects the consumers that take part in a group's rebalance (push and lite pull consumers in Java, Spring
`@RocketMQMessageListener`s, Python 2.x `PushConsumer`s, Go `NewPushConsumer` / `NewPullConsumer`) across the
whole project, groups them by consumer
group, and reports each broadcasting one in a group that also has clustering members (the default model),
citing the first of those. Consumers whose group or model is not known exactly, and the gRPC (5.x)
clients, whose proxy assigns messages, are left out.

This is its own rule rather than part of RMQ004 (different subscriptions): a group's members may subscribe
identically and still break each other this way, and the fix differs (a group per model, not the same
subscription everywhere).

## Why is this bad?
The broker keeps one message model per consumer group, the one the last heartbeat announced, and every member's
client id in the group's list. A clustering member splits each topic's queues among all those client ids,
broadcasting members included; a broadcasting member consumes every queue by itself and keeps its offsets in a
local file, not on the broker. So the queues the split assigns to a broadcasting member are consumed only by that
member, with its broadcasting code and its own offsets: the clustering members never see those messages, and the
broker's offsets for those queues do not move for them. The group's clustering consumers lose a share of the
messages (one queue in every N), silently, and which share changes with every rebalance.

## Example
```java
@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "shop_consumer")
public class OrderListener implements RocketMQListener<String> { ... }

@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "shop_consumer",
    messageModel = MessageModel.BROADCASTING)                 // same group, other model
public class OrderCacheListener implements RocketMQListener<String> { ... }
```

## Fix
Give the broadcasting consumers their own group (`shop_cache`): a broadcasting group receives every message on
every member, and the clustering group keeps all of its queues.
"""

    INVALID = [
        Example(
            {
                "src/main/java/com/example/shop/OrderListener.java": _SPRING_ORDERS,
                "src/main/java/com/example/shop/OrderCacheListener.java": _SPRING_CACHE,
            },
            expect=(("src/main/java/com/example/shop/OrderCacheListener.java",
                     line_of(_SPRING_CACHE, "messageModel = MessageModel.BROADCASTING")),),
            note="two Spring listeners of one group, one of them broadcasting",
        ),
        Example(
            {"consumer.py": _PYTHON},
            expect=(("consumer.py", line_of(_PYTHON, "set_message_model")),),
            note="Python 2.x: the same group, clustering and broadcasting",
        ),
        Example(
            {"src/main/java/com/example/shop/OrderListener.java": _SPRING_ORDERS, "cache-go/main.go": _GO_CACHE},
            expect=(("cache-go/main.go", line_of(_GO_CACHE, "WithConsumerModel")),),
            note="a broadcasting Go consumer in a group a Spring listener consumes in clustering",
        ),
    ]

    VALID = [
        Example(
            {
                "src/main/java/com/example/shop/OrderListener.java": _SPRING_ORDERS,
                "src/main/java/com/example/shop/OrderCacheListener.java": _SPRING_CACHE_OWN_GROUP,
            },
            note="the broadcasting listener has its own group",
        ),
        Example({"consumer.py": _PYTHON_OK},
                note="Python: a group per model; a model chosen at run time is not known"),
        Example({"src/main/java/com/example/shop/OrderListener.java": _SPRING_ORDERS,
                 "cache-go/main.go": _GO_CACHE_OWN_GROUP},
                note="the Go cache consumer in a group of its own"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A consumer that takes part in a rebalance."""
        return any(c.role in REBALANCING_ROLES for _f, c in project.clients())

    def check(self, project: Project) -> Iterable[Finding]:
        groups: dict[str, list[tuple[str, ClientFact]]] = defaultdict(list)
        for _facts, client in project.clients():
            if client.role not in REBALANCING_ROLES or client.api in GRPC_APIS or client.group is None:
                continue
            names = fully_known(client.group.value)
            model = message_model(client)
            if names is None or len(names) != 1 or not names[0].strip() or model is None:
                continue
            groups[names[0]].append((model, client))
        for group, members in sorted(groups.items()):
            members.sort(key=lambda item: (item[1].location.path, item[1].location.line, item[1].location.column))
            clustering = [client for model, client in members if model == CLUSTERING]
            if not clustering:
                continue
            cited = clustering[0].location
            for model, client in members:
                if model != BROADCASTING:
                    continue
                yield self.finding(
                    message(f'consumer group "{group}" is registered BROADCASTING here but CLUSTERING at ', cited,
                            ": the broker keeps one model per group and the clustering members split the queues "
                            "among every member, so the queues assigned to this broadcasting member are consumed "
                            "only by it, with local offsets, and lost to the clustering members; give it a group "
                            "of its own"),
                    _model_place(client),
                    [Related(cited, f'registers consumer group "{group}" CLUSTERING')],
                )
