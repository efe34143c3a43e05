"""RocketMQ clients, subscriptions, consume callbacks, produced tags and connections in one parsed Go file
(rocketmq-client-go v2).

A client is made by `rocketmq.NewPushConsumer(opts...)` (`consumer.NewPushConsumer`), `rocketmq.NewPullConsumer`
(its `Subscribe` and `Poll` rebalance the subscribed topics as a lite pull consumer does), `rocketmq.NewProducer`
or `NewTransactionProducer` (`producer.NewDefaultProducer`...), and configured by the options passed to it: written
in the call, or held by a slice (`opts := []consumer.Option{...}; opts = append(opts, ...)`: every option that may
reach the call), or returned by a function of the file. The variable the client is stored in (a local, a
package-level variable, a struct field) identifies it, so `c.Subscribe(topic, selector, callback)` anywhere in the
file subscribes it; a function that returns the client it makes, or makes it from its parameters, makes one client
per call, with the call's arguments and subscribed as its caller subscribes the result (`rmqlint.calls`: the
file's own calls here, other files' through `GoFrontend.find_calls`). Options that cannot be followed (a parameter, another package's function) make the client
`configured_elsewhere`, its model unknown. A consumer held by a local variable of a function that neither starts
nor hands it on never runs and is no client, nor is the one a function returns to such a caller (`go.lifecycle`).

`primitive.NewMessage(topic, body)` (or a `primitive.Message{Topic: ..}` literal) and its `WithTag(tag)` are a
produced tag. `WithNameServer(primitive.NamesrvAddr{..})` / `WithNsResolver(primitive.NewPassthroughResolver(..))`
are one `Connection` per address element, and each `primitive.Credentials{AccessKey, SecretKey}` literal one (for
whichever client takes it: `WithCredentials` of a consumer, a producer or the admin client).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import tree_sitter

from rmqlint.calls import has_params, instantiate
from rmqlint.facts import ClientFact, Connection, Location, ProducedTag, Setting, Subscription, Template
from rmqlint.spans import Slot
from rmqlint.frontends.go import listeners
from rmqlint.frontends.go.index import ROCKETMQ_MODULE, GoFile, _composite, single_return
from rmqlint.frontends.go.lifecycle import handed_on
from rmqlint.frontends.go.tree import FUNCTIONS, LANGUAGE, walk
from rmqlint.values import Dynamic, Lit, Value, concat, map_literals, one_of, without_origins

API = "go"
PACKAGES = {ROCKETMQ_MODULE: "rocketmq", f"{ROCKETMQ_MODULE}/consumer": "consumer",
            f"{ROCKETMQ_MODULE}/producer": "producer", f"{ROCKETMQ_MODULE}/primitive": "primitive"}
CONSTRUCTORS = {
    ("rocketmq", "NewPushConsumer"): "push_consumer", ("consumer", "NewPushConsumer"): "push_consumer",
    ("rocketmq", "NewPullConsumer"): "lite_pull_consumer", ("consumer", "NewPullConsumer"): "lite_pull_consumer",
    ("rocketmq", "NewProducer"): "producer", ("rocketmq", "NewTransactionProducer"): "producer",
    ("producer", "NewDefaultProducer"): "producer", ("producer", "NewTransactionProducer"): "producer",
}
# Options that set a client's setting: option function -> the `ClientFact` field. A new setting is one line here.
OPTIONS = {
    "WithGroupName": "group",
    "WithInstance": "instance_name",
    "WithUnitName": "unit_name",
    "WithConsumerModel": "message_model",
    "WithConsumerOrder": "consume_mode",
    "WithMaxReconsumeTimes": "max_reconsume_times",
    "WithConsumeMessageBatchMaxSize": "consume_batch_max_size",
    "WithPullBatchSize": "pull_batch_size",
    "WithStrategy": "allocate_strategy",
}
MODELS = {"BroadCasting": "BROADCASTING", "Clustering": "CLUSTERING"}
SELECTOR_TYPES = {"TAG": "TAG", "SQL92": "SQL92"}
_CALLED = sorted({name for _p, name in CONSTRUCTORS} | {"Subscribe", "NewMessage", "WithTag"})
_CALLS = tree_sitter.Query(LANGUAGE, f"""
    (call_expression function: (selector_expression field: (field_identifier) @name
        (#any-of? @name {" ".join(f'"{n}"' for n in _CALLED)}))) @call
    (composite_literal type: (qualified_type package: (package_identifier) @package
        name: (type_identifier) @type (#eq? @type "Credentials"))) @credentials
""")

# Calls of a function by its name (`newConsumer(..)`) or its package's (`mq.NewConsumer(..)`).
_CALLED_FUNCTIONS = tree_sitter.Query(LANGUAGE, """
    (call_expression function: (identifier)) @call
    (call_expression function: (selector_expression operand: (identifier))) @call
""")

# Steps followed from a constructor to an option (a variable, `append`, a function's return): each append of a
# slice is two; past this the options are not followed (the client is then configured elsewhere).
MAX_OPTION_DEPTH = 128

# `target = value` / `target := value` of one variable each, and `Type{target: value}`, for a client handed on.
_HANDED_ON = tree_sitter.Query(LANGUAGE, """
    (assignment_statement left: (expression_list . [(identifier) (selector_expression)] @target .)
        right: (expression_list . (identifier) @value .))
    (short_var_declaration left: (expression_list . (identifier) @target .)
        right: (expression_list . (identifier) @value .))
    (keyed_element . (literal_element (identifier) @field) . (literal_element (identifier) @value))
""")

Key = tuple  # ("local", function id, name) | ("package", name) | ("field", name)


@dataclass
class _Options:
    calls: list[tuple[tree_sitter.Node, dict]]  # option calls with the parameter bindings they are read with
    unknown: bool = False  # some option could not be followed


class ClientExtractor:
    def __init__(self, go: GoFile, seeds: dict | None = None,
                 seed_returns: Callable[[tuple[str, str]], bool] | None = None) -> None:
        self.go = go
        self.clients: list[ClientFact] = []
        self.produced: list[ProducedTag] = []
        self.connections: list[Connection] = []
        self._by_key: dict[Key, ClientFact] = {}
        self._returned: dict[str, ClientFact] = {}  # a function of the file -> the client it returns
        self._namespaces: dict[int, Value] = {}  # id of a client -> its namespace
        self._maker: dict[int, tree_sitter.Node] = {}  # id of a client -> the function of the file making it
        # Calls of the file's functions (and of `seeds`): (package path or "", name) -> (call, the caller's client
        # so far: what it subscribes the client it gets to).
        self._calls_of: dict[tuple[str, str], list[tuple[tree_sitter.Node, ClientFact | None]]] = {}
        self.templates: list[Template] = []  # clients made by a function from its parameters, one per call
        # Functions of other files that make a client from their parameters, by how this file calls them
        # ((package path or "", name) -> (the client with its parameters, the function as `Param`s name it)); the
        # clients this file's calls of them make go to `seeded` (`GoFrontend.find_calls`).
        self.seeds = dict(seeds or {})
        # Whether a seed's function returns its client to the caller (asked only of callers that neither start nor
        # hand on what they get; unknown: it may be a struct whose methods start the client, which then counts).
        self._seed_returns = seed_returns or (lambda _called: False)
        self.seeded: list[tuple[tuple[str, str], ClientFact | None]] = []  # None: a consumer never started
        # id of a consumer (or of a caller's client) held by a local variable -> where it is made, the variable.
        self._locals: dict[int, tuple[tree_sitter.Node, str]] = {}
        self._handed_on: dict[int, set[str]] = {}  # function id -> `lifecycle.handed_on`
        # Function id -> the producers sending each variable's messages there (`_senders`).
        self._sent_by: dict[int, dict[tuple[str, int], list[ClientFact | None]]] = {}

    def run(self) -> None:
        go = self.go
        calls: list[tuple[tree_sitter.Node, str]] = []
        credentials: list[tree_sitter.Node] = []
        for _pattern, match in tree_sitter.QueryCursor(_CALLS).matches(go.tree.root_node):
            if "call" in match:
                calls.append((match["call"][0], go.text(match["name"][0])))
            elif go.imports.get(go.text(match["package"][0])) == f"{ROCKETMQ_MODULE}/primitive":
                credentials.append(match["credentials"][0])
        calls.sort(key=lambda item: item[0].start_byte)
        for call, name in calls:
            role = CONSTRUCTORS.get((self._package(call), name))
            if role is not None:
                self._created(call, role)
        self._helper_results()
        self._aliases()
        for call, name in calls:
            if name == "Subscribe":
                self._subscribe(call)
            elif name == "WithTag":
                self._tag(call)
        self._made_by_calls()
        # Keys written for any client (the admin client's `admin.WithCredentials`, one built before its option).
        taken = {c.location for c in self.connections}
        for literal in credentials:
            if go.location(literal) not in taken:
                self._credentials(literal, {}, go.location(literal))
        self.clients.sort(key=lambda c: (c.location.line, c.location.column))
        self.produced.sort(key=lambda p: (p.location.line, p.location.column))
        self.connections.sort(key=lambda c: (c.location.line, c.location.column))

    # --- clients ------------------------------------------------------------------------------------------

    def _package(self, call: tree_sitter.Node) -> str:
        """The RocketMQ package a call `x.F(..)` names through `x` ("rocketmq", "consumer", ...), or ""."""
        function = call.child_by_field_name("function")
        operand = function.child_by_field_name("operand") if function is not None else None
        if operand is None or operand.type != "identifier" or self.go.lookup(self.go.text(operand), call) is not None:
            return ""
        return PACKAGES.get(self.go.imports.get(self.go.text(operand), ""), "")

    def _created(self, call: tree_sitter.Node, role: str) -> None:
        go = self.go
        key, name = self._target(call)
        fact = ClientFact(role=role, api=API, location=go.location(call), name=name)
        if key is not None and key[0] == "local":
            self._locals[id(fact)] = (call, name)
        arguments = go.arguments(call)
        if role == "producer" and arguments and self._package(call) and \
                go.text(call.child_by_field_name("function")).endswith("TransactionProducer"):
            arguments = arguments[1:]  # the transaction listener
        options = self._options(arguments, {})
        namespace = None
        for option, bindings in sorted(options.calls, key=lambda found: found[0].start_byte):
            self._option(fact, option, bindings)
            if self._option_name(option) == "WithNamespace":
                namespace = option
        if fact.role != "producer" and fact.consume_mode is None:
            # rocketmq-client-go consumes concurrently unless WithConsumerOrder(true) says otherwise.
            fact.consume_mode = Setting(Lit("CONCURRENTLY") if not options.unknown else
                                        Dynamic("options not followed here may order it"), fact.location)
        if options.unknown:
            fact.configured_elsewhere = True
            if fact.role != "producer" and fact.message_model is None:
                fact.message_model = Setting(Dynamic("options not followed here may set the model"), fact.location)
        if namespace is not None:
            # The client prefixes the group and every topic it subscribes to with `namespace%` (when not empty):
            # to the broker, `ns%orders` is the group.
            args = go.arguments(namespace)
            value = go.value(args[0]) if args else Dynamic("no namespace")
            if not (isinstance(value, Lit) and value.text == ""):
                self._namespaces[id(fact)] = value
                if fact.group is not None:
                    fact.group = Setting(self._prefixed(value, fact.group.value), fact.group.location)
        self.clients.append(fact)
        if key is not None:
            self._by_key[key] = fact
        functions = go.functions(call)
        if functions and functions[-1].type == "function_declaration":
            self._maker[id(fact)] = functions[-1]
        function = functions[0] if functions else None
        if function is not None and function.type == "function_declaration" and _returned_directly(call):
            self._returned[go.text(function.child_by_field_name("name"))] = fact

    @staticmethod
    def _prefixed(namespace: Value, name: Value) -> Value:
        """`ns%name`, as the client writes a name in a namespace (`ns` empty or unknown: as far as it is known)."""
        if isinstance(namespace, Dynamic):
            return Dynamic(f"prefixed with a namespace not known here ({namespace.reason})")
        return concat([namespace, Lit("%"), without_origins(name)])

    def _target(self, call: tree_sitter.Node) -> tuple[Key | None, str]:
        """The variable a call's (first) result is stored in: `c, err := ..`, `c, err = ..`, `s.consumer, err =
        ..`, `var c, err = ..`."""
        holder = call.parent
        if holder is None or holder.type != "expression_list":
            return None, ""
        statement = holder.parent
        if statement is None or statement.type not in ("short_var_declaration", "assignment_statement", "var_spec"):
            return None, ""
        if holder.named_children[0].id != call.id:
            return None, ""
        if statement.type == "var_spec":
            names = statement.children_by_field_name("name")
            target = names[0] if names else None
        else:
            left = statement.child_by_field_name("left")
            target = left.named_children[0] if left is not None and left.named_children else None
        return self._key(target) if target is not None else (None, "")

    def _key(self, target: tree_sitter.Node) -> tuple[Key | None, str]:
        go = self.go
        if target.type == "identifier":
            name = go.text(target)
            if name == "_":
                return None, ""
            found = go.lookup(name, target)
            if found is not None:
                function, declared = found
                return ("local", function.id, declared.node.id if declared.node.type != "parameter_declaration"
                        else -1, name), name
            return ("package", name), name
        if target.type == "selector_expression":
            member = target.child_by_field_name("field")
            if member is not None:
                return ("field", go.text(member)), go.text(member)
        return None, ""

    def _client_of(self, receiver: tree_sitter.Node | None) -> ClientFact | None:
        if receiver is None:
            return None
        key, _name = self._key(receiver)
        return self._by_key.get(key) if key is not None else None

    def _helper_results(self) -> None:
        """`c, err := newConsumer()` with `func newConsumer()` of this file returning the client it makes (directly,
        or through the variable holding it): `c` holds that client."""
        go = self.go
        for name, function in go.top.functions.items():
            body = function.child_by_field_name("body")
            result = function.child_by_field_name("result")
            # A client is returned as an interface or a pointer whose type names it (`rocketmq.PushConsumer`).
            if name in self._returned or body is None or result is None or not any(
                    word in go.text(result) for word in ("Consumer", "Producer")):
                continue
            for node in walk(body, skip=FUNCTIONS):
                if node.type == "return_statement" and node.named_children:
                    values = node.named_children[0]
                    first = values.named_children[0] if values.type == "expression_list" else values
                    fact = self._client_of(first) if first.type == "identifier" else None
                    if fact is not None:
                        self._returned[name] = fact
                        break
        seeded_names = {name for _package, name in self.seeds}
        makers = {go.text(function.child_by_field_name("name")) for function in self._maker.values()}
        for node in self._calls_named(makers | seeded_names):
            function = node.child_by_field_name("function")
            written = go.text(function.child_by_field_name("field") if function.type == "selector_expression"
                              else function)
            if written not in go.top.functions and written not in seeded_names:
                continue  # most calls: neither a function of the file nor one of the seeds (a byte comparison)
            called = go.called(node)
            if called not in self.seeds and (called[0] or called[1] not in go.top.functions):
                continue
            returned = self._returned.get(called[1]) if not called[0] else None
            caller = None
            if returned is not None or called in self.seeds:
                key, variable = self._target(node)
                # What the caller subscribes the client it gets to, gathered here until the calls make their
                # clients (`_made_by_calls`).
                role = returned.role if returned is not None else self.seeds[called][0].role
                caller = ClientFact(role=role, api=API, location=go.location(node), name=variable)
                if key is not None and key[0] == "local":
                    self._locals[id(caller)] = (node, variable)
                if key is not None and key not in self._by_key:
                    self._by_key[key] = caller
            self._calls_of.setdefault(called, []).append((node, caller))

    def _aliases(self) -> None:
        """A client handed on to another variable or field (`bc.consumer = c`, `d := c`, `&Service{mq: c}`) is
        the same client there: subscribed through any of them."""
        if not self._by_key:
            return
        go = self.go
        for _pattern, match in tree_sitter.QueryCursor(_HANDED_ON).matches(go.tree.root_node):
            value = match["value"][0]
            key, _name = self._key(value)
            client = self._by_key.get(key) if key is not None else None
            if client is None:
                continue
            if "field" in match:  # a keyed element of a struct literal
                self._by_key.setdefault(("field", go.text(match["field"][0])), client)
                continue
            target_key, _name = self._key(match["target"][0])
            if target_key is not None:
                self._by_key.setdefault(target_key, client)

    def _calls_named(self, names: set[str]) -> list[tree_sitter.Node]:
        """The calls `name(..)` / `x.name(..)` of these names, the query run only where a byte search finds one."""
        if not names:
            return []
        found: dict[int, tree_sitter.Node] = {}
        pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\s*\(")
        for match in pattern.finditer(self.go.source):
            cursor = tree_sitter.QueryCursor(_CALLED_FUNCTIONS)
            cursor.set_byte_range(match.start(), match.end())
            for node in cursor.captures(self.go.tree.root_node).get("call", []):
                found[node.id] = node
        return sorted(found.values(), key=lambda node: node.start_byte)

    def _made_by_calls(self) -> None:
        """Calls of a function that makes a client from its parameters (`func newConsumer(group, topic string)`) or
        returns the client it makes: one client per call (each call makes one), the parameters bound to the call's
        arguments (`rmqlint.calls`), with what the caller subscribes it to when the function returns it. The
        function's own client is then a `Template` (other files' calls are bound by the linker,
        `GoFrontend.find_calls`), no client of its own unless nothing calls it."""
        go = self.go
        # A consumer never started does nothing: no client, no template (`go.lifecycle`).
        self.clients = [c for c in self.clients if not self._never_started(c)]
        makers: dict[str, list[ClientFact]] = {}
        for client in self.clients:
            function = self._maker.get(id(client))
            name = go.text(function.child_by_field_name("name")) if function is not None else ""
            if function is not None and (has_params(client, go.function_key(function))
                                         or self._returned.get(name) is client):
                makers.setdefault(name, []).append(client)
        for name, made in makers.items():
            function = go.top.functions[name]
            calls = self._calls_of.get(("", name), [])
            for client in made:
                self.templates.append(Template(go.function_key(function), client, called_here=bool(calls),
                                               escapes=False))  # options are fixed when a Go client is made
            self.clients = [c for c in self.clients if all(c is not m for m in made)]
            returned = self._returned.get(name)
            for call, caller in calls:
                # A returned consumer its caller neither starts nor hands on never runs: no client of this call.
                idle = caller is not None and self._never_started(caller)
                self.clients += [self._instance(client, go.function_key(function), call,
                                                caller if client is returned else None)
                                 for client in made if not (idle and client is returned)]
        for called, (template, method) in self.seeds.items():
            for call, caller in self._calls_of.get(called, []):
                idle = caller is not None and self._never_started(caller) and self._seed_returns(called)
                self.seeded.append((called, None if idle else self._instance(template, method, call, caller)))

    def _never_started(self, client: ClientFact) -> bool:
        """A consumer held by a local variable that its function neither starts nor hands on."""
        held = self._locals.get(id(client))
        found = self.go.lookup(held[1], held[0]) if held is not None and client.role != "producer" else None
        if found is None:
            return False
        function = found[0]
        if function.id not in self._handed_on:
            self._handed_on[function.id] = handed_on(self.go, function)
        return held[1] not in self._handed_on[function.id]

    def returns(self, function: str, client: Location) -> bool:
        """Whether the file's function `function` returns the client made at `client` (after `run`)."""
        returned = self._returned.get(function)
        return returned is not None and returned.location == client

    def _instance(self, template: ClientFact, method: str, call: tree_sitter.Node,
                  caller: ClientFact | None) -> ClientFact:
        args = self.go.arguments(call)
        client = instantiate(template, method, self.go.location(call), [self.go.value(a) for a in args],
                             [self.go.location(a) for a in args])
        if caller is not None:
            client.name = caller.name or client.name
            client.subscriptions = client.subscriptions + caller.subscriptions
            client.listeners = client.listeners + caller.listeners
        return client

    # --- options ------------------------------------------------------------------------------------------

    def _options(self, nodes: list[tree_sitter.Node], bindings: dict, depth: int = 0) -> _Options:
        """The option calls that reach a constructor through `nodes` (its arguments)."""
        found = _Options([])
        seen: dict[tuple[int, int], tuple[int, dict]] = {}
        for node in nodes:
            self._collect(node, bindings, found, seen, depth)
        return found

    def _collect(self, node: tree_sitter.Node, bindings: dict, found: _Options,
                 seen: dict[tuple[int, int], tuple[int, dict]], depth: int) -> None:
        """The options `node` may hold, into `found`. `seen` holds each node followed (with its bindings) and the
        fewest steps it was reached in: an option slice appended in N branches reaches each append by 2^N paths,
        and what a node holds does not depend on the path, so it is followed again only when reached in fewer
        steps (the limit on steps may have cut it short before). The bindings are kept with it: their id stays
        theirs."""
        go = self.go
        if depth > MAX_OPTION_DEPTH:
            found.unknown = True
            return
        key = (node.id, id(bindings))
        if key in seen and seen[key][0] <= depth:
            return
        seen[key] = (depth, bindings)
        if node.type in ("variadic_argument", "parenthesized_expression") and node.named_children:
            self._collect(node.named_children[0], bindings, found, seen, depth + 1)
            return
        if node.type == "call_expression":
            if self._option_name(node):
                if all(call.id != node.id for call, _bindings in found.calls):
                    found.calls.append((node, bindings))
                return
            package, name = go.called(node)
            if not package and name == "append":
                for argument in go.arguments(node):
                    self._collect(argument, bindings, found, seen, depth + 1)
                return
            function = go.top.functions.get(name) if not package else None
            if function is not None:
                inner = dict(bindings)
                for position, argument in enumerate(go.arguments(node)):
                    inner[(function.id, position)] = go.value(argument, bindings)
                for returned in _returns(go, function):
                    self._collect(returned, inner, found, seen, depth + 1)
                return
        elif node.type == "composite_literal":
            for element in go.elements(node):
                self._collect(element, bindings, found, seen, depth + 1)
            return
        elif node.type == "identifier":
            found_local = go.lookup(go.text(node), node)
            if found_local is not None:
                function, declared = found_local
                if declared.node.type in ("parameter_declaration", "variadic_parameter_declaration"):
                    found.unknown = True
                    return
                from rmqlint import flow
                from rmqlint.frontends.go import flow as go_flow

                try:
                    reaching = go_flow.reaching_values(go, function, go.text(node), node)
                except flow.Unsupported:
                    found.unknown = True
                    return
                for value in reaching:
                    if value is go_flow.NOT_PLAIN:
                        found.unknown = True
                    else:
                        self._collect(value, bindings, found, seen, depth + 1)
                return
            held = go.top.vars.get(go.text(node))
            if held is not None and go.text(node) not in go.assigned_names():
                self._collect(held, bindings, found, seen, depth + 1)
                return
        found.unknown = True

    def _option_name(self, call: tree_sitter.Node) -> str:
        """`WithGroupName` for `consumer.WithGroupName(..)` / `producer.WithGroupName(..)`, else ""."""
        if call.type != "call_expression" or self._package(call) not in ("consumer", "producer"):
            return ""
        name = self.go.called(call)[1]
        return name if name.startswith("With") else ""

    def _option(self, fact: ClientFact, call: tree_sitter.Node, bindings: dict) -> None:
        go = self.go
        name = self._option_name(call)
        args = go.arguments(call)
        where = go.location(call)
        argument = args[0] if args else None
        if name in ("WithNameServer", "WithNsResolver") and argument is not None:
            self._name_servers(argument, bindings)
            return
        if name == "WithCredentials" and argument is not None:
            self._credentials(argument, bindings, where)
            return
        setting_field = OPTIONS.get(name)
        if setting_field is None or argument is None:
            return
        if setting_field == "allocate_strategy":
            self._strategy(fact, argument, bindings, where)
            return
        if setting_field == "message_model":
            value = self._enum(argument, MODELS)
        elif setting_field == "consume_mode":
            value = map_literals(go.value(argument, bindings), lambda text: Lit(
                "ORDERLY" if text == "true" else "CONCURRENTLY") if text in ("true", "false") else Dynamic(text))
        else:
            value = go.value(argument, bindings)
        earlier = getattr(fact, setting_field)
        if earlier is not None:
            # Several options set it (appended in different branches): it is whichever the program takes, not the
            # one written last; no one place holds it for a fix.
            setattr(fact, setting_field, Setting(one_of([earlier.value, value]), earlier.location))
            return
        setattr(fact, setting_field, Setting(value, where, written=go.span_of(argument, operand=_operand(argument)),
                                             slot=self._option_slot(call), local_names=go.local_names(call)))

    def _option_slot(self, call: tree_sitter.Node) -> Slot | None:
        """After an option written among others (in the call's arguments or a slice literal), where one more option
        of the same package goes: `, consumer.WithX(..)`."""
        holder = call.parent
        if holder is not None and holder.type == "literal_element":
            holder = holder.parent
        function = call.child_by_field_name("function")
        operand = function.child_by_field_name("operand") if function is not None else None
        span = self.go.span_of(call)
        if holder is None or holder.type not in ("argument_list", "literal_value") or operand is None or span is None:
            return None
        return Slot(span, "call", f", {self.go.text(operand)}.")

    def _enum(self, node: tree_sitter.Node, names: dict[str, str]) -> Value:
        """A constant of the consumer package (`consumer.BroadCasting`) as the name rules use."""
        go = self.go
        for _ in range(8):
            if node.type == "selector_expression":
                member = node.child_by_field_name("field")
                text = go.text(member) if member is not None else ""
                return Lit(names[text]) if text in names else Dynamic(f"{go.text(node)} is not a known constant")
            if node.type == "identifier":
                held = go.local_value_node(node)
                if held is None:
                    break
                node = held
                continue
            break
        return Dynamic(f"{go.text(node)[:40]} is not known here")

    def _strategy(self, fact: ClientFact, node: tree_sitter.Node, bindings: dict, where: Location) -> None:
        """`consumer.AllocateByAveragely`, or a strategy a function makes (`consumer.AllocateByConsistentHash(10)`):
        its Go name (rmqplan takes it as an alias of the strategy), and the function's first argument."""
        go = self.go
        target = node.child_by_field_name("function") if node.type == "call_expression" else node
        operand = target.child_by_field_name("operand") if target is not None and \
            target.type == "selector_expression" else None
        member = target.child_by_field_name("field") if operand is not None else None
        if operand is None or member is None or operand.type != "identifier" or \
                go.imports.get(go.text(operand)) != listeners.CONSUMER_PACKAGE:
            fact.allocate_strategy = Setting(Dynamic("a strategy function of the code"), where)
            return
        fact.allocate_strategy = Setting(Lit(go.text(member)), where)
        args = go.arguments(node) if node.type == "call_expression" else []
        if args:
            fact.allocate_strategy_argument = Setting(go.value(args[0], bindings), go.location(args[0]))

    # --- connections --------------------------------------------------------------------------------------

    def _name_servers(self, node: tree_sitter.Node, bindings: dict) -> None:
        """Each element of a name server list (`primitive.NamesrvAddr{"a:9876", "b:9876"}`, a passthrough
        resolver's list): one address each, as the client dials it."""
        go = self.go
        if node.type == "call_expression" and go.called(node)[1] == "NewPassthroughResolver" and go.arguments(node):
            node = go.arguments(node)[0]
        if node.type == "identifier":
            held = go.local_value_node(node)
            if held is not None:
                node = held
        literal = _composite(node)
        if literal is None:
            return
        for element in go.elements(literal):
            self.connections.append(Connection(API, go.location(element), name_server=Setting(
                go.value(element, bindings), go.location(element), written=go.span_of(element))))

    def _credentials(self, node: tree_sitter.Node, bindings: dict, where: Location) -> None:
        go = self.go
        if node.type == "identifier":
            held = go.local_value_node(node)
            if held is not None:
                node = held
        literal = _composite(node)
        if literal is None:
            return
        keyed = go.keyed_elements(literal)
        access, secret = keyed.get("AccessKey"), keyed.get("SecretKey")
        connection = Connection(API, go.location(literal),
                                access_key=Setting(go.value(access, bindings), go.location(access))
                                if access is not None else None,
                                secret_key=Setting(go.value(secret, bindings), go.location(secret))
                                if secret is not None else None)
        if connection.access_key is not None or connection.secret_key is not None:
            self.connections.append(connection)

    # --- subscriptions ------------------------------------------------------------------------------------

    def _subscribe(self, call: tree_sitter.Node) -> None:
        go = self.go
        function = call.child_by_field_name("function")
        fact = self._client_of(function.child_by_field_name("operand"))
        args = go.arguments(call)
        if fact is None or fact.role == "producer" or len(args) < 2:
            return
        expression, selector = self._selector(args[1])
        topic = go.value(args[0])
        if id(fact) in self._namespaces:
            topic = self._prefixed(self._namespaces[id(fact)], topic)
        fact.subscriptions.append(Subscription(topic, expression, selector, go.location(call)))
        if len(args) >= 3 and fact.role == "push_consumer":
            fact.listeners.append(listeners.callback(go, args[2], _listener_kind(fact)))

    def _selector(self, node: tree_sitter.Node) -> tuple[Value, str]:
        """A `consumer.MessageSelector{Type: .., Expression: ..}`: its expression ("" selects every tag) and type."""
        go = self.go
        if node.type == "identifier":
            held = go.local_value_node(node)
            if held is not None:
                node = held
        literal = _composite(node)
        if literal is None:
            return Dynamic("a message selector made elsewhere"), "TAG"
        keyed = go.keyed_elements(literal)
        if not keyed:
            positional = go.elements(literal)
            keyed = dict(zip(("Type", "Expression"), positional))
        kind = "TAG"
        if "Type" in keyed:
            value = self._enum(keyed["Type"], SELECTOR_TYPES)
            if not isinstance(value, Lit):
                return Dynamic("the selector's type is not known"), "TAG"
            kind = value.text
        expression = go.value(keyed["Expression"]) if "Expression" in keyed else Lit("")
        return expression, kind

    # --- produced tags ------------------------------------------------------------------------------------

    def _tag(self, call: tree_sitter.Node) -> None:
        go = self.go
        function = call.child_by_field_name("function")
        receiver = function.child_by_field_name("operand") if function is not None else None
        args = go.arguments(call)
        if receiver is None or len(args) != 1:
            return
        topics = self._message_topics(receiver)
        if topics is None:
            return
        senders = self._senders(call, receiver)
        if senders:
            # A producer WithNamespace sends to `namespace%topic`, as its consumers subscribe; a sender not seen
            # here (a helper's parameter) is taken at the topic as written.
            topics = [self._prefixed(self._namespaces[id(sender)], topic)
                      if sender is not None and id(sender) in self._namespaces else topic
                      for sender in senders for topic in topics]
        self.produced.append(ProducedTag(one_of(topics), go.value(args[0]), go.location(call)))

    def _senders(self, call: tree_sitter.Node, receiver: tree_sitter.Node) -> list[ClientFact | None]:
        """The producers of the file that send the message a `WithTag` call tags (None for one this file does not
        make): the `Send..` calls taking it as written, or the variable holding it, in its function."""
        go = self.go
        node = call
        while node.parent is not None and node.parent.type in ("parenthesized_expression", "unary_expression"):
            node = node.parent
        if node.parent is not None and node.parent.type == "argument_list":
            return [self._sender(node.parent.parent)] if _sends(go, node.parent.parent) else []
        if receiver.type != "identifier":
            return []
        functions = go.functions(call)
        if not functions:
            return []
        function = functions[-1]
        by_variable = self._sent_by.get(function.id)
        if by_variable is None:
            # Every send of the function at once (a function sending thousands of messages is read once).
            by_variable = self._sent_by[function.id] = {}
            body = function.child_by_field_name("body")
            for send in walk(body) if body is not None else ():
                if _sends(go, send):
                    for argument in go.arguments(send):
                        if argument.type == "unary_expression" and argument.named_children:
                            argument = argument.named_children[-1]  # `&msg`
                        if argument.type == "identifier":
                            senders, sender = by_variable.setdefault(_variable(go, argument), []), self._sender(send)
                            if all(sender is not known for known in senders):  # each producer once
                                senders.append(sender)
        return by_variable.get(_variable(go, receiver), [])

    def _sender(self, send: tree_sitter.Node) -> ClientFact | None:
        """The producer of the file a `p.SendSync(..)` call sends with, None when the file does not make it."""
        fact = self._client_of(send.child_by_field_name("function").child_by_field_name("operand"))
        return fact if fact is not None and fact.role == "producer" and any(fact is c for c in self.clients) else None

    def _message_topics(self, node: tree_sitter.Node) -> list[Value] | None:
        """The topics of the messages an expression may hold; None when it is not a message made here."""
        go = self.go
        if node.type == "identifier":
            from rmqlint import flow
            from rmqlint.frontends.go import flow as go_flow

            found = go.lookup(go.text(node), node)
            if found is None:
                return None
            try:
                reaching = go_flow.reaching_values(go, found[0], go.text(node), node)
            except flow.Unsupported:
                return None
            topics: list[Value] = []
            for value in reaching:
                made = self._message_topics(value) if value is not go_flow.NOT_PLAIN else None
                if made is None:
                    return None
                topics += made
            return topics or None
        if node.type == "call_expression":
            package, name = go.called(node)
            if package == f"{ROCKETMQ_MODULE}/primitive" and name == "NewMessage" and go.arguments(node):
                return [go.value(go.arguments(node)[0])]
            return None
        literal = _composite(node)
        if literal is not None and go.text(literal.child_by_field_name("type")).endswith("Message"):
            topic = go.keyed_elements(literal).get("Topic")
            return [go.value(topic) if topic is not None else Dynamic("a message without a topic")]
        return None


# The producer methods that send the messages given to them (`SendSync(ctx, msgs...)`, `SendAsync(ctx, callback,
# msgs...)`, `SendOneWay`, `SendMessageInTransaction(ctx, msg)`, `Request(ctx, ttl, msg)`, `RequestAsync`).
_SENDS = frozenset({"SendSync", "SendAsync", "SendOneWay", "SendMessageInTransaction", "Request", "RequestAsync"})


def _sends(go: GoFile, node: tree_sitter.Node) -> bool:
    """Whether a node is a call `x.SendSync(..)` (or another of `_SENDS`)."""
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    member = function.child_by_field_name("field") if function is not None and \
        function.type == "selector_expression" else None
    return member is not None and go.text(member) in _SENDS


def _variable(go: GoFile, name: tree_sitter.Node) -> tuple[str, int]:
    """The variable a name reads: its name and declaration (-1 for a package-level one)."""
    found = go.lookup(go.text(name), name)
    return go.text(name), found[1].node.id if found is not None else -1


def _operand(node: tree_sitter.Node) -> bool:
    """`+ x` may follow the expression without parentheses."""
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        return operator is not None and operator.type in ("+", "-", "*", "/", "%")
    return node.type in ("interpreted_string_literal", "raw_string_literal", "identifier", "selector_expression",
                         "call_expression", "parenthesized_expression", "int_literal", "index_expression")


def _listener_kind(fact: ClientFact) -> str:
    mode = fact.consume_mode.value if fact.consume_mode is not None else Lit("CONCURRENTLY")
    return mode.text.lower() if isinstance(mode, Lit) else "unknown"


def _returned_directly(call: tree_sitter.Node) -> bool:
    holder = call.parent
    if holder is not None and holder.type == "expression_list":
        holder = holder.parent
    return holder is not None and holder.type == "return_statement"


def _returns(go: GoFile, function: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The first expression of each `return` of a function of the file (its own, not its literals')."""
    single = single_return(go, function)
    if single is not None:
        return [single]
    found = []
    body = function.child_by_field_name("body")
    for node in walk(body, skip=FUNCTIONS) if body is not None else ():
        if node.type == "return_statement" and node.named_children:
            values = node.named_children[0]
            found.append(values.named_children[0] if values.type == "expression_list" else values)
    return found

