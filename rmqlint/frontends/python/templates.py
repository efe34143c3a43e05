"""Python functions that make a client per call (`rmqlint.calls`), and the calls of this module that bind them.

A function (or method) is a template when a client it makes takes a value from the function's parameters
(`PushConsumer(group)` in `def start(group, topic)`), or when the function returns that client (a factory). A call
binds it when it names the function as the module's scopes resolve it (`start(..)`, `self.start(..)`,
`Helper.start(..)`); the arguments go to the parameters by position (`self` bound for a call on an instance) and by
keyword; a call with `*args` or `**kwargs` binds nothing.

`extract` collects the module's clients, finds its templates and the module's own calls of them, and collects again
with those calls seeded (a call then makes its client, which the caller configures further), until the calls and
templates no longer change. Module-level functions whose names do not start with `_` may be imported and called
elsewhere: they are kept as `Template`s for the linker.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from rmqlint.calls import has_params, params_in, settings_of, unbound
from rmqlint.facts import ClientFact, FileFacts, Template
from rmqlint.frontends.python.clients import ClientCollector, Seed
from rmqlint.frontends.python.index import PythonIndex
from rmqlint.text import module_of

MAX_ROUNDS = 4  # templates calling templates this deep are bound; deeper ones keep their parameters unknown


@dataclass
class _Template:
    function: cst.FunctionDef
    key: str  # `pkg.mq.start` (`PythonIndex.function_key`)
    node: cst.Call  # the call that makes the client inside the function
    client: ClientFact
    version: str
    returned: bool
    started: bool


def extract(index: PythonIndex, facts: FileFacts) -> None:
    """Collect the module's clients into `facts`, with one client per call of a template of this module, and the
    templates other modules may bind (`facts.templates`)."""
    collector, collected = _collect(index, {})
    seeds: dict[int, list[Seed]] = {}
    for _round in range(MAX_ROUNDS + 1):
        templates = _templates(index, collector)
        found = _calls(index, templates)
        bound = {call: [Seed(t.client, t.version, t.returned, t.key) for t in made] for call, made in found.items()}
        if bound == seeds or _round == MAX_ROUNDS:
            break
        seeds = bound
        collector, collected = _collect(index, seeds)
    called = {id(t.node) for made in found.values() for t in made}
    by_fact = {id(t.client): t for t in templates}
    module = module_of(index.path)
    kept: list[ClientFact] = []
    for client in collected.clients:
        template = by_fact.get(id(client))
        if template is None:
            kept.append(client)
            continue
        here = id(template.node) in called
        escapes = template.returned and not template.started
        name = template.function.name.value
        exported = module and not name.startswith("_") and index.scopes[id(template.function)].parent is index.root
        if exported:
            collected.templates.append(Template(template.key, client, here, escapes))
        elif not here:
            kept.append(unbound(client, escapes))
    collected.clients = kept
    facts.clients.extend(collected.clients)
    facts.produced.extend(collected.produced)
    facts.connections.extend(collected.connections)
    facts.templates.extend(collected.templates)


def _collect(index: PythonIndex, seeds: dict[int, list[Seed]]) -> tuple[ClientCollector, FileFacts]:
    collected = FileFacts(index.path, "python")
    collector = ClientCollector(index, seeds)
    collector.collect(collected)
    return collector, collected


def _templates(index: PythonIndex, collector: ClientCollector) -> list[_Template]:
    found = []
    for client, keys in collector.made():
        scope = client.scope
        if id(client.fact) in collector.idle:
            continue  # never started: no call of the function makes a running client
        if scope is None or scope.kind != "function" or not isinstance(scope.node, cst.FunctionDef):
            continue
        function = scope.node
        name = index.function_key(scope)
        returned = any(key in keys for key in collector.returned_receivers(function))
        if not (returned or has_params(client.fact, name)):
            continue
        started = any(method == "start" and key in keys and where is scope
                      for key, method, _call, where in collector.calls)
        found.append(_Template(function, name, client.node, client.fact, client.version, returned, started))
    return found


def _calls(index: PythonIndex, templates: list[_Template]) -> dict[int, list[_Template]]:
    """Call node id -> the templates of the function it calls."""
    by_function: dict[int, list[_Template]] = {}
    for template in templates:
        by_function.setdefault(id(template.function), []).append(template)
    found: dict[int, list[_Template]] = {}
    if not by_function:
        return found
    for kind, node, scope in index.events:
        if kind != "call":
            continue
        function = index.function(node.func, scope)
        if function is None or id(function) not in by_function or _inside(index, scope, function):
            continue
        if any(arg.star for arg in node.args):
            continue
        found[id(node)] = by_function[id(function)]
    return found


def _inside(index: PythonIndex, scope, function: cst.FunctionDef) -> bool:
    """Is `scope` the function's own (a recursive call binds nothing new)?"""
    current = scope
    while current is not None:
        if current.node is function:
            return True
        current = current.parent
    return False


def calls_elsewhere(index: PythonIndex, templates: list[Template]) -> list[tuple[int, ClientFact]]:
    """The clients the calls in another module (`index`, a whole module) of each template's function make, as
    (the template's index, the client), configured by their callers. A call names the function through an import
    (`from pkg.mq import start`, `import pkg.mq as mq`): its qualified name is the template's, or the end of it
    (the template's module is named from its path, which may begin with directories that are not packages)."""
    seeds: dict[int, list[Seed]] = {}
    origin: dict[int, int] = {}  # id(template client) -> template index
    for kind, node, scope in index.events:
        if kind != "call" or any(arg.star for arg in node.args):
            continue
        qualified = index.qualified(node.func, scope)
        if not qualified:
            continue
        for number, template in enumerate(templates):
            if template.method == qualified or template.method.endswith("." + qualified):
                origin[id(template.client)] = number
                seeds.setdefault(id(node), []).append(Seed(template.client, template.client.api, True,
                                                           template.method, _parameters(template)))
    if not seeds:
        return []
    collected = FileFacts(index.path, "python")
    collector = ClientCollector(index, seeds)
    collector.collect(collected)
    made = FileFacts(index.path, "python", clients=[fact for _seed, fact in collector.instances])
    index.resolve_locations(made)
    return [(origin[id(seed.client)], fact) for (seed, _), fact in zip(collector.instances, made.clients)]


def _parameters(template: Template) -> tuple[str, ...]:
    """The names of the template function's parameters by position, as its values name them ("" where none
    does)."""
    client = template.client
    values = [setting.value for _name, setting in settings_of(client)]
    values += [v for s in client.subscriptions for v in (s.topic, s.expression)]
    names: dict[int, str] = {}
    for value in values:
        for param in params_in(value, template.method):
            names[param.index] = param.name
    return tuple(names.get(i, "") for i in range(max(names, default=-1) + 1))
