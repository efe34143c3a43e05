"""Python frontend: libcst turns a module into RocketMQ facts.

Two client generations are recognised by where their names are imported from:
- 2.x (`rocketmq.client`, `rocketmq.ffi`; apache/rocketmq-client-python): `PushConsumer(group_id, orderly,
  message_model)`, `set_group`, `set_instance_name`, `set_message_model`, `subscribe(topic, callback, expression)`
  with a callback returning `ConsumeStatus`; `Producer(group_id, ...)`, `TransactionMQProducer`, `PullConsumer`;
  `Message(topic)` with `set_tags`.
- 5.x (package `rocketmq`, `rocketmq.v5.*`; apache/rocketmq-clients python/): `PushConsumer(config, group,
  listener, {topic: FilterExpression(expr, FilterType.SQL)})`, `SimpleConsumer(config, group, {..})`,
  `subscribe(topic, FilterExpression(..))`, a `MessageListener` class whose `consume` returns `ConsumeResult`;
  `Message()` with `msg.topic = ..` / `msg.tag = ..`.

Values are resolved from literals, module constants, function locals assigned once, `self.x` assigned once in a
class, imports (`ConstRef` for the linker) and f-strings of constants; anything else is `Dynamic`.
A client is identified by the variable or attribute holding it (`self.consumer` across the methods of a class).
libcst's tree walk recurses and its native parser can overflow the C stack on absurdly nested input, so the
stdlib parser (which has nesting limits) checks the text and its depth first.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import sys
import tokenize
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from rmqlint.facts import ClientFact, FileFacts, Listener, Location, Problem, ProducedTag, Setting, Subscription
from rmqlint.text import add_suppressions, decode, module_of
from rmqlint.values import ConstRef, Dynamic, Lit, Value, concat

# Deeper than this (stdlib AST levels, or strings in one implicit concatenation) is not handed to libcst: its
# tree walk recurses (a few Python frames per level) and slows down more than linearly (2,000 levels of `a + b`
# take seconds); its native parser overflows the C stack near 10,000 levels. 500 levels keep long `elif` chains.
MAX_DEPTH = 500
# libcst runs with at least this recursion limit, enough for MAX_DEPTH levels (measured safe up to 4,000).
RECURSION_LIMIT = 10_000

def parse_python(path: str, data: bytes) -> FileFacts:
    facts = FileFacts(path=path, language="python")
    try:
        _parse_into(facts, path, data)
    except RecursionError:
        facts.clients, facts.produced = [], []
        facts.problems.append(Problem("code nested too deeply to analyse", _loc(path, 1, 1)))
    except Exception as err:  # never a traceback for a user's file
        facts.clients, facts.produced = [], []
        facts.problems.append(Problem(f"could not analyse: {type(err).__name__}: {err}", _loc(path, 1, 1)))
    return facts


def _parse_into(facts: FileFacts, path: str, data: bytes) -> None:
    decoded = decode(path, data, what="Python source")
    if decoded.text is None:
        facts.problems.append(decoded.problem)
        return
    text = decoded.text
    if "rmqlint" in text:
        facts.suppressions = _suppressions(text)
    problem = _precheck(path, text)
    if problem is not None:
        facts.problems.append(problem)
        return
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        module = cst.parse_module(text)
        _Analyzer(path, module).run(facts)
    except cst.ParserSyntaxError as err:
        facts.problems.append(Problem(f"syntax error: {err.message}", _loc(path, err.raw_line, err.raw_column + 1)))
    finally:
        sys.setrecursionlimit(old_limit)


def _precheck(path: str, text: str) -> Problem | None:
    """The stdlib parser rejects what libcst would choke on (and reports syntax errors with a position)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        line = err.lineno or 1
        return Problem(f"syntax error: {err.msg}", _loc(path, line, max(err.offset or 1, 1)))
    except (RecursionError, MemoryError):
        return Problem("code nested too deeply to analyse", _loc(path, 1, 1))
    except ValueError as err:
        return Problem(f"not Python source: {err}", _loc(path, 1, 1))
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.BoolOp):  # libcst nests `a or b or c` pairwise
            depth += len(node.values)
        if depth > MAX_DEPTH:
            line = getattr(node, "lineno", 1)
            return Problem(f"code nested more than {MAX_DEPTH} levels deep: not analysed", _loc(path, line, 1))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    if text.count('"') + text.count("'") <= 2 * MAX_DEPTH:
        return None  # too few quotes for a long implicit concatenation: skip the tokenizer
    run, run_line = 0, 1
    for tok in _tokens(text):
        if tok.type == tokenize.STRING:  # libcst nests implicitly concatenated strings pairwise
            run += 1
            if run > MAX_DEPTH:
                return Problem(f"more than {MAX_DEPTH} strings concatenated: not analysed", _loc(path, run_line, 1))
        elif tok.type not in (tokenize.NL, tokenize.COMMENT):
            run, run_line = 0, tok.start[0]
    return None


def _tokens(text: str):
    try:
        yield from tokenize.generate_tokens(io.StringIO(text).readline)
    except (tokenize.TokenError, SyntaxError):
        return


def _suppressions(text: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for tok in _tokens(text):
        if tok.type != tokenize.COMMENT:
            continue
        add_suppressions(found, tok.string, tok.start[0])
    return found


def _loc(path: str, line: int, column: int) -> Location:
    return Location(path, line, column, line, column + 1)


# --- scopes ------------------------------------------------------------------------------------------------


@dataclass
class _Binding:
    """How a name is bound in one scope: simple assignments (their value nodes), or something else."""

    values: list = field(default_factory=list)
    other: str = ""  # "parameter", "loop variable", ... : not a constant
    import_target: str | None = None  # `from a import b` -> "a.b"; `import a.b as s` -> "a.b"; `import a.b` -> "a"
    is_module: bool = False  # an `import` statement (not `from`): the name is a module
    definition: cst.CSTNode | None = None  # FunctionDef / ClassDef


@dataclass
class _Scope:
    kind: str  # "module" | "function" | "class"
    node: cst.CSTNode
    parent: "_Scope | None"
    bindings: dict[str, _Binding] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)
    class_scope: "_Scope | None" = None  # for a method: the class it is defined in
    self_name: str | None = None  # for a method: its first parameter

    def bind(self, name: str) -> _Binding:
        return self.bindings.setdefault(name, _Binding())


class _ScopeBuilder:
    """Collects every scope's bindings; function and class bodies become child scopes.

    An explicit work list walks the tree (libcst's own visitor recurses and costs a call per attribute):
    handlers named `visit_<NodeType>` see each node with its scope; one that returns False has scheduled the
    children it wants walked (with their scopes) in `self.pending`."""

    def __init__(self, module: cst.Module, package: list[str]):
        self.package = package
        self.scopes: dict[int, _Scope] = {}
        self.root = _Scope("module", module, None)
        self.scopes[id(module)] = self.root
        self.scope = self.root
        self.pending: list[tuple[cst.CSTNode, _Scope]] = []
        # Assignments and calls in source order with their scope: the analysis runs on these once every
        # scope is complete (a method may use an attribute another method, later in the file, assigns).
        self.events: list[tuple[str, cst.CSTNode, _Scope]] = []

    def walk(self, module: cst.Module) -> None:
        work: list[tuple[cst.CSTNode, _Scope]] = [(module, self.root)]
        handlers: dict[type, object] = {}
        while work:
            node, scope = work.pop()
            kind = type(node)
            if kind not in handlers:
                handlers[kind] = getattr(self, f"visit_{kind.__name__}", None)
            handler = handlers[kind]
            self.scope, self.pending = scope, []
            if handler is not None and handler(node) is False:
                work.extend(reversed(self.pending))
            else:
                work.extend((child, scope) for child in reversed(_children(node)))

    def _target_scope(self, name: str) -> _Scope:
        if name in self.scope.globals:
            return self.root
        if name in self.scope.nonlocals:
            return _enclosing_binder(self.scope, name)
        return self.scope

    def _enter(self, kind: str, node: cst.CSTNode) -> _Scope:
        scope = _Scope(kind, node, self.scope)
        self.scopes[id(node)] = scope
        return scope

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._target_scope(node.name.value).bind(node.name.value).definition = node
        outer = self.scope
        self.pending.extend((deco, outer) for deco in node.decorators)
        scope = self._enter("function", node)
        params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
        for extra in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(extra, cst.Param):
                params.append(extra)
        for param in params:
            scope.bind(param.name.value).other = "parameter"
        if outer.kind == "class":
            scope.class_scope = outer
            positional = [*node.params.posonly_params, *node.params.params]
            is_static = any(_dotted(d.decorator) in ("staticmethod", "classmethod") for d in node.decorators)
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

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.events.append(("assign", node, self.scope))
            self._assign(node.target, node.value)

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
            dotted = _dotted(alias.name)
            if dotted is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                binding = self._target_scope(alias.asname.name.value).bind(alias.asname.name.value)
                binding.import_target = dotted
            else:
                head = dotted.split(".")[0]
                binding = self._target_scope(head).bind(head)
                binding.import_target = head
            binding.is_module = True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        base = _dotted(node.module) if node.module is not None else ""
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
            name = _dotted(alias.name)
            if name is None:
                continue
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
                else name
            self._target_scope(local).bind(local).import_target = f"{base}.{name}" if base else name


def _enclosing_binder(scope: _Scope, name: str) -> _Scope:
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


# Syntax that holds no names, calls or statements: not walked.
_LEAVES = (cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline, cst.Comma,
           cst.Semicolon, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
           cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Dot, cst.Colon, cst.AssignEqual, cst.BaseBinaryOp,
           cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp, cst.SimpleString, cst.Integer,
           cst.Float, cst.Imaginary)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes worth walking, in source order (dataclass fields follow the source)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name for f in dataclasses.fields(node)
            if not f.name.startswith(("whitespace", "lpar", "rpar", "leading_lines", "lines_after")))
    children = []
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            if not isinstance(value, _LEAVES):
                children.append(value)
        elif isinstance(value, (tuple, list)):
            children.extend(v for v in value if isinstance(v, cst.CSTNode) and not isinstance(v, _LEAVES))
    return children


def _dotted(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


# --- RocketMQ API ------------------------------------------------------------------------------------------

_V2_MODULES = ("rocketmq.client", "rocketmq.ffi", "rocketmq.consts", "rocketmq.exceptions")
# client class -> role, per generation
_V2_CLIENTS = {"PushConsumer": "push_consumer", "PullConsumer": "pull_consumer", "Producer": "producer",
               "TransactionMQProducer": "producer"}
_V5_CLIENTS = {"PushConsumer": "push_consumer", "LitePushConsumer": "push_consumer",
               "SimpleConsumer": "simple_consumer", "Producer": "producer"}
_V2_MODEL_NUMBERS = {"0": "BROADCASTING", "1": "CLUSTERING"}  # rocketmq/ffi.py MessageModel
_V2_SETTERS = {"set_group": "group", "set_instance_name": "instance_name", "set_message_model": "message_model"}


def _api_of(qualified: str | None) -> tuple[str, str] | None:
    """("python2" | "python5", class name) for a name imported from a RocketMQ client package."""
    if not qualified or not qualified.startswith("rocketmq."):
        return None
    module, _, name = qualified.rpartition(".")
    if module in _V2_MODULES:
        return "python2", name
    return "python5", name


# --- analysis ----------------------------------------------------------------------------------------------


@dataclass
class _Client:
    fact: ClientFact
    version: str
    order: tuple[int, int]


@dataclass
class _Message:
    version: str
    topic: Value | None
    order: tuple[int, int]
    topics: list[tuple[tuple[int, int], Value]] = field(default_factory=list)  # 5.x `msg.topic = ..`


class _Analyzer:
    def __init__(self, path: str, module: cst.Module):
        self.path = path
        self.module = module
        self._positions = None
        mod = module_of(path).split(".") if module_of(path) else []
        self.package = mod if path.endswith("__init__.py") else mod[:-1]
        builder = _ScopeBuilder(module, self.package)
        builder.walk(module)
        self.scopes = builder.scopes
        self.root = builder.root
        self.events = builder.events
        self.scope: _Scope = self.root  # the scope of the event being analysed
        self.memo: dict[tuple[int, str], Value] = {}
        self.active: set[tuple[int, str]] = set()
        self.handled: set[int] = set()  # constructor calls already attached to a receiver
        self.clients: dict[tuple, list[_Client]] = {}
        self.anonymous: list[_Client] = []
        self.messages: dict[tuple, list[_Message]] = {}
        self.calls: list[tuple[tuple, str, cst.Call, _Scope]] = []  # receiver key, method, call, scope
        self.tag_assigns: list[tuple[tuple, cst.CSTNode, cst.BaseExpression, _Scope]] = []
        self.attr_assigns: dict[tuple, list[tuple[cst.BaseExpression, _Scope]]] = {}  # self.x = .. per class
        self.aliases: list[tuple[list[tuple], list[tuple]]] = []  # target keys <- source keys
        self.returned: dict[int, list[tuple]] = {}  # function -> receivers it returns
        self.parameters: set[tuple] = set()  # keys of helper parameters: every object passed in is configured

    # -- driver

    def run(self, facts: FileFacts) -> None:
        for kind, node, scope in self.events:
            self.scope = scope
            if kind == "assign":
                self._on_assign(node) if isinstance(node, cst.Assign) else self._on_annotated_assign(node)
            else:
                self._on_call(node)
        for name, binding in self.root.bindings.items():
            if binding.definition is not None:
                continue
            if binding.is_module or (binding.import_target is not None and _api_of(binding.import_target)):
                continue
            if binding.values or binding.import_target is not None or binding.other:
                facts.constants[name] = self.lookup(name, self.root)
        self._callbacks(facts)
        self._link(facts)

    def _callbacks(self, facts: FileFacts) -> None:
        """Module-level functions returning a 2.x `ConsumeStatus`: callbacks that consumers of other modules
        subscribe with (`Listener.class_ref`), published in `listener_classes`."""
        for name, binding in self.root.bindings.items():
            function = binding.definition
            if not isinstance(function, cst.FunctionDef) or binding.values or binding.import_target is not None:
                continue
            collector = _ReturnsAndRaises()
            function.body.visit(collector)
            scope = self.scopes[id(function)]
            if any(isinstance(r.value, cst.Attribute)
                   and self.rocketmq(r.value.value, scope) == ("python2", "ConsumeStatus") for r in collector.returns):
                listener = Listener(kind="python", location=self.loc(function))
                self._scan_returns(function, "RECONSUME_LATER", listener)
                facts.listener_classes[name] = listener

    @property
    def positions(self):
        """Positions cost a full code generation pass: only computed once a fact needs a location."""
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions

    def loc(self, node: cst.CSTNode) -> Location:
        rng = self.positions[node]
        return Location(self.path, rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1)

    def order(self, node: cst.CSTNode) -> tuple[int, int]:
        rng = self.positions[node]
        return rng.start.line, rng.start.column

    # -- names and values

    def find(self, name: str, scope: _Scope) -> tuple[_Scope, _Binding] | None:
        """The scope binding `name` as Python resolves it from `scope` (class bodies are not seen by methods)."""
        current: _Scope | None = scope
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

    def qualified(self, node: cst.BaseExpression, scope: _Scope) -> str | None:
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

    def rocketmq(self, node: cst.BaseExpression, scope: _Scope) -> tuple[str, str] | None:
        return _api_of(self.qualified(node, scope))

    def lookup(self, name: str, scope: _Scope) -> Value:
        found = self.find(name, scope)
        if found is None:
            return Dynamic(f"name {name} is not a constant")
        owner, binding = found
        key = (id(owner.node), name)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:
            return Dynamic(f"{name} refers to itself")
        self.active.add(key)
        try:
            value = self._binding_value(name, binding, owner)
        finally:
            self.active.discard(key)
        self.memo[key] = value
        return value

    def _binding_value(self, name: str, binding: _Binding, owner: _Scope) -> Value:
        if binding.other:
            return Dynamic(f"{name} is a {binding.other}")
        if binding.definition is not None:
            return Dynamic(f"{name} is a function or class")
        if binding.import_target is not None:
            if binding.values:
                return Dynamic(f"{name} is imported and reassigned")
            if binding.is_module or _api_of(binding.import_target) is not None:
                return Dynamic(f"{name} is a module or client class")
            module, _, attr = binding.import_target.rpartition(".")
            return ConstRef("python", (module,), attr) if module else Dynamic(f"{name} is a module")
        if len(binding.values) != 1:
            return Dynamic(f"{name} is assigned {len(binding.values)} times")
        return self.value(binding.values[0], owner)

    def value(self, node: cst.BaseExpression, scope: _Scope) -> Value:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
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
            return self.lookup(node.value, scope)
        if isinstance(node, cst.FormattedString):
            return self._fstring(node, scope)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            if self._numeric(node.left, scope) or self._numeric(node.right, scope):
                return Dynamic("arithmetic")
            return concat([self.value(node.left, scope), self.value(node.right, scope)])
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope)
        if isinstance(node, cst.Call):
            return Dynamic(_call_reason(self.qualified(node.func, scope) or _dotted(node.func)))
        if isinstance(node, cst.Subscript):
            target = self.qualified(node.value, scope) or _dotted(node.value)
            if target == "os.environ":
                return Dynamic("environment variable")
            return Dynamic("subscript")
        return Dynamic(f"{type(node).__name__} expression")

    def _numeric(self, node: cst.BaseExpression, scope: _Scope) -> bool:
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return True
        if isinstance(node, cst.Name):
            found = self.find(node.value, scope)
            if found is not None and len(found[1].values) == 1:
                return isinstance(found[1].values[0], (cst.Integer, cst.Float, cst.Imaginary))
        return False

    def _fstring(self, node: cst.FormattedString, scope: _Scope) -> Value:
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

    def _attribute(self, node: cst.Attribute, scope: _Scope) -> Value:
        attr = node.attr.value
        api = self.rocketmq(node.value, scope)
        if api is not None:
            return Lit(attr)  # an enum constant of the client: MessageModel.BROADCASTING, FilterType.SQL
        qualified = self.qualified(node.value, scope)
        if qualified is not None:
            if qualified in ("os.environ",):
                return Dynamic("environment variable")
            return ConstRef("python", (qualified,), attr)
        owner = self._class_of(node.value, scope)
        if owner is not None:
            return self._class_attribute(owner, attr)
        return Dynamic(f"attribute {attr}")

    def _class_of(self, node: cst.BaseExpression, scope: _Scope) -> _Scope | None:
        """The class scope `self`/`cls`/`ClassName` denotes in `scope`."""
        if not isinstance(node, cst.Name):
            return None
        if scope.kind == "function" and scope.class_scope is not None and node.value == scope.self_name:
            return scope.class_scope
        found = self.find(node.value, scope)
        if found is not None and isinstance(found[1].definition, cst.ClassDef):
            return self.scopes.get(id(found[1].definition))
        return None

    def _class_attribute(self, cls: _Scope, attr: str) -> Value:
        """A class attribute, or `self.attr` assigned exactly once in the class's methods (and not both)."""
        assigned = self.attr_assigns.get((id(cls.node), attr), [])
        binding = cls.bindings.get(attr)
        if binding is not None and not assigned:
            return self.lookup(attr, cls)
        if binding is None and len(assigned) == 1:
            value_node, where = assigned[0]
            return self.value(value_node, where)
        return Dynamic(f"attribute {attr} is not assigned exactly once")

    # -- collecting

    def receiver(self, node: cst.BaseExpression, scope: _Scope) -> tuple | None:
        """A stable key for the variable or attribute that holds an object."""
        if isinstance(node, cst.Name):
            found = self.find(node.value, scope)
            owner = found[0] if found else self.root
            if owner.kind == "class":  # a class attribute: the same object as `self.<name>` in its methods
                return ("attr", id(owner.node), node.value)
            return ("name", id(owner.node), node.value)
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            cls = self._class_of(node.value, scope)
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
        self._note_attribute_assignments(targets, value)
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
        elif isinstance(value, cst.Call):
            function = self._function(value.func, self.scope)
            if isinstance(function, cst.FunctionDef):
                returned = self._returned_receivers(function)
                if returned:
                    self.aliases.append((keys, returned))

    def _returned_receivers(self, function: cst.FunctionDef) -> list[tuple]:
        if id(function) not in self.returned:
            collector = _ReturnsAndRaises()
            function.body.visit(collector)
            scope = self.scopes[id(function)]
            keys = [self.receiver(r.value, scope) for r in collector.returns if r.value is not None]
            self.returned[id(function)] = [k for k in keys if k is not None]
        return self.returned[id(function)]

    def _pass_arguments(self, call: cst.Call) -> None:
        """`configure(consumer)`: inside a helper of this module, the parameter holds the argument's object."""
        function = self._function(call.func, self.scope)
        if not isinstance(function, cst.FunctionDef):
            return
        scope = self.scopes[id(function)]
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
        for _round in range(8):
            changed = False
            for targets, sources in self.aliases:
                for table in (self.clients, self.messages):
                    for source in sources:
                        for held in list(table.get(source, ())):
                            for key in targets:
                                bucket = table.setdefault(key, [])
                                if all(h is not held for h in bucket):
                                    bucket.append(held)
                                    changed = True
            if not changed:
                return

    def _note_attribute_assignments(self, targets, value) -> None:
        for target in targets:
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                scope = self.scope
                if scope.class_scope is not None and target.value.value == scope.self_name:
                    key = (id(scope.class_scope.node), target.attr.value)
                    self.attr_assigns.setdefault(key, []).append((value, scope))

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
        api = self.rocketmq(value.func, self.scope)
        if api is None:
            return
        version, name = api
        self.handled.add(id(value))
        if name == "Message":
            topic = self._arg(value, 0, "topic") if version == "python2" else None
            message = _Message(version, self.value(topic, self.scope) if topic is not None else None,
                               self.order(value))
            for key in keys or [("call", id(value))]:  # `Message("t").set_tags(..)` chained
                self.messages.setdefault(key, []).append(message)
            return
        roles = _V2_CLIENTS if version == "python2" else _V5_CLIENTS
        if name not in roles:
            return
        client = _Client(self._client_fact(value, version, roles[name], keys, name), version, self.order(value))
        if not keys:
            self.anonymous.append(client)
            keys = [("call", id(value))]  # `PushConsumer("g").subscribe(..)`
        for key in keys:
            self.clients.setdefault(key, []).append(client)

    def _arg(self, call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                return arg.value
        if any(a.star for a in call.args[: position + 1]):
            return None
        return positional[position].value if position < len(positional) else None

    def _add_tag_subscription(self, fact: ClientFact, call: cst.Call, scope: _Scope, expression_at: int) -> None:
        """2.x `subscribe(topic, callback, expression)` / `pull(topic, expression)`: a TAG subscription, `*` when
        the expression is left out."""
        topic = self._arg(call, 0, "topic")
        expression = self._arg(call, expression_at, "expression")
        if topic is not None:
            fact.subscriptions.append(Subscription(
                self.value(topic, scope), self.value(expression, scope) if expression is not None else Lit("*"),
                "TAG", self.loc(call)))

    def _setting(self, node: cst.BaseExpression, where: cst.CSTNode, scope: _Scope) -> Setting:
        return Setting(self.value(node, scope), self.loc(where))

    def _model(self, node: cst.BaseExpression, scope: _Scope, where: cst.CSTNode | None = None) -> Setting:
        """A 2.x message model: `MessageModel.X`, or the ctypes enum's number (BROADCASTING = 0, CLUSTERING = 1)."""
        setting = self._setting(node, where or node, scope)
        if isinstance(setting.value, Lit) and setting.value.text in _V2_MODEL_NUMBERS:
            setting.value = Lit(_V2_MODEL_NUMBERS[setting.value.text])
        return setting

    def _client_fact(self, call: cst.Call, version: str, role: str, keys: list[tuple], cls: str) -> ClientFact:
        scope = self.scope
        name = next((k[2] if k[0] == "name" else f"self.{k[2]}" for k in keys), "")
        fact = ClientFact(role=role, api=version, location=self.loc(call), name=name)
        if version == "python2":
            group = self._arg(call, 0, "group_id")
            if group is not None:
                fact.group = self._setting(group, group, scope)
            if role == "push_consumer":
                orderly = self._arg(call, 1, "orderly")
                if orderly is not None:
                    flag = self.value(orderly, scope)
                    mode = {"True": "ORDERLY", "False": "CONCURRENTLY"}.get(flag.text) if isinstance(flag, Lit) \
                        else None
                    fact.consume_mode = Setting(Lit(mode) if mode else Dynamic("orderly flag"), self.loc(orderly))
                model = self._arg(call, 2, "message_model")
                if model is not None:
                    fact.message_model = self._model(model, scope)
            return fact
        if role == "producer":
            return fact
        group = self._arg(call, 1, "consumer_group")
        if group is not None:
            fact.group = self._setting(group, group, scope)
        lite = cls == "LitePushConsumer"  # (config, group, bind_topic, listener): lite topics, no filter
        if role == "push_consumer":
            listener = self._arg(call, 3 if lite else 2, "message_listener")
            if listener is not None:
                found = self._listener_v5(listener, scope)
                if found is not None:
                    fact.listeners.append(found)
        subscription = None if lite else self._arg(call, 3 if role == "push_consumer" else 2, "subscription")
        if subscription is not None:
            fact.subscriptions.extend(self._subscription_dict(subscription, scope))
        return fact

    # -- 5.x subscriptions

    def _resolve_node(self, node: cst.BaseExpression, scope: _Scope) -> tuple[cst.BaseExpression, _Scope]:
        """Follow a name assigned exactly once to the expression it holds (for dicts, calls, lambdas)."""
        seen = 0
        while isinstance(node, cst.Name) and seen < 20:
            found = self.find(node.value, scope)
            if found is None or found[1].other or len(found[1].values) != 1:
                break
            scope, node = found[0], found[1].values[0]
            seen += 1
        return node, scope

    def _subscription_dict(self, node: cst.BaseExpression, scope: _Scope) -> list[Subscription]:
        node, scope = self._resolve_node(node, scope)
        if not isinstance(node, cst.Dict):
            return []
        subs = []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                expression, selector = self._filter_expression(element.value, scope)
                subs.append(Subscription(self.value(element.key, scope), expression, selector, self.loc(element)))
        return subs

    def _filter_expression(self, node: cst.BaseExpression | None, scope: _Scope) -> tuple[Value, str]:
        """(expression, "TAG" | "SQL92") of a 5.x FilterExpression; absent means all tags."""
        if node is None:
            return Lit("*"), "TAG"
        node, scope = self._resolve_node(node, scope)
        if not isinstance(node, cst.Call) or self.rocketmq(node.func, scope) is None \
                or self.rocketmq(node.func, scope)[1] != "FilterExpression":
            return Dynamic("filter expression"), "TAG"
        expression = self._arg(node, 0, "expression")
        kind = self._arg(node, 1, "filter_type")
        value = self.value(expression, scope) if expression is not None else Lit("*")
        if kind is None:
            return value, "TAG"
        kind_value = self.value(kind, scope)
        if isinstance(kind_value, Lit) and kind_value.text.upper() in ("SQL", "SQL92"):
            return value, "SQL92"
        if isinstance(kind_value, Lit) and kind_value.text.upper() == "TAG":
            return value, "TAG"
        return Dynamic("filter type is not known"), "TAG"

    # -- listeners

    def _function(self, node: cst.BaseExpression, scope: _Scope) -> cst.CSTNode | None:
        """The def or lambda a callback expression denotes."""
        node, scope = self._resolve_node(node, scope)
        if isinstance(node, cst.Lambda):
            return node
        if isinstance(node, cst.Name):
            found = self.find(node.value, scope)
            if found is not None and isinstance(found[1].definition, cst.FunctionDef):
                return found[1].definition
        if isinstance(node, cst.Attribute):
            cls = self._class_of(node.value, scope)
            if cls is not None:
                binding = cls.bindings.get(node.attr.value)
                if binding is not None and isinstance(binding.definition, cst.FunctionDef):
                    return binding.definition
        return None

    def _listener_v2(self, callback: cst.BaseExpression, scope: _Scope) -> Listener | None:
        function = self._function(callback, scope)
        if function is None:
            imported = self._imported_callback(callback, scope)
            return Listener(kind="unknown", location=self.loc(callback), class_ref=imported) if imported else None
        listener = Listener(kind="python", location=self.loc(function))
        self._scan_returns(function, "RECONSUME_LATER", listener)
        return listener

    def _imported_callback(self, callback: cst.BaseExpression, scope: _Scope) -> str:
        """`module.function` for a callback imported from another module (`from m import f`, `m.f`), else ""."""
        callback, scope = self._resolve_node(callback, scope)
        if isinstance(callback, cst.Name):
            found = self.find(callback.value, scope)
            if found is None or found[1].is_module or found[1].values or found[1].import_target is None:
                return ""
            target = found[1].import_target
            return target if "." in target and _api_of(target) is None else ""
        if isinstance(callback, cst.Attribute):
            module = self.qualified(callback.value, scope)
            return f"{module}.{callback.attr.value}" if module and _api_of(module) is None else ""
        return ""

    def _listener_v5(self, node: cst.BaseExpression, scope: _Scope) -> Listener | None:
        node, scope = self._resolve_node(node, scope)
        cls = None
        if isinstance(node, cst.Call):
            cls = self._class_of(node.func, scope)
        elif isinstance(node, cst.Name):
            cls = self._class_of(node, scope)  # `self` passed as the listener
        method = self._method(cls, "consume") if cls is not None else None
        if method is None:
            return None
        listener = Listener(kind="python", location=self.loc(method))
        self._scan_returns(method, "FAILURE", listener)
        return listener

    def _method(self, cls: _Scope, name: str, depth: int = 0) -> cst.FunctionDef | None:
        """A method of a class of this module, or inherited from a base class of this module."""
        binding = cls.bindings.get(name)
        if binding is not None:
            return binding.definition if isinstance(binding.definition, cst.FunctionDef) else None
        if depth > 10 or not isinstance(cls.node, cst.ClassDef):
            return None
        for base in cls.node.bases:
            parent = self._class_of(base.value, cls.parent or self.root)
            found = self._method(parent, name, depth + 1) if parent is not None else None
            if found is not None:
                return found
        return None

    def _scan_returns(self, function: cst.CSTNode, status: str, listener: Listener) -> None:
        scope = self.scopes[id(function)]
        if isinstance(function, cst.Lambda):
            for hit in self._statuses(function.body, status, scope):
                listener.reconsume_later.append(self.loc(hit))
            return
        collector = _ReturnsAndRaises()
        function.body.visit(collector)
        for ret in collector.returns:
            if ret.value is None:
                continue
            hits = self._statuses(ret.value, status, scope)
            if hits and isinstance(ret.value, (cst.Attribute, cst.Name)):
                listener.reconsume_later.append(self.loc(ret))  # `return ConsumeStatus.RECONSUME_LATER`
            else:
                listener.reconsume_later.extend(self.loc(h) for h in hits)  # a branch of `a if c else b`
        listener.throws.extend(self.loc(r) for r in collector.raises)

    def _statuses(self, node: cst.BaseExpression, status: str, scope: _Scope, depth: int = 0) -> list[cst.CSTNode]:
        """The `<Enum>.<status>` nodes an expression may evaluate to (branches of `x if c else y`, a local)."""
        if depth > 10:
            return []
        if isinstance(node, cst.Attribute) and node.attr.value == status:
            api = self.rocketmq(node.value, scope)
            if api is not None and api[1] in ("ConsumeStatus", "ConsumeResult"):
                return [node]
            return []
        if isinstance(node, cst.IfExp):
            return self._statuses(node.body, status, scope, depth + 1) + \
                self._statuses(node.orelse, status, scope, depth + 1)
        if isinstance(node, cst.BooleanOperation):
            return self._statuses(node.left, status, scope, depth + 1) + \
                self._statuses(node.right, status, scope, depth + 1)
        if isinstance(node, cst.Name):  # a local status variable: every value assigned to it
            found = self.find(node.value, scope)
            if found is not None and not found[1].other:
                owner, binding = found
                return [hit for value in binding.values for hit in self._statuses(value, status, owner, depth + 1)]
        return []

    # -- linking method calls and message fields to their objects

    @staticmethod
    def _owner(candidates: list, order: tuple[int, int]):
        """Among objects assigned to one variable, the last one created before the use, else the first."""
        before = [c for c in candidates if c.order <= order]
        return before[-1] if before else candidates[0]

    def _link(self, facts: FileFacts) -> None:
        self._resolve_aliases()
        for key, method, call, scope in self.calls:
            if key in self.clients and key in self.parameters:
                for client in self.clients[key]:
                    self._client_call(client, method, call, scope)
            elif key in self.clients:
                self._client_call(self._owner(self.clients[key], self.order(call)), method, call, scope)
            elif key in self.messages and method == "set_tags":
                message = self._owner(self.messages[key], self.order(call))
                tag = self._arg(call, 0, "tags")
                if message.version == "python2" and tag is not None:
                    topic = message.topic if message.topic is not None else Dynamic("message topic")
                    facts.produced.append(ProducedTag(topic, self.value(tag, scope), self.loc(call)))
        for key, target, value, scope in self.tag_assigns:
            if key not in self.messages:
                continue
            message = self._owner(self.messages[key], self.order(target))
            if message.version != "python5":
                continue
            if target.attr.value == "topic":
                message.topics.append((self.order(target), self.value(value, scope)))
        for key, target, value, scope in self.tag_assigns:
            if key not in self.messages or target.attr.value != "tag":
                continue
            message = self._owner(self.messages[key], self.order(target))
            if message.version != "python5":
                continue
            topics = {repr(t) for _o, t in message.topics}
            if len(topics) == 1:
                topic = message.topics[0][1]
            else:
                topic = Dynamic("message topic is not set exactly once")
            facts.produced.append(ProducedTag(topic, self.value(value, scope), self.loc(target)))
        seen: set[int] = set()
        for client in [*self.anonymous, *(c for group in self.clients.values() for c in group)]:
            if id(client) not in seen:
                seen.add(id(client))
                facts.clients.append(client.fact)
        facts.clients.sort(key=lambda c: (c.location.line, c.location.column))
        facts.produced.sort(key=lambda p: (p.location.line, p.location.column))

    def _client_call(self, client: _Client, method: str, call: cst.Call, scope: _Scope) -> None:
        fact = client.fact
        if client.version == "python2":
            if method in _V2_SETTERS:
                arg = self._arg(call, 0, {"set_group": "group_id", "set_instance_name": "name",
                                          "set_message_model": "model"}[method])
                if arg is not None and method == "set_message_model":
                    fact.message_model = self._model(arg, scope, call)
                elif arg is not None:
                    setattr(fact, _V2_SETTERS[method], self._setting(arg, call, scope))
            elif method == "subscribe" and fact.role == "push_consumer":
                self._add_tag_subscription(fact, call, scope, expression_at=2)
                callback = self._arg(call, 1, "callback")
                if callback is not None:
                    listener = self._listener_v2(callback, scope)
                    fact.listeners.append(listener or Listener(kind="unknown", location=self.loc(call)))
            elif method == "pull" and fact.role == "pull_consumer":
                self._add_tag_subscription(fact, call, scope, expression_at=1)
            return
        if method == "subscribe" and fact.role != "producer":
            topic = self._arg(call, 0, "topic")
            if topic is not None:
                expression, selector = self._filter_expression(self._arg(call, 1, "filter_expression"), scope)
                fact.subscriptions.append(Subscription(self.value(topic, scope), expression, selector,
                                                       self.loc(call)))


class _ReturnsAndRaises(cst.CSTVisitor):
    """Return statements of one function body, and raise statements not inside a try (nested defs excluded)."""

    def __init__(self):
        self.returns: list[cst.Return] = []
        self.raises: list[cst.Raise] = []
        self.try_depth = 0

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_Try(self, node: cst.Try) -> bool:
        self.try_depth += 1
        node.body.visit(self)
        self.try_depth -= 1
        for part in (*node.handlers, node.orelse, node.finalbody):
            if part is not None:
                part.visit(self)
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_Raise(self, node: cst.Raise) -> None:
        if self.try_depth == 0:
            self.raises.append(node)


def _call_reason(name: str | None) -> str:
    reasons = {"os.getenv": "environment variable", "os.environ.get": "environment variable",
               "socket.gethostname": "hostname", "platform.node": "hostname", "os.getpid": "process id",
               "uuid.uuid4": "random", "uuid.uuid1": "random"}
    if name in reasons:
        return reasons[name]
    return f"call {name}()" if name else "call"
