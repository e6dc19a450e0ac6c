"""The backward pass: from the gradients of some targets to those of some sources, rule by rule.

Every op row has a ``gradient`` rule (``OpDef.gradient``). Given ops in the
order they ran (a graph's, or those a tape recorded), ``backward`` walks them
in reverse: each op on a path from a source to a target gets the sum of its
outputs' gradients and its rule returns its inputs' gradients. The rules build
their results with ops, so eagerly they compute at once, and in a graph they
add ops to it: a gradient is a graph like any other, which can be
differentiated again, optimised, compiled and saved.

>>> import runtime as rt
>>> from runtime.ops.math_ops import MUL
>>> x = rt.constant(3.0)
>>> y = x * x
>>> backward([Recorded(MUL, (x, x), {}, (y,))], [y], [rt.constant(1.0)], [x])
[<rt.Tensor: shape=(), dtype=float32, numpy=6.0>]

Only floating-point tensors, variables (their handles) and TensorArray flows
carry gradients: an integer, boolean or string tensor gets None.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.op_def import NotDifferentiable
from runtime.ops.array_ops import ones_like
from runtime.ops.constant_ops import constant
from runtime.ops.list_gradient_ops import grad_list_add
from runtime.ops.math_ops import add_n


class Recorded:
    """An op that ran eagerly, as a tape keeps it: what its gradient rule reads.

    It answers like an Operation: ``opdef``, ``type``, ``inputs``, ``outputs``,
    ``attrs``. An input may be a Variable (a read of it).
    """

    __slots__ = ("opdef", "inputs", "attrs", "outputs", "skip_input_indices")

    def __init__(self, opdef, inputs, attrs, outputs):
        self.opdef = opdef
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.outputs = tuple(outputs)
        self.skip_input_indices = ()  # set by ``backward``: see ``op_def.skipped_inputs``

    @property
    def type(self):
        return self.opdef.type

    @property
    def name(self):
        return self.opdef.type

    def __repr__(self):
        return f"<Recorded {self.type}>"


_TRAINABLE = frozenset(
    [d for d in dtypes._BY_NAME.values() if d.is_floating] + [dtypes.resource, dtypes.variant]
)


def is_trainable(dtype) -> bool:
    """Whether a tensor of ``dtype`` carries a gradient: floats, variable handles, lists."""
    return dtype in _TRAINABLE  # a set: asked for every output of every op a tape records


def backward(ops, targets, target_grads, sources):
    """The gradient of ``sum(target * grad)`` over the targets, for each source (or None).

    ``ops`` ran in the order given; ``targets`` and ``target_grads`` pair up
    (each grad has its target's dtype and shape); ``sources`` are tensors or
    variables. Gradient ops are added to the graph being built, if any.
    """
    reached = {id(s) for s in sources}
    on_path = []
    for op in ops:
        for t in op.inputs:
            if id(t) in reached:
                on_path.append(op)
                reached.update(id(t) for t in op.outputs if is_trainable(t.dtype))
                break
    grads = {}  # id(tensor) -> its gradients so far (at least one: only given ones are kept)
    for t, g in zip(targets, target_grads):
        if id(t) in reached and g is not None:
            grads.setdefault(id(t), []).append(g)
    for op in reversed(on_path):
        outputs = op.outputs
        if not any(id(t) in grads for t in outputs):
            continue  # on a path from a source, not to a target
        output_grads = [_total(grads, t) for t in outputs]
        if type(op) is Recorded:
            op.skip_input_indices = tuple(
                i for i, t in enumerate(op.inputs) if id(t) not in reached
            )
        for t, g in zip(op.inputs, _apply_rule(op, output_grads)):
            if g is not None and id(t) in reached:
                _check_gradient(op, t, g)
                parts = grads.get(id(t))
                if parts is None:
                    grads[id(t)] = [g]
                else:
                    parts.append(g)
    return [_total(grads, s) for s in sources]


def _apply_rule(op, output_grads):
    rule = op.opdef.gradient
    if isinstance(rule, NotDifferentiable):
        return [None] * len(op.inputs)
    if rule is None:
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {op.type}); declare one "
            "with the row's gradient= (or NotDifferentiable(reason))."
        )
    input_grads = list(rule(op, *output_grads))
    if len(input_grads) != len(op.inputs):
        raise ValueError(
            f"The gradient rule of {op.type} returned {len(input_grads)} gradients for "
            f"{len(op.inputs)} inputs"
        )
    return input_grads


def _check_gradient(op, t, g):
    """A rule's gradient has its input's dtype (a variable handle's: the variable's)."""
    expected = t.dtype
    if g.dtype is not expected and expected is not dtypes.resource:
        raise TypeError(
            f"The gradient rule of {op.type} gave a {g.dtype.name} gradient for a "
            f"{expected.name} input"
        )


def _total(grads, t):
    """The sum of the gradients collected for ``t``, kept as its one gradient from now on."""
    parts = grads.get(id(t))
    if not parts:
        return None
    if len(parts) > 1:
        parts[:] = [aggregate(parts)]
    return parts[0]


def seed(target):
    """The gradient a target starts with: ones. A constant when its shape is known, so that
    a graph's optimiser folds what the first rules compute from it (a mean's 1/n)."""
    if target.shape.is_fully_defined():
        return constant(np.ones(target.shape.as_list(), target.dtype.as_numpy_dtype))
    return ones_like(target)


def aggregate(parts):
    """The sum of several gradients of one tensor: dense ones with one AddN, lists merged."""
    if len(parts) == 1:
        return parts[0]
    if parts[0].dtype is dtypes.variant:
        total = parts[0]
        for part in parts[1:]:
            total = grad_list_add(total, part)
        return total
    return add_n(parts)
