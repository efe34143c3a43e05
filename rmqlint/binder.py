"""The consumers Spring Cloud Alibaba's RocketMQ binder (`spring-cloud-starter-stream-rocketmq`) makes from a
module's Spring configuration: no code constructs them. `rmqplan fleet` models them, and RMQ001 reports the
binder release that names them alike where only clustering ones share an IP.

An input binding with a consumer group (`spring.cloud.stream.bindings.<binding>.group`, which Spring Cloud Stream
reads for inbound bindings only) and a destination (`...destination`, the topic) is one push consumer of that group
in each process of the module. The RocketMQ part of the binding says the rest: `spring.cloud.stream.rocketmq.
bindings.<binding>.consumer.broadcasting` (up to 2.2.x) or `.messageModel` (2021.x on) the model, `.tags` or
`.subscription` the expression, `.allocateMessageQueueStrategy` a strategy bean (not known from the configuration:
the group is left out, as its queues cannot be predicted). A binding whose group or destination is not one known
literal (a placeholder left to run time, different values in several files such as profiles, several destinations)
is left out with a line saying why. The binder names each consumer itself, by release (`rmqlint.client_releases`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rmqlint.client_releases import BINDER_KEYS, CLOUD_BINDER, MadeName, binder_made_name
from rmqlint.discover import is_test_source
from rmqlint.facts import ClientFact, ConfigEntry, Location, Setting, Subscription
from rmqlint.project import Project, Release
from rmqlint.text import canonical_key
from rmqlint.values import Lit

_BINDINGS = canonical_key("spring.cloud.stream.bindings.")
_ROCKETMQ = canonical_key("spring.cloud.stream.rocketmq.bindings.")
_CONSUMER = {canonical_key(k): k for k in ("consumer.broadcasting", "consumer.messageModel", "consumer.tags",
                                           "consumer.subscription", "consumer.allocateMessageQueueStrategy")}


@dataclass(frozen=True)
class BinderConsumer:
    path: str  # the configuration file holding the binding's group, relative to the project root
    client: ClientFact
    release: Release  # the binder's, as the build file names it
    made: Optional[MadeName]  # the instance name the binder gives it; None: the client's default
    strategy_bean: Optional[Location] = None  # a strategy bean named: the queues cannot be predicted


def binder_consumers(project: Project, report: Optional[set[str]] = None) -> tuple[list[BinderConsumer], list[str]]:
    """The binder's consumers in the configuration files of `report` (None: all of the project's; test sources
    left out), and a line for each binding left out (`path:line: why`)."""
    found: list[BinderConsumer] = []
    problems: list[str] = []
    for module in project.modules:
        release = module.release(CLOUD_BINDER)
        if release is None:
            continue
        bindings: dict[str, dict[str, list[ConfigEntry]]] = {}
        paths: dict[str, str] = {}
        shown: dict[str, str] = {}  # the binding's name as written (keys are compared in Spring's relaxed form)
        for path in sorted(project.files):
            facts = project.files[path]
            if (report is not None and path not in report) or is_test_source(path) \
                    or project.module_of(path) is not module:
                continue
            for entry in facts.config:
                key = canonical_key(entry.key)
                name, prop = _binding_property(key)
                if name is not None:
                    bindings.setdefault(name, {}).setdefault(prop, []).append(entry)
                    if prop == "group":
                        paths.setdefault(name, path)
                        shown.setdefault(name, _written_name(entry.key))
        keys = project.configures(module.directory, *BINDER_KEYS)
        made = binder_made_name(release.version, keys)
        for name in sorted(bindings):
            props = bindings[name]
            if "group" not in props:
                continue  # no group: an outbound binding, or an anonymous consumer (a group of its own)
            group, why = _one_literal(props["group"])
            topic, topic_why = _one_literal(props.get("destination", []))
            where = props["group"][0].location
            if group is None or topic is None or "," in (topic or ""):
                reason = why or topic_why or "several destinations"
                problems.append(f"{where.path}:{where.line}: binding {shown[name]} of {CLOUD_BINDER}: {reason}: "
                                "left out")
                continue
            model = _model(props)
            expression = _expression(props)
            destination = props["destination"][0]
            client = ClientFact(
                role="push_consumer", api="java", location=where, name=f"binding {shown[name]}",
                group=Setting(Lit(group), where), message_model=model,
                subscriptions=[Subscription(Lit(topic), Lit(expression), "TAG", destination.location)])
            bean = props.get("consumer.allocatemessagequeuestrategy")
            found.append(BinderConsumer(paths[name], client, release, made,
                                        bean[0].location if bean else None))
    return found, problems


def _binding_property(key: str) -> tuple[Optional[str], str]:
    """(binding, property) for `spring.cloud.stream.bindings.<b>.group|destination` and the RocketMQ consumer
    properties of a binding; (None, "") for any other key."""
    if key.startswith(_BINDINGS):
        name, _, prop = key[len(_BINDINGS):].rpartition(".")
        return (name, prop) if name and prop in ("group", "destination") else (None, "")
    if key.startswith(_ROCKETMQ):
        rest = key[len(_ROCKETMQ):]
        for prop in _CONSUMER:
            if rest.endswith("." + prop) and rest[:-len(prop) - 1]:
                return rest[:-len(prop) - 1], prop
    return None, ""


def _written_name(key: str) -> str:
    """The binding's name in `spring.cloud.stream.bindings.<name>.group` as written."""
    return key.split(".", 4)[4].rpartition(".")[0] if key.count(".") >= 5 else key


def _one_literal(entries: list[ConfigEntry]) -> tuple[Optional[str], str]:
    """The one literal text the entries set, or None and why not."""
    if not entries:
        return None, "no destination"
    texts = {e.value.text.strip() if isinstance(e.value, Lit) else None for e in entries}
    if None in texts:
        return None, f"{entries[0].key} is not known from the configuration"
    if len(texts) > 1:
        return None, f"{entries[0].key} is set to {len(texts)} values in several files"
    text = texts.pop()
    return (text, "") if text else (None, f"{entries[0].key} is blank")


def _model(props: dict[str, list[ConfigEntry]]) -> Optional[Setting]:
    for prop in ("consumer.messagemodel", "consumer.broadcasting"):
        for entry in props.get(prop, []):
            if not isinstance(entry.value, Lit):
                return Setting(entry.value, entry.location)
            text = entry.value.text.strip().upper()
            if prop == "consumer.broadcasting":
                text = "BROADCASTING" if text == "TRUE" else "CLUSTERING"
            return Setting(Lit(text), entry.location)
    return None


def _expression(props: dict[str, list[ConfigEntry]]) -> str:
    for prop in ("consumer.subscription", "consumer.tags"):
        text, _why = _one_literal(props.get(prop, []))
        if text is not None:
            return "*" if text.lower().startswith("sql:") else text  # a SQL92 filter selects no tags
    return "*"
