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
>>> OPS["Less"].gradient
NotDifferentiable('its output is bool')
"""

from __future__ import annotations

import functools
import keyword

from runtime.core.array_namespace import NUMPY
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

    ``gradient(op, *output_grads)`` returns one gradient (or None) per input of
    ``op``, built with ops, so that it runs eagerly on eager gradients, adds
    ops to a graph, and can itself be differentiated (``runtime.gradients``).
    ``op`` is an Operation, or eagerly the record of one with the same
    ``inputs``, ``outputs`` and ``attrs``; an output nothing depends on gets
    None. A row without a gradient says why with ``NotDifferentiable``.

    ``python_form(op)`` says how compiled code writes ``op`` instead of calling
    its kernel (``x + y``, ``x.reshape(shape)``), or returns None for the
    kernel call (``runtime.core.forms``); None: always the kernel call.

    ``static_value(op)`` gives the value of ``op``'s one output when it is known
    without running a graph (a constant; the shape of a tensor whose shape is
    known), else None; ``runtime.ops.constant_ops.constant_value`` asks it.
    None: the value is never known before running.

    ``implementation(xp, *input_values, **attrs)`` is what the op computes,
    written once against an array namespace ``xp`` (``runtime.core.array_namespace``):
    the numpy kernel is it called with ``NUMPY`` (unless ``kernel`` is given, for a
    ufunc the compiler writes as an operator), and the XLA lowering is it called
    with the namespace over ``jax.numpy``. Its run-time checks (``xp.check``) and
    their messages are therefore the same in every backend.

    ``onnx`` names the ONNX operator that computes an elementwise op on the same
    inputs (``"Erf"``), for rows whose ONNX form is that one node; other rows have
    their rule in ``runtime/export`` or none.
    """

    __slots__ = (
        "type",
        "kernel",
        "infer",
        "stateful",
        "pure",
        "default_name",
        "attrs",
        "gradient",
        "python_form",
        "static_value",
        "implementation",
        "onnx",
    )

    def __init__(
        self,
        type,
        kernel,
        infer,
        stateful=False,
        pure=None,
        default_name=None,
        attrs=None,
        gradient=None,
        *,
        python_form=None,
        static_value=None,
        implementation=None,
        onnx=None,
    ):
        if kernel is None:
            if implementation is None:
                raise ValueError(f"op type {type!r} needs a kernel or an implementation")
            kernel = functools.partial(implementation, NUMPY)
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
        self.gradient = gradient
        self.python_form = python_form
        self.static_value = static_value
        self.implementation = implementation
        self.onnx = onnx
        if type in OPS:
            raise ValueError(f"op type {type!r} is defined twice")
        OPS[type] = self

    def __repr__(self):
        return f"OpDef({self.type!r})"


class NotDifferentiable:
    """The ``gradient`` of a row that has none, and why: no gradient flows through its op.

    Its inputs get None, as integer, boolean and string tensors always do.
    """

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self):
        return f"NotDifferentiable({self.reason!r})"


def skipped_inputs(op):
    """The indices of ``op``'s inputs whose gradients nobody needs: an eager backward pass
    tells a rule (``Recorded.skip_input_indices``) so that it need not compute them, as
    TensorFlow's eager gradients do. In a graph, unused gradient ops are pruned instead."""
    return getattr(op, "skip_input_indices", ())


# The reasons most rows share.
NO_INPUTS = NotDifferentiable("it has no inputs")
BOOL_OUTPUT = NotDifferentiable("its output is bool")
INTEGER_OUTPUT = NotDifferentiable("its output is an integer")
SHAPE_ONLY = NotDifferentiable("its output depends only on the input's shape")
STRINGS = NotDifferentiable("it works on strings")
EFFECT_ONLY = NotDifferentiable("it has an effect, not a differentiable value")
