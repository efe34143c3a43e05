"""The child nodes of a libcst node worth walking, in source order: the walk shared by the Python frontend's index
(`python.index`) and its translation of statements into flow nodes (`python.flow`)."""

from __future__ import annotations

import dataclasses

import libcst as cst

# Syntax that holds no names, values, calls or statements: not walked.
_LEAVES = (cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline, cst.Comma,
           cst.Semicolon, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
           cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Dot, cst.Colon, cst.AssignEqual, cst.BaseBinaryOp,
           cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)
_FIELDS: dict[type, tuple[str, ...]] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes worth walking, in source order (dataclass fields follow the source)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name for f in dataclasses.fields(node)
            if not f.name.startswith(("whitespace", "lpar", "rpar", "leading_lines", "lines_after")))
    children = []
    walked = _WALKED
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                item_kind = type(item)
                if walked.get(item_kind) or (item_kind not in walked and _walked(item_kind)):
                    children.append(item)
        elif walked.get(kind) or (kind not in walked and _walked(kind)):
            children.append(value)
    return children


_WALKED: dict[type, bool] = {}  # per type: a node worth walking (isinstance on libcst's abstract classes is slow)


def _walked(kind: type) -> bool:
    _WALKED[kind] = issubclass(kind, cst.CSTNode) and not issubclass(kind, _LEAVES)
    return _WALKED[kind]
