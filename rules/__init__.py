"""The rule catalogue: every `Rule` subclass of a module of this package, in code order. Codes are stable: add
rules, never renumber.

Adding a rule is adding one module here (see README, "Adding a rule"): nothing else lists the rules. Modules whose
name starts with `_` hold helpers shared by rules, and `base` the rule API.
"""

from __future__ import annotations

import importlib
import pkgutil

from rmqlint.rules.base import Rule


def discover(package: str) -> list[type[Rule]]:
    """Every `Rule` subclass defined in a module of `package` (a dotted name), in code order."""
    found: dict[str, type[Rule]] = {}
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule \
                    and value.__module__ == module.__name__:
                if value.CODE in found:
                    raise RuntimeError(f"rule code {value.CODE} is used twice ({found[value.CODE].__name__}, "
                                       f"{value.__name__})")
                found[value.CODE] = value
    return [found[code] for code in sorted(found)]


ALL_RULES: list[type[Rule]] = discover(__name__)

_BY_CODE = {rule.CODE: rule for rule in ALL_RULES}


def rule_by_code(code: str) -> type[Rule] | None:
    """The rule class with this code (case-insensitive), or None."""
    return _BY_CODE.get(code.strip().upper())


__all__ = ["ALL_RULES", "discover", "rule_by_code", "Rule"]
