"""The targeted position pass gives the spans libcst's PositionProvider gives, for any node asked for."""

from __future__ import annotations

import random
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from rmqlint.frontends.python_positions import spans_of

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.glob("tests/lint/fixtures/**/*.py"), *ROOT.glob("examples/**/*.py"),
                  ROOT / "rmqlint/frontends/python_index.py"])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_spans_equal_position_provider(path):
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = list(positions)
    for wanted in (nodes, random.Random(7).sample(nodes, min(50, len(nodes)))):
        spans = spans_of(module, wanted)
        for node in wanted:
            r, s = positions[node], spans[id(node)]
            assert (r.start.line, r.start.column, r.end.line, r.end.column) == (
                s.line, s.column, s.end_line, s.end_column), type(node).__name__
