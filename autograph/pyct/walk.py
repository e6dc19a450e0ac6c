"""Listing the nodes of gast trees, several times as fast as ``gast.walk``, for passes that collect.

>>> import gast
>>> fn = gast.parse("def f(x):\\n    def g(y):\\n        return y\\n    return g(x)").body[0]
>>> sorted(n.id for n in nodes(fn) if isinstance(n, gast.Name))
['g', 'x', 'x', 'y', 'y']
>>> sorted(n.id for n in nodes(fn, into_scopes=False) if isinstance(n, gast.Name))
['g', 'x', 'x']
>>> [s.name for s in statements(fn.body) if isinstance(s, gast.FunctionDef)]
['g']
"""

from __future__ import annotations

import gast

_AST = gast.AST
_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef})

LEAVES = frozenset(
    {gast.Constant}
    | {  # and every context and operator class, ast's and gast's
        cls
        for base in (gast.expr_context, gast.operator, gast.boolop, gast.unaryop, gast.cmpop)
        for cls in base.__subclasses__()
    }
)
"""Node classes that hold no other node: constants, contexts and operators."""

INNER = (
    frozenset(cls for cls in vars(gast).values() if isinstance(cls, type) and issubclass(cls, _AST))
    - LEAVES
)
"""Every other gast node class: those that may hold nodes."""

# Fields that never hold a node, or hold only leaves (contexts, operators).
_NOT_BRANCHES = frozenset(
    {"id", "attr", "arg", "asname", "module", "level", "kind", "type_comment", "simple"}
    | {"is_async", "conversion", "ctx", "op", "ops"}
)

BRANCHES = {}
"""Node class -> what ``branches`` gave for it: ``BRANCHES.get(cls) or branches(cls)`` in hot loops."""


def branches(cls):
    """The fields of ``cls``'s instances that may hold nodes other than leaves.

    >>> branches(gast.Name), branches(gast.BinOp), branches(gast.Constant)
    (('annotation',), ('left', 'right'), ())
    """
    fields = BRANCHES.get(cls)
    if fields is None:
        fields = () if cls in LEAVES else tuple(f for f in cls._fields if f not in _NOT_BRANCHES)
        BRANCHES[cls] = fields
    return fields


def nodes(tree, into_scopes=True):
    """``tree`` and every node it holds, in no particular order, leaves (``LEAVES``) excepted.

    With ``into_scopes=False``, the functions, lambdas and classes that
    ``tree`` holds are listed, but what they hold is not.
    """
    found = [tree]
    append = found.append
    fields_of = BRANCHES.get
    for node in found:  # grows while it is read
        cls = type(node)
        if not into_scopes and node is not tree and cls in _SCOPES:
            continue
        for field in fields_of(cls) or branches(cls):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST) and type(item) not in LEAVES:
                        append(item)
            elif isinstance(value, _AST) and type(value) not in LEAVES:
                append(value)
    return found


def children(node):
    """The nodes ``node`` holds directly (as ``gast.iter_child_nodes``, as a list)."""
    found = []
    for field in node._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            found += [item for item in value if isinstance(item, _AST)]
        elif isinstance(value, _AST):
            found.append(value)
    return found


def statements(block):
    """The statements of ``block`` and of every block they hold (nested functions too).

    Cheaper than listing every node, for what only statements can be
    (``def``, ``class``, ``global``, ``nonlocal``).
    """
    found = list(block)
    extend = found.extend
    for stmt in found:  # grows while it is read
        for _, inner in child_blocks(stmt):
            extend(inner)
    return found


# --- blocks: the statement lists that compound statements hold --------------------------------

BLOCK_FIELDS = ("body", "orelse", "finalbody")
"""The fields in which a compound statement holds a block of statements itself."""

CLAUSE_FIELDS = ("handlers", "cases")
"""The fields in which a compound statement holds clauses, each with a block (its ``body``):
``except`` handlers and ``match`` cases."""

_SHAPES = {}  # node class -> what block_shape gave for it


def block_shape(cls):
    """Where a ``cls`` node may hold blocks: (its fields among ``BLOCK_FIELDS``, its field
    among ``CLAUSE_FIELDS`` or None). A statement that holds no block has ``((), None)``.

    >>> block_shape(gast.Try), block_shape(gast.Match), block_shape(gast.Assign)
    ((('body', 'orelse', 'finalbody'), 'handlers'), ((), 'cases'), ((), None))
    """
    shape = _SHAPES.get(cls)
    if shape is None:
        fields = cls._fields
        clauses = [f for f in CLAUSE_FIELDS if f in fields]
        shape = _SHAPES[cls] = (
            tuple(f for f in BLOCK_FIELDS if f in fields),
            clauses[0] if clauses else None,
        )
    return shape


def child_blocks(node):
    """The statement lists directly inside a compound statement, as (where, block) pairs.

    ``where`` is the field holding the block, or for a clause's block (an
    ``except`` handler's, a ``match`` case's) the clause itself:
    ``set_block(node, where, new_block)`` puts a block back.

    >>> loop = gast.parse("for x in xs:\\n    pass\\nelse:\\n    y = 1").body[0]
    >>> [where for where, block in child_blocks(loop)]
    ['body', 'orelse']
    >>> match = gast.parse("match x:\\n    case 1:\\n        y = 1").body[0]
    >>> [type(where).__name__ for where, block in child_blocks(match)]
    ['match_case']
    """
    fields, clause_field = block_shape(type(node))
    found = []
    for field in fields:
        block = getattr(node, field, None)
        if type(block) is list and block and isinstance(block[0], gast.stmt):
            found.append((field, block))
    if clause_field is not None:
        found += [(clause, clause.body) for clause in getattr(node, clause_field, None) or ()]
    return found


def set_block(node, where, block):
    """Puts ``block`` where ``child_blocks(node)`` found one: in a field of ``node``, or a clause."""
    if type(where) is str:
        setattr(node, where, block)
    else:
        where.body = block
