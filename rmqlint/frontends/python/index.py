"""The index of one Python module: its scopes and what each name is bound to, and the values of its names (the
Python counterpart of `java.index`).

`ScopeBuilder` walks the tree once with an explicit work list (libcst's own visitor recurses and costs a call
per attribute; its `ScopeProvider` costs more than the parse itself on a large module, measured 1.7x on a 1.4 MB
file) and records every scope's bindings, the `self.x = ...` assignments of methods, and the module's assignments
and calls in source order for the client analysis (`python.clients`). `PythonIndex` resolves names as Python does
(class bodies are not seen by their methods; `global`/`nonlocal`), follows imports to the dotted names they denote,
and evaluates expressions to values: literals, module constants, locals and `self.x` assigned once, names
assigned in branches (the assignments that reach the read, `python.flow`), conditional expressions (`OneOf`),
imports (`ConstRef` for the linker), concatenations and f-strings of those; anything else is `Dynamic`. Positions
come from libcst's `PositionProvider`, run on the one top-level statement a fact points into (the walk notes
each node's statement), only once a fact needs a location.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import libcst as cst

from rmqlint.facts import FileFacts, Location
from rmqlint import flow
from rmqlint.frontends.python import flow as python_flow
from rmqlint.frontends.python.positions import spans_of
from rmqlint.frontends.python.walk import children
from rmqlint.spans import Span
from rmqlint.text import TextBytes, module_of
from rmqlint.values import VALUE_KINDS, Concat, ConstRef, Dynamic, Lit, OneOf, Param, Placeholder, Value, concat, one_of



@dataclass
class Binding:
    """How a name is bound in one scope: simple assignments (their value nodes), or something else."""

    values: list = field(default_factory=list)
    other: str = ""  # "parameter", "loop variable", ... : not a constant
    position: int | None = None  # a function's parameter: its place among the declared ones (`self` counts)
    default: cst.BaseExpression | None = None  # a parameter's default, evaluated where the function is defined
    import_target: str | None = None  # `from a import b` -> "a.b"; `import a.b as s` -> "a.b"; `import a.b` -> "a"
    is_module: bool = False  # an `import` statement (not `from`): the name is a module
    definition: cst.CSTNode | None = None  # FunctionDef / ClassDef


@dataclass
class Scope:
    kind: str  # "module" | "function" | "class"
    node: cst.CSTNode
    parent: "Scope | None"
    bindings: dict[str, Binding] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)
    class_scope: "Scope | None" = None  # for a method: the class it is defined in
    self_name: str | None = None  # for a method: its first parameter

    def bind(self, name: str) -> Binding:
        return self.bindings.setdefault(name, Binding())


class ScopeBuilder:
    """Collects every scope's bindings; function and class bodies become child scopes.

    An explicit work list walks the tree (libcst's own visitor recurses and costs a call per attribute):
    handlers named `visit_<NodeType>` see each node with its scope; one that returns False has scheduled the
    children it wants walked (with their scopes) in `self.pending`."""

    def __init__(self, module: cst.Module, package: list[str]):
        self.package = package
        self.scopes: dict[int, Scope] = {}
        self.root = Scope("module", module, None)
        self.scopes[id(module)] = self.root
        self.scope = self.root
        self.pending: list[tuple[cst.CSTNode, Scope]] = []
        # Assignments and calls in source order with their scope: the analysis runs on these once every
        # scope is complete (a method may use an attribute another method, later in the file, assigns).
        self.events: list[tuple[str, cst.CSTNode, Scope]] = []
        # Calls and attributes by their place in the walk (pre-order, so source order): `PythonIndex.order`.
        self.sequence: dict[int, int] = {}
        # `self.x = ...` in a method, per (class node id, attribute): the values and the method's scope
        self.attr_assigns: dict[tuple[int, str], list[tuple[cst.BaseExpression, Scope]]] = {}
        self.top: dict[int, int] = {}  # node id -> index of the top-level statement holding it

    def walk(self, module: cst.Module) -> None:
        # Each node is noted with the index of the top-level statement holding it: positions are computed per
        # statement, for the statements a fact points into (`PythonIndex.loc`).
        work: list[tuple[cst.CSTNode, Scope, int]] = [(statement, self.root, index)
                                                      for index, statement in reversed(list(enumerate(module.body)))]
        handlers: dict[type, object] = {}
        top = self.top
        while work:
            node, scope, statement = work.pop()
            top[id(node)] = statement
            kind = type(node)
            if kind is cst.Call or kind is cst.Attribute:
                self.sequence[id(node)] = len(self.sequence)
            if kind not in handlers:
                handlers[kind] = getattr(self, f"visit_{kind.__name__}", None)
            handler = handlers[kind]
            if handler is None:
                work.extend((child, scope, statement) for child in reversed(children(node)))
                continue
            self.scope, self.pending = scope, []
            if handler(node) is False:
                work.extend((child, child_scope, statement) for child, child_scope in reversed(self.pending))
            else:
                work.extend((child, scope, statement) for child in reversed(children(node)))

    def _target_scope(self, name: str) -> Scope:
        if name in self.scope.globals:
            return self.root
        if name in self.scope.nonlocals:
            return _enclosing_binder(self.scope, name)
        return self.scope

    def _enter(self, kind: str, node: cst.CSTNode) -> Scope:
        scope = Scope(kind, node, self.scope)
        self.scopes[id(node)] = scope
        return scope

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._target_scope(node.name.value).bind(node.name.value).definition = node
        outer = self.scope
        self.pending.extend((deco, outer) for deco in node.decorators)
        scope = self._enter("function", node)
        params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
        for position, param in enumerate(params):
            binding = scope.bind(param.name.value)
            binding.other, binding.position, binding.default = "parameter", position, param.default
        for extra in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(extra, cst.Param):
                scope.bind(extra.name.value).other = "parameter"
        if outer.kind == "class":
            scope.class_scope = outer
            positional = [*node.params.posonly_params, *node.params.params]
            is_static = any(dotted(d.decorator) in ("staticmethod", "classmethod") for d in node.decorators)
            if positional and not is_static:
                scope.self_name = positional[0].name.value
        self.pending.append((node.body, scope))
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        scope = self._enter("function", node)
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            scope.bind(param.name.value).other = "parameter"
        self.pending.append((node.body, scope))
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._target_scope(node.name.value).bind(node.name.value).definition = node
        self.pending.append((node.body, self._enter("class", node)))
        return False

    def visit_Global(self, node: cst.Global) -> None:
        self.scope.globals.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for n in node.names:
            self.scope.nonlocals.add(n.name.value)
            # assigned from a nested function: not a constant of the enclosing one either
            _enclosing_binder(self.scope, n.name.value).bind(n.name.value).other = "nonlocal variable"

    def visit_Assign(self, node: cst.Assign) -> None:
        self.events.append(("assign", node, self.scope))
        for target in node.targets:
            self._assign(target.target, node.value)
            self._attribute_assign(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.events.append(("assign", node, self.scope))
            self._assign(node.target, node.value)
            self._attribute_assign(node.target, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        self.events.append(("call", node, self.scope))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._other(node.target, "augmented assignment")

    def visit_For(self, node: cst.For) -> None:
        self._other(node.target, "loop variable")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._other(node.asname.name, "with target")

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._other(node.name.name, "exception")

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._other(node.target, "assignment expression")

    def visit_Del(self, node: cst.Del) -> None:
        self._other(node.target, "deleted")

    def _assign(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._target_scope(target.value).bind(target.value).values.append(value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self._other(target, "unpacked")

    def _attribute_assign(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        scope = self.scope
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and scope.class_scope is not None and target.value.value == scope.self_name:
            key = (id(scope.class_scope.node), target.attr.value)
            self.attr_assigns.setdefault(key, []).append((value, scope))

    def _other(self, target: cst.CSTNode, why: str) -> None:
        if isinstance(target, cst.Name):
            self._target_scope(target.value).bind(target.value).other = why
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._other(element.value, why)
        elif isinstance(target, cst.StarredElement):
            self._other(target.value, why)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            imported = dotted(alias.name)
            if imported is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                binding = self._target_scope(alias.asname.name.value).bind(alias.asname.name.value)
                binding.import_target = imported
            else:
                head = imported.split(".")[0]
                binding = self._target_scope(head).bind(head)
                binding.import_target = head
            binding.is_module = True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        base = dotted(node.module) if node.module is not None else ""
        if base is None:
            return
        level = len(node.relative)
        if level:
            if level - 1 > len(self.package):
                return
            prefix = self.package[: len(self.package) - (level - 1)]
            base = ".".join([*prefix, base] if base else prefix)
        if isinstance(node.names, cst.ImportStar):
            self.scope.star_imports.append(base)
            return
        for alias in node.names:
            name = dotted(alias.name)
            if name is None:
                continue
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
                else name
            self._target_scope(local).bind(local).import_target = f"{base}.{name}" if base else name


def _enclosing_binder(scope: Scope, name: str) -> Scope:
    """The enclosing function scope a `nonlocal` name refers to (the nearest one binding it, else the nearest)."""
    functions = []
    current = scope.parent
    while current is not None:
        if current.kind == "function":
            functions.append(current)
        current = current.parent
    for candidate in functions:
        if name in candidate.bindings:
            return candidate
    return functions[0] if functions else scope


def dotted(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


_V2_MODULES = ("rocketmq.client", "rocketmq.ffi", "rocketmq.consts", "rocketmq.exceptions")


def api_of(qualified: str | None) -> tuple[str, str] | None:
    """("python2" | "python5", class name) for a name imported from a RocketMQ client package."""
    if not qualified or not qualified.startswith("rocketmq."):
        return None
    module, _, name = qualified.rpartition(".")
    if module in _V2_MODULES:
        return "python2", name
    return "python5", name


class PythonIndex:
    def __init__(self, path: str, module: cst.Module, line_map: list[int] | None = None,
                 starts: list[int] | None = None):
        self.path = path
        self.module = module
        self.line_map = line_map  # line in `module` -> line in the file, when `module` is a slice of it
        # The line each top-level statement of `module` starts on: positions are computed for the statements facts
        # point into, and there only for the nodes they cite (`python.positions`).
        self.starts = starts if starts is not None and len(starts) == len(module.body) else None
        mod = module_of(path).split(".") if module_of(path) else []
        self.package = mod if path.endswith("__init__.py") else mod[:-1]
        builder = ScopeBuilder(module, self.package)
        builder.walk(module)
        self.scopes = builder.scopes
        self.root = builder.root
        self.events = builder.events
        self.attr_assigns = builder.attr_assigns
        self.top = builder.top
        self.sequence = builder.sequence
        self.memo: dict[tuple[int, str], Value] = {}
        self.active: set[tuple[int, str]] = set()
        self._requests: dict[int, int] = {}  # node id -> index into _requested
        self._requested: list[cst.CSTNode] = []

    def loc(self, node: cst.CSTNode) -> Location:
        """The node's location. While the module is analysed this is a placeholder (line < 0) that
        `resolve_locations` replaces: positions cost a code generation pass, done once for all cited nodes."""
        index = self._requests.get(id(node))
        if index is None:
            index = self._requests[id(node)] = len(self._requested)
            self._requested.append(node)
        return Location(self.path, -1 - index, 0, 0, 0)

    def span(self, node: cst.CSTNode, operand: bool = False, inner: tuple[int, int] = (0, 0)) -> Span:
        """The node's span in the file, a placeholder like `loc`'s until `resolve_locations` (`inner`: characters
        left out at each end, a string's prefix and quotes)."""
        index = self._requests.get(id(node))
        if index is None:
            index = self._requests[id(node)] = len(self._requested)
            self._requested.append(node)
        return Span(self.path, -1 - index, 0, -1, inner[0], -1, inner[1], operand=operand)

    def order(self, node: cst.CSTNode) -> int:
        """A number that orders calls and attributes as they stand in the source."""
        return self.sequence.get(id(node), -1)

    def resolve_locations(self, facts: FileFacts, text: TextBytes | None = None) -> None:
        """Replace every placeholder location in `facts` by the real one: one targeted code generation pass per
        top-level statement that holds a cited node (all of the module when statement starts are not known).
        Placeholder spans become spans of `text` (the file), or None without it."""
        by_statement: dict[int, list[cst.CSTNode]] = {}
        for node in self._requested:
            statement = self.top.get(id(node)) if self.starts is not None else None
            by_statement.setdefault(-1 if statement is None else statement, []).append(node)
        places: dict[int, tuple[object, int]] = {}  # node id -> (span, line offset)
        for statement, nodes in by_statement.items():
            if statement < 0:
                spans, offset = spans_of(self.module, nodes), 0
            else:
                alone = self.module.body[statement]
                leading = len(getattr(alone, "leading_lines", ()))
                # The statement in a module of its own that indents as the file does: a block written with the
                # module's indentation holds none of its own, and libcst's default is four spaces.
                module = self.module.with_changes(body=[alone], header=[], footer=[])
                spans, offset = spans_of(module, nodes), self.starts[statement] - 1 - leading
            places.update({key: (span, offset) for key, span in spans.items()})
        real = []
        for node in self._requested:
            span, offset = places[id(node)]
            real.append(Location(self.path, self._line(span.line + offset), span.column + 1,
                                 self._line(span.end_line + offset), span.end_column + 1))

        def to_span(placeholder: Span) -> Span | None:
            if text is None:
                return None
            at = real[-1 - placeholder.start]
            first = text.index(at.line, at.column) + placeholder.column
            last = text.index(at.end_line, at.end_column) - placeholder.end_column
            return text.span(first, last, placeholder.operand)

        _replace_locations(facts, real, to_span)

    def _line(self, line: int) -> int:
        if self.line_map is None:
            return line
        if line < len(self.line_map):
            return self.line_map[line]
        # A span that ends just past the slice's last line (a block's end at the end of the text) ends just past
        # that line in the module too.
        return self.line_map[-1] + line - (len(self.line_map) - 1)

    def function_key(self, scope: Scope) -> str:
        """How calls name a function or method: the module and the definitions enclosing it (`pkg.mq.start`,
        `pkg.mq.Worker.start`)."""
        names = []
        current: Scope | None = scope
        while current is not None and current.parent is not None:
            node = current.node
            names.append(node.name.value if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else "<lambda>")
            current = current.parent
        return ".".join([*([module_of(self.path)] if module_of(self.path) else []), *reversed(names)])

    def find(self, name: str, scope: Scope) -> tuple[Scope, Binding] | None:
        """The scope binding `name` as Python resolves it from `scope` (class bodies are not seen by methods)."""
        current: Scope | None = scope
        first = True
        while current is not None:
            if name in current.globals:
                current = self.root
            elif name in current.nonlocals:
                current = _enclosing_binder(current, name)
            if (first or current.kind != "class") and name in current.bindings:
                return current, current.bindings[name]
            first = False
            current = current.parent
        return None

    def local_names(self, scope: Scope) -> list[str]:
        """The names that mean something other than the module's own at a place in `scope`, as `find` resolves
        them: bound by the enclosing functions (not those declared global there), or by the class whose body the
        place is in (a method does not see its class's names)."""
        names: set[str] = set()
        current: Scope | None = scope
        first = True
        while current is not None and current.kind != "module":
            if first or current.kind != "class":
                names.update(name for name in current.bindings if name not in current.globals)
            first = False
            current = current.parent
        return sorted(names)

    def qualified(self, node: cst.BaseExpression, scope: Scope) -> str | None:
        """The imported dotted name an expression denotes (`mq.PushConsumer` -> `rocketmq.client.PushConsumer`)."""
        if isinstance(node, cst.Name):
            found = self.find(node.value, scope)
            if found is None:
                for star in self.root.star_imports:
                    if star.startswith("rocketmq"):
                        return f"{star}.{node.value}"
                return None
            return found[1].import_target
        if isinstance(node, cst.Attribute):
            head = self.qualified(node.value, scope)
            return f"{head}.{node.attr.value}" if head else None
        return None

    def rocketmq(self, node: cst.BaseExpression, scope: Scope) -> tuple[str, str] | None:
        return api_of(self.qualified(node, scope))

    def lookup(self, name: str, scope: Scope, at: cst.CSTNode | None = None) -> Value:
        """The value of `name` read in `scope`: at the read `at` when the name is assigned more than once in that
        same scope (the assignments that reach it), else as the scope leaves it."""
        found = self.find(name, scope)
        if found is None:
            return Dynamic(f"name {name} is not a constant")
        owner, binding = found
        here = at if owner is scope and len(binding.values) > 1 else None
        key = (id(owner.node), name, id(here))
        if key in self.memo:
            return self.memo[key]
        if key in self.active:
            return Dynamic(f"{name} refers to itself")
        self.active.add(key)
        try:
            value = self._binding_value(name, binding, owner, here)
        finally:
            self.active.discard(key)
        self.memo[key] = value
        return value

    def _binding_value(self, name: str, binding: Binding, owner: Scope, at: cst.CSTNode | None) -> Value:
        if binding.other == "parameter" and binding.position is not None and not binding.values:
            default = self.value(binding.default, owner.parent) if binding.default is not None and owner.parent \
                else None  # what a call that passes nothing gets
            return Param(binding.position, name, self.function_key(owner), default)  # each call binds it
        if binding.other:
            return Dynamic(f"{name} is a {binding.other}")
        if binding.definition is not None:
            return Dynamic(f"{name} is a function or class")
        if binding.import_target is not None:
            if binding.values:
                return Dynamic(f"{name} is imported and reassigned")
            if binding.is_module or api_of(binding.import_target) is not None:
                return Dynamic(f"{name} is a module or client class")
            module, _, attr = binding.import_target.rpartition(".")
            return ConstRef("python", (module,), attr) if module else Dynamic(f"{name} is a module")
        if len(binding.values) == 1:
            return self.value(binding.values[0], owner)
        return self._reaching(name, binding, owner, at)

    def _reaching(self, name: str, binding: Binding, owner: Scope, at: cst.CSTNode | None) -> Value:
        """A name assigned several times (`if refund: tag = "Refunded"` / `else: tag = "Settled"`): one of the
        values that reach the read `at`. Read from another scope (a function reading a module's name), the value
        is known only when every assignment may be the one left at the end of the scope (the branches of an `if`):
        which one a later call sees is not known otherwise."""
        body = owner.node.body if isinstance(owner.node, (cst.FunctionDef, cst.ClassDef)) else owner.node
        try:
            reaching = python_flow.reaching_values(body, name, at, len(binding.values))
        except flow.Unsupported as why:
            return Dynamic(f"{name} is assigned {len(binding.values)} times ({why})")
        if at is None and len(reaching) != len(binding.values):
            return Dynamic(f"{name} is reassigned")
        if not reaching:
            return Dynamic(f"{name} has no value here")
        return one_of(Dynamic(f"{name} is updated in place") if node is python_flow.NOT_PLAIN
                      else self.value(node, owner) for node in reaching)

    def value(self, node: cst.BaseExpression, scope: Scope) -> Value:
        if isinstance(node, cst.SimpleString) and "\\" not in node.value and node.prefix.lower() in ("", "u", "r"):
            quote = node.quote
            text = node.value[len(node.prefix) + len(quote):-len(quote)]  # no escapes: the text is as written
            one_line = "\n" not in text and "\r" not in text
            return Lit(text, self.span(node, inner=(len(node.prefix) + len(quote), len(quote))) if one_line else None)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            with warnings.catch_warnings():  # an invalid escape such as "\q" warns, and stays in the text
                warnings.simplefilter("ignore")
                evaluated = node.evaluated_value
            if isinstance(evaluated, bytes):
                try:
                    return Lit(evaluated.decode("utf-8"))
                except UnicodeDecodeError:
                    return Dynamic("bytes that are not UTF-8")
            return Lit(evaluated) if isinstance(evaluated, str) else Dynamic("f-string")
        if isinstance(node, (cst.Integer, cst.Float)):
            return Lit(node.value)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
                and isinstance(node.expression, (cst.Integer, cst.Float)):
            return Lit("-" + node.expression.value)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return Lit(node.value)
            if node.value == "None":
                return Dynamic("None")
            return self.lookup(node.value, scope, at=node)
        if isinstance(node, cst.FormattedString):
            return self._fstring(node, scope)
        if isinstance(node, cst.IfExp):
            return one_of([self.value(node.body, scope), self.value(node.orelse, scope)])
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            if self._numeric(node.left, scope) or self._numeric(node.right, scope):
                return Dynamic("arithmetic")
            return concat([self.value(node.left, scope), self.value(node.right, scope)])
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope)
        if isinstance(node, cst.Call):
            name = self.qualified(node.func, scope) or dotted(node.func)
            if name in ("os.getenv", "os.environ.get") and node.args:
                return environment_value(self.value(node.args[0].value, scope))
            if name == "str" and len(node.args) == 1:  # str(os.getpid()): the same uniqueness
                inner = self.value(node.args[0].value, scope)
                if isinstance(inner, Dynamic):
                    return inner
            reason, per = call_reason(name)
            return Dynamic(reason, per)
        if isinstance(node, cst.Subscript):
            target = self.qualified(node.value, scope) or dotted(node.value)
            if target == "os.environ":
                index = node.slice[0].slice if len(node.slice) == 1 else None
                key = self.value(index.value, scope) if isinstance(index, cst.Index) else Dynamic("key")
                return environment_value(key)
            return Dynamic("subscript")
        return Dynamic(f"{type(node).__name__} expression")

    def _numeric(self, node: cst.BaseExpression, scope: Scope) -> bool:
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return True
        if isinstance(node, cst.Name):
            found = self.find(node.value, scope)
            if found is not None and len(found[1].values) == 1:
                return isinstance(found[1].values[0], (cst.Integer, cst.Float, cst.Imaginary))
        return False

    def _fstring(self, node: cst.FormattedString, scope: Scope) -> Value:
        parts: list[Value] = []
        raw = "r" in node.prefix.lower()
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                if "\\" in part.value and not raw:
                    return Dynamic("f-string with escapes")  # rare in names; not worth decoding by hand
                parts.append(Lit(part.value.replace("{{", "{").replace("}}", "}")))
            elif isinstance(part, cst.FormattedStringExpression):
                if part.conversion is not None or part.format_spec is not None \
                        or getattr(part, "equal", None) is not None:
                    return Dynamic("formatted f-string field")
                value = self.value(part.expression, scope)
                if isinstance(value, Dynamic):
                    return value
                parts.append(value)
        return concat(parts)

    def _attribute(self, node: cst.Attribute, scope: Scope) -> Value:
        attr = node.attr.value
        if attr in ("__name__", "__qualname__"):
            named = self._class_name(node.value, scope)
            if named is not None:
                return named
        api = self.rocketmq(node.value, scope)
        if api is not None:
            return Lit(attr)  # an enum constant of the client: MessageModel.BROADCASTING, FilterType.SQL
        qualified = self.qualified(node.value, scope)
        if qualified is not None:
            if qualified in ("os.environ",):
                return Dynamic("environment variable")
            return ConstRef("python", (qualified,), attr)
        owner = self.class_of(node.value, scope)
        if owner is not None:
            return self._class_attribute(owner, attr)
        return Dynamic(f"attribute {attr}")

    def _class_name(self, node: cst.BaseExpression, scope: Scope) -> Value | None:
        """The `__name__` of a class: `Orders.__name__` is its text; `self.__class__` and `type(obj)` a text not
        known here but the same in every process (`Dynamic.per` "none"). None when `node` is not a class."""
        if isinstance(node, cst.Attribute) and node.attr.value == "__class__" or (
                isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "type"
                and len(node.args) == 1):
            return Dynamic("the name of an object's class", "none")
        if isinstance(node, cst.Name) and not (scope.kind == "function" and node.value == scope.self_name):
            found = self.find(node.value, scope)
            if found is not None and isinstance(found[1].definition, cst.ClassDef):
                return Lit(found[1].definition.name.value)
        return None

    def class_of(self, node: cst.BaseExpression, scope: Scope) -> Scope | None:
        """The class scope `self`/`cls`/`ClassName` denotes in `scope`."""
        if not isinstance(node, cst.Name):
            return None
        if scope.kind == "function" and scope.class_scope is not None and node.value == scope.self_name:
            return scope.class_scope
        found = self.find(node.value, scope)
        if found is not None and isinstance(found[1].definition, cst.ClassDef):
            return self.scopes.get(id(found[1].definition))
        return None

    def _class_attribute(self, cls: Scope, attr: str) -> Value:
        """A class attribute, or `self.attr` assigned exactly once in the class's methods (and not both)."""
        assigned = self.attr_assigns.get((id(cls.node), attr), [])
        binding = cls.bindings.get(attr)
        if binding is not None and not assigned:
            return self.lookup(attr, cls)
        if binding is None and len(assigned) == 1:
            value_node, where = assigned[0]
            return self.value(value_node, where)
        return Dynamic(f"attribute {attr} is not assigned exactly once")

    def resolve_node(self, node: cst.BaseExpression, scope: Scope) -> tuple[cst.BaseExpression, Scope]:
        """Follow a name assigned exactly once to the expression it holds (for dicts, calls, lambdas)."""
        seen = 0
        while isinstance(node, cst.Name) and seen < 20:
            found = self.find(node.value, scope)
            if found is None or found[1].other or len(found[1].values) != 1:
                break
            scope, node = found[0], found[1].values[0]
            seen += 1
        return node, scope

    def function(self, node: cst.BaseExpression, scope: Scope) -> cst.CSTNode | None:
        """The def or lambda a callback expression denotes."""
        node, scope = self.resolve_node(node, scope)
        if isinstance(node, cst.Lambda):
            return node
        if isinstance(node, cst.Name):
            found = self.find(node.value, scope)
            if found is not None and isinstance(found[1].definition, cst.FunctionDef):
                return found[1].definition
        if isinstance(node, cst.Attribute):
            cls = self.class_of(node.value, scope)
            if cls is not None:
                binding = cls.bindings.get(node.attr.value)
                if binding is not None and isinstance(binding.definition, cst.FunctionDef):
                    return binding.definition
        return None

    def method(self, cls: Scope, name: str, depth: int = 0) -> cst.FunctionDef | None:
        """A method of a class of this module, or inherited from a base class of this module."""
        binding = cls.bindings.get(name)
        if binding is not None:
            return binding.definition if isinstance(binding.definition, cst.FunctionDef) else None
        if depth > 10 or not isinstance(cls.node, cst.ClassDef):
            return None
        for base in cls.node.bases:
            parent = self.class_of(base.value, cls.parent or self.root)
            found = self.method(parent, name, depth + 1) if parent is not None else None
            if found is not None:
                return found
        return None


def _replace_locations(obj, real: list[Location], to_span) -> None:
    """Put the real locations in place of the placeholders (line < 0) everywhere inside the facts, and the real
    spans (or None) in place of placeholder spans, in settings and in the literals of values."""

    def resolved(item):
        if isinstance(item, Location):
            return real[-1 - item.line] if item.line < 0 else item
        if isinstance(item, Span):
            return to_span(item) if item.line < 0 else item
        if isinstance(item, VALUE_KINDS):
            return _resolve_origins(item, to_span)
        _replace_locations(item, real, to_span)
        return item

    if isinstance(obj, list):
        for i, item in enumerate(obj):
            obj[i] = resolved(item)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            obj[key] = resolved(item)
    elif dataclasses.is_dataclass(obj) and not obj.__dataclass_params__.frozen:  # frozen ones hold no placeholder
        for f in dataclasses.fields(obj):
            item = getattr(obj, f.name)
            if isinstance(item, (Location, Span, list, dict) + VALUE_KINDS) or dataclasses.is_dataclass(item):
                setattr(obj, f.name, resolved(item))


def _resolve_origins(value: Value, to_span) -> Value:
    """`value` with each literal's placeholder origin resolved; an origin whose text is not the literal's goes."""
    if isinstance(value, Lit):
        if value.origin is None or value.origin.line >= 0:
            return value
        origin = to_span(value.origin)
        return Lit(value.text, origin if origin is not None and origin.text == value.text else None)
    if isinstance(value, Concat):
        return Concat(tuple(_resolve_origins(p, to_span) for p in value.parts))
    if isinstance(value, OneOf):
        return OneOf(tuple(_resolve_origins(a, to_span) for a in value.alternatives))
    if isinstance(value, Placeholder) and value.default is not None:
        return Placeholder(value.key, _resolve_origins(value.default, to_span))
    return value


def argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    """The argument passed at `position` or as `keyword`; None when absent or hidden behind `*args`."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    if any(a.star for a in call.args[: position + 1]):
        return None
    return positional[position].value if position < len(positional) else None


class ReturnsAndRaises:
    """Return statements of one function body, and raise statements not inside a `try` (nested definitions
    excluded). Returns and raises are statements: only statements are walked, never expressions (libcst's own
    visitor rebuilds every node it passes, which costs more than the parse on a large module)."""

    def __init__(self, body: cst.CSTNode):
        self.returns: list[cst.Return] = []
        self.raises: list[cst.Raise] = []
        stack: list[tuple[cst.CSTNode, bool]] = [(body, False)]  # node, inside a try
        while stack:
            node, in_try = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(node, cst.Return):
                self.returns.append(node)
            elif isinstance(node, cst.Raise):
                if not in_try:
                    self.raises.append(node)
            elif isinstance(node, (cst.Try, cst.TryStar)):
                parts = [(p, in_try) for p in (*node.handlers, node.orelse, node.finalbody) if p is not None]
                stack.extend(reversed([(node.body, True), *parts]))
            elif isinstance(node, (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine)):
                stack.extend((child, in_try) for child in reversed(node.body))
            elif isinstance(node, cst.Match):
                stack.extend((case.body, in_try) for case in reversed(node.cases))
            elif isinstance(node, (cst.If, cst.For, cst.While, cst.With, cst.Else, cst.Finally, cst.ExceptHandler,
                                   cst.ExceptStarHandler)):
                orelse = getattr(node, "orelse", None)
                if orelse is not None:
                    stack.append((orelse, in_try))
                stack.append((node.body, in_try))  # children are pushed last first: found in source order


def call_reason(name: str | None) -> tuple[str, str]:
    """Why a call's value is not known, and what it is unique per (`Dynamic.per`)."""
    reasons = {"socket.gethostname": ("hostname", "host"), "platform.node": ("hostname", "host"),
               "socket.getfqdn": ("hostname", "host"), "os.getpid": ("process id", "pid"),
               "uuid.uuid4": ("random", "process"), "uuid.uuid1": ("random", "process"),
               "time.time": ("start time", "process"), "time.time_ns": ("start time", "process")}
    if name in reasons:
        return reasons[name]
    return (f"call {name}()" if name else "call"), ""


def environment_value(key: Value) -> Dynamic:
    """`os.getenv(key)`: the host name when the key is HOSTNAME (what it is unique per), else unknown."""
    if isinstance(key, Lit):
        return Dynamic(f"environment variable {key.text}", "host" if key.text == "HOSTNAME" else "")
    return Dynamic("environment variable")
