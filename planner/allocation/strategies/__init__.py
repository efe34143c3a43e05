"""The allocation strategies: one class per module of this package, in one registry that every consumer of
strategies reads (the fleet parser, `rmqplan allocate`, both engines, the findings' wording).

Adding a strategy is adding a module here that defines a `rmqplan.allocation.strategies.base.Strategy` subclass (see the
README, "Extending rmqplan"); the package is walked at import, so nothing else lists strategies. A strategy
defined elsewhere (a plug-in, a test) is added with `register(cls)`.

Names: a strategy is known by its canonical name ("AVG") and by its Java class name, simple or fully qualified
("AllocateMessageQueueAveragely", "org.apache...AllocateMessageQueueAveragely"). A strategy that takes a
delegate (MACHINE_ROOM_NEARBY) is also written as Java's `getName()` gives it, "MACHINE_ROOM_NEARBY-AVG"; its
`nearby` parameter defaults to AVG. `parse_strategy` checks the parameters the strategy reads (`Param.check`)
and fills the defaults, so one name and parameter set always gives one `StrategySpec`.

Clients: the classes of this package are the Java client's. A client whose strategies are code of its own
(rocketmq-client-go) has its forms in a sub-package (`go/`), each a `Strategy` with that `client` and the name of
the strategy it computes; a process of that client runs its client's form (`for_process` sets
`StrategySpec.client`, `strategy_of` finds the form), so the processes of one group each compute with their own
client's code. Their function names (`AllocateByConsistentHash`) are accepted as names of the strategy too.

`allocate` is the straight transcription for one process (the reference); `allocate_all` computes every distinct
client id at once for the engines' hot path. Tests check that the two agree.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from rmqplan.model.javaorder import sort_client_ids, sort_queues
from rmqplan.model.fleet import Queue, StrategySpec
from rmqplan.allocation.strategies.base import (
    ALL_PARAMS,
    IAE,
    NEARBY_KEY,
    Param,
    ParamError,
    Rooms,
    Share,
    Strategy,
    StrategyError,
    describe_value,
    md5_hash,
    mq_string,
    to_queue,
)

__all__ = [
    "Param", "ParamError", "Rooms", "Share", "Strategy", "StrategyError", "allocate", "allocate_all", "allocate_sorted",
    "canonical_name", "describe", "for_process", "for_release", "generatable_names", "has_form", "md5_hash",
    "mq_string", "names", "parse_strategy", "parse_strategy_name", "register", "strategy_for", "strategy_of",
    "DEFAULT_DELEGATE",
]

DEFAULT_DELEGATE = "AVG"  # `nearby` when a strategy that takes a delegate is named without one

_REGISTRY: dict[str, Strategy] = {}  # canonical name -> the strategy, in registration order
_BY_JAVA_CLASS: dict[str, str] = {}  # simple Java class name (or another client's function name) -> canonical name
_FORMS: dict[tuple[str, str], Strategy] = {}  # (client, canonical name) -> that client's form of the strategy
JAVA = "java"


def register(cls: type[Strategy]) -> type[Strategy]:
    """Add a strategy class to the registry (also usable as a class decorator). Names must be new; another
    client's form (`Strategy.client`) names a strategy already registered."""
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise TypeError(f"{cls!r} is not a Strategy subclass")
    if cls.client != JAVA:
        return _register_form(cls)
    name, java = cls.name, cls.java_class
    if not name or "-" in name or name in _REGISTRY or name in _BY_JAVA_CLASS:
        raise ValueError(f"strategy name {name!r} is empty, has a '-' or is already registered")
    if not java or java in _BY_JAVA_CLASS or java in _REGISTRY:
        raise ValueError(f"Java class name {java!r} of strategy {name} is empty or already registered")
    _REGISTRY[name] = cls()
    _BY_JAVA_CLASS[java] = name
    return cls


def _register_form(cls: type[Strategy]) -> type[Strategy]:
    key = (cls.client, cls.name)
    if cls.name not in _REGISTRY or key in _FORMS:
        raise ValueError(f"{cls.client} form of strategy {cls.name!r}: no such strategy, or registered already")
    for alias in cls.aliases:
        if _BY_JAVA_CLASS.get(alias, cls.name) != cls.name or alias in _REGISTRY:
            raise ValueError(f"alias {alias!r} of strategy {cls.name} names another strategy")
    _FORMS[key] = cls()
    for alias in cls.aliases:
        _BY_JAVA_CLASS[alias] = cls.name
    return cls


def unregister(name: str) -> None:
    """Remove a strategy added with `register` (tests that add a toy strategy clean up with it)."""
    strategy = _REGISTRY.pop(name)
    _BY_JAVA_CLASS.pop(strategy.java_class, None)


def _discover() -> None:
    """Import every module of this package once, then of its sub-packages (other clients' forms, which name the
    strategies of this package); each `Strategy` subclass defined there is registered."""
    infos = sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    modules = [f"{__name__}.{i.name}" for i in infos if not i.ispkg and not i.name.startswith("_") and i.name != "base"]
    for package in (i for i in infos if i.ispkg):
        path = [str(Path(__path__[0]) / package.name)]
        modules += [f"{__name__}.{package.name}.{i.name}" for i in sorted(pkgutil.iter_modules(path),
                                                                          key=lambda m: m.name)
                    if not i.name.startswith("_")]
    for name in modules:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, Strategy) and value.__module__ == module.__name__
                    and getattr(value, "name", None)):
                register(value)


def plugin_classes() -> list[type[Strategy]]:
    """The strategy classes registered from outside this package (plug-ins, tests): other processes that run the
    kernel (Spark tasks, the local engine's helper processes) must be handed them; the package's own register on
    import."""
    return [type(s) for s in _REGISTRY.values() if not type(s).__module__.startswith(__name__ + ".")]


def ensure_registered(classes: Sequence[type[Strategy]]) -> None:
    """In another process: register the `plugin_classes` of the process that started the work, once."""
    for cls in classes:
        if cls.name not in _REGISTRY:
            register(cls)


def for_process(spec: StrategySpec, client: str, client_version: str) -> StrategySpec:
    """The spec a process of `client` ("java", "cpp", "go") on `client_version` runs: a client with forms of its
    own (Go) runs its form (`StrategySpec.client`); the others run the Java classes of their release
    (`for_release`). Raises ValueError when that client has no form of the strategy."""
    if (client, spec.name) in _FORMS:
        return spec if spec.client == client else replace(spec, client=client, classes_before=None)
    if any(c == client for c, _ in _FORMS):
        raise ValueError(f"the {client} client has no strategy {spec.name}")
    return for_release(spec, client_version)


def has_form(client: str, name: str) -> bool:
    """Whether a client computes strategy `name` with code of its own (a Go form) or with the Java classes."""
    return (client, name) in _FORMS


def clients_with_forms() -> tuple[str, ...]:
    """The clients that run forms of their own ("go")."""
    return tuple(dict.fromkeys(c for c, _ in _FORMS))


def for_release(spec: StrategySpec, client_version: str) -> StrategySpec:
    """The spec a process on `client_version` runs: `classes_before` set to the first release of the strategy's
    `changed_in` after that version (its delegate's too), or the spec itself when the client has today's classes."""
    from rmqplan.model.fleet import parse_client_version

    version = parse_client_version(client_version)
    before = None
    if version is not None:
        before = next((release for release in strategy_of(spec).changed_in if version < release), None)
    nearby = for_release(spec.nearby, client_version) if spec.nearby is not None else None
    if before == spec.classes_before and nearby == spec.nearby:
        return spec
    return replace(spec, classes_before=before, nearby=nearby)


def names() -> tuple[str, ...]:
    """Canonical names of every registered strategy."""
    return tuple(_REGISTRY)


def generatable_names() -> tuple[str, ...]:
    """The strategies `[generate] strategies` may draw: they need no parameter and no room."""
    return tuple(name for name, s in _REGISTRY.items() if s.generatable)


def strategy_of(spec_or_name: StrategySpec | str) -> Strategy:
    """The registered strategy of a spec (its client's form: `StrategySpec.client`) or of a canonical name (the
    Java form). Raises ValueError for an unknown one."""
    if isinstance(spec_or_name, StrategySpec):
        return strategy_for(spec_or_name.name, spec_or_name.client)
    return strategy_for(spec_or_name)


def strategy_for(name: str, client: str = JAVA) -> Strategy:
    """Strategy `name` as `client` computes it. Raises ValueError for an unknown one."""
    found = _REGISTRY.get(name) if client == JAVA else _FORMS.get((client, name))
    if found is None:
        raise ValueError(f"unknown strategy {name!r}" + (f" of the {client} client" if client != JAVA else ""))
    return found


def canonical_name(text: str) -> Optional[str]:
    """"AVG" or a Java class name (simple or fully qualified) -> the canonical name; None when unknown."""
    if text in _REGISTRY:
        return text
    return _BY_JAVA_CLASS.get(text.rsplit(".", 1)[-1])


def describe(spec: StrategySpec) -> str:
    """How messages name a strategy with its parameters ("CONSISTENT_HASH (3 virtual nodes)")."""
    return strategy_of(spec).describe(spec)


def param_keys() -> tuple[str, ...]:
    """Every parameter key any strategy reads (fleet.toml keys), `nearby` included."""
    keys: dict[str, None] = {}
    for s in _REGISTRY.values():
        for p in s.params:
            keys.setdefault(p.key, None)
    if any(s.takes_delegate for s in _REGISTRY.values()):
        keys.setdefault(NEARBY_KEY, None)
    return tuple(keys)


def all_params() -> tuple[Param, ...]:
    """Every `Param` of every registered strategy, each once (by key)."""
    seen: dict[str, Param] = {p.key: p for p in ALL_PARAMS}
    for s in _REGISTRY.values():
        for p in s.params:
            seen.setdefault(p.key, p)
    return tuple(seen.values())


def unknown_strategy_message(text: Any) -> str:
    delegating = "".join(f", {n}-<strategy>" for n in delegating_names())
    example = next(iter(_REGISTRY.values())).java_class
    return (f"unknown strategy {describe_value(text)} (expected one of: {', '.join(names())}{delegating}, "
            f"or a Java class name such as {example})")


def delegating_names() -> tuple[str, ...]:
    return tuple(n for n, s in _REGISTRY.items() if s.takes_delegate)


def parse_strategy(text: Any, params: Optional[Mapping[str, Any]] = None) -> StrategySpec:
    """A strategy name (any accepted form) and parameter values by fleet.toml key (`virtual_nodes`,
    `consumer_idcs`, `queues`, `nearby`) -> its StrategySpec. Every given parameter is checked; those the
    strategy does not read are dropped (and handed to its delegate, if it takes one). Raises ParamError naming
    the key at fault (the caller adds where)."""
    params = {k: v for k, v in (params or {}).items() if v is not None}
    if not isinstance(text, str):
        raise ParamError("strategy", f"expected a strategy name (a string), got {describe_value(text)}")
    checked: dict[str, Any] = {}
    for p in all_params():
        if p.key in params:
            try:
                checked[p.key] = p.check(params[p.key])
            except ValueError as e:
                raise ParamError(p.key, str(e)) from None
    outer, dash, rest = text.partition("-")
    name = canonical_name(outer if dash else text)
    if name is None or (dash and not _REGISTRY[name].takes_delegate):
        raise ParamError("strategy", unknown_strategy_message(text))
    strategy = _REGISTRY[name]
    spec = strategy.spec(**checked)
    if not strategy.takes_delegate:
        return spec
    nearby = params.get(NEARBY_KEY)
    delegate = _delegate(nearby, checked) if nearby is not None else None
    if dash:
        inner = canonical_name(rest)
        if inner is None or _REGISTRY[inner].takes_delegate:
            raise ParamError("strategy", unknown_strategy_message(text))
        named = _REGISTRY[inner].spec(**checked)
        if delegate is not None and delegate != named:
            raise ParamError(NEARBY_KEY, f"the strategy {describe_value(text)} names the delegate "
                                         f"{describe_value(rest)}, got {describe_value(nearby)}")
        delegate = named
    return replace(spec, nearby=delegate or _delegate(DEFAULT_DELEGATE, checked))


def _delegate(value: Any, checked: Mapping[str, Any]) -> StrategySpec:
    if isinstance(value, StrategySpec):
        return value
    name = canonical_name(value) if isinstance(value, str) else None
    if name is None or _REGISTRY[name].takes_delegate:
        others = ", ".join(n for n, s in _REGISTRY.items() if not s.takes_delegate)
        raise ParamError(NEARBY_KEY, f"expected a strategy other than {', '.join(delegating_names())} "
                                     f"({others}), got {describe_value(value)}")
    return _REGISTRY[name].spec(**checked)


def parse_strategy_name(name: Any, *, virtual_nodes: Any = None, consumer_idcs: Any = None,
                        nearby: Any = None, config_queues: Any = None) -> StrategySpec:
    """`parse_strategy` with keyword parameters (`config_queues` is fleet.toml's `queues`)."""
    return parse_strategy(name, {"virtual_nodes": virtual_nodes, "consumer_idcs": consumer_idcs,
                                 NEARBY_KEY: nearby, "queues": config_queues})


# ------------------------------------------------------------------------------------------------ allocation


def client_order(queues: Sequence[Any], client_ids: Sequence[str]) -> tuple[list[Queue], list[str]]:
    """What RebalanceImpl hands the strategy: the queue set sorted, the client id list sorted."""
    try:
        distinct = set(queues)
    except TypeError:  # lists, e.g. from JSON
        distinct = {to_queue(q) for q in queues}
    else:
        if set(map(type, distinct)) - {Queue}:
            distinct = {to_queue(q) for q in distinct}
    return sort_queues(distinct), sort_client_ids(client_ids)


def allocate(spec: StrategySpec, queues: Sequence[Any], client_ids: Sequence[str], current_cid: str, *,
             broker_rooms: Optional[Mapping[str, str]] = None,
             client_rooms: Optional[Mapping[str, str]] = None) -> list[Queue]:
    """The share of the process whose client id is `current_cid` (the transcription). Raises StrategyError when
    Java throws."""
    mq_all, cid_all = client_order(queues, client_ids)
    return strategy_of(spec).call_one(spec, current_cid, mq_all, cid_all, Rooms(broker_rooms, client_rooms))


def allocate_sorted(spec: StrategySpec, mq_all: list[Queue], cid_all: list[str], rooms: Rooms) -> dict[str, Share]:
    """`allocate_all` on lists already in the client's order (`cid_all` not empty)."""
    strategy = strategy_of(spec)
    distinct = dict.fromkeys(cid_all)
    checks = strategy.checks(spec)
    if checks and not mq_all:  # check() throws for every process (cidAll is not empty here)
        error = StrategyError(IAE, "mqAll is null or mqAll empty")
        shares: dict[str, Share] = {cid: error for cid in distinct}
    else:
        shares = strategy.allocate_all(spec, mq_all, cid_all, rooms)
    if checks and "" in shares:  # check() looks at currentCID first
        shares[""] = StrategyError(IAE, "currentCID is empty")
    return shares


def allocate_all(spec: StrategySpec, queues: Sequence[Any], client_ids: Sequence[str], *,
                 broker_rooms: Optional[Mapping[str, str]] = None,
                 client_rooms: Optional[Mapping[str, str]] = None) -> dict[str, Share]:
    """Every distinct client id's share (or the StrategyError its process hits), keys in Java order.
    Equal to `allocate` per client id; the lists are fresh, callers may keep them."""
    mq_all, cid_all = client_order(queues, client_ids)
    if not cid_all:
        return {}
    return allocate_sorted(spec, mq_all, cid_all, Rooms(broker_rooms, client_rooms))


_discover()
