"""The planner's packages are layers: a module imports from its own layer or the ones below, never above, and no
two modules import each other (directly or round a longer loop). Function-local imports count too: they are
still a dependency, only a later one. rmqlint's frontends are one package per language, and no language imports
another."""

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
# Bottom to top; packages on one level do not import each other.
LAYERS = [("model",), ("allocation",), ("sources", "report"), ("generated",), ("engines",), ("<commands>",)]
LEVEL = {unit: i for i, names in enumerate(LAYERS) for unit in names}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LEVEL else "<commands>"


FOLDER = {"rmqplan": "planner", "rmqlint": "rmqlint", "rmqlint.rules": "rules"}  # import name -> folder


def _modules(package: str) -> dict[str, Path]:
    out = {}
    folder = ROOT / FOLDER[package]
    for path in folder.rglob("*.py"):
        name = ".".join((package, *path.relative_to(folder).with_suffix("").parts))
        out[name.removesuffix(".__init__")] = path
    return out


def _imports(path: Path, package: str, known: dict) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found |= {n for n in names if n in known and n.startswith(package)}
    return found


def _graph(package: str) -> nx.DiGraph:
    known = _modules(package)
    g = nx.DiGraph()
    for name, path in known.items():
        g.add_node(name)
        for target in _imports(path, package, known):
            # a module importing its own package's __init__ (a registry) is not an edge between modules
            if target != name and not name.startswith(target + ".") and target.startswith(package):
                g.add_edge(name, target)
    return g


def test_planner_imports_flow_down_the_layers():
    upward = []
    for a, b in _graph("rmqplan").edges:
        ua, ub = _unit(a), _unit(b)
        if LEVEL[ub] > LEVEL[ua] or (LEVEL[ub] == LEVEL[ua] and ua != ub):
            upward.append(f"{a} ({ua}) imports {b} ({ub})")
    assert not upward, "\n".join(upward)


def test_no_module_imports_itself_round_a_loop():
    for package in ("rmqplan", "rmqlint", "rmqlint.rules"):
        loops = list(nx.simple_cycles(_graph(package)))
        assert not loops, f"{package}: " + "; ".join(" -> ".join(c + c[:1]) for c in loops)


def test_the_layers_hold_every_planner_package():
    packages = {p.name for p in (ROOT / "planner").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(LEVEL) - {"<commands>"}


# rmqlint's frontends: one sub-package per language, and beside them what the languages share.
FRONTENDS = ROOT / "rmqlint" / "frontends"
LANGUAGES = sorted(p.name for p in FRONTENDS.iterdir() if (p / "__init__.py").exists())


def _language(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["rmqlint", "frontends"] and len(parts) > 2 and parts[2] in LANGUAGES else None


def _dependencies(path: Path, known: dict) -> set[str]:
    """Each imported name as the most specific module it names: `from rmqlint.frontends import base` is base,
    `from rmqlint.frontends import frontend_for` is the registry."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in known:
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                      for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
    return found


def test_a_language_frontend_imports_no_other_language():
    """A language's package imports its own modules and the shared ones beside it; the shared modules import no
    language. Only the registry (rmqlint.frontends) names every language, and no frontend module imports it."""
    known = _modules("rmqlint")
    crossing = []
    for name, path in known.items():
        if not name.startswith("rmqlint.frontends."):
            continue
        own = _language(name)
        for target in _dependencies(path, known):
            if target == "rmqlint.frontends" or _language(target) not in (None, own):
                crossing.append(f"{name} ({own or 'shared'}) imports {target}")
    assert LANGUAGES and not crossing, "\n".join(crossing)
