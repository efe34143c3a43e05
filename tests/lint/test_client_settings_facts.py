"""The facts behind RMQ004-RMQ011, from every frontend: connections (name servers, endpoints, credentials), what a
listener does with a batch and a retry count, and clients other code may configure. Exact values and places."""

from __future__ import annotations

from rmqlint.facts import Connection, Setting, facts_from_json, facts_to_json
from rmqlint.linker import Linker
from rmqlint.frontends.java.parse import parse_java
from rmqlint.frontends.python.parse import parse_python
from rmqlint.frontends.spring import parse_properties, parse_yaml
from rmqlint.values import Dynamic, Lit, Placeholder
from tests.lint.spans import span

JAVA_CONNECTIONS = """\
package com.acme;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientConfigurationBuilder;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

@RocketMQMessageListener(topic = "T", consumerGroup = "g", nameServer = "${ns:a:9876}", accessKey = "ak1",
    secretKey = "${rocketmq.consumer.secret-key}")
public class Mq {
    static final String NS = "a:9876;b:9876";
    static final String SK = "sk2";

    void start(ClientConfigurationBuilder builder) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("p", new AclClientRPCHook(new SessionCredentials("ak2", SK)));
        producer.setNamesrvAddr(NS);
        new DefaultMQAdminExt().setNamesrvAddr("c:9876");
        ClientConfiguration.newBuilder().setEndpoints("x:8081")
            .setCredentialProvider(new StaticSessionCredentialsProvider("ak3", "sk3")).build();
        builder.setEndpoints("y:8081");
        new org.acme.other.SessionCredentials("not", "ours");
        new Object().setEndpoints("z:1");
    }
}
"""


def test_java_connections():
    path = "src/Mq.java"
    facts = parse_java(path, JAVA_CONNECTIONS.encode())
    assert facts.problems == []
    at = lambda snippet: span(JAVA_CONNECTIONS, snippet, path)  # noqa: E731
    assert facts.connections == [
        # the listener's secretKey is a bare rocketmq.* placeholder: the configuration reports its own value
        Connection("spring-listener", at("@RocketMQMessageListener(topic = \"T\", consumerGroup = \"g\", nameServer = "
                                         "\"${ns:a:9876}\", accessKey = \"ak1\",\n    secretKey = "
                                         "\"${rocketmq.consumer.secret-key}\")"),
                   name_server=Setting(Placeholder("ns", Lit("a:9876")), at('nameServer = "${ns:a:9876}"')),
                   access_key=Setting(Lit("ak1"), at('accessKey = "ak1"'))),
        Connection("java", at('new SessionCredentials("ak2", SK)'),
                   access_key=Setting(Lit("ak2"), at('"ak2"')),
                   secret_key=Setting(Lit("sk2"), span(JAVA_CONNECTIONS, "SK", path, 2))),
        Connection("java", at("producer.setNamesrvAddr(NS)"),
                   name_server=Setting(Lit("a:9876;b:9876"), at("producer.setNamesrvAddr(NS)"))),
        Connection("java", at('new DefaultMQAdminExt().setNamesrvAddr("c:9876")'),
                   name_server=Setting(Lit("c:9876"), at('new DefaultMQAdminExt().setNamesrvAddr("c:9876")'))),
        Connection("java5", at('ClientConfiguration.newBuilder().setEndpoints("x:8081")'),
                   endpoints=Setting(Lit("x:8081"), at('ClientConfiguration.newBuilder().setEndpoints("x:8081")'))),
        Connection("java5", at('new StaticSessionCredentialsProvider("ak3", "sk3")'),
                   access_key=Setting(Lit("ak3"), at('"ak3"')), secret_key=Setting(Lit("sk3"), at('"sk3"'))),
        Connection("java5", at('builder.setEndpoints("y:8081")'),
                   endpoints=Setting(Lit("y:8081"), at('builder.setEndpoints("y:8081")'))),
    ]
    assert facts_from_json(facts_to_json(facts)) == facts


SPRING_YAML = """\
rocketmq:
  name-server: a:9876,b:9876
  producer:
    group: p
    access-key: ak
    secret-key: ${MQ_SK}
  simple-consumer:
    endpoints: x:8081
---
spring.config.activate.on-profile: prod
rocketmq:
  consumer:
    secret-key: prod-secret
"""


def test_spring_connections():
    path = "src/main/resources/application.yml"
    facts = parse_yaml(path, SPRING_YAML.encode())
    at = lambda snippet: span(SPRING_YAML, snippet, path)  # noqa: E731
    assert facts.connections == [
        Connection("spring-config", at("a:9876,b:9876"), name_server=Setting(Lit("a:9876,b:9876"),
                                                                            at("a:9876,b:9876"))),
        Connection("spring-config", at("ak"), access_key=Setting(Lit("ak"), at("ak")),
                   secret_key=Setting(Placeholder("MQ_SK"), at("${MQ_SK}"))),
        Connection("spring-config", at("prod-secret"), secret_key=Setting(Lit("prod-secret"), at("prod-secret"))),
        Connection("spring-config", at("x:8081"), endpoints=Setting(Lit("x:8081"), at("x:8081"))),
    ]
    properties = "rocketmq.name-server=a:9876 b:9876\nrocketmq.pull-consumer.secret-key=s3\n"
    facts = parse_properties("src/main/resources/application.properties", properties.encode())
    assert [(c.name_server.value if c.name_server else None, c.secret_key.value if c.secret_key else None)
            for c in facts.connections] == [(Lit("a:9876 b:9876"), None), (None, Lit("s3"))]


PYTHON = """\
import os

from rocketmq import ClientConfiguration, Credentials
from rocketmq.client import ConsumeStatus, Producer, PushConsumer

producer = Producer("PID")
producer.set_name_server_address("a:9876,b:9876")
producer.set_session_credentials("ak", os.environ["SK"], "ALIYUN")
config = ClientConfiguration("x:8081", Credentials("ak5", "sk5"))


def on_message(msg):
    if msg.reconsume_times > 3:
        return ConsumeStatus.CONSUME_SUCCESS  # gives up on the message: the read bounds the retries
    return None


consumer = PushConsumer("CID", orderly=True)
consumer.subscribe("T", on_message)
"""


def test_python_connections_and_retry_count_reads():
    path = "app/mq.py"
    facts = parse_python(path, PYTHON.encode())
    assert facts.problems == []
    at = lambda snippet: span(PYTHON, snippet, path)  # noqa: E731
    assert facts.connections == [
        Connection("python2", at('producer.set_name_server_address("a:9876,b:9876")'),
                   name_server=Setting(Lit("a:9876,b:9876"), at('producer.set_name_server_address("a:9876,b:9876")'))),
        Connection("python2", at('producer.set_session_credentials("ak", os.environ["SK"], "ALIYUN")'),
                   access_key=Setting(Lit("ak"), at('"ak"')),
                   secret_key=Setting(facts.connections[1].secret_key.value, at('os.environ["SK"]'))),
        Connection("python5", at('ClientConfiguration("x:8081", Credentials("ak5", "sk5"))'),
                   endpoints=Setting(Lit("x:8081"), at('"x:8081"'))),
        Connection("python5", at('Credentials("ak5", "sk5")'),
                   access_key=Setting(Lit("ak5"), at('"ak5"')), secret_key=Setting(Lit("sk5"), at('"sk5"'))),
    ]
    assert isinstance(facts.connections[1].secret_key.value, Dynamic)
    (consumer,) = [c for c in facts.clients if c.role == "push_consumer"]
    (listener,) = consumer.listeners
    assert listener.reconsume_times == [at("msg.reconsume_times")]


JAVA_LISTENERS = """\
package com.acme;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public abstract class Consumers {
    protected DefaultMQPushConsumer shared = new DefaultMQPushConsumer("shared");

    void start() throws Exception {
        DefaultMQPushConsumer batch = new DefaultMQPushConsumer("batch");
        batch.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (int i = 0; i < msgs.size(); i++) {
                if (msgs.get(i).getReconsumeTimes() > 3) {
                    continue;
                }
                context.setAckIndex(i - 1);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        batch.start();
    }

    DefaultMQPushConsumer made() {
        DefaultMQPushConsumer made = new DefaultMQPushConsumer("made");
        made.setMessageModel(org.apache.rocketmq.common.protocol.heartbeat.MessageModel.CLUSTERING);
        return made;
    }
}
"""


def test_java_listener_batches_and_clients_configured_elsewhere():
    path = "src/Consumers.java"
    facts = parse_java(path, JAVA_LISTENERS.encode())
    at = lambda snippet: span(JAVA_LISTENERS, snippet, path)  # noqa: E731
    shared, batch = facts.clients
    (listener,) = batch.listeners
    assert listener.ack_index == [at("context.setAckIndex(i - 1)")]
    assert listener.reconsume_times == [at("msgs.get(i).getReconsumeTimes()")]
    # a protected field of an abstract class; a local is this method's own
    assert (shared.configured_elsewhere, batch.configured_elsewhere) == (True, False)
    # A client a method returns is made once per call of the method: a template, which callers in other files
    # may bind; it escapes (returned, not started), so unbound it is a client others may configure.
    (made,) = facts.templates
    assert (made.method, made.called_here, made.escapes) == ("com.acme.Consumers.made/0", False, True)
    (linked,) = [c for _f, c in Linker({path: facts}).link().clients() if c.group.value == Lit("made")]
    assert linked.configured_elsewhere
    assert linked.message_model.value == Lit("CLUSTERING")  # set here, so known even though others may change it
