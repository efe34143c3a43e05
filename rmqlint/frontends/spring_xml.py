"""Spring XML bean definitions: RocketMQ clients defined as beans of the client classes.

A Spring bean file (root element `beans` of the Spring beans namespace, or of the Spring DTD) under a `resources/`,
`WEB-INF/` or `META-INF/` directory may define a client the way Java code does:

    <bean id="orderConsumer" class="org.apache.rocketmq.client.consumer.DefaultMQPushConsumer"
          init-method="start" destroy-method="shutdown">
        <constructor-arg value="${mq.order.group}"/>
        <property name="instanceName" value="orders-node"/>
        <property name="consumeThreadMin" value="20"/>
        <property name="messageListener" ref="orderListener"/>
        <property name="subscription"><map><entry key="Orders" value="Paid || Refunded"/></map></property>
    </bean>

Each such bean is a `ClientFact` with the settings its properties (`<property>`, `<value>`, the `p:` namespace) and
constructor arguments give, as the Java frontend's setters would, so the rules apply unchanged: values are Spring
strings (`${key:default}` resolved by the linker with the configuration of the file's module), a `namesrvAddr` is a
`Connection`, a listener bean (by `ref` or nested) is the Java listener class it names, looked up by the linker.
A child bean (`parent="..."`) inherits its parent's properties; abstract beans and beans of a nested
`<beans profile="..">` (defined under some profiles only) are not clients. A consumer bean without a listener
is configured elsewhere (Java code takes the bean and sets the rest).

The file is read with the standard library's expat parser, never expanding what an untrusted file declares: an
entity declaration (an internal DTD subset can expand a few bytes into gigabytes) or an external entity is refused
with one problem (RMQ900), and no external DTD is fetched. A `DOCTYPE` naming Spring's DTD is read as such.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Optional

from rmqlint.facts import ClientFact, Connection, FileFacts, Listener, Location, Problem, Setting, Subscription
from rmqlint.frontends.base import Frontend, SourceFiles
from rmqlint.text import add_suppressions, decode
from rmqlint.values import Dynamic, Lit, Value, parse_spring_string

BEANS_NAMESPACE = "http://www.springframework.org/schema/beans"
P_NAMESPACE = "http://www.springframework.org/schema/p"
C_NAMESPACE = "http://www.springframework.org/schema/c"
# The RocketMQ client classes a bean may be (the remoting client; the old `com.alibaba.rocketmq` one alike).
CLIENT_ROLES = {
    "DefaultMQPushConsumer": "push_consumer",
    "DefaultLitePullConsumer": "lite_pull_consumer",
    "DefaultMQPullConsumer": "pull_consumer",
    "DefaultMQProducer": "producer",
    "TransactionMQProducer": "producer",
}
_CLIENT_PACKAGES = ("org.apache.rocketmq.client.", "com.alibaba.rocketmq.client.")
# Bean properties (the client's setters) -> (the `ClientFact` field, "consumer" | "producer" | "any").
PROPERTIES = {
    "consumerGroup": ("group", "consumer"),
    "producerGroup": ("group", "producer"),
    "messageModel": ("message_model", "consumer"),
    "instanceName": ("instance_name", "any"),
    "unitName": ("unit_name", "any"),
    "maxReconsumeTimes": ("max_reconsume_times", "consumer"),
    "consumeThreadMin": ("consume_thread_min", "consumer"),
    "consumeThreadMax": ("consume_thread_max", "consumer"),
    "consumeMessageBatchMaxSize": ("consume_batch_max_size", "consumer"),
    "pullBatchSize": ("pull_batch_size", "consumer"),
}
_ENUMS = frozenset({"CLUSTERING", "BROADCASTING"})
_CANDIDATE = re.compile(r"(^|/)(resources|WEB-INF|META-INF)/(.*/)?[^/]+\.xml$")
_NOT_BEANS = re.compile(r"^((?i:logback|log4j2?)[^/]*|web|pom)\.xml$")  # the hook's `exclude`, by file name
# A file nests elements this deep at most (`<bean><property><map><entry><bean>..`); deeper is not a bean file.
MAX_DEPTH = 256


def is_spring_xml(path: str) -> bool:
    """Where Spring XML bean files live (`src/main/resources/spring/mq.xml`, `WEB-INF/applicationContext.xml`),
    by path; logging configuration, build and web descriptors are not."""
    path = path.replace("\\", "/")
    return _CANDIDATE.search(path) is not None and _NOT_BEANS.search(posixpath.basename(path)) is None


class SpringXmlFrontend(Frontend):
    name = "spring-xml"
    languages = ("xml",)
    # The element tree holds about 60 bytes per byte of dense XML (every element and attribute kept with its
    # position); 1 MB of bean definitions is far beyond a hand-written file.
    max_bytes = 1024 * 1024

    def claims(self, path: str) -> bool:
        return is_spring_xml(path)

    def worth_parsing(self, data: bytes) -> bool:
        return b"<beans" in data and (b"springframework.org/schema/beans" in data or b"//SPRING//DTD" in data) \
            and any(name.encode() in data for name in CLIENT_ROLES)

    def parse(self, path: str, data: bytes) -> FileFacts:
        facts = FileFacts(path=path, language="xml")
        decoded = decode(path, data, what="Spring XML")
        if decoded.problem is not None:
            facts.problems.append(decoded.problem)
        if decoded.text is None:
            return facts
        document = read_xml(path, data, facts)
        if document is not None and _is_beans(document):
            _clients(facts, document)
        return facts

    def find_listener(self, written: str, ctx: FileFacts, files: SourceFiles) -> Optional[tuple[FileFacts,
                                                                                                Listener]]:
        """The Java class a listener bean names (`com.acme.OrderListener`): its file is where Java keeps a public
        class of that name, and its listener facts are that class's."""
        package, _, simple = written.rpartition(".")
        wanted = "/" + "/".join([*package.split("."), simple]) + ".java" if package else f"/{simple}.java"
        found = []
        for path in files.paths("java"):
            if ("/" + path).endswith(wanted):
                facts = files.ensure_parsed(path)
                if facts is not None and facts.package == package and simple in facts.listener_classes:
                    found.append((facts, facts.listener_classes[simple]))
        return found[0] if len(found) == 1 else None


# --- reading -------------------------------------------------------------------------------------------------------


@dataclass
class Element:
    """An XML element: its namespace and local name, attributes by (namespace, name), text, children, and where
    its start tag is."""

    namespace: str
    name: str
    attributes: dict[tuple[str, str], str]
    line: int
    column: int
    children: list["Element"] = field(default_factory=list)
    text: str = ""
    doctype: str = ""  # the root's DOCTYPE public and system ids

    def attribute(self, name: str, namespace: str = "") -> Optional[str]:
        return self.attributes.get((namespace, name))

    def elements(self, name: str) -> list["Element"]:
        """The child elements of the beans namespace (or of no namespace, in a DTD-based file) named `name`."""
        return [c for c in self.children if c.name == name and c.namespace in ("", BEANS_NAMESPACE)]


class _Refused(Exception):
    pass


def read_xml(path: str, data: bytes, facts: FileFacts) -> Optional[Element]:
    """The document's root element, or None with a problem in `facts` (malformed XML, entity declarations,
    nesting deeper than MAX_DEPTH)."""
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Element] = []
    root: list[Element] = []
    doctype: list[str] = []

    def refuse(*_args):
        raise _Refused("entity declarations are not read (an entity can expand without bound)")

    def start(name: str, attributes: dict[str, str]) -> None:
        if len(stack) >= MAX_DEPTH:
            raise _Refused(f"elements nested more than {MAX_DEPTH} deep")
        namespace, _, local = name.rpartition(" ")
        element = Element(namespace, local, {tuple(k.rpartition(" ")[::2]): v for k, v in attributes.items()},
                          parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        (stack[-1].children if stack else root).append(element)
        stack.append(element)

    def end(_name: str) -> None:
        stack.pop()

    def text(chunk: str) -> None:
        if stack:
            stack[-1].text += chunk

    def comment(body: str) -> None:
        add_suppressions(facts.suppressions, body, parser.CurrentLineNumber)

    def doctype_start(name, system_id, public_id, _has_internal_subset) -> None:
        doctype.append(f"{public_id or ''} {system_id or ''}")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.CommentHandler = comment
    parser.StartDoctypeDeclHandler = doctype_start
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    try:
        parser.Parse(data, True)
    except _Refused as why:
        facts.problems.append(Problem(f"not read: {why}", _at(path, parser.CurrentLineNumber,
                                                             parser.CurrentColumnNumber + 1)))
        return None
    except xml.parsers.expat.ExpatError as error:
        message = xml.parsers.expat.ErrorString(error.code)
        facts.problems.append(Problem(f"not well-formed XML: {message}", _at(path, error.lineno, error.offset + 1)))
        return None
    if not root:
        return None
    root[0].doctype = doctype[0] if doctype else ""
    return root[0]


def _is_beans(root: Element) -> bool:
    return root.name == "beans" and (root.namespace == BEANS_NAMESPACE or (
        not root.namespace and "SPRING" in root.doctype.upper()))


def _at(path: str, line: int, column: int) -> Location:
    return Location(path, line, column, line, column + 1)


# --- clients ---------------------------------------------------------------------------------------------------


def _clients(facts: FileFacts, root: Element) -> None:
    beans = {b.attribute("id"): b for b in _beans(root) if b.attribute("id")}
    for bean in _beans(root):
        if bean.attribute("abstract") == "true":
            continue
        written = _class_of(bean, beans)
        simple = written.rpartition(".")[2]
        if simple not in CLIENT_ROLES or not (written.startswith(_CLIENT_PACKAGES) or "." not in written):
            continue
        _client(facts, bean, CLIENT_ROLES[simple], beans)


def _beans(root: Element) -> list[Element]:
    """Top-level beans, and those of nested `<beans>` without a profile (a profiled section applies only under
    its profiles, which the rules do not judge one by one here)."""
    found = []
    stack = [root]
    while stack:
        current = stack.pop()
        for child in current.children:
            if child.namespace not in ("", BEANS_NAMESPACE):
                continue
            if child.name == "bean":
                found.append(child)
            elif child.name == "beans" and not child.attribute("profile"):
                stack.append(child)
    found.sort(key=lambda b: (b.line, b.column))
    return found


def _chain(bean: Element, beans: dict) -> list[Element]:
    """The bean and its parents (`parent="base"`), the bean first; a cycle or a missing parent ends it."""
    chain = [bean]
    while (parent := chain[-1].attribute("parent")) and parent in beans and beans[parent] not in chain \
            and len(chain) < 16:
        chain.append(beans[parent])
    return chain


def _class_of(bean: Element, beans: dict) -> str:
    return next((b.attribute("class") for b in _chain(bean, beans) if b.attribute("class")), "") or ""


def _client(facts: FileFacts, bean: Element, role: str, beans: dict) -> None:
    path = facts.path
    where = _at(path, bean.line, bean.column)
    fact = ClientFact(role=role, api="java", location=where, name=bean.attribute("id") or bean.attribute("name") or "")
    consumer = role != "producer"
    # Properties: a parent's first, the bean's own over them.
    properties: dict[str, tuple[Element, Element]] = {}
    for member in reversed(_chain(bean, beans)):
        for prop in member.elements("property"):
            if prop.attribute("name"):
                properties[prop.attribute("name")] = (prop, prop)
        for (namespace, name), _text in member.attributes.items():
            if namespace == P_NAMESPACE:
                properties[name.removesuffix("-ref")] = (member, _PAttribute(name))
    arguments = [a for member in reversed(_chain(bean, beans)) for a in member.elements("constructor-arg")]
    for name, (holder, prop) in properties.items():
        value = _value(holder, prop)
        at = _at(path, holder.line, holder.column)
        mapped = PROPERTIES.get(name)
        if mapped is not None:
            field_name, applies = mapped
            if applies == "any" or (applies == "consumer") == consumer:
                if field_name == "message_model":
                    value = _enum(value)
                setattr(fact, field_name, Setting(value, at))
        elif name == "namesrvAddr":
            facts.connections.append(Connection(fact.api, at, name_server=Setting(value, at)))
        elif name == "subscription" and consumer and isinstance(prop, Element):
            fact.subscriptions.extend(_subscriptions(path, prop))
        elif name in ("messageListener", "messageListenerConcurrently", "messageListenerOrderly") and consumer:
            fact.listeners.append(_listener(path, holder, prop, beans))
        elif name == "allocateMessageQueueStrategy" and consumer:
            strategy = _class_of_value(holder, prop, beans)
            fact.allocate_strategy = Setting(Lit(strategy.rpartition(".")[2]) if strategy
                                             else Dynamic("a strategy object built elsewhere"), at)
    if fact.group is None and arguments:
        fact.group = _group_argument(path, arguments, consumer)
    if consumer and not fact.listeners:
        # Java code takes the bean and configures the rest (its listener, maybe its model and subscriptions).
        fact.configured_elsewhere = True
        if fact.message_model is None:
            fact.message_model = Setting(Dynamic("a bean other code may configure"), where)
    facts.clients.append(fact)


@dataclass
class _PAttribute:
    """A `p:name="value"` attribute standing for a property."""

    name: str


def _value(holder: Element, prop) -> Value:
    """A property's (or argument's) value: its `value` attribute, its `<value>` element, a `p:` attribute; Dynamic
    for anything else (a reference to another bean, a list, a SpEL expression)."""
    if isinstance(prop, _PAttribute):
        text = None if prop.name.endswith("-ref") else holder.attribute(prop.name, P_NAMESPACE)
    else:
        text = prop.attribute("value")
        if text is None:
            values = prop.elements("value")
            text = values[0].text.strip() if len(values) == 1 and not values[0].children else None
    if text is None:
        return Dynamic("not a value written in the bean definition")
    if "#{" in text:
        return Dynamic("a SpEL expression")
    return parse_spring_string(text)


def _enum(value: Value) -> Value:
    """`BROADCASTING` as the enum constant; any other text is not one of the model's."""
    if isinstance(value, Lit):
        return Lit(value.text.strip()) if value.text.strip() in _ENUMS else Dynamic(f"{value.text!r} is no model")
    return value


def _group_argument(path: str, arguments: list[Element], consumer: bool) -> Setting:
    """The group among the constructor arguments: the one named `consumerGroup`/`producerGroup`, at index 0 of a
    single argument, else not known."""
    wanted = "consumerGroup" if consumer else "producerGroup"
    named = [a for a in arguments if a.attribute("name") == wanted]
    chosen = named[0] if named else arguments[0] if len(arguments) == 1 and _first(arguments[0]) else None
    if chosen is None:
        first = arguments[0]
        return Setting(Dynamic("cannot tell which constructor argument is the group"),
                       _at(path, first.line, first.column))
    return Setting(_value(chosen, chosen), _at(path, chosen.line, chosen.column))


def _first(argument: Element) -> bool:
    return argument.attribute("index") in (None, "0") and argument.attribute("ref") is None


def _subscriptions(path: str, prop: Element) -> list[Subscription]:
    """`<property name="subscription"><map><entry key="Topic" value="TagA || TagB"/></map></property>`."""
    found = []
    for mapping in prop.elements("map"):
        for entry in mapping.elements("entry"):
            topic = entry.attribute("key")
            expression = entry.attribute("value")
            if topic is None:
                continue
            found.append(Subscription(parse_spring_string(topic),
                                      parse_spring_string(expression) if expression is not None
                                      else Dynamic("an expression not written as a value"), "TAG",
                                      _at(path, entry.line, entry.column)))
    return found


def _class_of_value(holder: Element, prop, beans: dict) -> str:
    """The class of the bean a property refers to (`ref="x"`, `<ref bean="x"/>`, `p:name-ref="x"`) or holds
    (`<bean class=..>`)."""
    if isinstance(prop, _PAttribute):
        ref = holder.attribute(prop.name, P_NAMESPACE) if prop.name.endswith("-ref") else None
        return _class_of(beans[ref], beans) if ref in beans else ""
    ref = prop.attribute("ref")
    if ref is None:
        refs = prop.elements("ref")
        ref = refs[0].attribute("bean") if len(refs) == 1 else None
    if ref is not None:
        return _class_of(beans[ref], beans) if ref in beans else ""
    nested = prop.elements("bean")
    return _class_of(nested[0], beans) if len(nested) == 1 else ""


def _listener(path: str, holder: Element, prop, beans: dict) -> Listener:
    """The listener bean's class, for the linker to replace with that Java class's listener facts."""
    written = _class_of_value(holder, prop, beans)
    return Listener(kind="unknown", location=_at(path, holder.line, holder.column), class_ref=written)
