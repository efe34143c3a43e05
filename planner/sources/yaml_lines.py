"""YAML documents as plain Python values that remember the line of every mapping key.

PyYAML's composer gives nodes with positions; this turns them into dicts, lists and scalars (with the safe
loader's types) where each dict is a `LineMap` whose `lines[key]` is the 1-based line of that key. Aliases are
expanded, but a document that would expand to more than `MAX_NODES` values (an alias bomb) is refused, and so is
one that holds more before it is composed: PyYAML's nodes take about 300 bytes per byte of a dense flow sequence
(`x: [1,1,...]`: 1 MB took 216 MB, 8 MB 1.3 GB before the count refused it), so the values are counted on the
event stream first, which holds one event at a time.
"""

from __future__ import annotations

from typing import Any, Iterator

import yaml

MAX_NODES = 200_000


class LineMap(dict):
    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line  # where the mapping starts
        self.lines: dict[Any, int] = {}


class YamlTooLarge(ValueError):
    pass


class _Converter:
    def __init__(self) -> None:
        self.count = 0
        self.constructor = yaml.SafeLoader("")  # for scalar types (int, bool, null, ...) as safe_load gives them

    def convert(self, node: yaml.Node, depth: int = 0) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise YamlTooLarge(f"expands to more than {MAX_NODES:,} values (aliases?)")
        if depth > 500:
            raise YamlTooLarge("nested more than 500 deep")
        if isinstance(node, yaml.MappingNode):
            out = LineMap(node.start_mark.line + 1)
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base`: merge keys the mapping lacks
                    merged = self.convert(value_node, depth + 1)
                    for item in merged if isinstance(merged, list) else [merged]:
                        if isinstance(item, LineMap):
                            for k, v in item.items():
                                if k not in out:
                                    out[k] = v
                                    out.lines[k] = item.lines.get(k, item.line)
                    continue
                key = self.convert(key_node, depth + 1)
                if isinstance(key, (dict, list)):
                    key = str(key)
                out[key] = self.convert(value_node, depth + 1)
                out.lines[key] = key_node.start_mark.line + 1
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, depth + 1) for item in node.value]
        return self.constructor.construct_object(node, deep=True)


# libyaml composes an order of magnitude faster (same nodes, same marks); the pure-Python loader otherwise
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_all(text: str) -> Iterator[tuple[int, Any]]:
    """(line of the document's start, its value) for each document. Raises yaml.YAMLError or YamlTooLarge."""
    try:
        text.encode("utf-8")
        loader = _LOADER
    except UnicodeEncodeError:  # a lone surrogate: libyaml cannot take it, the Python loader reports it
        loader = yaml.SafeLoader
    _count_values(text, loader)
    for node in yaml.compose_all(text, Loader=loader):
        if node is None:
            continue
        yield node.start_mark.line + 1, _Converter().convert(node)


def _count_values(text: str, loader) -> None:
    """Raise YamlTooLarge when a document holds more than MAX_NODES values (scalars, sequences, mappings)."""
    count = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.DocumentStartEvent):
            count = 0
        elif isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            count += 1
            if count > MAX_NODES:
                raise YamlTooLarge(f"holds more than {MAX_NODES:,} values")
