"""The Go frontend (rocketmq-client-go v2): exact facts for each construct it understands, values followed through
constants, variables, struct fields, helper functions and option slices, and the files it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from rmqlint.discover import is_test_source
from rmqlint.engine import LintOptions, lint, lint_sources, load_project
from rmqlint.facts import FileFacts, facts_from_json, facts_to_json
from rmqlint.frontends import frontend_for
from rmqlint.frontends.go.parse import parse_go
from rmqlint.frontends.go.tree import unescape
from rmqlint.values import ConstRef, Dynamic, Lit, OneOf, Param
from tests.lint.spans import span
from tests.lint.test_engine_fixtures import write_project

HEAD = """\
package main

import (
\t"context"
\t"fmt"
\t"os"
\t"strconv"
\t"time"

\t"github.com/apache/rocketmq-client-go/v2"
\t"github.com/apache/rocketmq-client-go/v2/consumer"
\t"github.com/apache/rocketmq-client-go/v2/primitive"
\t"github.com/apache/rocketmq-client-go/v2/producer"
)

"""
CALLBACK = """func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\t\treturn consumer.ConsumeSuccess, nil
\t}"""


def parse(body: str, path: str = "svc/main.go") -> tuple[FileFacts, str]:
    source = HEAD + body
    facts = parse_go(path, source.encode())
    assert facts.problems == [], facts.problems
    return facts, source


def test_a_push_consumer_its_options_subscription_and_callback():
    facts, source = parse("""\
func main() {
\tc, err := rocketmq.NewPushConsumer(
\t\tconsumer.WithGroupName("orders_consumer"),
\t\tconsumer.WithNameServer(primitive.NamesrvAddr{"10.0.0.1:9876", "10.0.0.2:9876"}),
\t\tconsumer.WithInstance("orders-node"),
\t\tconsumer.WithConsumerModel(consumer.BroadCasting),
\t\tconsumer.WithMaxReconsumeTimes(3),
\t)
\tif err != nil {
\t\tpanic(err)
\t}
\terr = c.Subscribe("OrderTopic", consumer.MessageSelector{Type: consumer.TAG, Expression: "Paid || Refunded"},
\t\tfunc(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\t\t\tfor _, m := range msgs {
\t\t\t\tif m.ReconsumeTimes > 2 {
\t\t\t\t\treturn consumer.ConsumeSuccess, nil
\t\t\t\t}
\t\t\t}
\t\t\treturn consumer.ConsumeRetryLater, fmt.Errorf("not yet")
\t\t})
\t_ = c.Start()
}
""")
    path = "svc/main.go"
    (client,) = facts.clients
    assert (client.role, client.api, client.name) == ("push_consumer", "go", "c")
    assert client.location.line == span(source, "rocketmq.NewPushConsumer(", path).line
    assert client.group.value == Lit("orders_consumer")
    assert client.group.location == span(source, 'consumer.WithGroupName("orders_consumer")', path)
    assert client.instance_name.value == Lit("orders-node")
    assert client.message_model.value == Lit("BROADCASTING")
    assert client.consume_mode.value == Lit("CONCURRENTLY")  # the client's default, said where it is made
    assert client.max_reconsume_times.value == Lit("3")
    (subscription,) = client.subscriptions
    assert (subscription.topic, subscription.expression, subscription.selector) == (
        Lit("OrderTopic"), Lit("Paid || Refunded"), "TAG")
    (listener,) = client.listeners
    assert listener.kind == "concurrently"
    assert [loc.line for loc in listener.reconsume_later] == [span(source, "return consumer.ConsumeRetryLater",
                                                                   path).line]
    assert [loc.line for loc in listener.reconsume_times] == [span(source, "m.ReconsumeTimes", path).line]
    assert [c.name_server.value for c in facts.connections] == [Lit("10.0.0.1:9876"), Lit("10.0.0.2:9876")]
    # Literals keep where they are written, for fixes.
    assert client.instance_name.value.origin.text == "orders-node"


def test_options_through_a_slice_appended_in_a_branch_and_a_helper():
    facts, _source = parse("""\
const group = "billing_" + "consumer"

func baseOptions(name string) []consumer.Option {
\treturn []consumer.Option{consumer.WithGroupName(group), consumer.WithInstance(name)}
}

func main() {
\topts := baseOptions("billing-node")
\tif os.Getenv("ORDERLY") != "" {
\t\topts = append(opts, consumer.WithConsumerOrder(true))
\t}
\tc, _ := rocketmq.NewPushConsumer(opts...)
\t_ = c.Subscribe("BillTopic", consumer.MessageSelector{}, handle)
\tif err := c.Start(); err != nil {
\t\tpanic(err)
\t}
}

func handle(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\tif len(msgs) > 1 {
\t\treturn consumer.SuspendCurrentQueueAMoment, nil
\t}
\treturn consumer.ConsumeSuccess, nil
}
""")
    (client,) = facts.clients
    assert client.group.value == Lit("billing_consumer")
    assert client.instance_name.value == Lit("billing-node")  # the helper's parameter bound to the call's argument
    assert client.consume_mode.value == Lit("ORDERLY")  # appended in a branch: it may be set
    assert not client.configured_elsewhere
    (subscription,) = client.subscriptions
    assert (subscription.expression, subscription.selector) == (Lit(""), "TAG")  # no expression: every tag
    (listener,) = client.listeners
    assert listener.kind == "orderly" and len(listener.reconsume_later) == 1
    assert set(facts.listener_classes) == {"handle"}


def test_options_it_cannot_follow_leave_the_client_configured_elsewhere():
    facts, _ = parse("""\
func start(opts ...consumer.Option) {
\tc, _ := rocketmq.NewPushConsumer(append(opts, consumer.WithInstance("fixed"))...)
\t_ = c.Subscribe("T", consumer.MessageSelector{Type: consumer.SQL92, Expression: "a > 1"}, nil)
\tc.Start()
}
""")
    (client,) = facts.clients
    assert client.configured_elsewhere and isinstance(client.message_model.value, Dynamic)
    assert client.instance_name.value == Lit("fixed")
    assert client.subscriptions[0].selector == "SQL92"


def test_values_through_variables_struct_fields_and_calls():
    facts, _ = parse("""\
type Config struct {
\tGroup string
\tTags  string
}

var conf = Config{Group: "report_consumer", Tags: "Daily"}

func topic(env string) string { return "report-" + env }

func main() {
\tname := "a"
\tif os.Getenv("EU") != "" {
\t\tname = "b"
\t}
\thost, _ := os.Hostname()
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName(conf.Group), consumer.WithInstance(name),
\t\tconsumer.WithUnitName(host))
\t_ = c.Subscribe(topic("prod"), consumer.MessageSelector{Expression: conf.Tags}, nil)
\tc.Start()
\tp, _ := rocketmq.NewProducer(producer.WithInstance(fmt.Sprintf("pusher-%d", os.Getpid())),
\t\tproducer.WithGroupName(strconv.FormatInt(time.Now().UnixNano(), 10)))
\t_ = p
}
""")
    consumer_fact, producer_fact = facts.clients
    assert consumer_fact.group.value == Lit("report_consumer")
    assert consumer_fact.instance_name.value == OneOf((Lit("a"), Lit("b")))
    assert consumer_fact.unit_name.value.per == "host"
    assert consumer_fact.subscriptions[0].topic == Lit("report-prod")
    assert consumer_fact.subscriptions[0].expression == Lit("Daily")
    assert producer_fact.instance_name.value.per == "pid"
    assert producer_fact.group.value.per == "process"
    assert facts.constants == {"conf.Group": Lit("report_consumer"), "conf.Tags": Lit("Daily")}


def test_an_element_of_a_slice_literal_is_one_of_its_elements():
    """`msg.WithTag(tags[i%3])`, as the client's tag example and its copies send: one of the tags the slice holds
    (a constant index: that one); a slice some statement changes an element of is not followed."""
    facts, _ = parse("""\
var fixed = [...]string{"Paid", "Refunded"}

func main() {
\ttags := []string{"TagA", "TagB", "TagC"}
\tchanged := []string{"TagA"}
\tchanged[0] = os.Getenv("TAG")
\tfor i := 0; i < 6; i++ {
\t\tmsg := primitive.NewMessage("Orders", nil)
\t\tmsg.WithTag(tags[i%3])
\t\tother := primitive.NewMessage("Orders", nil)
\t\tother.WithTag(fixed[1])
\t\tlast := primitive.NewMessage("Orders", nil)
\t\tlast.WithTag(changed[0])
\t}
}
""")
    assert [p.tag for p in facts.produced] == [OneOf((Lit("TagA"), Lit("TagB"), Lit("TagC"))), Lit("Refunded"),
                                               Dynamic("a index expression")]


def test_names_of_other_files_and_packages_are_references():
    source = HEAD.replace('import (\n', 'import (\n\t"github.com/acme/orders/internal/mq"\n') + """\
func main() {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName(mq.Group), consumer.WithInstance(InstanceName))
\t_ = c.Subscribe(mq.Settings.Topic, consumer.MessageSelector{}, onMessage)
\tc.Start()
}
"""
    facts = parse_go("svc/main.go", source.encode())
    (client,) = facts.clients
    assert client.group.value == ConstRef("go", ("github.com/acme/orders/internal/mq",), "Group")
    assert client.instance_name.value == ConstRef("go", ("dir:svc",), "InstanceName")
    assert client.subscriptions[0].topic == ConstRef("go", ("github.com/acme/orders/internal/mq",), "Settings.Topic")
    assert client.listeners[0].class_ref == "dir:svc:onMessage"


def test_a_client_a_function_of_the_file_returns_and_a_parameter():
    facts, _ = parse("""\
func newConsumer(group string) (rocketmq.PushConsumer, error) {
\treturn rocketmq.NewPushConsumer(consumer.WithGroupName(group), consumer.WithInstance("shared"))
}

func main() {
\tc, _ := newConsumer("audit_consumer")
\t_ = c.Subscribe("AuditTopic", consumer.MessageSelector{}, nil)
\tc.Start()
}
""")
    (client,) = facts.clients  # made by the call: the parameter bound to its argument
    assert client.group.value == Lit("audit_consumer") and client.instance_name.value == Lit("shared")
    assert client.subscriptions[0].topic == Lit("AuditTopic") and client.name == "c"


def test_a_function_making_a_client_from_its_parameters_makes_one_per_call():
    facts, source = parse("""\
func newConsumer(group, topic string) rocketmq.PushConsumer {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName(group))
\t_ = c.Subscribe(topic, consumer.MessageSelector{Expression: "*"}, nil)
\treturn c
}

func unused(group string) (rocketmq.PushConsumer, error) {
\treturn rocketmq.NewPushConsumer(consumer.WithGroupName(group))
}

func main() {
\torders := newConsumer("orders_consumer", "OrderTopic")
\t_ = newConsumer("audit_consumer", "AuditTopic")
\t_ = orders.Start()
}
""")
    made = [(c.group.value, [s.topic for s in c.subscriptions], c.location.line) for c in facts.clients]
    assert made == [
        (Lit("orders_consumer"), [Lit("OrderTopic")], span(source, 'newConsumer("orders_consumer"', "svc/main.go").line),
        (Lit("audit_consumer"), [Lit("AuditTopic")], span(source, 'newConsumer("audit_consumer"', "svc/main.go").line),
    ]
    # Each function's own client is a template other files' calls bind (the linker); `unused` has no call here.
    assert [(t.method, t.called_here, t.client.group.value) for t in facts.templates] == [
        ("svc.newConsumer", True, Param(0, "group", "svc.newConsumer")),
        ("svc.unused", False, Param(0, "group", "svc.unused"))]


def test_produced_tags_credentials_and_suppressions():
    facts, source = parse("""\
func send(p rocketmq.Producer, paid bool) {
\tmsg := primitive.NewMessage("OrderTopic", []byte("{}"))
\tif paid {
\t\tmsg.WithTag("Paid")
\t}
\tother := &primitive.Message{Topic: "AuditTopic", Body: []byte("x")}
\tother.WithTag("Seen")
\tprimitive.NewMessage("StockTopic", nil).WithTag("Low") // rmqlint: disable=RMQ012
\t_, _ = p.SendSync(context.Background(), msg, other)
}

func producerOf() {
\t_, _ = rocketmq.NewProducer(producer.WithCredentials(primitive.Credentials{AccessKey: "AK1", SecretKey: "SK1"}))
}
""")
    assert [(p.topic, p.tag) for p in facts.produced] == [
        (Lit("OrderTopic"), Lit("Paid")), (Lit("AuditTopic"), Lit("Seen")), (Lit("StockTopic"), Lit("Low"))]
    (credentials,) = facts.connections
    assert (credentials.access_key.value, credentials.secret_key.value) == (Lit("AK1"), Lit("SK1"))
    line = span(source, '.WithTag("Low")', "svc/main.go").line
    assert facts.suppressions == {line: ["RMQ012"]}


def test_credentials_written_for_any_client_are_a_connection():
    """The admin client's `admin.WithCredentials(primitive.Credentials{..})` (the client's admin examples) holds keys
    as a consumer's does: RMQ011. A literal a consumer's option takes is one connection, not two."""
    source = HEAD.replace("/v2/producer", "/v2/admin") + """\
func main() {
\tcreds := primitive.Credentials{AccessKey: "RocketMQ", SecretKey: "12345678"}
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("g"), consumer.WithCredentials(creds))
\tc.Start()
\ta, _ := admin.NewAdmin(admin.WithCredentials(primitive.Credentials{
\t\tAccessKey: "RocketMQ",
\t\tSecretKey: "12345678",
\t}))
\t_ = a
\tfromEnv := primitive.Credentials{AccessKey: os.Getenv("AK"), SecretKey: os.Getenv("SK")}
\t_ = fromEnv
}
"""
    facts = parse_go("svc/main.go", source.encode())
    assert [(c.location.line, c.access_key.value) for c in facts.connections] == [
        (span(source, "creds :=", "svc/main.go").line, Lit("RocketMQ")),
        (span(source, "admin.WithCredentials", "svc/main.go").line, Lit("RocketMQ")),
        (span(source, "fromEnv :=", "svc/main.go").line, Dynamic("read from the environment"))]
    assert len([f for f in lint_sources({"svc/main.go": source}) if f.code == "RMQ011"]) == 2


def test_identity_uses_in_a_callback():
    facts, _ = parse("""\
var seen = map[string]bool{}

func onMessage(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\tfor _, m := range msgs {
\t\tif seen[m.OffsetMsgId] {
\t\t\tcontinue
\t\t}
\t\tid := m.OffsetMsgId
\t\trepo.Save(id)
\t}
\treturn consumer.ConsumeSuccess, nil
}
""")
    assert [(u.identity, u.use) for u in facts.identity_uses] == [("OffsetMsgId", "dedupe"), ("OffsetMsgId", "store")]


def test_facts_round_trip_through_the_cache_codec():
    facts, _ = parse("""\
func main() {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("g"), consumer.WithStrategy(consumer.AllocateByConsistentHash(10)))
\t_ = c.Subscribe("T", consumer.MessageSelector{}, nil)
\tc.Start()
}
""")
    (client,) = facts.clients
    assert (client.allocate_strategy.value, client.allocate_strategy_argument.value) == (
        Lit("AllocateByConsistentHash"), Lit("10"))
    assert facts_from_json(facts_to_json(facts)) == facts


def test_bad_input_is_a_problem_not_a_crash():
    facts = parse_go("x.go", b"package main\nfunc main( {\n")
    assert facts.problems and facts.problems[0].message.startswith("syntax error")
    assert parse_go("y.go", b"\xff\xfe\x00binary").problems


@pytest.mark.parametrize("escaped, text", [(r"a\tb", "a\tb"), (r"\x41\u00e9\101", "Aé" + "A"), (r"\q", None)])
def test_go_string_escapes(escaped, text):
    assert unescape(escaped) == text


def test_what_the_frontend_reads():
    assert frontend_for("svc/main.go").name == "go"
    assert frontend_for("vendor/github.com/apache/rocketmq-client-go/v2/api.go") is None
    assert frontend_for("svc/testdata/fixture.go") is None
    assert is_test_source("svc/main_test.go") and not is_test_source("svc/main.go")


def _mixed(root: Path) -> Path:
    return write_project(root, {
        "orders/go.mod": "module github.com/acme/orders\n\ngo 1.21\n\nrequire github.com/apache/rocketmq-client-go/v2 "
                         "v2.1.2\n",
        "orders/internal/mq/names.go": 'package mq\n\nconst (\n\tTopic = "OrderTopic"\n\tGroup = "stock_consumer"\n)\n',
        "orders/main.go": HEAD.replace('import (\n', 'import (\n\t"github.com/acme/orders/internal/mq"\n') + """\
func main() {
\tp, _ := rocketmq.NewProducer(producer.WithGroupName("order_producer"))
\tmsg := primitive.NewMessage(mq.Topic, []byte("{}"))
\tmsg.WithTag("Paid")
\t_, _ = p.SendSync(context.Background(), msg)
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName(mq.Group))
\t_ = c.Subscribe(mq.Topic, consumer.MessageSelector{Expression: "Created"}, onCreated)
\tif err := c.Start(); err != nil {
\t\tpanic(err)
\t}
}
""",
        "orders/handlers.go": HEAD + """\
func onCreated(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\treturn consumer.ConsumeRetryLater, nil
}
""",
        "stock/src/main/java/com/acme/StockConsumer.java": """\
package com.acme;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class StockConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("stock_consumer");
        consumer.subscribe("OrderTopic", "paid");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
""",
    })


def test_go_and_java_of_one_repository_are_linked(tmp_path):
    """A Go producer's tag and a Java consumer's case-drifted subscription (RMQ002); one group subscribed
    differently in Go and in Java (RMQ004); the Go values come from a constant of another package and a callback of
    another file of the package."""
    root = _mixed(tmp_path / "repo")
    result = lint(LintOptions(paths=[root], use_cache=False))
    found = {(f.code, f.location.path) for f in result.findings}
    assert ("RMQ002", "stock/src/main/java/com/acme/StockConsumer.java") in found
    assert ("RMQ004", "stock/src/main/java/com/acme/StockConsumer.java") in found
    project, _report = load_project(root, use_cache=False)
    go_consumer = next(c for f, c in project.clients() if f.path == "orders/main.go" and c.role == "push_consumer")
    assert go_consumer.group.value == Lit("stock_consumer")
    (listener,) = go_consumer.listeners
    assert listener.location.path == "orders/handlers.go" and len(listener.reconsume_later) == 1


def test_a_package_variable_another_file_assigns_is_not_a_constant(tmp_path):
    root = _mixed(tmp_path / "repo")
    (root / "orders/internal/mq/init.go").write_text('package mq\n\nfunc init() {\n\tGroup = "other"\n}\n')
    (root / "orders/internal/mq/names.go").write_text(
        'package mq\n\nconst Topic = "OrderTopic"\n\nvar Group = "stock_consumer"\n')
    project, _report = load_project(root, use_cache=False)
    go_consumer = next(c for f, c in project.clients() if f.path == "orders/main.go" and c.role == "push_consumer")
    assert isinstance(go_consumer.group.value, Dynamic)
    assert go_consumer.subscriptions[0].topic == Lit("OrderTopic")


def test_a_namespace_prefixes_the_group_and_the_subscribed_topics():
    facts, _ = parse("""\
func main() {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("orders"), consumer.WithNamespace("prod"))
\t_ = c.Subscribe("OrderTopic", consumer.MessageSelector{}, nil)
\tc.Start()
}
""")
    (client,) = facts.clients
    assert client.group.value == Lit("prod%orders")
    assert client.subscriptions[0].topic == Lit("prod%OrderTopic")


def test_a_namespace_prefixes_the_topic_of_the_messages_its_producer_sends():
    """A producer WithNamespace("prod") sends to `prod%Orders`, as its consumers subscribe: the tag drifts from a
    subscription in that namespace (RMQ002), not from one of the bare topic, which the messages never reach."""
    facts, source = parse("""\
func main() {
\tp, _ := rocketmq.NewProducer(producer.WithGroupName("orders_producer"), producer.WithNamespace("prod"))
\tmsg := primitive.NewMessage("Orders", nil)
\tmsg.WithTag("Paid")
\t_, _ = p.SendSync(context.Background(), msg)
\t_ = p.SendOneWay(context.Background(), primitive.NewMessage("Orders", nil).WithTag("Refunded"))
\tvalue := primitive.Message{Topic: "Orders"}
\tvalue.WithTag("Paid")
\t_, _ = p.SendSync(context.Background(), &value)
\tlater := primitive.NewMessage("Orders", nil)
\tlater.WithTag("Settled")
\tsend(later)
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("billing"), consumer.WithNamespace("prod"))
\t_ = c.Subscribe("Orders", consumer.MessageSelector{Expression: "paid || Refunded || Settled"}, nil)
\tbare, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("audit"))
\t_ = bare.Subscribe("Orders", consumer.MessageSelector{Expression: "paid"}, nil)
\tc.Start()
\tbare.Start()
}
""")
    # Sent by the namespaced producer; the last one by code not seen here, its topic unknown.
    assert [p.topic for p in facts.produced] == [Lit("prod%Orders")] * 3 + [Lit("Orders")]
    drifts = [f for f in lint_sources({"svc/main.go": source}) if f.code == "RMQ002"]
    assert [source.splitlines()[f.location.line - 1].strip()[:6] for f in drifts] == ["_ = c."]


def test_suppression_comments_are_written_and_read_in_go(tmp_path, capsys):
    """`--add-suppressions` writes `// rmqlint: disable=..` above a Go line with findings, in its indentation, and the
    next run reads it."""
    from rmqlint.cli import main

    body = """\
const banner = `orders
consumer`

func main() {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("orders_consumer"), consumer.WithInstance("node"))
\t_ = c.Subscribe("OrderTopic", consumer.MessageSelector{}, nil)
\tc.Start()
}
"""
    source = HEAD.replace('\t"context"\n\t"fmt"\n\t"os"\n\t"strconv"\n\t"time"\n\n', "").replace(
        '\t"github.com/apache/rocketmq-client-go/v2/primitive"\n\t"github.com/apache/rocketmq-client-go/v2/producer"\n',
        "") + body
    root = write_project(tmp_path / "p", {"svc/main.go": source})
    assert main([str(root), "--no-cache", "--add-suppressions"]) == 0
    capsys.readouterr()
    written = (root / "svc/main.go").read_text()
    assert "\t// rmqlint: disable=RMQ001\n\tc, _ := rocketmq.NewPushConsumer(" in written
    assert not parse_go("svc/main.go", written.encode()).problems
    assert lint(LintOptions(paths=[root], use_cache=False)).findings == []


def test_a_field_named_for_what_it_holds_is_no_identity_use():
    """The client's own trace record keeps a send result's offset message id under its name: not a key."""
    facts, _ = parse("""\
type TraceBean struct {
\tMsgId       string
\tOffsetMsgId string
}

func trace(result *primitive.SendResult) []TraceBean {
\treturn []TraceBean{{OffsetMsgId: result.OffsetMsgID}, {MsgId: result.OffsetMsgID}}
}
""")
    assert [(u.identity, u.use, u.call) for u in facts.identity_uses] == [("OffsetMsgID", "store", "MsgId:")]


def test_rmqplan_fleet_from_code_models_go_services(tmp_path, monkeypatch):
    """A Go service (go.mod: rocketmq-client-go v2.1.2) beside a Java one: `rmqplan fleet --from-code` writes the Go
    consumer's processes with client = "go" at the go.mod's release and its Go strategy by its Go name, so the
    planner computes each process's share with the client's own code."""
    from rmqplan.sources.fleet_file import parse_fleet_text
    from tests.planner.test_check_adoption import rmqplan

    root = _mixed(tmp_path / "repo")
    main_go = root / "orders/main.go"
    main_go.write_text(main_go.read_text().replace(
        "consumer.WithGroupName(mq.Group)",
        "consumer.WithGroupName(mq.Group), consumer.WithStrategy(consumer.AllocateByConsistentHash(5))"))
    monkeypatch.chdir(root)
    code, out, err = rmqplan("fleet", "--from-code", ".")
    assert code == 0, err
    fleet = parse_fleet_text(out, "fleet.toml")
    (group,) = [g for g in fleet.groups if g.name == "stock_consumer"]
    go_sets = [s for s in group.instances if s.client == "go"]
    java_sets = [s for s in group.instances if s.client == "java"]
    assert len(go_sets) == 1 and go_sets[0].client_version == "2.1.2" and java_sets
    assert 'client = "go"' in out and "orders/go.mod" in out


def test_options_appended_many_times_are_all_followed():
    appends = "".join(f"\topts = append(opts, consumer.WithPullBatchSize({n}))\n" for n in range(1, 21))
    facts, _ = parse(f"""\
func main() {{
\topts := []consumer.Option{{consumer.WithGroupName("g")}}
{appends}\topts = append(opts, consumer.WithInstance("fixed"))
\tc, _ := rocketmq.NewPushConsumer(opts...)
\t_ = c.Subscribe("T", consumer.MessageSelector{{}}, nil)
\tc.Start()
}}
""")
    (client,) = facts.clients
    assert not client.configured_elsewhere and client.instance_name.value == Lit("fixed")


def test_options_appended_in_many_branches_are_each_followed_once():
    """dapr's RocketMQ pub/sub appends ~35 options, each under its own `if`: every append's `opts` may hold any
    earlier append, and following each path anew took longer than a day (2^35 paths); each append is followed once."""
    branches = "".join(f"\tif os.Getenv(\"P{n}\") != \"\" {{\n\t\topts = append(opts, consumer.WithPullBatchSize({n}))\n"
                       f"\t}}\n" for n in range(1, 41))
    facts, _ = parse(f"""\
func main() {{
\topts := []consumer.Option{{consumer.WithGroupName("g")}}
{branches}\tif os.Getenv("ORDERLY") != "" {{
\t\topts = append(opts, consumer.WithConsumerOrder(true))
\t}}
\tc, _ := rocketmq.NewPushConsumer(opts...)
\t_ = c.Subscribe("T", consumer.MessageSelector{{}}, nil)
\tc.Start()
}}
""")
    (client,) = facts.clients
    assert not client.configured_elsewhere and client.group.value == Lit("g")
    assert client.consume_mode.value == Lit("ORDERLY")  # appended in a branch: it may be set


def test_an_option_set_differently_in_branches_is_one_of_its_values():
    """dapr's pub/sub appends WithConsumerModel(BroadCasting) or (Clustering) by its metadata, and
    WithConsumerOrder(true) or (false): the model is either, never the one appended last in the source."""
    facts, _ = parse("""\
func newConsumer(model string, orderly bool) (rocketmq.PushConsumer, error) {
\topts := []consumer.Option{consumer.WithGroupName("pubsub")}
\tswitch model {
\tcase "broadcasting":
\t\topts = append(opts, consumer.WithConsumerModel(consumer.BroadCasting))
\tdefault:
\t\topts = append(opts, consumer.WithConsumerModel(consumer.Clustering))
\t}
\tif orderly {
\t\topts = append(opts, consumer.WithConsumerOrder(true))
\t} else {
\t\topts = append(opts, consumer.WithConsumerOrder(false))
\t}
\treturn rocketmq.NewPushConsumer(opts...)
}
""")
    (client,) = facts.clients + [t.client for t in facts.templates]
    assert client.message_model.value == OneOf((Lit("BROADCASTING"), Lit("CLUSTERING")))
    assert client.consume_mode.value == OneOf((Lit("ORDERLY"), Lit("CONCURRENTLY")))
    assert client.message_model.written is None  # no one place to fix


def test_a_go_file_over_its_limit_is_one_note(tmp_path):
    """Go's limit (768 KB, as Java's: tree-sitter-go takes about 190 bytes per byte of a dense literal) makes a
    generated table an RMQ900 note; the rest of the project is still linted."""
    table = HEAD + "var table = []int{" + "1," * (400 * 1024) + "1}\n"
    root = _mixed(tmp_path / "repo")
    (root / "orders/table.go").write_text(table)
    result = lint(LintOptions(paths=[root], use_cache=False))
    notes = [f for f in result.findings if f.location.path == "orders/table.go"]
    assert [f.code for f in notes] == ["RMQ900"] and "over the 768 KB limit for go files" in notes[0].message
    assert any(f.code == "RMQ002" for f in result.findings)


def test_a_function_of_another_package_making_a_client_binds_each_call(tmp_path):
    """`mq.NewConsumer(group, topic)` declared in internal/mq: each call in another package makes a client with its
    arguments (the linker asks the Go frontend for the calls), subscribed as its caller subscribes it."""
    root = _mixed(tmp_path / "repo")
    (root / "orders/internal/mq/consumer.go").write_text(HEAD.replace("package main", "package mq") + """\
func NewConsumer(group string, instance string) (rocketmq.PushConsumer, error) {
\treturn rocketmq.NewPushConsumer(consumer.WithGroupName(group), consumer.WithInstance(instance))
}
""")
    (root / "orders/audit.go").write_text(HEAD.replace('import (\n', 'import (\n\t"github.com/acme/orders/internal/mq"\n')
                                          + """\
func audit() {
\tc, _ := mq.NewConsumer("audit_consumer", "audit-node")
\t_ = c.Subscribe("AuditTopic", consumer.MessageSelector{}, nil)
\tc.Start()
}
""")
    project, _report = load_project(root, use_cache=False)
    audit = [c for f, c in project.clients() if f.path == "orders/audit.go"]
    assert [(c.group.value, c.instance_name.value, [s.topic for s in c.subscriptions]) for c in audit] == [
        (Lit("audit_consumer"), Lit("audit-node"), [Lit("AuditTopic")])]
    result = lint(LintOptions(paths=[root], use_cache=False))
    assert ("RMQ001", "orders/audit.go") in {(f.code, f.location.path) for f in result.findings}


def test_an_import_path_is_the_directory_its_go_mod_names(tmp_path):
    """`github.com/gowins/dionysus/rmq` is the directory rmq/ of the module go.mod declares at the root: one element
    in common with the path, which alone may be any package named so (a `config` of another module); a `replace`
    by a local directory maps that module's paths there. The consumers its calls make are each their own."""
    mq = HEAD.replace("package main", "package mq") + """\
func NewConsumer(group string) (rocketmq.PushConsumer, error) {
\treturn rocketmq.NewPushConsumer(consumer.WithGroupName(group))
}
"""
    main = HEAD.replace('import (\n', 'import (\n\t"github.com/acme/shop/mq"\n\t"example.com/names"\n') + """\
func main() {
\tc, _ := mq.NewConsumer(names.Group)
\t_ = c.Subscribe("OrderTopic", consumer.MessageSelector{}, nil)
\tc.Start()
}
"""
    root = write_project(tmp_path / "repo", {
        "go.mod": "module github.com/acme/shop\n\ngo 1.21\n\nreplace example.com/names => ./third_party/names\n",
        "mq/consumer.go": mq,
        "cmd/app/main.go": main,
        "third_party/names/names.go": 'package names\n\nconst Group = "orders_consumer"\n',
        "tools/mq/consumer.go": mq.replace("WithGroupName(group)", 'WithGroupName("decoy")'),  # also ends in mq
    })
    project, _report = load_project(root, use_cache=False)
    made = [c for f, c in project.clients() if f.path == "cmd/app/main.go"]
    assert [(c.group.value, [s.topic for s in c.subscriptions]) for c in made] == [
        (Lit("orders_consumer"), [Lit("OrderTopic")])]


def test_the_clients_own_constructors_are_not_the_projects_functions(tmp_path):
    """In rocketmq-client-go's own repository (or a fork a go.mod replaces it by), `rocketmq.NewPushConsumer` is
    declared in the project too: a call of it makes the one consumer the frontend reads, not a second one through
    the declaration's `consumer.NewPushConsumer(opts...)`."""
    api = HEAD.replace("package main", "package rocketmq").replace('\t"github.com/apache/rocketmq-client-go/v2"\n', "")
    root = write_project(tmp_path / "repo", {
        "go.mod": "module github.com/apache/rocketmq-client-go/v2\n\ngo 1.21\n",
        "api.go": api + """\
func NewPushConsumer(opts ...consumer.Option) (rocketmq.PushConsumer, error) {
\treturn consumer.NewPushConsumer(opts...)
}
""",
        "examples/simple/main.go": HEAD + """\
func main() {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("testGroup"))
\t_ = c.Subscribe("test", consumer.MessageSelector{}, nil)
\tc.Start()
}
""",
    })
    project, _report = load_project(root, use_cache=False)
    made = [c for f, c in project.clients() if f.path == "examples/simple/main.go"]
    assert [(c.group.value, len(c.subscriptions)) for c in made] == [(Lit("testGroup"), 1)]


def test_a_function_returning_a_fixed_client_makes_one_per_call_in_other_files(tmp_path):
    root = _mixed(tmp_path / "repo")
    (root / "orders/internal/mq/consumer.go").write_text(HEAD.replace("package main", "package mq") + """\
func NewAuditConsumer() (rocketmq.PushConsumer, error) {
\treturn rocketmq.NewPushConsumer(consumer.WithGroupName("audit_consumer"))
}
""")
    (root / "orders/audit.go").write_text(HEAD.replace('import (\n', 'import (\n\t"github.com/acme/orders/internal/mq"\n')
                                          + """\
func audit() {
\tc, _ := mq.NewAuditConsumer()
\t_ = c.Subscribe("AuditTopic", consumer.MessageSelector{Expression: "Paid"}, nil)
\tc.Start()
}
""")
    project, _report = load_project(root, use_cache=False)
    audit = [(f.path, c.group.value, [s.topic for s in c.subscriptions]) for f, c in project.clients()
             if c.group is not None and c.group.value == Lit("audit_consumer")]
    assert audit == [("orders/audit.go", Lit("audit_consumer"), [Lit("AuditTopic")])]


def test_a_client_handed_on_to_a_field_is_subscribed_through_it():
    facts, _ = parse("""\
type Service struct {
\tmq     rocketmq.PushConsumer
\tbackup rocketmq.PushConsumer
}

func (s *Service) init() {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("blocks_consumer"))
\ts.mq = c
\tother, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("backup_consumer"))
\t_ = &Service{backup: other}
}

func (s *Service) Start() error {
\t_ = s.backup.Subscribe("BackupTopic", consumer.MessageSelector{}, nil)
\treturn s.mq.Subscribe("BlockTopic", consumer.MessageSelector{}, s.onBlocks)
}

func (s *Service) onBlocks(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\treturn consumer.ConsumeRetryLater, nil
}
""")
    blocks, backup = facts.clients
    assert [s.topic for s in blocks.subscriptions] == [Lit("BlockTopic")] and blocks.listeners[0].reconsume_later
    assert [s.topic for s in backup.subscriptions] == [Lit("BackupTopic")]
