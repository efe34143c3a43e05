"""RocketMQ clients, subscriptions, listeners and produced tags in one parsed Java file.

One query finds the few interesting nodes (client and message constructors, the setter/subscribe/send calls, the
Spring listener annotation); everything else is looked up from them. A client is identified by the variable that
holds it: a local of one callable, or a field of one class, so a consumer created in `init()` and subscribed in
`configure()` is one `ClientFact`. A client we cannot follow (a parameter, a getter's result) is left alone.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import tree_sitter

from rmqlint.calls import instantiate
from rmqlint.facts import ClientFact, Connection, Location, ProducedTag, Setting, Subscription
from rmqlint.frontends.java import spans as java_spans
from rmqlint.frontends.java.index import FieldInfo, JavaFile, simple_type_name
from rmqlint.frontends.java.lifecycle import never_created, never_started
from rmqlint.frontends.java.tree import CLASS_BODIES, LANGUAGE
from rmqlint.frontends.java.listeners import V4, V5, analyze_listener, find_methods, scan_body
from rmqlint.text import split_destination
from rmqlint.values import Dynamic, Lit, Placeholder, Value, known_texts

CLIENT_ROLES = {
    "DefaultMQPushConsumer": "push_consumer",
    "DefaultLitePullConsumer": "lite_pull_consumer",
    "DefaultMQPullConsumer": "pull_consumer",
    "DefaultMQProducer": "producer",
    "TransactionMQProducer": "producer",
}
MESSAGE_CLASS = "Message"
ROCKETMQ_PACKAGE = "org.apache.rocketmq."
# RocketMQTemplate methods whose first argument is a "topic:tags" destination.
TEMPLATE_SENDS = frozenset(
    {"syncSend", "asyncSend", "sendOneWay", "convertAndSend", "send", "syncSendOrderly", "asyncSendOrderly",
     "sendOneWayOrderly", "sendMessageInTransaction", "syncSendDelayTimeSeconds", "syncSendDelayTimeMills",
     "syncSendDeliverTimeMills", "sendAndReceive"}
)
# Setters that configure a client: method -> (the `ClientFact` field, the clients it applies to: "consumer",
# "producer" or "any", "enum" when the argument is an enum constant). A new setting is one line here.
SETTINGS = {
    "setConsumerGroup": ("group", "consumer", False),
    "setProducerGroup": ("group", "producer", False),
    "setMessageModel": ("message_model", "consumer", True),
    "setInstanceName": ("instance_name", "any", False),
    "setUnitName": ("unit_name", "any", False),
    "setMaxReconsumeTimes": ("max_reconsume_times", "consumer", False),
    "setConsumeThreadMin": ("consume_thread_min", "consumer", False),
    "setConsumeThreadMax": ("consume_thread_max", "consumer", False),
    "setConsumeMessageBatchMaxSize": ("consume_batch_max_size", "consumer", False),
    "setPullBatchSize": ("pull_batch_size", "consumer", False),
}
# `@RocketMQMessageListener` attributes: attribute -> (the `ClientFact` field, how its value is read: "spring" text
# with placeholders, "enum", or "plain").
LISTENER_ATTRIBUTES = {
    "consumerGroup": ("group", "spring"),
    "messageModel": ("message_model", "enum"),
    "consumeMode": ("consume_mode", "enum"),
    "instanceName": ("instance_name", "spring"),
    "maxReconsumeTimes": ("max_reconsume_times", "plain"),
    "delayLevelWhenNextConsume": ("delay_level", "plain"),
    "consumeThreadNumber": ("consume_thread_min", "plain"),
    "consumeThreadMax": ("consume_thread_max", "plain"),
    "consumeMessageBatchMaxSize": ("consume_batch_max_size", "plain"),
    "pullBatchSize": ("pull_batch_size", "plain"),
}
STRATEGY_SETTER = "setAllocateMessageQueueStrategy"
CLIENT_SETTERS = frozenset(SETTINGS) | {"subscribe", "registerMessageListener", "setMessageListener", STRATEGY_SETTER}
MESSAGE_SETTERS = frozenset({"setTags", "setTopic", "setTag"})
# Where clients connect and with which credentials (`Connection`): credential classes (-> the client API they
# belong to) and setters of a name server list or of 5.x proxy endpoints.
CREDENTIAL_CLASSES = {"SessionCredentials": "java", "StaticSessionCredentialsProvider": "java5"}
CONNECTION_SETTERS = frozenset({"setNamesrvAddr", "setEndpoints"})
# RocketMQ 5 clients (rocketmq-clients): consumers are built by a method chain on these builders.
V5_BUILDERS = {"newPushConsumerBuilder": "push_consumer", "newSimpleConsumerBuilder": "simple_consumer"}
SPRING_LISTENER = "RocketMQMessageListener"
SPRING_V5_PACKAGE = "org.apache.rocketmq.client.annotation."
ENUM_CONSTANTS = frozenset({"CLUSTERING", "BROADCASTING", "ORDERLY", "CONCURRENTLY", "TAG", "SQL92"})
ENUM_TYPES = frozenset({"MessageModel", "ConsumeMode", "SelectorType", "ExpressionType", "FilterExpressionType"})

_TYPE_NAMES = set(CLIENT_ROLES) | {MESSAGE_CLASS} | set(CREDENTIAL_CLASSES)
_METHOD_NAMES = TEMPLATE_SENDS | CLIENT_SETTERS | MESSAGE_SETTERS | set(V5_BUILDERS) | CONNECTION_SETTERS
_NAMES = " ".join(f'"{n}"' for n in sorted(_TYPE_NAMES))
_METHODS = " ".join(f'"{n}"' for n in sorted(_METHOD_NAMES))
_USAGE_QUERY = tree_sitter.Query(
    LANGUAGE,
    f"""
    (object_creation_expression type: (type_identifier) @type (#any-of? @type {_NAMES})) @new
    (object_creation_expression type: (scoped_type_identifier (type_identifier) @type .)
        (#any-of? @type {_NAMES})) @new
    (method_invocation name: (identifier) @method (#any-of? @method {_METHODS})) @call
    (annotation name: (identifier) @name (#eq? @name "{SPRING_LISTENER}")) @annotation
    (annotation name: (scoped_identifier name: (identifier) @name .) (#eq? @name "{SPRING_LISTENER}")) @annotation
    """,
)


def _words_pattern(words: set[str]) -> bytes:
    """A regular expression for any of `words` as a prefix tree (`set(?:Tag|Topic)...`): Python's engine tries an
    alternation's branches one by one at every position, and a tree fails after a byte or two where a flat list
    of 40 names tries all 40. It matches exactly what the flat alternation of the words matches."""
    tree: dict = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def branch(node: dict) -> str:
        alternatives = [re.escape(char) + branch(child) for char, child in sorted(node.items()) if char]
        if not alternatives:
            return ""
        if "" in node:
            return "(?:" + "|".join(alternatives) + ")?"
        return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"

    return branch(tree).encode()


# The names the query matches, as bytes: the query runs only around them (a large file is mostly other code).
# Whole words (`\b` both sides), so a prefix tree finds the same occurrences as the flat list of names.
_USAGE_NAMES = re.compile(rb"\b" + _words_pattern(_TYPE_NAMES | _METHOD_NAMES | {SPRING_LISTENER}) + rb"\b")
_WINDOW_GAP = 512  # occurrences closer than this are searched in one run of the query (further apart, the bytes between
# cost more to walk than a new run: 0.07 s instead of 0.10 s over the RocketMQ source, no slower on a flat 6 MB class)


def _usages(java: JavaFile) -> list[dict]:
    """The matches of `_USAGE_QUERY`, found by running it only over the stretches of the file that hold one of its
    names (a byte search first); each match once."""
    windows: list[list[int]] = []
    for found in _USAGE_NAMES.finditer(java.source):
        if windows and found.start() - windows[-1][1] < _WINDOW_GAP:
            windows[-1][1] = found.end()
        else:
            windows.append([found.start(), found.end()])
    matches: list[dict] = []
    seen: set[tuple[int, int, int]] = set()
    for start, end in windows:
        cursor = tree_sitter.QueryCursor(_USAGE_QUERY)
        cursor.set_byte_range(start, end)
        for pattern, match in cursor.matches(java.tree.root_node):
            node = next(iter(match.values()))[0]
            key = (pattern, node.start_byte, node.end_byte)
            if key not in seen:
                seen.add(key)
                matches.append(match)
    return matches


Key = tuple[str, int, str]  # ("local", callable id, name) | ("field", class body id, name)


@dataclass
class _Created:
    node: tree_sitter.Node
    callable_id: int | None


@dataclass
class _Client(_Created):
    fact: ClientFact


@dataclass
class _Message(_Created):
    topic: Value | None


@dataclass(frozen=True)
class Seed:
    """A call that makes a client: the template it binds, and whether the call's result is that client."""

    call: tree_sitter.Node
    client: ClientFact
    returned: bool
    function: str  # the called method (`Param.function`)


class ClientExtractor:
    """Extracts the clients of one file. `seeds`: calls of this file to project methods that make a client
    (`rmqlint.calls`), each with the template it binds: the call then makes a client as a constructor would, and
    the caller's setter calls on the variable holding the result configure it (`java.templates` finds them)."""

    def __init__(self, java: JavaFile, seeds: list[Seed] = ()) -> None:
        self.java = java
        self.seeds = list(seeds)
        self.instances: list[ClientFact] = []  # the clients the seeded calls made
        self._made: list[tuple[tree_sitter.Node, str, ClientFact]] = []  # creation or call, local variable, client
        self.clients: list[ClientFact] = []
        self.produced: list[ProducedTag] = []
        self.connections: list[Connection] = []
        self._clients: dict[Key, list[_Client]] = {}
        self._messages: dict[Key, list[_Message]] = {}
        self._calls: list[tuple[tree_sitter.Node, str]] = []
        self._starts: dict[int, tuple[list, list[int]]] = {}  # a creation list -> (itself, its start bytes)
        # Searched once: a search per send call would cost the file's length each time.
        self._mentions_template = b"RocketMQTemplate" in java.source

    def run(self) -> None:
        """Extract. Without seeds, only worth it on a file that passes `may_use_clients` (the caller checks: the
        file's bytes are searched once)."""
        news: list[tuple[tree_sitter.Node, str | Seed]] = [(seed.call, seed) for seed in self.seeds]
        calls: list[tuple[tree_sitter.Node, str]] = []
        annotations: list[tree_sitter.Node] = []
        for match in _usages(self.java):
            if "new" in match:
                news.append((match["new"][0], self.java.text(match["type"][0])))
            elif "call" in match:
                calls.append((match["call"][0], self.java.text(match["method"][0])))
            elif "annotation" in match:
                annotations.append(match["annotation"][0])
        news.sort(key=lambda item: item[0].start_byte)
        calls.sort(key=lambda item: item[0].start_byte)
        self._calls = calls
        for node, type_simple in news:
            if isinstance(type_simple, Seed):
                self._client_instantiated(type_simple)
            elif type_simple in CLIENT_ROLES:
                self._client_created(node, CLIENT_ROLES[type_simple])
            elif type_simple in CREDENTIAL_CLASSES:
                self._credentials(node, CREDENTIAL_CLASSES[type_simple])
            elif self._is_rocketmq_message(node):
                self._message_created(node)
        for node, method in calls:
            if method == "setTopic":
                self._message_topic(node)
        for node, method in calls:
            self._call(node, method)
        self._fields_configured_elsewhere()
        # A client that can never run (the object holding it is never created, or a local nobody starts): its
        # settings do nothing, so it is no fact (`java.lifecycle`).
        idle = {id(fact) for node, variable, fact in self._made
                if node.type == "object_creation_expression" and never_created(self.java, node)
                or variable and fact.role != "producer" and never_started(self.java, node, variable)}
        if idle:
            self.clients = [c for c in self.clients if id(c) not in idle]
            self.instances = [c for c in self.instances if id(c) not in idle]
            self._made = [m for m in self._made if id(m[2]) not in idle]
        for node in sorted(annotations, key=lambda n: n.start_byte):
            self._spring_listener(node)
        self.clients.sort(key=lambda c: (c.location.line, c.location.column))
        self.produced.sort(key=lambda p: (p.location.line, p.location.column))
        self.connections.sort(key=lambda c: (c.location.line, c.location.column))

    # --- creations ----------------------------------------------------------------------------------------

    def _client_created(self, node: tree_sitter.Node, role: str) -> None:
        java = self.java
        key, name = self._target_of(node)
        fact = ClientFact(role=role, api="java", location=java.location(node), name=name)
        args = call_arguments(node)
        group_node = self._group_argument(args)
        if group_node is not None:
            # The constructor sets the group: one more setter of the client can go after its statement.
            fact.group = Setting(java.value(group_node), java.location(group_node),
                                 slot=java_spans.creation_slot(java, node))
        elif len(args) >= 2:
            fact.group = Setting(Dynamic("cannot tell which constructor argument is the group"), fact.location)
        self.clients.append(fact)
        self._made.append((node, key[2] if key is not None and key[0] == "local" else "", fact))
        if key is not None:
            self._clients.setdefault(key, []).append(_Client(node, self._callable_id(node), fact))

    def _client_instantiated(self, seed: Seed) -> None:
        """A seeded call: the client the called method makes, with this call's arguments; the variable the call's
        result is stored in holds it when the method returns it."""
        java = self.java
        call = seed.call
        if call.type in ("annotation", "marker_annotation"):
            fact = self._annotation_instance(seed)
        else:
            args = call_arguments(call)
            fact = instantiate(seed.client, seed.function, java.location(call),
                               [self.argument_value(a) for a in args], [java.location(a) for a in args])
        key, name = self._target_of(call) if seed.returned else (None, "")
        if name:
            fact.name = name
        self.clients.append(fact)
        self.instances.append(fact)
        self._made.append((call, key[2] if key is not None and key[0] == "local" else "", fact))
        if key is not None:
            self._clients.setdefault(key, []).append(_Client(call, self._callable_id(call), fact))

    def _annotation_instance(self, seed: Seed) -> ClientFact:
        """The client one use of an annotation makes (`@MqConsumer(group = "orders")`): its elements bound by name,
        named after the class or method it annotates."""
        java = self.java
        use = seed.call
        args: dict[str, Value] = {}
        places: dict[str, Location] = {}
        arguments = use.child_by_field_name("arguments")
        for item in arguments.named_children if arguments is not None else ():
            if item.type == "element_value_pair":
                key, value = item.child_by_field_name("key"), item.child_by_field_name("value")
                if key is None or value is None:
                    continue
                element, node = java.text(key), value
            elif item.type not in ("line_comment", "block_comment"):
                element, node = "value", item
            else:
                continue
            read = self.argument_value(node)
            if any("${" in text for text in known_texts(read)):
                # Whether the project's code resolves the placeholder before using the text is not followed.
                read = Dynamic(f"{element} holds a placeholder the project's code may resolve")
            args[element], places[element] = read, java.location(item)
        fact = instantiate(seed.client, seed.function, java.location(use), args, places)
        holder = use.parent.parent if use.parent is not None else None
        name = holder.child_by_field_name("name") if holder is not None else None
        if name is not None:
            fact.name = java.text(name)
        return fact

    def argument_value(self, node: tree_sitter.Node) -> Value:
        """An argument's value; an enum constant (`MessageModel.BROADCASTING`) as its name, as setters read it."""
        if node.type == "field_access":
            target, field = node.child_by_field_name("object"), node.child_by_field_name("field")
            if target is not None and field is not None and (
                    self.java.text(field) in ENUM_CONSTANTS or self.java.text(target).rpartition(".")[2] in ENUM_TYPES):
                return Lit(self.java.text(field))
        if node.type == "identifier" and self.java.text(node) in ENUM_CONSTANTS and self._declared(node) is None:
            return Lit(self.java.text(node))  # a static import
        return self.java.value(node)

    def made(self) -> list[tuple[tree_sitter.Node, str, ClientFact]]:
        """(creation or seeded call, the local variable holding it or "", client) of every client made in code
        (not by an annotation), in source order."""
        return list(self._made)

    def _fields_configured_elsewhere(self) -> None:
        """A field subclasses may configure (`ClientFact.configured_elsewhere`): a consumer's model is then not known
        without a model set here. (Clients a method returns are templates: `java.templates`.)"""
        for key, created in self._clients.items():
            if key[0] == "field" and self._subclasses_may_configure(key):
                for client in created:
                    if self._started_where_created(client, key[2]):
                        continue  # complete before any other code could reach it
                    client.fact.configured_elsewhere = True
                    if client.fact.message_model is None and client.fact.role != "producer":
                        client.fact.message_model = Setting(
                            Dynamic("a field subclasses may configure"), client.fact.location)

    def _started_where_created(self, client: _Client, field: str) -> bool:
        """The method creating the field's client starts it (`consumer.start()`, `this.consumer.start()`) and calls
        none of its class's own methods (which a subclass may override to configure it) on the way."""
        java = self.java
        method = java.enclosing_callable(client.node)
        body = method.child_by_field_name("body") if method is not None else None
        stack = [body] if body is not None else []
        start = None
        own_calls = []
        while stack:
            node = stack.pop()
            if node.type in ("class_body", "lambda_expression"):
                continue  # a listener's code runs later, not on the way to start()
            if node.type == "method_invocation" and node.start_byte > client.node.start_byte:
                name, target = node.child_by_field_name("name"), node.child_by_field_name("object")
                if target is None or target.type == "this":
                    own_calls.append(node.start_byte)
                elif name is not None and java.text(name) == "start" and (
                        java.text(target) in (field, f"this.{field}")):
                    start = node.start_byte if start is None else min(start, node.start_byte)
            stack.extend(node.named_children)
        return start is not None and not any(at < start for at in own_calls)

    def _subclasses_may_configure(self, key: Key) -> bool:
        """A `protected` field, or a non-private field of an abstract class: subclasses in other files may set
        the message model (`AbstractConsumer` builds it, `CacheConsumer.configure()` makes it BROADCASTING)."""
        info = next((c for c in self.java.classes if c.body.id == key[1]), None)
        field = info.fields.get(key[2]) if info is not None else None
        if field is None or field.declaration.parent is None:
            return False
        modifiers = declared_modifiers(field.declaration.parent)
        if "private" in modifiers:
            return False
        abstract = info.declaration is not None and "abstract" in declared_modifiers(info.declaration)
        return "protected" in modifiers or abstract

    def _group_argument(self, args: list[tree_sitter.Node]) -> tree_sitter.Node | None:
        """The constructor argument holding the group.

        The client constructors take (group, ...) or (namespace, group, ...); the second argument is a String only
        in the namespace form (elsewhere it is an RPCHook, a boolean, a strategy or a topic list).
        """
        if not args:
            return None
        if len(args) == 1:
            return args[0] if self._is_string(args[0]) is not False else None
        second = self._is_string(args[1])
        if second is None:
            return None
        return args[1] if second else args[0]

    def _is_string(self, node: tree_sitter.Node) -> bool | None:
        """Whether an argument is a String (True), certainly not (False), or we cannot tell (None)."""
        java = self.java
        kind = node.type
        if kind in ("string_literal", "binary_expression"):
            return True
        if kind in ("null_literal", "object_creation_expression", "lambda_expression", "true", "false",
                    "decimal_integer_literal", "array_creation_expression"):
            return False
        if kind == "cast_expression":
            return simple_type_name(java, node.child_by_field_name("type")) == "String"
        if kind == "parenthesized_expression" and node.named_children:
            return self._is_string(node.named_children[0])
        if kind in ("identifier", "field_access"):
            declared = self._declared(node)
            if declared is not None:
                return declared.type_text.rpartition(".")[2] == "String" if declared.type_text else None
            name = java.text(node).rpartition(".")[2]
            return True if name.isupper() else None  # CONSTANT_CASE: a String constant elsewhere
        return None

    def _message_created(self, node: tree_sitter.Node) -> None:
        java = self.java
        args = call_arguments(node)
        key, _name = self._target_of(node)
        topic = java.value(args[0]) if len(args) >= 2 else None
        if key is not None:
            self._messages.setdefault(key, []).append(_Message(node, self._callable_id(node), topic))
        if len(args) in (3, 4, 6) and topic is not None and args[1].type != "null_literal":
            self.produced.append(ProducedTag(topic, java.value(args[1]), java.location(node)))

    def _is_rocketmq_message(self, node: tree_sitter.Node) -> bool:
        return self._is_rocketmq_type(node, MESSAGE_CLASS)

    def _is_rocketmq_type(self, node: tree_sitter.Node, simple: str) -> bool:
        """Whether a creation `new <simple>(..)` makes RocketMQ's class of that name (not another library's)."""
        type_node = node.child_by_field_name("type")
        written = self.java.text(type_node).replace(" ", "") if type_node is not None else ""
        if "." in written:
            return written.startswith(ROCKETMQ_PACKAGE)
        imported = self.java.imports.get(simple)
        if imported is not None:
            return imported.startswith(ROCKETMQ_PACKAGE)
        # Not imported by name: RocketMQ's only through a wildcard import (else a class of this package).
        packages = [*self.java.wildcard_imports, self.java.package]
        return any(p.startswith(ROCKETMQ_PACKAGE) or p + "." == ROCKETMQ_PACKAGE for p in packages)

    def _credentials(self, node: tree_sitter.Node, api: str) -> None:
        """`new SessionCredentials(accessKey, secretKey[, channel])`, 5.x `new StaticSessionCredentialsProvider(
        accessKey, secretKey[, securityToken])`."""
        args = call_arguments(node)
        if len(args) < 2 or not self._is_rocketmq_type(node, self.java.text(node.child_by_field_name("type"))
                                                           .rpartition(".")[2]):
            return
        java = self.java
        self.connections.append(Connection(api, java.location(node),
                                           access_key=Setting(java.value(args[0]), java.location(args[0])),
                                           secret_key=Setting(java.value(args[1]), java.location(args[1]))))

    def _connection_setter(self, call: tree_sitter.Node, method: str) -> None:
        """`x.setNamesrvAddr(list)` on any client, admin or ClientConfig (one base class sets it for all), and 5.x
        `ClientConfiguration.newBuilder().setEndpoints(list)`."""
        java = self.java
        args = call_arguments(call)
        if len(args) != 1:
            return
        setting = Setting(java.value(args[0]), java.location(call))
        if method == "setNamesrvAddr":
            client = self._receiver(call, self._clients)
            api = client.fact.api if client is not None else "java"
            self.connections.append(Connection(api, java.location(call), name_server=setting))
        elif self._configures_v5_endpoints(call):
            self.connections.append(Connection("java5", java.location(call), endpoints=setting))

    def _configures_v5_endpoints(self, call: tree_sitter.Node) -> bool:
        """`ClientConfiguration.newBuilder()...setEndpoints(..)`, or on a `ClientConfigurationBuilder` variable."""
        java = self.java
        current = call.child_by_field_name("object")
        for _ in range(16):
            if current is None:
                return False
            if current.type == "method_invocation":
                name = current.child_by_field_name("name")
                target = current.child_by_field_name("object")
                if name is not None and java.text(name) == "newBuilder" and target is not None:
                    return java.text(target).rpartition(".")[2] == "ClientConfiguration"
                current = target
                continue
            if current.type in ("identifier", "field_access"):
                declared = self._declared(current)
                return declared is not None and declared.type_text.endswith("ClientConfigurationBuilder")
            return False
        return False

    def _message_topic(self, call: tree_sitter.Node) -> None:
        message = self._receiver(call, self._messages)
        args = call_arguments(call)
        if message is not None and len(args) == 1:
            message.topic = self.java.value(args[0])

    # --- calls --------------------------------------------------------------------------------------------

    def _call(self, call: tree_sitter.Node, method: str) -> None:
        if method in TEMPLATE_SENDS:
            if self._mentions_template:
                self._template_send(call)
            return
        if method == "setTags":
            self._message_tags(call)
            return
        if method == "setTag":
            self._builder_tag(call)
            return
        if method in V5_BUILDERS:
            self._v5_consumer(call, V5_BUILDERS[method])
            return
        if method in CONNECTION_SETTERS:
            self._connection_setter(call, method)
            return
        if method not in CLIENT_SETTERS:
            return
        client = self._receiver(call, self._clients)
        if client is not None:
            self._configure(client.fact, call, method)

    def _configure(self, fact: ClientFact, call: tree_sitter.Node, method: str) -> None:
        java = self.java
        args = call_arguments(call)
        where = java.location(call)
        consumer = fact.role != "producer"
        if method == "subscribe" and consumer:
            subscription = self._subscription(args, fact, call)
            if subscription is not None:
                fact.subscriptions.append(subscription)
            return
        if method in ("registerMessageListener", "setMessageListener") and consumer:
            if len(args) == 1:
                code = analyze_listener(java, args[0])
                fact.listeners.append(code.listener)
                if code.delay_levels:
                    fact.delay_level = code.delay_levels[-1]
            return
        if len(args) != 1:
            return
        if method == STRATEGY_SETTER:
            if consumer:
                self._allocate_strategy(fact, args[0], where)
            return
        setting = SETTINGS.get(method)
        if setting is None:
            return
        field, applies, enum = setting
        if applies == "any" or (applies == "consumer") == consumer:
            value = self._enum_value(args[0]) if enum else java.value(args[0])
            setattr(fact, field, Setting(value, where, written=java_spans.written(java, args[0]),
                                         slot=java_spans.setter_slot(java, call)))

    def _subscription(self, args: list[tree_sitter.Node], fact: ClientFact,
                      call: tree_sitter.Node) -> Subscription | None:
        java = self.java
        if not args:
            return None
        topic = java.value(args[0])
        where = java.location(call)
        if len(args) == 1:
            return Subscription(topic, Lit("*"), "TAG", where)
        if len(args) == 3 and fact.role == "push_consumer":
            return Subscription(topic, Dynamic("filter class subscription"), "TAG", where)
        expression, selector = self._selector(args[1])
        return Subscription(topic, expression, selector, where)

    def _selector(self, node: tree_sitter.Node) -> tuple[Value, str]:
        """(expression, selector type) of a subscribe argument: a String, null, or MessageSelector.byTag/bySql."""
        java = self.java
        current: tree_sitter.Node | None = node
        for _ in range(8):
            if current is None:
                break
            if current.type in ("parenthesized_expression", "cast_expression"):
                current = (current.child_by_field_name("value") if current.type == "cast_expression"
                           else (current.named_children[0] if current.named_children else None))
                continue
            if current.type == "null_literal":
                return Lit("*"), "TAG"
            if current.type == "method_invocation":
                name = java.text(current.child_by_field_name("name"))
                if name in ("byTag", "bySql"):
                    inner = call_arguments(current)
                    selector = "TAG" if name == "byTag" else "SQL92"
                    if len(inner) != 1:
                        return Dynamic("selector without one argument"), selector
                    if inner[0].type == "null_literal":
                        return Lit("*"), selector
                    return java.value(inner[0]), selector
                return java.value(current), "TAG"
            if current.type in ("identifier", "field_access"):
                declared = self._declared(current)
                if declared is not None and declared.type_text.rpartition(".")[2] == "MessageSelector":
                    if declared.value is None or isinstance(declared, FieldInfo) and not declared.final:
                        return Dynamic("selector held in a variable"), "TAG"
                    current = declared.value
                    continue
            return java.value(current), "TAG"
        return Dynamic("selector not followed"), "TAG"

    def _enum_value(self, node: tree_sitter.Node) -> Value:
        """`MessageModel.BROADCASTING` / a static import `BROADCASTING` / a variable holding one -> Lit(name)."""
        java = self.java
        current: tree_sitter.Node | None = node
        for _ in range(8):
            if current is None:
                break
            if current.type == "parenthesized_expression" and current.named_children:
                current = current.named_children[0]
                continue
            if current.type == "field_access":
                target = current.child_by_field_name("object")
                field = current.child_by_field_name("field")
                if target is not None and target.type != "this" and field is not None:
                    name = java.text(field)
                    if name in ENUM_CONSTANTS or java.text(target).rpartition(".")[2] in ENUM_TYPES:
                        return Lit(name)
                    return java.value(current)  # Config.MODEL: another class's constant, not an enum constant
            if current.type in ("identifier", "field_access"):
                declared = self._declared(current)
                if declared is None:
                    name = java.text(current)
                    return Lit(name) if name in ENUM_CONSTANTS else Dynamic(f"{name} is not declared in this file")
                if getattr(declared, "position", None) is not None:
                    return java.value(current)  # a method's parameter: each call binds it (`rmqlint.calls`)
                if declared.value is None or getattr(declared, "is_parameter", False):
                    return Dynamic(f"{declared.name} is not a constant")
                if declared.name in java.assigned_names() and not getattr(declared, "final", False):
                    return Dynamic(f"{declared.name} is assigned")
                current = declared.value
                continue
            return java.value(current)
        return Dynamic("enum value not followed")

    def _message_tags(self, call: tree_sitter.Node) -> None:
        message = self._receiver(call, self._messages)
        args = call_arguments(call)
        if message is None or len(args) != 1 or args[0].type == "null_literal":
            return
        topic = message.topic if message.topic is not None else Dynamic("topic of the message is not known")
        self.produced.append(ProducedTag(topic, self.java.value(args[0]), self.java.location(call)))

    def _builder_tag(self, call: tree_sitter.Node) -> None:
        # RocketMQ 5 clients: provider.newMessageBuilder().setTopic(t).setTag(tag)...build()
        args = call_arguments(call)
        if len(args) != 1:
            return
        current = call.child_by_field_name("object")
        while current is not None and current.type == "method_invocation":
            name = current.child_by_field_name("name")
            inner = call_arguments(current)
            if name is not None and self.java.text(name) == "setTopic" and len(inner) == 1:
                topic = self.java.value(inner[0])
                self.produced.append(ProducedTag(topic, self.java.value(args[0]), self.java.location(call)))
                return
            current = current.child_by_field_name("object")

    def _v5_consumer(self, builder: tree_sitter.Node, role: str) -> None:
        """provider.newPushConsumerBuilder().setConsumerGroup(g).setSubscriptionExpressions(m)
        .setMessageListener(l).build(): the links of the chain, walked outwards from the builder call."""
        java = self.java
        links: list[tuple[str, tree_sitter.Node, tree_sitter.Node]] = []  # (method, name node, invocation)
        current = builder
        parent = current.parent
        while parent is not None and parent.type == "method_invocation":
            target = parent.child_by_field_name("object")
            name = parent.child_by_field_name("name")
            if target is None or target.id != current.id or name is None:
                break
            links.append((java.text(name), name, parent))
            current, parent = parent, parent.parent
        if not links or links[-1][0] != "build":
            return  # a builder kept in a variable and configured elsewhere: not followed
        _key, variable = self._target_of(current)
        fact = ClientFact(role=role, api="java5", location=java.location(builder), name=variable)
        for method, name, invocation in links:
            args = call_arguments(invocation)
            where = java.span(name, invocation)
            if method == "setConsumerGroup" and len(args) == 1:
                fact.group = Setting(java.value(args[0]), where)
            elif method == "setSubscriptionExpressions" and len(args) == 1:
                for topic, (expression, selector) in self._v5_subscriptions(args[0]):
                    fact.subscriptions.append(Subscription(topic, expression, selector, where))
            elif method == "setMessageListener" and len(args) == 1:
                fact.listeners.append(analyze_listener(java, args[0], V5).listener)
        self.clients.append(fact)

    def _v5_subscriptions(self, node: tree_sitter.Node) -> list[tuple[Value, tuple[Value, str]]]:
        """Topic -> filter expression pairs of `Collections.singletonMap(t, f)` / `Map.of(t1, f1, ...)`, directly
        or through a variable initialised with one; anything else is not followed (no subscription is guessed)."""
        java = self.java
        current = self._follow(node)
        if current is None or current.type != "method_invocation":
            return []
        name = java.text(current.child_by_field_name("name"))
        args = call_arguments(current)
        if name not in ("singletonMap", "of") or len(args) % 2:
            return []
        return [(java.value(args[i]), self._v5_filter(args[i + 1])) for i in range(0, len(args), 2)]

    def _v5_filter(self, node: tree_sitter.Node) -> tuple[Value, str]:
        java = self.java
        current = self._follow(node)
        if current is not None and current.type == "field_access":
            field = current.child_by_field_name("field")
            if field is not None and java.text(field) == "SUB_ALL":
                return Lit("*"), "TAG"
        if current is None or current.type != "object_creation_expression":
            return Dynamic("filter expression not followed"), "TAG"
        args = call_arguments(current)
        if not args:
            return Lit("*"), "TAG"
        selector = "TAG"
        if len(args) >= 2:
            kind = self._enum_value(args[1])
            if not isinstance(kind, Lit):
                return java.value(args[0]), "TAG"
            selector = "SQL92" if kind.text == "SQL92" else "TAG"
        return java.value(args[0]), selector

    def _follow(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """Through parentheses and effectively final variables to the expression that made a value."""
        for _ in range(8):
            if node is None:
                return None
            if node.type == "parenthesized_expression" and node.named_children:
                node = node.named_children[0]
                continue
            if node.type in ("identifier", "field_access"):
                declared = self._declared(node)
                if declared is None or declared.value is None or declared.name in self.java.assigned_names():
                    return node
                node = declared.value
                continue
            return node
        return node

    def _template_send(self, call: tree_sitter.Node) -> None:
        receiver = call.child_by_field_name("object")
        args = call_arguments(call)
        if receiver is None or len(args) < 2 or not self._is_template(receiver):
            return
        destination = self.java.value(args[0])
        where = self.java.location(call)
        split = split_destination(destination)
        if split is not None:
            topic, tag = split
            if not (isinstance(tag, Lit) and tag.text == ""):
                self.produced.append(ProducedTag(topic, tag, where))
        elif not isinstance(destination, (Lit, Dynamic)):
            reason = Dynamic("destination is split by the linker")
            self.produced.append(ProducedTag(reason, reason, where, destination=destination))

    def _is_template(self, receiver: tree_sitter.Node) -> bool:
        if receiver.type not in ("identifier", "field_access"):
            return False
        declared = self._declared(receiver)
        if declared is not None and declared.type_text.endswith("RocketMQTemplate"):
            return True
        return "rocketmqtemplate" in self.java.text(receiver).lower()

    # --- Spring listeners ---------------------------------------------------------------------------------

    def _allocate_strategy(self, fact: ClientFact, strategy: tree_sitter.Node, where: Location) -> None:
        """`setAllocateMessageQueueStrategy(new AllocateMessageQueueConsistentHash(10))`: the class's simple name and
        its first constructor argument (virtual nodes, a machine-room resolver...); an anonymous subclass or any
        other expression is an object whose allocation is not the named class's, or not known here."""
        java = self.java
        if strategy.type != "object_creation_expression" or strategy.child_by_field_name("type") is None:
            fact.allocate_strategy = Setting(Dynamic("a strategy object built elsewhere"), where)
            return
        type_name = java.text(strategy.child_by_field_name("type")).split("<", 1)[0].rsplit(".", 1)[-1]
        if any(child.type == "class_body" for child in strategy.named_children):  # its own allocate, not the class's
            fact.allocate_strategy = Setting(Dynamic(f"an anonymous subclass of {type_name}"), where)
            return
        fact.allocate_strategy = Setting(Lit(type_name), where)
        arguments = call_arguments(strategy)
        if arguments:
            fact.allocate_strategy_argument = Setting(java.value(arguments[0]), java.location(arguments[0]))

    def _spring_listener(self, annotation: tree_sitter.Node) -> None:
        java = self.java
        modifiers = annotation.parent
        declaration = modifiers.parent if modifiers is not None else None
        if declaration is None or declaration.type != "class_declaration":
            return
        name_node = declaration.child_by_field_name("name")
        # rocketmq-v5-client-spring-boot has its own annotation: `tag` / `filterExpressionType` ("tag"|"sql92"),
        # topic and tag default to configuration keys, and listeners implement `ConsumeResult consume(..)`.
        v5 = java.imports.get(SPRING_LISTENER, "").startswith(SPRING_V5_PACKAGE)
        fact = ClientFact(role="push_consumer", api="spring5-listener" if v5 else "spring-listener",
                          location=java.location(annotation),
                          name=java.text(name_node) if name_node is not None else "")
        attributes: dict[str, tree_sitter.Node] = {}
        arguments = annotation.child_by_field_name("arguments")
        for pair in arguments.named_children if arguments is not None else []:
            if pair.type == "element_value_pair":
                key = pair.child_by_field_name("key")
                if key is not None and pair.child_by_field_name("value") is not None:
                    attributes[java.text(key)] = pair

        def value_of(name: str, spring: bool = True) -> Setting | None:
            pair = attributes.get(name)
            if pair is None:
                return None
            return Setting(java.value(pair.child_by_field_name("value"), spring=spring), java.location(pair),
                           *java_spans.attribute_spans(java, pair))

        def enum_of(name: str) -> Setting | None:
            pair = attributes.get(name)
            if pair is None:
                return None
            return Setting(self._enum_value(pair.child_by_field_name("value")), java.location(pair),
                           *java_spans.attribute_spans(java, pair))

        for attribute, (field, kind) in LISTENER_ATTRIBUTES.items():
            setattr(fact, field, enum_of(attribute) if kind == "enum" else value_of(attribute, spring=kind == "spring"))
        topic = value_of("topic")
        expression = value_of("tag") if v5 else value_of("selectorExpression")
        selector = enum_of("filterExpressionType") if v5 else enum_of("selectorType")
        selector_text = "TAG"
        if selector is not None:
            text = selector.value.text if isinstance(selector.value, Lit) else ""
            selector_text = "SQL92" if text.upper() == "SQL92" else "TAG"
        if topic is not None or v5:
            where = expression or topic
            fact.subscriptions.append(Subscription(
                topic.value if topic is not None else Placeholder("rocketmq.push-consumer.topic", Lit("")),
                expression.value if expression is not None else (
                    Placeholder("rocketmq.push-consumer.tag", Lit("")) if v5 else Lit("*")),
                selector_text,
                where.location if where is not None else fact.location,
            ))
        body = declaration.child_by_field_name("body")
        owner = java.class_of_body(body) if body is not None else None
        flavor = V5 if v5 else V4
        methods = find_methods(owner, java, "consume" if v5 else "onMessage") if owner is not None else []
        for method in methods[:1]:
            method_body = method.child_by_field_name("body")
            if method_body is not None:
                fact.listeners.append(
                    scan_body(java, method_body, "spring", java.location(method), flavor).listener)
        if owner is not None:
            self._prepare_start(owner, fact)
        self.clients.append(fact)

        def connection_value(name: str) -> Setting | None:
            # `${rocketmq.consumer.secret-key}` without a default: the configuration file reports its own value.
            setting = value_of(name)
            if setting is not None and isinstance(setting.value, Placeholder) and setting.value.default is None \
                    and setting.value.key.startswith("rocketmq."):
                return None
            return setting

        connection = Connection(fact.api, fact.location, name_server=None if v5 else connection_value("nameServer"),
                                endpoints=connection_value("endpoints") if v5 else None,
                                access_key=connection_value("accessKey"), secret_key=connection_value("secretKey"))
        if connection.name_server or connection.endpoints or connection.access_key or connection.secret_key:
            self.connections.append(connection)

    def _prepare_start(self, owner, fact: ClientFact) -> None:
        """RocketMQPushConsumerLifecycleListener.prepareStart(consumer): the container calls it after applying
        the annotation, so its setter calls on the parameter configure this listener's consumer."""
        java = self.java
        for method in find_methods(owner, java, "prepareStart"):
            params = method.child_by_field_name("parameters")
            body = method.child_by_field_name("body")
            formal = [p for p in params.named_children if p.type == "formal_parameter"] if params is not None else []
            if body is None or len(formal) != 1 or formal[0].child_by_field_name("name") is None:
                continue
            name = java.text(formal[0].child_by_field_name("name"))
            for call, method_name in self._calls:
                receiver = call.child_by_field_name("object")
                if (method_name in CLIENT_SETTERS and body.start_byte <= call.start_byte < body.end_byte
                        and receiver is not None and receiver.type == "identifier" and java.text(receiver) == name):
                    self._configure(fact, call, method_name)

    # --- variables ----------------------------------------------------------------------------------------

    def _target_of(self, node: tree_sitter.Node) -> tuple[Key | None, str]:
        """The variable a creation is stored in: `X x = new ..`, `x = new ..`, `this.x = new ..`, a field."""
        java = self.java
        child = node
        parent = node.parent
        while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
            child, parent = parent, parent.parent
        if parent is None:
            return None, ""
        if parent.type == "variable_declarator":
            name_node = parent.child_by_field_name("name")
            if name_node is None:
                return None, ""
            name = java.text(name_node)
            holder = parent.parent
            if holder is not None and holder.type in ("field_declaration", "constant_declaration"):
                owner = holder.parent
                if owner is not None and owner.type == "enum_body_declarations":
                    owner = owner.parent
                return (("field", owner.id, name) if owner is not None else None), name
            scope = java.enclosing_callable(parent)
            return (("local", scope.id, name) if scope is not None else None), name
        if parent.type == "assignment_expression":
            right = parent.child_by_field_name("right")
            left = parent.child_by_field_name("left")
            if right is None or right.id != child.id or left is None:
                return None, ""
            return self._variable_key(left)
        return None, ""

    def _variable_key(self, node: tree_sitter.Node) -> tuple[Key | None, str]:
        java = self.java
        if node.type == "identifier":
            name = java.text(node)
            found = java.lookup(name, node)
            if found is not None:
                kind, scope, info = found
                if kind == "local" and getattr(info, "is_parameter", False):
                    return None, name
                return (kind, scope.id, name), name
            owner = self._innermost_body(node)
            return (("field", owner.id, name) if owner is not None else None), name
        if node.type == "field_access":
            target = node.child_by_field_name("object")
            field = node.child_by_field_name("field")
            if target is not None and target.type == "this" and field is not None:
                name = java.text(field)
                owner = self._innermost_body(node)
                return (("field", owner.id, name) if owner is not None else None), name
        return None, ""

    def _innermost_body(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        for scope in self.java.scopes(node):
            if scope.type in CLASS_BODIES:
                return scope
        return None

    def _receiver(self, call: tree_sitter.Node, table: dict):
        """The client/message a call is made on, when exactly one creation can be meant."""
        receiver = call.child_by_field_name("object")
        if receiver is None:
            return None
        key, _name = self._variable_key(receiver)
        candidates = table.get(key) if key is not None else None
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        # The last creation before the call in the same callable. Creations are kept in source order: a bisection,
        # not a scan of every creation of the variable for every call (a method reassigning one message variable
        # thousands of times was quadratic).
        here = self._callable_id(call)
        starts = self._starts.get(id(candidates))
        if starts is None or len(starts[1]) != len(candidates):
            starts = self._starts[id(candidates)] = (candidates, [c.node.start_byte for c in candidates])
        index = bisect.bisect_left(starts[1], call.start_byte)
        for candidate in _backwards(candidates, index):
            if candidate.callable_id == here:
                return candidate
        return None

    def _declared(self, node: tree_sitter.Node):
        java = self.java
        if node.type == "identifier":
            found = java.lookup(java.text(node), node)
            return found[2] if found is not None else None
        if node.type == "field_access":
            target = node.child_by_field_name("object")
            field = node.child_by_field_name("field")
            if target is not None and target.type == "this" and field is not None:
                owner = java.enclosing_class(node)
                return owner.fields.get(java.text(field)) if owner is not None else None
        return None

    def _callable_id(self, node: tree_sitter.Node) -> int | None:
        scope = self.java.enclosing_callable(node)
        return scope.id if scope is not None else None


def _backwards(items: list, end: int):
    """items[end - 1], items[end - 2], ... without copying the list."""
    for index in range(end - 1, -1, -1):
        yield items[index]


def declared_modifiers(declaration: tree_sitter.Node) -> set[str]:
    """The modifiers (`private`, `static`, ...) of a declaration."""
    return {m.type for child in declaration.children if child.type == "modifiers" for m in child.children}


def call_arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The arguments of a call or creation, comments left out."""
    args = node.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type not in ("line_comment", "block_comment")] if args else []
