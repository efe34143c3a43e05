"""Facts: what a frontend learned about one file, independent of the language it was written in.

Frontends (`rmqlint.frontends.java`, `.python`, `.spring`) turn a file into a `FileFacts`; the linker resolves the
symbolic values across the project; rules read the facts, never syntax, so one rule serves every language.
`FileFacts` round-trips through JSON (`facts_to_json`/`facts_from_json`) for the per-file cache.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass, field
from typing import Optional

from rmqlint import values as _values
from rmqlint.spans import Slot, Span
from rmqlint.values import Value

FACTS_VERSION = 16  # bump whenever a fact's shape or a frontend's output changes: old cache entries are dropped


@dataclass(frozen=True)
class Location:
    """1-based line and column, end inclusive of the node's last line, end_column exclusive (as SARIF)."""

    path: str  # relative to the project root, '/'-separated
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass
class Setting:
    """A configured value and where it was set (a setter call, an annotation attribute, a config line).

    What fixes need, when the frontend knows it: `written`, the value's expression as written there (a setter's
    argument, an attribute's value, a configuration value); `removal`, the text whose deletion removes the setting
    (an annotation attribute with its comma); `slot`, where another setting of the client can be written next to
    this one; `local_names` (Python), the names that mean something other than the module's own where the value is
    written (the enclosing functions' parameters and locals, the class body's names): a fix that writes
    `uuid.uuid4()` there must not find `uuid` among them."""

    value: Value
    location: Location
    # Where it is written takes no part in comparisons, as a literal's origin takes none.
    written: Optional[Span] = field(default=None, compare=False)
    removal: Optional[Span] = field(default=None, compare=False)
    slot: Optional[Slot] = field(default=None, compare=False)
    local_names: list[str] = field(default_factory=list, compare=False)


@dataclass
class Subscription:
    topic: Value
    expression: Value  # the raw expression; "*" or "" means all; None-like defaults are Lit("*")
    selector: str  # "TAG" | "SQL92"
    location: Location


@dataclass
class Listener:
    """A message listener attached to a consumer and what its code returns or throws."""

    kind: str  # "concurrently" | "orderly" | "spring" | "python" | "unknown"
    location: Location
    reconsume_later: list[Location] = field(default_factory=list)  # returns of RECONSUME_LATER (or 5.x FAILURE)
    throws: list[Location] = field(default_factory=list)  # throw statements escaping onMessage (Spring)
    # A listener class this file's frontend could not see (declared in another file), as written in the source
    # (`CacheRefreshListener`, `com.acme.CacheRefreshListener`): the linker replaces the listener with that
    # class's facts (`FileFacts.listener_classes` of the declaring file). Empty when the listener is known.
    class_ref: str = ""
    delay_level: Optional[Setting] = None  # context.setDelayLevelWhenNextConsume(n) in the listener's code
    # context.setAckIndex(n) in the listener's code: a batch acknowledged up to a message, the rest sent back.
    ack_index: list[Location] = field(default_factory=list)
    # Reads of a message's retry count (Java `getReconsumeTimes()`, Python `msg.reconsume_times`) in the condition
    # of a branch that lets the message go (returns a success status, or leaves before one): the listener can stop
    # retrying a message by itself. A read only logged, in a listener that retries on every path, is not one.
    reconsume_times: list[Location] = field(default_factory=list)
    # Python 2.x callbacks: returns of something other than a `ConsumeStatus` (a bare `return`, `return None`, a
    # string...), and the last statement after which the function can end without a return (it returns None).
    non_status_returns: list[Location] = field(default_factory=list)
    ends_without_return: Optional[Location] = None


@dataclass
class ClientFact:
    """One RocketMQ client object (or Spring listener, or Spring-configured client) and how it is configured.

    Absent settings are None: the client default applies (CLUSTERING, instanceName from the environment, ...).
    Settings made in different methods of one class on the same field belong to one ClientFact.
    """

    role: str  # push_consumer | lite_pull_consumer | pull_consumer | simple_consumer | producer
    # java | spring-listener | spring-config | python2: the remoting clients (4.x/5.x `rocketmq-client`, the Spring
    # starter, the C++ core under Python 2.x); java5 | spring5-listener | python5: the gRPC clients of
    # rocketmq-clients (and rocketmq-v5-client-spring-boot), whose consumers get messages from a proxy (POP).
    api: str
    location: Location  # the constructor call, the annotation, or the config key that creates it
    name: str = ""  # variable, field or class name, for messages
    group: Optional[Setting] = None
    message_model: Optional[Setting] = None  # Lit("CLUSTERING") | Lit("BROADCASTING") | Dynamic | ref
    consume_mode: Optional[Setting] = None  # Spring consumeMode / python orderly=: Lit("ORDERLY") | Lit("CONCURRENTLY")
    instance_name: Optional[Setting] = None
    unit_name: Optional[Setting] = None
    max_reconsume_times: Optional[Setting] = None
    delay_level: Optional[Setting] = None  # Spring delayLevelWhenNextConsume or context.setDelayLevelWhenNextConsume
    # The consume thread pool (push consumers): Java setConsumeThreadMin/Max; Spring `consumeThreadNumber` (min) and
    # `consumeThreadMax` as written on the annotation (the starter's release decides how it applies them); Python
    # 2.x `set_thread_count(n)`, a fixed pool of n, is both.
    consume_thread_min: Optional[Setting] = None
    consume_thread_max: Optional[Setting] = None
    consume_batch_max_size: Optional[Setting] = None  # consumeMessageBatchMaxSize: messages per listener call
    pull_batch_size: Optional[Setting] = None  # pullBatchSize: messages per pull request
    # setAllocateMessageQueueStrategy(new X(arg)): Lit(X's simple name), or Dynamic for an object built elsewhere;
    # absent: the client's AllocateMessageQueueAveragely. The argument is X's first constructor argument.
    allocate_strategy: Optional[Setting] = None
    allocate_strategy_argument: Optional[Setting] = None
    subscriptions: list[Subscription] = field(default_factory=list)
    listeners: list[Listener] = field(default_factory=list)
    # Other code may configure this client where its settings are not seen (a factory method returns it, or
    # subclasses may set the field that holds it): an absent setting is then not known to be the client default.
    configured_elsewhere: bool = False


@dataclass
class IdentityUse:
    """A message identity that changes on every retry (the offset message id, the commit log or queue offset, a
    5.x receipt handle) used as a key to deduplicate, store or look up messages (`rmqlint.identity_uses`)."""

    identity: str  # as the code reads it: `getOffsetMsgId()`, `msg.commit_log_offset`, `msg.receipt_handle`
    use: str  # "dedupe" | "store" | "lookup" | "key" (handed to other code, which can only keep or look it up)
    call: str  # the call that takes it, as written: `processed.add`, `repository.save`, `msg_id=`
    location: Location  # the read of the identity
    call_location: Location  # the call that uses it
    api: str  # as ClientFact.api: java | python2 | python5
    sent: bool = False  # read from a send result (the producer's side) rather than a consumed message


@dataclass
class Template:
    """A client that a method builds from its parameters or returns to its callers: one client per call of that
    method (`rmqlint.calls`). The file's own calls are in `FileFacts.clients` already; the linker asks the frontend
    for the calls in other files. Kept only for methods other files may call (not private)."""

    method: str  # the method as the frontend finds it from a call: Java `com.acme.Mq.start/2`, Python `pkg.mq.start`
    client: ClientFact  # values made from the method's parameters are `Param`s
    called_here: bool  # the declaring file calls the method itself
    escapes: bool  # the method returns the client without starting it: unbound, other code may configure it


@dataclass
class ProducedTag:
    """A message sent (or built to be sent) with a tag on a topic: `new Message(topic, tags, ...)`, `setTags`,
    a `RocketMQTemplate` destination `"topic:tags"`, Python `msg.set_tags(..)` / `msg.tag = ..`."""

    topic: Value
    tag: Value
    location: Location
    # A RocketMQTemplate destination "topic:tags" that is not literal text up to its ':' (a constant, a
    # placeholder): the linker splits it on the first ':' once resolved; topic and tag are Dynamic meanwhile.
    destination: Optional[Value] = None


@dataclass
class Connection:
    """Where clients connect and as whom, as one place in code or configuration writes it.

    A name server list (remoting clients: `setNamesrvAddr`, Spring `rocketmq.name-server` and the listener's
    `nameServer`, Python 2.x `set_name_server_address`), proxy endpoints (5.x: `ClientConfiguration`'s
    `setEndpoints`, Python `ClientConfiguration(endpoints, ..)`, the v5 starter's `endpoints`), and credentials
    (`new SessionCredentials(ak, sk)`, 5.x `StaticSessionCredentialsProvider`, Python `Credentials(ak, sk)` and
    `set_session_credentials`, Spring `access-key`/`secret-key` keys and `accessKey`/`secretKey` attributes).
    Absent parts are None. Both lists are separated by `;`.
    """

    api: str  # as ClientFact.api
    location: Location  # the call, constructor, annotation or configuration key that writes it
    name_server: Optional[Setting] = None
    endpoints: Optional[Setting] = None
    access_key: Optional[Setting] = None
    secret_key: Optional[Setting] = None


@dataclass
class ConfigEntry:
    """One Spring configuration key (flattened, as written) and its raw value."""

    key: str
    value: Value  # Lit, or Placeholder/Concat when the value itself uses ${...}
    location: Location
    # the value as written, when it reads as written (no escapes, one line)
    span: Optional[Span] = field(default=None, compare=False)
    # The profile expression under which it applies: its file's (`application-prod.yml`: "prod") or its
    # document's (`spring.config.activate.on-profile`); "" for every profile.
    profile: str = ""


@dataclass
class Problem:
    """The file could not be read or (fully) parsed: reported as RMQ900."""

    message: str
    location: Location


@dataclass
class FileFacts:
    path: str  # relative to the project root, '/'-separated
    language: str  # "java" | "python" | "go" | "properties" | "yaml"
    clients: list[ClientFact] = field(default_factory=list)
    produced: list[ProducedTag] = field(default_factory=list)
    # Constants this file defines, for references from other files.
    # Java: "Class.NAME" for every (nested) class's simple name, and "Annotation.element()" for an annotation
    # element's declared default; Python: module-level "NAME".
    constants: dict[str, Value] = field(default_factory=dict)
    # Java: what Spring binds into the objects of this file's classes, for `Property` values of other files:
    # "Class.path" (`MqProps.consumer.threadMin`) -> a `Placeholder` (a `@ConfigurationProperties` prefix and the
    # property, its default the field's initializer) or a field's `@Value("${..}")`.
    properties: dict[str, Value] = field(default_factory=dict)
    classes: list[str] = field(default_factory=list)  # Java: simple names of declared classes/interfaces/enums
    package: str = ""  # Java package, for fully qualified references
    # Java single-type imports: simple name -> qualified; Python module-level imports: bound name -> what it imports.
    imports: dict[str, str] = field(default_factory=dict)
    # Python: where one more `import x` can go, in source order; each name the module binds, with where a plain
    # `import name` binds it (-1: bound otherwise too). See `rmqlint.frontends.python.imports`.
    import_slots: list[Slot] = field(default_factory=list, compare=False)
    module_names: dict[str, int] = field(default_factory=dict)
    # Java: simple class name -> the listener facts of a (non-abstract) class of this file implementing
    # MessageListenerConcurrently/Orderly (directly or through a superclass of the same file), for consumers in
    # other files that register it (`Listener.class_ref`). Locations point into this file.
    listener_classes: dict[str, Listener] = field(default_factory=dict)
    connections: list[Connection] = field(default_factory=list)
    templates: list[Template] = field(default_factory=list)  # Java, Python: clients made once per call of a method
    identity_uses: list[IdentityUse] = field(default_factory=list)  # Java, Python: retry-changing ids used as keys
    config: list[ConfigEntry] = field(default_factory=list)  # Spring configuration files only
    # Inline suppressions: line -> codes ("*" for all). A comment applies to its own line and the line below.
    suppressions: dict[int, list[str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    digest: str = field(default="", compare=False)  # the content hash of the bytes these facts were read from


# --- JSON codec (generic over the dataclasses above) ---------------------------------------------------------
# One decoder per dataclass, compiled once from its type hints (a warm run decodes every relevant file from the
# cache). Every field's type is checked: a cache file is input, not trusted memory; malformed data raises
# TypeError, ValueError or KeyError, and the engine then parses the file again.


def facts_to_json(facts: FileFacts) -> dict:
    return _encode(facts)


def facts_from_json(data: dict) -> FileFacts:
    if not isinstance(data, dict):
        raise TypeError("facts must be an object")
    return _decoder(FileFacts)(data)


def _encode(obj):
    if isinstance(obj, _VALUE_KINDS):
        return _values.to_json(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, list):
        return [_encode(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): _encode(v) for k, v in obj.items()}
    return obj


_VALUE_KINDS = tuple(_values.VALUE_KINDS)


def _checked(kind):
    def check(value):
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}")
        return value

    return check


@functools.lru_cache(maxsize=None)
def _decoder(tp):
    if tp is Value or tp == "Value":
        return _values.from_json
    if tp in (str, int, bool):
        return _checked(tp)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if set(args) == set(_VALUE_KINDS):
            return _values.from_json
        inner = _decoder(args[0])
        return lambda d: None if d is None else inner(d)
    if origin is list:
        (item_type,) = typing.get_args(tp)
        item = _decoder(item_type)
        return lambda d: [item(x) for x in _checked(list)(d)]
    if origin is dict:
        key_type, value_type = typing.get_args(tp)
        value = _decoder(value_type)
        return lambda d: {key_type(k): value(v) for k, v in _checked(dict)(d).items()}
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        fields = [(name, _decoder(hint)) for name, hint in hints.items()]

        def decode(d):
            if d is None:
                return None
            if type(d) is not dict:
                raise TypeError(f"expected an object for {tp.__name__}")
            return tp(**{name: fn(d[name]) for name, fn in fields if name in d})

        return decode
    return lambda d: d
