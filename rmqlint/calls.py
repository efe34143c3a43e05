"""Clients made by a method of the project, one per call: a template's parameters bound to a call's arguments.

A method that builds a client from its parameters (`start(String group, String topic)`) or returns the client it
builds (a factory) describes a client for each of its calls, not one client: the call `start("orders", "Paid")`
makes a consumer of group "orders" subscribed to "Paid". Frontends find such methods (`Template`) and the calls in
the same file; the linker asks the frontend of each language for the calls in other files. Each call gives one
client: the template with every `Param` replaced by the call's argument (`bind`), located at the call, then
configured further by what the caller does with the result (the frontend applies the caller's setter calls as it
would on a client the caller created).

A template no call of the project binds stays one client, its parameters unknown; if its method returns it and
does not start it, other code may still configure it (`unbound`).

An annotation of the project whose elements its own code reads into a client (`ann.threadMin()` of
`@interface MqConsumer`) is a template too, its elements parameters bound by name (`Param.index` -1): each use of
the annotation (`@MqConsumer(group = "orders")`) makes one client, an element the use leaves out taking its
declared default.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping, Optional, Sequence, Union

from rmqlint.facts import ClientFact, Listener, Location, Setting, Subscription
from rmqlint.values import Concat, Dynamic, OneOf, Param, Value, concat, one_of


# What a call passes: its arguments by position, or (an annotation's use) by element name.
Arguments = Union[Sequence[Optional[Value]], Mapping[str, Optional[Value]]]
Places = Union[Sequence[Optional[Location]], Mapping[str, Optional[Location]]]


def _passed(items, param: Param):
    """What `items` (by position or by name) holds for `param`, None when nothing."""
    if isinstance(items, Mapping):
        return items.get(param.name)
    return items[param.index] if 0 <= param.index < len(items) else None


def functions_in(client: ClientFact) -> set[str]:
    """Every function some parameter in the client's values belongs to."""
    found: set[str] = set()

    def walk(value):
        if isinstance(value, Param):
            found.add(value.function)
        elif isinstance(value, Concat):
            for part in value.parts:
                walk(part)
        elif isinstance(value, OneOf):
            for alternative in value.alternatives:
                walk(alternative)

    for _name, setting in settings_of(client):
        walk(setting.value)
    for subscription in client.subscriptions:
        walk(subscription.topic)
        walk(subscription.expression)
    return found


def params_in(value: Optional[Value], function: str) -> list[Param]:
    """The parameters of `function` a value is made of, in order."""
    if isinstance(value, Param):
        return [value] if value.function == function else []
    if isinstance(value, Concat):
        return [p for part in value.parts for p in params_in(part, function)]
    if isinstance(value, OneOf):
        return [p for alternative in value.alternatives for p in params_in(alternative, function)]
    return []


def settings_of(client: ClientFact) -> list[tuple[str, Setting]]:
    """Every setting of a client: (field name, setting), whatever the field is called."""
    return [(f.name, item) for f in dataclasses.fields(client) if isinstance(item := getattr(client, f.name), Setting)]


def has_params(client: ClientFact, function: str) -> bool:
    """Whether some value of the client is a parameter of `function` (the one that makes it: a helper it is passed
    to has parameters of its own)."""
    if any(params_in(setting.value, function) for _name, setting in settings_of(client)):
        return True
    if any(params_in(s.topic, function) or params_in(s.expression, function) for s in client.subscriptions):
        return True
    return any(listener.delay_level is not None and params_in(listener.delay_level.value, function)
               for listener in client.listeners)


def bind(value: Value, function: str, args: Arguments) -> Value:
    """`value` with each parameter of `function` replaced by the argument passed for it (a missing one is its
    default when it has one, else unknown)."""
    if isinstance(value, Param):
        if value.function != function:
            return value
        argument = _passed(args, value)
        if argument is None:
            argument = value.default
        return argument if argument is not None else Dynamic(f"no argument for parameter {value.name}")
    if isinstance(value, Concat):
        return concat([bind(part, function, args) for part in value.parts])
    if isinstance(value, OneOf):
        return one_of(bind(alternative, function, args) for alternative in value.alternatives)
    return value


def instantiate(template: ClientFact, function: str, call: Location, args: Arguments,
                arg_locations: Places) -> ClientFact:
    """The client one call of `function` makes: the template's values with the call's arguments bound, located at
    the call (a setting made from a parameter at the argument that gave it; a subscription made from one at the
    call)."""

    def setting(item: Optional[Setting]) -> Optional[Setting]:
        if item is None:
            return None
        params = params_in(item.value, function)
        if not params:
            return item
        where = _passed(arg_locations, params[0]) or call
        return Setting(bind(item.value, function, args), where)

    def subscription(item: Subscription) -> Subscription:
        if not (params_in(item.topic, function) or params_in(item.expression, function)):
            return item
        return dataclasses.replace(item, topic=bind(item.topic, function, args),
                                   expression=bind(item.expression, function, args), location=call)

    def listener(item: Listener) -> Listener:
        if item.delay_level is None or not params_in(item.delay_level.value, function):
            return item
        return dataclasses.replace(item, delay_level=setting(item.delay_level))

    changes = {name: setting(item) for name, item in settings_of(template)}
    return dataclasses.replace(template, location=call, configured_elsewhere=False,
                               subscriptions=[subscription(s) for s in template.subscriptions],
                               listeners=[listener(item) for item in template.listeners], **changes)


def unbound(template: ClientFact, escapes: bool) -> ClientFact:
    """A template no call binds, as the one client it is: its parameters stay unknown (the linker makes them
    Dynamic). `escapes`: its method returns it without starting it, so callers the project does not show (a
    library's users) may configure it, the message model included."""
    if not escapes:
        return template
    model = template.message_model
    if model is None and template.role != "producer":
        model = Setting(Dynamic("returned to callers, which may set the model"), template.location)
    return dataclasses.replace(template, configured_elsewhere=True, message_model=model)
