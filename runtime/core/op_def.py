"""What a row of the op table is: ``OpDef``, and ``OPS``, every row by its type name.

The rows themselves are written beside the functions that make them
(``runtime/ops/``, variables in ``runtime/state/``, and the two ops every graph
makes by itself, ``Const`` and ``Placeholder``, in ``runtime/core/graph.py``);
``runtime.ops.registry.bind`` runs a row now or adds it to a graph.

>>> import runtime as rt
>>> OPS["Add"]
OpDef('Add')
>>> OPS["Add"].stateful, OPS["PrintV2"].stateful
(False, True)
>>> sorted(OPS["Sum"].attrs)
['axis', 'keepdims']
"""

from __future__ import annotations

import keyword

from runtime.core.attr_kinds import AttrKind

OPS = {}


class OpDef:
    """One row of the op table.

    kernel(*input_values, **attrs) returns the output value, a tuple of them for
    several outputs, or None for none. ``infer(inputs, attrs)`` returns the
    ``(dtype, shape)`` of each output and raises on inputs the op rejects.
    ``stateful`` ops have effects (printing, assigning, drawing random numbers):
    function graphs always run them, in program order. ``pure`` ops give equal
    outputs for equal inputs, so they may be folded or merged by optimisations;
    reading a variable is not pure. ``attrs`` maps each attribute the op takes
    to its kind (``runtime.core.attr_kinds``): an op of this row has exactly
    these attributes, and the kernel is given them as keyword arguments.
    """

    __slots__ = ("type", "kernel", "infer", "stateful", "pure", "default_name", "attrs")

    def __init__(
        self, type, kernel, infer, stateful=False, pure=None, default_name=None, attrs=None
    ):
        self.type = type
        self.kernel = kernel
        self.infer = infer
        self.stateful = stateful
        self.pure = (not stateful) if pure is None else pure
        self.default_name = default_name or type
        self.attrs = dict(attrs or {})
        for name, kind in self.attrs.items():
            # Attribute names become keyword arguments in compiled code: identifiers only.
            if not (name.isidentifier() and name.isascii() and not keyword.iskeyword(name)):
                raise ValueError(f"op type {type!r}: {name!r} cannot name an attribute")
            if not isinstance(kind, AttrKind):
                raise TypeError(f"op type {type!r}: attribute {name!r} needs an AttrKind")
        if type in OPS:
            raise ValueError(f"op type {type!r} is defined twice")
        OPS[type] = self

    def __repr__(self):
        return f"OpDef({self.type!r})"
