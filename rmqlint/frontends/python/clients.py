"""The RocketMQ clients and messages of one Python module, and how the code configures them.

Two client generations are recognised by where their names are imported from:
- 2.x (`rocketmq.client`, `rocketmq.ffi`; apache/rocketmq-client-python): `PushConsumer(group_id, orderly,
  message_model)`, `set_group`, `set_instance_name`, `set_message_model`, `subscribe(topic, callback, expression)`
  with a callback returning `ConsumeStatus`; `Producer(group_id, ...)`, `TransactionMQProducer`, `PullConsumer`;
  `Message(topic)` with `set_tags`.
- 5.x (package `rocketmq`, `rocketmq.v5.*`; apache/rocketmq-clients python/): `PushConsumer(config, group,
  listener, {topic: FilterExpression(expr, FilterType.SQL)})`, `SimpleConsumer(config, group, {..})`,
  `subscribe(topic, FilterExpression(..))`, a `MessageListener` class whose `consume` returns `ConsumeResult`;
  `Message()` with `msg.topic = ..` / `msg.tag = ..`.

A client is identified by the variable or attribute holding it (`self.consumer` across the methods of a class);
aliases (`c = self.consumer`, a helper returning a client, a client passed to a helper of this module) are
followed, and each method call is attached to the object created last before it. A consumer held only by local
variables of functions that neither start it nor hand it on never runs and is no fact (`python.lifecycle`).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import libcst as cst

from rmqlint.calls import instantiate
from rmqlint.facts import ClientFact, Connection, FileFacts, Listener, ProducedTag, Setting, Subscription
from rmqlint.frontends.python.index import PythonIndex, ReturnsAndRaises, Scope, argument
from rmqlint.frontends.python.lifecycle import handed_on
from rmqlint.frontends.python.listeners import listener_v2, listener_v5
from rmqlint.values import Dynamic, Lit, Value, map_literals

# client class -> role, per generation
_V2_CLIENTS = {"PushConsumer": "push_consumer", "PullConsumer": "pull_consumer", "Producer": "producer",
               "TransactionMQProducer": "producer"}
_V5_CLIENTS = {"PushConsumer": "push_consumer", "LitePushConsumer": "push_consumer",
               "SimpleConsumer": "simple_consumer", "Producer": "producer"}
_V2_MODEL_NUMBERS = {"0": "BROADCASTING", "1": "CLUSTERING"}  # rocketmq/ffi.py MessageModel
# 2.x setters that configure a client: method -> (the `ClientFact` field, the keyword of its argument). A new
# setting is one line here.
_V2_SETTERS = {"set_group": ("group", "group_id"), "set_instance_name": ("instance_name", "name"),
               "set_message_model": ("message_model", "model")}


@dataclass
class _Client:
    fact: ClientFact
    version: str
    order: int
    scope: Scope | None = None  # where it is made
    node: cst.Call | None = None  # the constructor call, or the seeded call that makes it


@dataclass(frozen=True)
class Seed:
    """A call of a function of this module that makes a client (`rmqlint.calls`): the template it binds, and
    whether the call's result is that client."""

    client: ClientFact
    version: str
    returned: bool
    function: str  # the called function (`Param.function`)
    # A function of another module: its parameters' names by position, as far as the template's values name them
    # (for keyword arguments); empty for a function of this module, whose definition says it.
    parameters: tuple[str, ...] = ()


@dataclass
class _Message:
    version: str
    topic: Value | None
    order: int
    topics: list[tuple[int, Value]] = field(default_factory=list)  # 5.x `msg.topic = ..`


class ClientCollector:
    """Collects clients, messages and the calls on them from the module's assignments and calls (in source order),
    then links each call and message field to its object (`collect`)."""

    def __init__(self, index: PythonIndex, seeds: dict[int, list[Seed]] | None = None):
        self.index = index
        self.seeds = seeds or {}  # call node id -> what the call makes (`python.templates`)
        self.instances: list[tuple[Seed, ClientFact]] = []  # the clients the seeded calls made
        self.idle: set[int] = set()  # the ids of the facts of consumers never started (`python.lifecycle`)
        self._handed_on: dict[int, set[str]] = {}  # function node id -> `lifecycle.handed_on`
        self.scope: Scope = index.root  # the scope of the assignment or call being read
        self.handled: set[int] = set()  # constructor calls already attached to a receiver
        self.clients: dict[tuple, list[_Client]] = {}
        self.anonymous: list[_Client] = []
        self.messages: dict[tuple, list[_Message]] = {}
        self.calls: list[tuple[tuple, str, cst.Call, Scope]] = []  # receiver key, method, call, scope
        self.tag_assigns: list[tuple[tuple, cst.CSTNode, cst.BaseExpression, Scope]] = []
        self.aliases: list[tuple[list[tuple], list[tuple]]] = []  # target keys <- source keys
        self.returned: dict[int, list[tuple]] = {}  # function -> receivers it returns
        self.parameters: set[tuple] = set()  # keys of helper parameters: every object passed in is configured
        self.connections: list[Connection] = []

    def collect(self, facts: FileFacts) -> None:
        for kind, node, scope in self.index.events:
            self.scope = scope
            if kind == "assign":
                self._on_assign(node) if isinstance(node, cst.Assign) else self._on_annotated_assign(node)
            else:
                self._on_call(node)
        self._link(facts)

    def receiver(self, node: cst.BaseExpression, scope: Scope) -> tuple | None:
        """A stable key for the variable or attribute that holds an object."""
        if isinstance(node, cst.Name):
            found = self.index.find(node.value, scope)
            owner = found[0] if found else self.index.root
            if owner.kind == "class":  # a class attribute: the same object as `self.<name>` in its methods
                return ("attr", id(owner.node), node.value)
            return ("name", id(owner.node), node.value)
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            cls = self.index.class_of(node.value, scope)
            if cls is not None:
                return ("attr", id(cls.node), node.attr.value)
        if isinstance(node, cst.Call):
            return ("call", id(node))
        return None

    def _on_assign(self, node: cst.Assign) -> None:
        self._assigned([t.target for t in node.targets], node.value)

    def _on_annotated_assign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assigned([node.target], node.value)

    def _assigned(self, targets: list[cst.BaseExpression], value: cst.BaseExpression) -> None:
        keys = [k for k in (self.receiver(t, self.scope) for t in targets) if k is not None]
        self._construct(value, keys)
        self._alias(value, keys)
        for target in targets:
            self._note_message_field(target, value)

    def _alias(self, value: cst.BaseExpression, keys: list[tuple]) -> None:
        """`self.consumer = consumer` or `consumer = make_consumer()`: the targets also hold what the value holds
        (resolved once every object is known, see `_resolve_aliases`)."""
        if not keys:
            return
        if isinstance(value, (cst.Name, cst.Attribute)):
            source = self.receiver(value, self.scope)
            if source is not None:
                self.aliases.append((keys, [source]))
        elif isinstance(value, cst.Call) and id(value) not in self.seeds:  # a seeded call makes its own client
            function = self.index.function(value.func, self.scope)
            if isinstance(function, cst.FunctionDef):
                returned = self._returned_receivers(function)
                if returned:
                    self.aliases.append((keys, returned))

    def made(self) -> list[tuple[_Client, set[tuple]]]:
        """Every client made (once each, in the order made) and the keys of the variables that hold it."""
        keys: dict[int, set[tuple]] = {}
        clients: dict[int, _Client] = {}
        for client in self.anonymous:
            clients.setdefault(id(client), client)
        for key, held in self.clients.items():
            for client in held:
                clients.setdefault(id(client), client)
                keys.setdefault(id(client), set()).add(key)
        return sorted(((c, keys.get(i, set())) for i, c in clients.items()), key=lambda item: item[0].order)

    def returned_receivers(self, function: cst.FunctionDef) -> list[tuple]:
        """The keys of what the function returns."""
        return self._returned_receivers(function)

    def _returned_receivers(self, function: cst.FunctionDef) -> list[tuple]:
        if id(function) not in self.returned:
            collector = ReturnsAndRaises(function.body)
            scope = self.index.scopes[id(function)]
            keys = [self.receiver(r.value, scope) for r in collector.returns if r.value is not None]
            self.returned[id(function)] = [k for k in keys if k is not None]
        return self.returned[id(function)]

    def _pass_arguments(self, call: cst.Call) -> None:
        """`configure(consumer)`: inside a helper of this module, the parameter holds the argument's object."""
        function = self.index.function(call.func, self.scope)
        if not isinstance(function, cst.FunctionDef):
            return
        scope = self.index.scopes[id(function)]
        params = [*function.params.posonly_params, *function.params.params]
        if isinstance(call.func, cst.Attribute) and scope.self_name is not None:
            params = params[1:]  # a method called through its instance: `self` is bound already
        by_name = {p.name.value: p for p in [*params, *function.params.kwonly_params]}
        positional = [a for a in call.args if a.keyword is None and not a.star]
        for index, arg in enumerate(call.args):
            if arg.star:
                continue
            if arg.keyword is not None:
                param = by_name.get(arg.keyword.value)
            else:
                position = positional.index(arg)
                param = params[position] if position < len(params) else None
            source = self.receiver(arg.value, self.scope)
            if param is not None and source is not None:
                key = ("name", id(function), param.name.value)
                self.parameters.add(key)
                self.aliases.append(([key], [source]))

    def _resolve_aliases(self) -> None:
        """Propagates objects along the recorded aliases until nothing changes (chains, helpers calling helpers)."""
        members: dict[tuple[int, tuple], set[int]] = {}  # (table, key) -> ids of the objects in its bucket
        for _round in range(8):
            changed = False
            for targets, sources in self.aliases:
                for number, table in enumerate((self.clients, self.messages)):
                    for source in sources:
                        for held in list(table.get(source, ())):
                            for key in targets:
                                bucket = table.setdefault(key, [])
                                ids = members.get((number, key))
                                if ids is None:
                                    ids = members[(number, key)] = {id(h) for h in bucket}
                                if id(held) not in ids:
                                    ids.add(id(held))
                                    bucket.append(held)
                                    changed = True
            if not changed:
                break
        # Each variable's objects in source order, for `_owner`.
        for table in (self.clients, self.messages):
            for bucket in table.values():
                bucket.sort(key=lambda held: held.order)
        self._orders = {id(bucket): [held.order for held in bucket]
                        for table in (self.clients, self.messages) for bucket in table.values()}

    def _note_message_field(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Attribute) and target.attr.value in ("topic", "tag"):
            key = self.receiver(target.value, self.scope)
            if key is not None:
                self.tag_assigns.append((key, target, value, self.scope))

    def _on_call(self, node: cst.Call) -> None:
        if id(node) not in self.handled:
            self._construct(node, [])
        if node.args:
            self._pass_arguments(node)
        if isinstance(node.func, cst.Attribute):
            key = self.receiver(node.func.value, self.scope)
            if key is not None:
                self.calls.append((key, node.func.attr.value, node, self.scope))

    def _construct(self, value: cst.BaseExpression, keys: list[tuple]) -> None:
        if not isinstance(value, cst.Call):
            return
        if id(value) in self.seeds:
            self.handled.add(id(value))
            for seed in self.seeds[id(value)]:
                self._instantiate(value, seed, keys if seed.returned else [])
            return
        api = self.index.rocketmq(value.func, self.scope)
        if api is None:
            return
        version, name = api
        self.handled.add(id(value))
        if version == "python5" and name in ("Credentials", "ClientConfiguration"):
            self._v5_connection(value, name)
            return
        if name == "Message":
            topic = argument(value, 0, "topic") if version == "python2" else None
            message = _Message(version, self.index.value(topic, self.scope) if topic is not None else None,
                               self.index.order(value))
            for key in keys or [("call", id(value))]:  # `Message("t").set_tags(..)` chained
                self.messages.setdefault(key, []).append(message)
            return
        roles = _V2_CLIENTS if version == "python2" else _V5_CLIENTS
        if name not in roles:
            return
        client = _Client(self._client_fact(value, version, roles[name], keys, name), version, self.index.order(value),
                         self.scope, value)
        self._hold(client, keys)

    def _instantiate(self, call: cst.Call, seed: Seed, keys: list[tuple]) -> None:
        """The client a seeded call makes, with the call's arguments bound to the function's parameters."""
        args, places = self.call_arguments(call, seed.parameters)
        fact = instantiate(seed.client, seed.function, self.index.loc(call), args, places)
        name = next((k[2] if k[0] == "name" else f"self.{k[2]}" for k in keys), "")
        if name:
            fact.name = name
        self.instances.append((seed, fact))
        self._hold(_Client(fact, seed.version, self.index.order(call), self.scope, call), keys)

    def call_arguments(self, call: cst.Call, parameters: tuple[str, ...] = ()) -> tuple[list[Value | None], list]:
        """The values a call passes, by the called function's parameter positions (`self` counted: a method
        called on an instance gets it bound), and the places they are written. `parameters`: the names of a
        function of another module (module-level: nothing is bound before the first argument)."""
        function = self.index.function(call.func, self.scope)
        shift = 0
        if isinstance(function, cst.FunctionDef):
            parameters = tuple(p.name.value for p in [*function.params.posonly_params, *function.params.params,
                                                      *function.params.kwonly_params])
            inner = self.index.scopes.get(id(function))
            shift = 1 if isinstance(call.func, cst.Attribute) and inner is not None and inner.self_name else 0
        size = max(len(parameters), shift + sum(1 for a in call.args if a.keyword is None))
        values: list[Value | None] = [None] * size
        places: list = [None] * size
        positional = 0
        for arg in call.args:
            if arg.star:
                return [], []  # *args / **kwargs: which parameter gets what is not followed
            if arg.keyword is not None:
                at = parameters.index(arg.keyword.value) if arg.keyword.value in parameters else None
            else:
                at = shift + positional
                positional += 1
            if at is not None and at < size:
                values[at] = self.index.value(arg.value, self.scope)
                places[at] = self.index.loc(arg.value)
        return values, places  # a parameter no argument is passed for: its default (`Param.default`), if any

    def _hold(self, client: _Client, keys: list[tuple]) -> None:
        if not keys:
            self.anonymous.append(client)
            keys = [("call", id(client.node))]  # `PushConsumer("g").subscribe(..)`
        for key in keys:
            self.clients.setdefault(key, []).append(client)

    def _v5_connection(self, call: cst.Call, name: str) -> None:
        """5.x `Credentials(ak, sk)` and `ClientConfiguration(endpoints, credentials, ..)`."""
        if name == "Credentials":
            ak, sk = argument(call, 0, "ak"), argument(call, 1, "sk")
            if ak is not None or sk is not None:
                self.connections.append(Connection(
                    "python5", self.index.loc(call),
                    access_key=self._setting(ak, ak, self.scope) if ak is not None else None,
                    secret_key=self._setting(sk, sk, self.scope) if sk is not None else None))
            return
        endpoints = argument(call, 0, "endpoints")
        if endpoints is not None:
            self.connections.append(Connection("python5", self.index.loc(call),
                                               endpoints=self._setting(endpoints, endpoints, self.scope)))

    def _add_tag_subscription(self, fact: ClientFact, call: cst.Call, scope: Scope, expression_at: int) -> None:
        """2.x `subscribe(topic, callback, expression)` / `pull(topic, expression)`: a TAG subscription, `*` when
        the expression is left out."""
        topic = argument(call, 0, "topic")
        expression = argument(call, expression_at, "expression")
        if topic is not None:
            fact.subscriptions.append(Subscription(
                self.index.value(topic, scope), self.index.value(expression, scope) if expression is not None else Lit("*"),
                "TAG", self.index.loc(call)))

    def _setting(self, node: cst.BaseExpression, where: cst.CSTNode, scope: Scope) -> Setting:
        return Setting(self.index.value(node, scope), self.index.loc(where),
                       written=self.index.span(node, operand=is_operand(node)),
                       local_names=self.index.local_names(scope))

    def _model(self, node: cst.BaseExpression, scope: Scope, where: cst.CSTNode | None = None) -> Setting:
        """A 2.x message model: `MessageModel.X`, or the ctypes enum's number (BROADCASTING = 0, CLUSTERING = 1)."""
        setting = self._setting(node, where or node, scope)
        setting.value = map_literals(setting.value, lambda text: Lit(_V2_MODEL_NUMBERS.get(text, text)))
        return setting

    def _client_fact(self, call: cst.Call, version: str, role: str, keys: list[tuple], cls: str) -> ClientFact:
        scope = self.scope
        name = next((k[2] if k[0] == "name" else f"self.{k[2]}" for k in keys), "")
        fact = ClientFact(role=role, api=version, location=self.index.loc(call), name=name)
        if version == "python2":
            group = argument(call, 0, "group_id")
            if group is not None:
                fact.group = self._setting(group, group, scope)
            if role == "push_consumer":
                orderly = argument(call, 1, "orderly")
                if orderly is not None:
                    flag = self.index.value(orderly, scope)
                    mode = {"True": "ORDERLY", "False": "CONCURRENTLY"}.get(flag.text) if isinstance(flag, Lit) \
                        else None
                    fact.consume_mode = Setting(Lit(mode) if mode else Dynamic("orderly flag"), self.index.loc(orderly))
                model = argument(call, 2, "message_model")
                if model is not None:
                    fact.message_model = self._model(model, scope)
            return fact
        if role == "producer":
            return fact
        group = argument(call, 1, "consumer_group")
        if group is not None:
            fact.group = self._setting(group, group, scope)
        lite = cls == "LitePushConsumer"  # (config, group, bind_topic, listener): lite topics, no filter
        if role == "push_consumer":
            listener = argument(call, 3 if lite else 2, "message_listener")
            if listener is not None:
                found = listener_v5(self.index, listener, scope)
                if found is not None:
                    fact.listeners.append(found)
        subscription = None if lite else argument(call, 3 if role == "push_consumer" else 2, "subscription")
        if subscription is not None:
            fact.subscriptions.extend(self._subscription_dict(subscription, scope))
        return fact

    def _subscription_dict(self, node: cst.BaseExpression, scope: Scope) -> list[Subscription]:
        node, scope = self.index.resolve_node(node, scope)
        if not isinstance(node, cst.Dict):
            return []
        subs = []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                expression, selector = self._filter_expression(element.value, scope)
                subs.append(Subscription(self.index.value(element.key, scope), expression, selector, self.index.loc(element)))
        return subs

    def _filter_expression(self, node: cst.BaseExpression | None, scope: Scope) -> tuple[Value, str]:
        """(expression, "TAG" | "SQL92") of a 5.x FilterExpression; absent means all tags."""
        if node is None:
            return Lit("*"), "TAG"
        node, scope = self.index.resolve_node(node, scope)
        if not isinstance(node, cst.Call) or self.index.rocketmq(node.func, scope) is None \
                or self.index.rocketmq(node.func, scope)[1] != "FilterExpression":
            return Dynamic("filter expression"), "TAG"
        expression = argument(node, 0, "expression")
        kind = argument(node, 1, "filter_type")
        value = self.index.value(expression, scope) if expression is not None else Lit("*")
        if kind is None:
            return value, "TAG"
        kind_value = self.index.value(kind, scope)
        if isinstance(kind_value, Lit) and kind_value.text.upper() in ("SQL", "SQL92"):
            return value, "SQL92"
        if isinstance(kind_value, Lit) and kind_value.text.upper() == "TAG":
            return value, "TAG"
        return Dynamic("filter type is not known"), "TAG"

    def _link(self, facts: FileFacts) -> None:
        self._resolve_aliases()
        for key, method, call, scope in self.calls:
            if key in self.clients and key in self.parameters:
                for client in self.clients[key]:
                    self._client_call(client, method, call, scope)
            elif key in self.clients:
                self._client_call(self._owner(self.clients[key], self.index.order(call)), method, call, scope)
            elif key in self.messages and method == "set_tags":
                message = self._owner(self.messages[key], self.index.order(call))
                tag = argument(call, 0, "tags")
                if message.version == "python2" and tag is not None:
                    topic = message.topic if message.topic is not None else Dynamic("message topic")
                    facts.produced.append(ProducedTag(topic, self.index.value(tag, scope), self.index.loc(call)))
        for key, target, value, scope in self.tag_assigns:
            if key not in self.messages:
                continue
            message = self._owner(self.messages[key], self.index.order(target))
            if message.version != "python5":
                continue
            if target.attr.value == "topic":
                message.topics.append((self.index.order(target), self.index.value(value, scope)))
        for key, target, value, scope in self.tag_assigns:
            if key not in self.messages or target.attr.value != "tag":
                continue
            message = self._owner(self.messages[key], self.index.order(target))
            if message.version != "python5":
                continue
            topics = {repr(t) for _o, t in message.topics}
            if len(topics) == 1:
                topic = message.topics[0][1]
            else:
                topic = Dynamic("message topic is not set exactly once")
            facts.produced.append(ProducedTag(topic, self.index.value(value, scope), self.index.loc(target)))
        facts.connections.extend(self.connections)
        # A consumer nobody starts does nothing: no fact, no client made per call (`python.lifecycle`).
        self.idle = {id(client.fact) for client, keys in self.made() if self._never_started(client, keys)}
        self.instances = [(seed, fact) for seed, fact in self.instances if id(fact) not in self.idle]
        seen: set[int] = set()
        for client in [*self.anonymous, *(c for group in self.clients.values() for c in group)]:
            if id(client) not in seen and id(client.fact) not in self.idle:
                seen.add(id(client))
                facts.clients.append(client.fact)

    def _never_started(self, client: _Client, keys: set[tuple]) -> bool:
        """A consumer held only by local variables of functions, each of which neither starts nor hands it on."""
        if client.fact.role == "producer" or not keys:
            return False
        for key in keys:
            owner = self.index.scopes.get(key[1]) if key[0] == "name" else None
            if owner is None or owner.kind != "function":
                return False
            if key[1] not in self._handed_on:
                self._handed_on[key[1]] = handed_on(owner.node)
            if key[2] in self._handed_on[key[1]]:
                return False
        return True

    def _client_call(self, client: _Client, method: str, call: cst.Call, scope: Scope) -> None:
        fact = client.fact
        if client.version == "python2":
            if method in _V2_SETTERS:
                field, keyword = _V2_SETTERS[method]
                arg = argument(call, 0, keyword)
                if arg is not None and field == "message_model":
                    fact.message_model = self._model(arg, scope, call)
                elif arg is not None:
                    setattr(fact, field, self._setting(arg, call, scope))
            elif method == "subscribe" and fact.role == "push_consumer":
                self._add_tag_subscription(fact, call, scope, expression_at=2)
                callback = argument(call, 1, "callback")
                if callback is not None:
                    listener = listener_v2(self.index, callback, scope)
                    fact.listeners.append(listener or Listener(kind="unknown", location=self.index.loc(call)))
            elif method == "pull" and fact.role == "pull_consumer":
                self._add_tag_subscription(fact, call, scope, expression_at=1)
            elif method == "set_thread_count" and fact.role == "push_consumer":
                count = argument(call, 0, "thread_count")
                if count is not None:  # the C++ core's pool has this many threads, no more and no fewer
                    fact.consume_thread_min = fact.consume_thread_max = self._setting(count, call, scope)
            elif method == "set_message_batch_max_size" and fact.role == "push_consumer":
                size = argument(call, 0, "max_size")
                if size is not None:
                    fact.consume_batch_max_size = self._setting(size, call, scope)
            elif method == "set_name_server_address":
                address = argument(call, 0, "addr")
                if address is not None:
                    self.connections.append(Connection("python2", self.index.loc(call),
                                                       name_server=self._setting(address, call, scope)))
            elif method == "set_session_credentials":
                ak, sk = argument(call, 0, "access_key"), argument(call, 1, "access_secret")
                if ak is not None and sk is not None:
                    self.connections.append(Connection("python2", self.index.loc(call),
                                                       access_key=self._setting(ak, ak, scope),
                                                       secret_key=self._setting(sk, sk, scope)))
            return
        if method == "subscribe" and fact.role != "producer":
            topic = argument(call, 0, "topic")
            if topic is not None:
                expression, selector = self._filter_expression(argument(call, 1, "filter_expression"), scope)
                fact.subscriptions.append(Subscription(self.index.value(topic, scope), expression, selector,
                                                       self.index.loc(call)))

    def _owner(self, candidates: list, order: int):
        """Among objects assigned to one variable, the last one created before the use, else the first."""
        before = bisect.bisect_right(self._orders[id(candidates)], order)
        return candidates[before - 1] if before else candidates[0]


# Expressions after which `+ x` needs no parentheses: it binds as `(expression) + x` and means the same.
_OPERANDS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.ConcatenatedString,
             cst.FormattedString, cst.Integer, cst.Float)
_ADDITIVE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
             cst.MatrixMultiply)


def is_operand(node: cst.BaseExpression) -> bool:
    if getattr(node, "lpar", None):
        return True
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, _ADDITIVE)
    return isinstance(node, _OPERANDS)
