"""``rt.switch_case``: an integer picks one of several branches, as TensorFlow's
``tf.switch_case``.

Eagerly the index picks the branch at once. In a graph the branches are traced into a chain
of ``rt.cond``s (``If`` ops: index 0 or the rest, then 1 or the rest, ...), so gradients,
compilation, XLA and ONNX are those of ``cond``; only the chosen branch runs.

>>> import runtime as rt
>>> rt.switch_case(rt.constant(1), [lambda: rt.constant(17), lambda: rt.constant(31)]).numpy()
np.int32(31)
"""

from __future__ import annotations

import re

from runtime import errors
from runtime.core.graph import name_scope
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.functions.control_flow import cond
from runtime.ops.broadcast_ops import where
from runtime.ops.math_ops import equal, greater_equal, less, logical_or


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Calls the branch of ``branch_fns`` that ``branch_index`` (an integer scalar tensor)
    names, and returns what it returns.

    ``branch_fns`` is a list of callables (the index is the key), a list of ``(int,
    callable)`` pairs or a dict from int to callable; the keys are ``0 .. N-1``. An index out
    of that range calls ``default``, or without one the branch of the largest key, as in
    TensorFlow. Every branch returns the same structure of tensors (as ``rt.cond``'s do).

    >>> import runtime as rt
    >>> branches = {0: lambda: rt.constant(17), 1: lambda: rt.constant(31)}
    >>> [rt.switch_case(rt.constant(i), branches, default=lambda: rt.constant(-1)).numpy()
    ...  for i in (0, 1, 5)]
    [np.int32(17), np.int32(31), np.int32(-1)]
    """
    actions = _branches(branch_fns, default, branch_index)
    last = len(actions) - 1
    with name_scope(name or "switch_case"):
        out_of_range = logical_or(less(branch_index, 0), greater_equal(branch_index, len(actions)))
        index = where(out_of_range, last, branch_index)
        if not isinstance(index, SymbolicTensor):
            return actions[int(index)]()
        return _chain(index, actions, 0)


def _chain(index, actions, first):
    """``actions[index]()`` for ``index`` in ``first ..``: a cond on ``index == first``."""
    if first == len(actions) - 1:
        return actions[first]()
    try:
        return cond(
            equal(index, first),
            actions[first],
            lambda: _chain(index, actions, first + 1),
            name=f"case_{first}",
        )
    except (TypeError, ValueError) as error:
        if not _COND_WORDS.search(str(error)):
            raise
        raise _disagreeing_branches(error, first) from None


# What rt.cond says of its two branches; switch_case names its own (the later ones agree).
_COND_WORDS = re.compile(r"true_fn and false_fn arguments to rt\.cond|from true_fn|^rt\.cond: ")


def _disagreeing_branches(error, first):
    """The cond's error in TensorFlow's words for switch_case: ``branches[first]`` and
    ``branches[first + 1]`` (the branches after ``first`` agree among themselves)."""
    a, b = f"branches[{first}]", f"branches[{first + 1}]"
    message = (
        str(error)
        .replace(
            "true_fn and false_fn arguments to rt.cond", f"{a} and {b} arguments to rt.switch_case"
        )
        .replace("rt.cond: ", "rt.switch_case: ")
        .replace("true_fn", a)
        .replace("false_fn", b)
    )
    return errors.NestedStructureError(message)  # TensorFlow's TypeError; rt.cond's ValueError


def _branches(branch_fns, default, branch_index):
    """The branches in the order of their keys, ``default`` last; TensorFlow's checks."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if branch_index.shape.rank not in (0, None):
        raise ValueError(f"'branch_index' must be a scalar, got shape {branch_index.shape}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, list | tuple | dict):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if type(key) is not int:
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = sorted(key for key, _ in pairs)
    if keys != list(range(len(keys))):
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but "
            f"found {{{','.join(map(str, keys))}}}"
        )
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    actions = [fn for _, fn in sorted(pairs, key=lambda pair: pair[0])]
    return actions + ([default] if default is not None else [])
