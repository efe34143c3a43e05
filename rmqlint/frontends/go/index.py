"""What one parsed Go file declares and how its names resolve to values.

`GoFile` (a `GoTree`) indexes the package clause, the imports (the name each one binds: RocketMQ's packages by the
names they declare, `rocketmq`, `consumer`, `producer`, `primitive`), and the package-level constants, variables,
functions and types; then answers lazily the `Value` of an expression:

- string, integer and boolean literals; `+` of strings and of integers; conversions (`string(x)`, `Topic(x)`);
- a local variable or parameter: the assignments that reach the read (`go.flow`); a parameter of a function
  is a `Param` its callers bind;
- a package-level constant, or a variable no code of the file assigns: its value; one declared in another file
  of the package (`ConstRef("go", ("dir:<directory>",), name)`) or of an imported package
  (`ConstRef("go", (<import path>,), name)`) is resolved by the linker (`GoFrontend.find_constant`);
- a field of a struct literal held by a variable (`cfg.Group` with `cfg := Config{Group: "orders"}`, or a
  package-level `var Conf = Config{...}`, exported as the constant `Conf.Group`), unless code assigns the field;
- a call of a function of the file that returns one expression (`func group() string { return "orders" }`),
  its parameters bound to the call's arguments; `fmt.Sprintf` of `%s`/`%d`/`%v` verbs; `strings.Join` of a
  slice literal;
- what is unique per host, pid or process (`os.Hostname()`, `os.Getpid()`, `time.Now()`, `uuid.New()`):
  `Dynamic` with its `per`; the environment (`os.Getenv`) and anything else: `Dynamic`.
Evaluation is depth-capped and walks use explicit stacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import tree_sitter

from rmqlint import flow
from rmqlint.client_releases import GO_CLIENT
from rmqlint.frontends.go import flow as go_flow
from rmqlint.frontends.go.tree import FUNCTIONS, LANGUAGE, STRINGS, GoTree, specs, walk
from rmqlint.spans import Slot
from rmqlint.values import MAX_ALTERNATIVES, ConstRef, Dynamic, Lit, Param, Value, concat, one_of

ROCKETMQ_MODULE = GO_CLIENT
# The names RocketMQ's packages declare (`package rocketmq` at the module's root).
PACKAGE_NAMES = {ROCKETMQ_MODULE: "rocketmq"}
MAX_EVAL_DEPTH = 64
TOO_DEEP_EXPRESSION = f"expression nested more than {MAX_EVAL_DEPTH} levels deep"
_UNIVERSE = frozenset({"true", "false", "nil", "iota"})
# The names the standard library's packages are imported as, which a local variable may hide.
STANDARD_PACKAGES = frozenset({
    "bufio", "bytes", "context", "errors", "fmt", "hash", "io", "json", "log", "math", "net", "os", "path",
    "rand", "reflect", "regexp", "sort", "strconv", "strings", "sync", "syscall", "time", "unicode", "url", "utf8",
})
# Calls whose value is unique per host, pid or process (`Dynamic.per`): (package path, function) -> per.
_CALLS_UNIQUE_PER = {
    ("os", "Hostname"): "host", ("os", "Getpid"): "pid", ("time", "Now"): "process",
    ("github.com/google/uuid", "New"): "process", ("github.com/google/uuid", "NewString"): "process",
    ("github.com/google/uuid", "NewRandom"): "process", ("github.com/satori/go.uuid", "NewV4"): "process",
    ("github.com/gofrs/uuid", "NewV4"): "process", ("github.com/rs/xid", "New"): "process",
}
_ASSIGNED = tree_sitter.Query(LANGUAGE, """
    (assignment_statement left: (expression_list (identifier) @name))
    (assignment_statement left: (expression_list (selector_expression field: (field_identifier) @field)))
    (inc_statement (identifier) @name)
    (dec_statement (identifier) @name)
    (inc_statement (selector_expression field: (field_identifier) @field))
    (dec_statement (selector_expression field: (field_identifier) @field))
    (assignment_statement left: (expression_list (index_expression operand: (identifier) @element)))
    (inc_statement (index_expression operand: (identifier) @element))
    (dec_statement (index_expression operand: (identifier) @element))
""")
# Composite literals whose elements an index reads by position.
_SEQUENCES = frozenset({"slice_type", "array_type", "implicit_length_array_type"})
_SPRINTF_VERB = re.compile(r"%(?:[-+# 0]*\d*(?:\.\d+)?)?([a-zA-Z%])")


@dataclass
class Declared:
    """A name a function declares (a parameter, `x := ..`, `var x = ..`, a range variable) and where."""

    name: str
    node: tree_sitter.Node  # the declaring statement, parameter declaration or range clause
    scope: tree_sitter.Node  # the block (or function) the name is visible in
    position: int | None = None  # a parameter's index, as callers pass it
    variadic: bool = False


@dataclass
class TopLevel:
    """The package-level declarations of the file."""

    consts: dict[str, tree_sitter.Node | None] = field(default_factory=dict)  # name -> value expression
    vars: dict[str, tree_sitter.Node | None] = field(default_factory=dict)
    functions: dict[str, tree_sitter.Node] = field(default_factory=dict)
    methods: dict[str, list[tree_sitter.Node]] = field(default_factory=dict)  # method name -> declarations
    types: dict[str, tree_sitter.Node] = field(default_factory=dict)


def import_name(path: str) -> str:
    """The name an import binds without an alias: the package's own name, which Go takes from the package clause;
    the last element of the path otherwise (`gopkg.in/yaml.v3` -> `yaml`, `.../v2` -> the element before)."""
    if path in PACKAGE_NAMES:
        return PACKAGE_NAMES[path]
    parts = path.split("/")
    last = parts[-1]
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    last = re.sub(r"\.v\d+$", "", last)
    return re.sub(r"^go-", "", last).replace("-", "_").replace(".", "_")


class GoFile(GoTree):
    def __init__(self, path: str, source: bytes, tree: tree_sitter.Tree) -> None:
        super().__init__(path, source, tree)
        self.directory = path.rpartition("/")[0]
        self.package = ""
        self.imports: dict[str, str] = {}  # the name an import binds -> its path
        self.top = TopLevel()
        self._locals: dict[int, dict[str, list[Declared]]] = {}
        self._assigned: set[str] | None = None
        self._fields_assigned: set[str] | None = None
        self._elements_assigned: set[str] | None = None
        self._in_progress: set[int] = set()
        self._index()

    # --- declarations -------------------------------------------------------------------------------------

    def _index(self) -> None:
        for child in self.tree.root_node.named_children:
            kind = child.type
            if kind == "package_clause":
                name = next((c for c in child.named_children if c.type == "package_identifier"), None)
                self.package = self.text(name) if name is not None else ""
            elif kind == "import_declaration":
                for spec in specs(child, "import_spec"):
                    path_node = spec.child_by_field_name("path")
                    text = self.string_text(path_node) if path_node is not None else None
                    if not text:
                        continue
                    alias = spec.child_by_field_name("name")
                    name = self.text(alias) if alias is not None else import_name(text)
                    if name not in ("_", "."):
                        self.imports[name] = text
            elif kind in ("const_declaration", "var_declaration"):
                table = self.top.consts if kind == "const_declaration" else self.top.vars
                for spec in specs(child, "const_spec" if kind == "const_declaration" else "var_spec"):
                    names = spec.children_by_field_name("name")
                    value = spec.child_by_field_name("value")
                    values = value.named_children if value is not None else []
                    if value is None:  # a constant repeating the one above (iota), or a variable's zero value
                        values = [None] * len(names)
                    for index, name in enumerate(names):
                        table[self.text(name)] = values[index] if len(values) == len(names) else None
            elif kind == "function_declaration":
                name = child.child_by_field_name("name")
                if name is not None:
                    self.top.functions[self.text(name)] = child
            elif kind == "method_declaration":
                name = child.child_by_field_name("name")
                if name is not None:
                    self.top.methods.setdefault(self.text(name), []).append(child)
            elif kind == "type_declaration":
                for spec in child.named_children:
                    name = spec.child_by_field_name("name")
                    if name is not None:
                        self.top.types[self.text(name)] = spec

    def import_slot(self) -> Slot | None:
        """Where one more import goes: after the last one of a parenthesized block (`\n\t"os"`), after a single
        import (`\nimport "os"`), or after the package clause when there is none. None when no place is certain."""
        last_block = last_single = package = None
        for child in self.tree.root_node.named_children:
            if child.type == "package_clause":
                package = child
            elif child.type == "import_declaration":
                specs = [c for c in child.named_children if c.type == "import_spec_list"]
                if specs:
                    inner = [c for c in specs[0].named_children if c.type == "import_spec"]
                    last_block = inner[-1] if inner else last_block
                else:
                    last_single = child
        if last_block is not None:
            span = self.span_of(last_block)
            return Slot(span, "import", "\n\t") if span is not None else None
        if last_single is not None or package is not None:
            span = self.span_of(last_single or package)
            return Slot(span, "import", "\nimport " if last_single is not None else "\n\nimport ") \
                if span is not None else None
        return None

    def package_names(self) -> dict[str, int]:
        """Each name an import or a package-level declaration binds: 0 when it is the standard package of that path
        (`os` imported as "os"), -1 when it is something else."""
        names = {name: (0 if path == name else -1) for name, path in self.imports.items()}
        for table in (self.top.consts, self.top.vars, self.top.functions, self.top.types):
            names.update({name: -1 for name in table})
        return names

    def local_names(self, node: tree_sitter.Node) -> list[str]:
        """The package names (the file's imports, the standard library's) that a parameter or local of the functions
        enclosing `node` hides there: code written at `node` cannot name those packages."""
        chain = self.functions(node)
        memo = self.memo.setdefault("local_names", {})
        key = tuple(f.id for f in chain)
        if key not in memo:
            packages = STANDARD_PACKAGES | set(self.imports)
            memo[key] = sorted({name for function in chain for name in self.locals_of(function) if name in packages})
        return memo[key]

    def assigned_names(self) -> set[str]:
        """Names some statement of the file assigns (`x = ..`, `x += ..`, `x++`): a package-level variable among
        them is not a constant."""
        if self._assigned is None:
            captures = tree_sitter.QueryCursor(_ASSIGNED).captures(self.tree.root_node)
            self._assigned = {self.text(n) for n in captures.get("name", [])}
            self._fields_assigned = {self.text(n) for n in captures.get("field", [])}
            self._elements_assigned = {self.text(n) for n in captures.get("element", [])}
        return self._assigned

    def assigned_fields(self) -> set[str]:
        """Field names some statement of the file assigns (`cfg.Group = ..`)."""
        self.assigned_names()
        return self._fields_assigned or set()

    def assigned_elements(self) -> set[str]:
        """Names of slices, arrays and maps an element of which some statement of the file assigns (`tags[0] = ..`)."""
        self.assigned_names()
        return self._elements_assigned or set()

    def constants(self) -> dict[str, Value]:
        """What other files of the package may refer to: each constant, each variable the file never assigns,
        and the keyed fields of a struct literal such a variable holds (`Conf.Group`)."""
        result: dict[str, Value] = {}
        assigned = self.assigned_names()
        for name, value in self.top.consts.items():
            result[name] = self.value(value) if value is not None else Dynamic(f"constant {name} has no value of its own")
        for name, value in self.top.vars.items():
            if name in assigned or value is None:
                continue
            literal = _composite(value)
            if literal is not None and _struct_type(literal):
                for key, element in self.keyed_elements(literal).items():
                    if key not in self.assigned_fields():
                        result[f"{name}.{key}"] = self.value(element)
            else:
                result[name] = self.value(value)
        return result

    def keyed_elements(self, literal: tree_sitter.Node) -> dict[str, tree_sitter.Node]:
        """Field name -> value expression of a keyed composite literal (`Config{Group: "g"}`)."""
        body = literal.child_by_field_name("body")
        found: dict[str, tree_sitter.Node] = {}
        for element in body.named_children if body is not None else ():
            if element.type != "keyed_element":
                continue
            key, value = element.child_by_field_name("key"), element.child_by_field_name("value")
            if key is None or value is None:
                parts = [c for c in element.named_children if c.type != "comment"]
                key, value = (parts[0], parts[1]) if len(parts) == 2 else (None, None)
            if key is None or value is None:
                continue
            key = _unwrap_element(key)
            value = _unwrap_element(value)
            if key.type in ("identifier", "field_identifier"):
                found[self.text(key)] = value
        return found

    def elements(self, literal: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The values of an unkeyed composite literal (`[]string{"a", "b"}`), in order."""
        body = literal.child_by_field_name("body")
        return [_unwrap_element(e) for e in (body.named_children if body is not None else ())
                if e.type not in ("comment", "keyed_element")]

    # --- locals -------------------------------------------------------------------------------------------

    def locals_of(self, function: tree_sitter.Node) -> dict[str, list[Declared]]:
        found = self._locals.get(function.id)
        if found is not None:
            return found
        found = {}
        params = function.child_by_field_name("parameters")
        body = function.child_by_field_name("body")
        position = 0
        for param in params.named_children if params is not None else ():
            if param.type not in ("parameter_declaration", "variadic_parameter_declaration"):
                continue
            names = param.children_by_field_name("name")
            for name in names or [None]:
                if name is not None:
                    found.setdefault(self.text(name), []).append(
                        Declared(self.text(name), param, function, position,
                                 param.type == "variadic_parameter_declaration"))
                position += 1
        receiver = function.child_by_field_name("receiver")
        for param in receiver.named_children if receiver is not None else ():
            for name in param.children_by_field_name("name"):
                found.setdefault(self.text(name), []).append(Declared(self.text(name), param, function))
        # A function literal's names are its own: not entered.
        for child in walk(body, skip=FUNCTIONS) if body is not None else ():
            if child.type in ("short_var_declaration", "range_clause", "var_spec"):
                scope = _block_of(child)
                for target in go_flow.targets(child):
                    found.setdefault(self.text(target), []).append(Declared(self.text(target), child, scope))
        self._locals[function.id] = found
        return found

    def lookup(self, name: str, at: tree_sitter.Node) -> tuple[tree_sitter.Node, Declared] | None:
        """The function and declaration a local name refers to at `at` (the innermost function declaring it in a
        block around `at`, the nearest declaration before `at`)."""
        for function in self.functions(at):
            candidates = [d for d in self.locals_of(function).get(name, ())
                          if d.scope.start_byte <= at.start_byte < d.scope.end_byte
                          and (d.node.type == "parameter_declaration" or d.node.start_byte <= at.start_byte)]
            if candidates:
                return function, max(candidates, key=lambda d: d.node.start_byte)
        return None

    # --- values -------------------------------------------------------------------------------------------

    def value(self, node: tree_sitter.Node | None, bindings: dict | None = None, depth: int = 0) -> Value:
        if node is None:
            return Dynamic("no expression")
        return self._eval(node, bindings or {}, depth)[0]

    def _eval(self, node: tree_sitter.Node, bindings: dict, depth: int) -> tuple[Value, str]:
        """(value, kind): kind is "str", "num", "bool" or "unknown", for what `+` means."""
        if depth > MAX_EVAL_DEPTH:
            return Dynamic(TOO_DEEP_EXPRESSION), "unknown"
        kind = node.type
        if kind in STRINGS:
            text = self.string_text(node)
            if text is None:
                return Dynamic("a malformed string literal"), "str"
            origin = self.span_of(node, inner=1) if self.exact_string(node) else None
            return Lit(text, origin), "str"
        if kind == "int_literal":
            try:
                number = int(self.text(node).replace("_", ""), 0)
            except ValueError:
                return Dynamic("an integer literal"), "num"
            return Lit(str(number), self.span_of(node) if str(number) == self.text(node) else None), "num"
        if kind in ("true", "false"):
            return Lit(kind), "bool"
        if kind == "parenthesized_expression" and node.named_children:
            return self._eval(node.named_children[0], bindings, depth + 1)
        if kind == "unary_expression":
            operand = node.child_by_field_name("operand")
            operator = node.child_by_field_name("operator")
            if operand is not None and operator is not None and operator.type == "-":
                inner, inner_kind = self._eval(operand, bindings, depth + 1)
                if isinstance(inner, Lit) and inner_kind == "num":
                    return Lit(str(-int(inner.text))), "num"
            if operand is not None and operator is not None and operator.type == "&":
                return self._eval(operand, bindings, depth + 1)
            return Dynamic("a unary expression"), "unknown"
        if kind == "binary_expression":
            return self._eval_binary(node, bindings, depth)
        if kind == "identifier":
            return self._eval_name(node, bindings, depth)
        if kind == "selector_expression":
            return self._eval_selector(node, bindings, depth)
        if kind in ("call_expression", "type_conversion_expression"):
            return self._eval_call(node, bindings, depth)
        if kind == "index_expression":
            return self._eval_index(node, bindings, depth)
        return Dynamic(f"a {kind.replace('_', ' ')}"), "unknown"

    def _eval_index(self, node: tree_sitter.Node, bindings: dict, depth: int) -> tuple[Value, str]:
        """`tags[i%3]`: an element of the slice or array literal the variable holds (of a constant index, that one;
        else one of them), when no statement of the file assigns an element of it."""
        operand, index = node.child_by_field_name("operand"), node.child_by_field_name("index")
        holder = self.local_value_node(operand) if operand is not None and operand.type == "identifier" else None
        literal = _composite(holder) if holder is not None else None
        kind = literal.child_by_field_name("type") if literal is not None else None
        body = literal.child_by_field_name("body") if literal is not None else None
        if kind is None or kind.type not in _SEQUENCES or self.text(operand) in self.assigned_elements() or \
                index is None or any(e.type == "keyed_element" for e in body.named_children):
            return Dynamic("a index expression"), "unknown"
        elements = self.elements(literal)
        position, _kind = self._eval(index, bindings, depth + 1)
        if isinstance(position, Lit) and position.text.isdigit() and int(position.text) < len(elements):
            elements = [elements[int(position.text)]]
        if not elements or len(elements) > MAX_ALTERNATIVES:
            return Dynamic("a index expression"), "unknown"
        results = [self._once(e, bindings, depth, f"{self.text(operand)} holds itself") for e in elements]
        kinds = {k for _v, k in results}
        return one_of(v for v, _k in results), (kinds.pop() if len(kinds) == 1 else "unknown")

    def _eval_binary(self, node: tree_sitter.Node, bindings: dict, depth: int) -> tuple[Value, str]:
        operator = node.child_by_field_name("operator")
        if operator is None or operator.type != "+":
            return Dynamic(f"'{operator.type if operator is not None else '?'}' expression"), "unknown"
        operands: list[tree_sitter.Node] = []
        current = node
        while current.type == "binary_expression" and (op := current.child_by_field_name("operator")) is not None \
                and op.type == "+":
            right = current.child_by_field_name("right")
            if right is not None:
                operands.append(right)
            current = current.child_by_field_name("left")
            if current is None:
                return Dynamic("incomplete expression"), "unknown"
        operands.append(current)
        operands.reverse()
        results = [self._eval(operand, bindings, depth + 1) for operand in operands]
        kinds = {k for _v, k in results}
        if kinds == {"num"}:
            if all(isinstance(v, Lit) for v, _k in results):
                return Lit(str(sum(int(v.text) for v, _k in results))), "num"
            return Dynamic("arithmetic on unresolved numbers"), "num"
        if "num" in kinds or "bool" in kinds:
            return Dynamic("'+' of values of unknown type"), "unknown"
        # Strings, or names of other files' constants: Go adds only values of one type, so `+` of what is not a
        # number joins strings.
        return concat([v for v, _k in results]), "str"

    def _eval_name(self, node: tree_sitter.Node, bindings: dict, depth: int) -> tuple[Value, str]:
        name = self.text(node)
        found = self.lookup(name, node)
        if found is not None:
            function, declared = found
            if declared.position is not None:
                key = (function.id, declared.position)
                if key in bindings:
                    return bindings[key], "unknown"
                if declared.variadic:
                    return Dynamic(f"{name} is a variadic parameter"), "unknown"
                if function.type != "func_literal" and name not in go_flow.assignments_in(self, function):
                    return Param(declared.position, name, self.function_key(function)), "unknown"
                return Dynamic(f"{name} is a parameter"), "unknown"
            if declared.node.type in ("range_clause", "parameter_declaration"):  # a loop's variable, a receiver
                return Dynamic(f"{name} is set at run time"), "unknown"
            return self._eval_local(name, function, node, bindings, depth)
        if name in self.top.consts:
            value = self.top.consts[name]
            if value is None:
                return Dynamic(f"constant {name} has no value of its own (iota)"), "unknown"
            return self._once(value, bindings, depth, f"constant {name} refers to itself")
        if name in self.top.vars:
            value = self.top.vars[name]
            if name in self.assigned_names():
                return Dynamic(f"variable {name} is assigned at run time"), "unknown"
            if value is None:
                return Dynamic(f"variable {name} has no initial value"), "unknown"
            return self._once(value, bindings, depth, f"variable {name} refers to itself")
        if name in _UNIVERSE or name in self.top.functions or name in self.imports:
            return Dynamic(f"{name} is not a value rmqlint follows"), "unknown"
        return ConstRef("go", (f"dir:{self.directory}",), name), "unknown"

    def _once(self, value: tree_sitter.Node, bindings: dict, depth: int, cycle: str) -> tuple[Value, str]:
        if value.id in self._in_progress:
            return Dynamic(cycle), "unknown"
        self._in_progress.add(value.id)
        try:
            return self._eval(value, bindings, depth + 1)
        finally:
            self._in_progress.discard(value.id)

    def _eval_local(self, name: str, function: tree_sitter.Node, at: tree_sitter.Node, bindings: dict,
                    depth: int) -> tuple[Value, str]:
        try:
            reaching = go_flow.reaching_values(self, function, name, at)
        except flow.Unsupported as why:
            return Dynamic(f"local {name} is reassigned ({why})"), "unknown"
        if not reaching:
            return Dynamic(f"local {name} has no value here"), "unknown"
        results = []
        for value_node in reaching:
            if value_node is go_flow.NOT_PLAIN:
                results.append((Dynamic(f"local {name} is updated in place or set by a call"), "unknown"))
            else:
                results.append(self._once(value_node, bindings, depth, f"local {name} refers to itself"))
        kinds = {k for _v, k in results}
        return one_of(v for v, _k in results), (kinds.pop() if len(kinds) == 1 else "unknown")

    def local_value_node(self, name_node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The one expression a local variable holds at this read (a composite literal, a call), when exactly one
        assignment reaches it; None otherwise."""
        found = self.lookup(self.text(name_node), name_node)
        if found is None:
            value = self.top.vars.get(self.text(name_node))
            return value if value is not None and self.text(name_node) not in self.assigned_names() else None
        function, declared = found
        if declared.node.type in ("range_clause", "parameter_declaration", "variadic_parameter_declaration"):
            return None
        try:
            reaching = go_flow.reaching_values(self, function, self.text(name_node), name_node)
        except flow.Unsupported:
            return None
        if len(reaching) != 1 or reaching[0] is go_flow.NOT_PLAIN:
            return None
        return reaching[0]

    def _eval_selector(self, node: tree_sitter.Node, bindings: dict, depth: int) -> tuple[Value, str]:
        operand = node.child_by_field_name("operand")
        field_node = node.child_by_field_name("field")
        if operand is None or field_node is None:
            return Dynamic("incomplete selector"), "unknown"
        member = self.text(field_node)
        if operand.type == "identifier":
            qualifier = self.text(operand)
            if self.lookup(qualifier, node) is None and qualifier in self.imports and qualifier not in self.top.vars:
                return ConstRef("go", (self.imports[qualifier],), member), "unknown"
            holder = self.local_value_node(operand) if self.lookup(qualifier, node) is not None else (
                self.top.vars.get(qualifier) if qualifier not in self.assigned_names() else None)
            literal = _composite(holder) if holder is not None else None
            if literal is not None and _struct_type(literal):
                if member in self.assigned_fields():
                    return Dynamic(f"field {qualifier}.{member} is assigned at run time"), "unknown"
                element = self.keyed_elements(literal).get(member)
                if element is None:
                    return Dynamic(f"field {member} is not set where {qualifier} is made"), "unknown"
                return self._once(element, bindings, depth, f"{qualifier}.{member} refers to itself")
            if self.lookup(qualifier, node) is None and qualifier not in self.top.vars and qualifier not in \
                    self.top.consts:
                return ConstRef("go", (f"dir:{self.directory}",), f"{qualifier}.{member}"), "unknown"
            return Dynamic(f"field {member} of {qualifier}"), "unknown"
        if operand.type == "selector_expression":  # pkg.Conf.Group
            inner, inner_member = operand.child_by_field_name("operand"), operand.child_by_field_name("field")
            if inner is not None and inner_member is not None and inner.type == "identifier" and \
                    self.lookup(self.text(inner), node) is None and self.text(inner) in self.imports:
                return ConstRef("go", (self.imports[self.text(inner)],),
                                f"{self.text(inner_member)}.{member}"), "unknown"
        return Dynamic(f"field {member} of an expression"), "unknown"

    def called(self, call: tree_sitter.Node) -> tuple[str, str]:
        """(package path or "", function name) a call names: `os.Getenv` -> ("os", "Getenv"), `group()` ->
        ("", "group"); ("", "") for a method value or anything else."""
        function = call.child_by_field_name("function") if call.type == "call_expression" else \
            call.child_by_field_name("type")
        if function is None:
            return "", ""
        if function.type == "identifier":
            return "", self.text(function)
        if function.type == "selector_expression":
            operand, member = function.child_by_field_name("operand"), function.child_by_field_name("field")
            if operand is not None and member is not None and operand.type == "identifier" and \
                    self.lookup(self.text(operand), call) is None and self.text(operand) in self.imports:
                return self.imports[self.text(operand)], self.text(member)
            if operand is not None and member is not None and operand.type == "call_expression":
                return self.called(operand)[0] + "()", self.text(member)  # uuid.New().String()
        if function.type == "qualified_type":
            package, name = function.child_by_field_name("package"), function.child_by_field_name("name")
            if package is not None and name is not None and self.text(package) in self.imports:
                return self.imports[self.text(package)], self.text(name)
        return "", ""

    def arguments(self, call: tree_sitter.Node) -> list[tree_sitter.Node]:
        args = call.child_by_field_name("arguments") if call.type == "call_expression" else None
        if call.type == "type_conversion_expression":
            operand = call.child_by_field_name("operand")
            return [operand] if operand is not None else []
        return [a for a in args.named_children if a.type != "comment"] if args is not None else []

    def _eval_call(self, node: tree_sitter.Node, bindings: dict, depth: int) -> tuple[Value, str]:
        package, name = self.called(node)
        args = self.arguments(node)
        per = _CALLS_UNIQUE_PER.get((package.removesuffix("()"), name)) or _CALLS_UNIQUE_PER.get(
            (package.removesuffix("()"), "")) or (
            _CALLS_UNIQUE_PER.get((package[:-2], _first_call(self, node))) if package.endswith("()") else None)
        if per is not None:
            return Dynamic(f"{package.removesuffix('()')}.{name}() is known only at run time", per), "unknown"
        if package in ("strconv", "fmt") and name in ("Itoa", "FormatInt", "Sprint", "Sprintln") and args:
            inner, _kind = self._eval(args[0], bindings, depth + 1)
            return (inner if isinstance(inner, Lit) or (isinstance(inner, Dynamic) and inner.per) else
                    Dynamic(f"{package}.{name} of a value not known")), "str"
        if package == "fmt" and name == "Sprintf" and args:
            return self._sprintf(args, bindings, depth), "str"
        if package == "strings" and name == "Join" and len(args) == 2:
            literal = _composite(args[0])
            separator, _kind = self._eval(args[1], bindings, depth + 1)
            if literal is not None:
                parts: list[Value] = []
                for index, element in enumerate(self.elements(literal)):
                    parts += ([separator] if index else []) + [self._eval(element, bindings, depth + 1)[0]]
                return concat(parts), "str"
        if package == "os" and name in ("Getenv", "LookupEnv", "ExpandEnv"):
            return Dynamic("read from the environment"), "str"
        if not package and len(args) == 1 and (name in ("string",) or name in self.top.types):
            return self._eval(args[0], bindings, depth + 1)  # a conversion: the same value
        if not package and name in self.top.functions:
            return self._eval_helper(self.top.functions[name], node, args, bindings, depth)
        return Dynamic(f"the result of {name or 'a call'}()"), "unknown"

    def _sprintf(self, args: list[tree_sitter.Node], bindings: dict, depth: int) -> Value:
        format_value, _kind = self._eval(args[0], bindings, depth + 1)
        if not isinstance(format_value, Lit):
            return Dynamic("a format not known")
        parts: list[Value] = []
        rest = list(args[1:])
        at = 0
        text = format_value.text
        for match in _SPRINTF_VERB.finditer(text):
            parts.append(Lit(text[at:match.start()]))
            at = match.end()
            verb = match.group(1)
            if verb == "%":
                parts.append(Lit("%"))
                continue
            if verb not in "sdv" or not rest or match.group(0) != "%" + verb:
                return Dynamic("a format rmqlint does not read")
            value, kind = self._eval(rest.pop(0), bindings, depth + 1)
            parts.append(value)
        if rest:
            return Dynamic("more arguments than verbs")
        parts.append(Lit(text[at:]))
        return concat(parts)

    def _eval_helper(self, function: tree_sitter.Node, call: tree_sitter.Node, args: list[tree_sitter.Node],
                     bindings: dict, depth: int) -> tuple[Value, str]:
        """A call of a function of this file whose body is one `return expr`: expr with its parameters bound."""
        returned = single_return(self, function)
        if returned is None:
            return Dynamic(f"the result of {self.text(function.child_by_field_name('name'))}()"), "unknown"
        if function.id in self._in_progress:
            return Dynamic("a function that calls itself"), "unknown"
        inner = dict(bindings)
        for position in range(len(args)):
            inner[(function.id, position)] = self._eval(args[position], bindings, depth + 1)[0]
        self._in_progress.add(function.id)
        try:
            return self._eval(returned, inner, depth + 1)
        finally:
            self._in_progress.discard(function.id)

    def function_key(self, function: tree_sitter.Node) -> str:
        """A function as a `Param` names it: `<directory>.<name>` (a method: `<directory>.<Type>.<name>`)."""
        name = function.child_by_field_name("name")
        return f"{self.directory}.{self.text(name) if name is not None else ''}"


def single_return(go: GoFile, function: tree_sitter.Node) -> tree_sitter.Node | None:
    """The one expression a function returns when its body is a single `return` of one expression."""
    body = function.child_by_field_name("body")
    statements = [c for c in _statements(body) if c.type != "comment"] if body is not None else []
    if len(statements) != 1 or statements[0].type != "return_statement" or not statements[0].named_children:
        return None
    returned = statements[0].named_children[0]
    values = returned.named_children if returned.type == "expression_list" else [returned]
    return values[0] if len(values) == 1 else None


def _statements(block: tree_sitter.Node) -> list[tree_sitter.Node]:
    children = block.named_children
    if len(children) == 1 and children[0].type == "statement_list":
        return children[0].named_children
    return children


def _first_call(go: GoFile, node: tree_sitter.Node) -> str:
    function = node.child_by_field_name("function")
    operand = function.child_by_field_name("operand") if function is not None else None
    return go.called(operand)[1] if operand is not None and operand.type == "call_expression" else ""


def _composite(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The composite literal an expression is (`Config{..}`, `&Config{..}`), or None."""
    while node is not None and node.type in ("unary_expression", "parenthesized_expression"):
        node = node.child_by_field_name("operand") if node.type == "unary_expression" else (
            node.named_children[0] if node.named_children else None)
    return node if node is not None and node.type == "composite_literal" else None


def _struct_type(literal: tree_sitter.Node) -> bool:
    """A literal of a named (struct) type, whose keys are field names: not a slice, array or map literal."""
    kind = literal.child_by_field_name("type")
    return kind is not None and kind.type in ("type_identifier", "qualified_type", "struct_type", "generic_type")


def _unwrap_element(node: tree_sitter.Node) -> tree_sitter.Node:
    """A literal element's expression (`literal_element` wraps it in tree-sitter-go)."""
    while node.type == "literal_element" and node.named_children:
        node = node.named_children[0]
    return node


def _block_of(node: tree_sitter.Node) -> tree_sitter.Node:
    """The block a declaration's names are visible in: the enclosing block, or the `if`/`for`/`switch` whose
    initializer declares them."""
    parent = node.parent
    while parent is not None and parent.type not in ("block", "if_statement", "for_statement",
                                                     "expression_switch_statement", "type_switch_statement",
                                                     "func_literal", "function_declaration", "method_declaration",
                                                     "source_file", "communication_case", "expression_case"):
        parent = parent.parent
    return parent if parent is not None else node
