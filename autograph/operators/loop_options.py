"""What ``ag.experimental.set_loop_options`` gives a staged loop: its ``rt.while_loop`` arguments.

``options`` is the dict the converter passes to ``while_stmt``/``for_stmt``
(``converters/directives.py``): the directive's arguments, evaluated where
the loop starts.

>>> import runtime as rt
>>> v = rt.constant([1, 2])
>>> shape_invariants({"shape_invariants": [(v, rt.TensorShape([None]))]}, None, [0, v], [1], [], [v])
[TensorShape([None])]
"""

from __future__ import annotations

import runtime as rt


def maximum_iterations(options):
    """The loop's ``maximum_iterations``, or None."""
    return (options or {}).get("maximum_iterations")


def shape_invariants(options, invariants, initial, carried, extra, first_values):
    """``invariants`` (one shape per flat loop variable, or None) with the directive's applied.

    ``initial`` are the state's values before the loop, ``carried`` the
    positions among them that the loop carries (as ``first_values``), after
    the loop's own ``extra`` variables (its index). A pair ``(value, shape)``
    applies to the carried variable whose value before the loop is ``value``
    (the same object); pairs naming anything else do nothing, as in TensorFlow.
    """
    by_position = _by_position(options, initial, carried)
    if not by_position:
        return invariants
    if invariants is None:
        invariants = [_leaf_shape(leaf) for v in extra for leaf in rt.nest.flatten(v)]
        invariants += [_leaf_shape(leaf) for v in first_values for leaf in rt.nest.flatten(v)]
    invariants = list(invariants)
    start = sum(len(rt.nest.flatten(v)) for v in extra)
    for position, value in enumerate(first_values):
        leaves = rt.nest.flatten(value)
        if position in by_position:
            shapes = _shapes_for(value, by_position[position])
            invariants[start : start + len(leaves)] = shapes
        start += len(leaves)
    return invariants


def laid_out(values, flat):
    """``flat`` (one shape per leaf of ``values``, the loop variables) laid out as
    ``rt.while_loop`` reads ``shape_invariants``: a shape where a variable is a tensor, the
    variable's own list, tuple or dict around its parts, a list of shapes for a composite (a
    TensorArray's parts).

    >>> laid_out([0, (rt.constant([1]), rt.constant([[2]]))], [rt.TensorShape([])] * 3)
    [TensorShape([]), [TensorShape([]), TensorShape([])]]
    """
    if flat is None:
        return None
    shapes = iter(flat)

    def layout(value):
        if isinstance(value, dict):
            return {key: layout(value[key]) for key in rt.nest.flatten({k: k for k in value})}
        if isinstance(value, (list, tuple)):
            return [layout(part) for part in value]
        leaves = len(rt.nest.flatten(value))
        return next(shapes) if leaves == 1 else [next(shapes) for _ in range(leaves)]

    return [layout(value) for value in values]


def check_invariants(options, initial, carried, names, values_after):
    """Raises if a carried variable leaves an iteration outside the shape invariant given for it.

    ``values_after`` are the carried variables after one iteration, in the order of
    ``carried``. TensorFlow's words: the variable's name, its shape, the invariant.
    """
    for position, shape in _by_position(options, initial, carried).items():
        value = values_after[position]
        for leaf, invariant in zip(rt.nest.flatten(value), _shapes_for(value, shape)):
            if isinstance(leaf, rt.Tensor) and not leaf.shape.is_subtype_of(invariant):
                raise ValueError(
                    f"'{names[carried[position]]}' has shape {leaf.shape} after one iteration, "
                    f"which does not conform with the shape invariant {invariant}."
                )


def _by_position(options, initial, carried):
    """{position among ``carried``: the shape (structure) the directive gives it}."""
    pairs = (options or {}).get("shape_invariants")
    found = {}
    for value, shape in pairs or ():
        for position, i in enumerate(carried):
            if initial[i] is value:
                found[position] = shape
    return found


def _leaf_shape(leaf):
    return leaf.shape if isinstance(leaf, rt.Tensor) else rt.TensorShape(None)


def _shapes_for(value, shape):
    """The invariant's shapes, one per leaf of ``value``: a shape for a tensor, else a structure."""
    if isinstance(value, rt.Tensor):
        return [_as_shape(shape)]
    return [_as_shape(s) for s in rt.nest.flatten(shape)]


def _as_shape(shape):
    return shape if isinstance(shape, rt.TensorShape) else rt.TensorShape(shape)
