"""The array namespaces an op's implementation is written against: ``xp``.

An op row (``runtime.core.op_def.OpDef``) may give its meaning once, as
``implementation(xp, *input_values, **attrs)``, a function written with an
array namespace rather than with numpy itself, as code written for the Python
array API standard is. Each backend passes its own namespace: ``NUMPY`` here
for the default executor and eager mode, one over ``jax.numpy`` when lowering
to XLA (``runtime.xla.lowerings``), and the same for any later backend. So the
numerics, the run-time checks and their messages are written once, in the op's
definition, and every backend reads them.

A namespace is the array library's functions (``xp.maximum``, ``xp.sum``,
``xp.where``, ...) plus the few things an op needs beyond them:

- ``xp.check(failed, message, detail=None)``: the op fails with
  ``InvalidArgumentError`` where ``failed`` holds: under numpy, at once; under
  XLA, as a checked error that the program raises after the call, as the
  default executor would have. ``detail``, a function of no arguments, gives
  the number (or the two) a message's ``{0}`` (``{1}``) shows, the bad value:
  numpy calls it only when the check fails;
- ``xp.canonical_dtype(dtype)``: the dtype the backend computes for ``dtype``
  (XLA without 64-bit types computes int64 as int32);
- ``xp.erf``: the error function, which numpy lacks;
- ``xp.backend``: the backend's name (``"numpy"``, ``"jax"``), for the rare
  rule that must differ.

A shape error (wrong whatever the values) is raised as ``InvalidArgumentError``
by the implementation itself: shapes are known when XLA compiles, and the
lowering makes the raise the program's failure.

``matmul`` and ``einsum`` multiply float32 in float32 in every namespace, as
numpy does (XLA is asked for its highest precision, not TF32 on GPUs).

>>> import numpy as np
>>> NUMPY.maximum is np.maximum, NUMPY.backend
(True, 'numpy')
>>> NUMPY.check(np.array([False, True]), "negative size")
Traceback (most recent call last):
  ...
runtime.errors.InvalidArgumentError: negative size
>>> labels = np.array([1, 7])
>>> NUMPY.check(labels > 3, "label {0} is too large", detail=lambda: labels.max())
Traceback (most recent call last):
  ...
runtime.errors.InvalidArgumentError: label 7 is too large
>>> float(NUMPY.erf(np.float64(0.5)))  # math.erf(0.5)
0.5204998778130465
"""

from __future__ import annotations

import math
import types

import numpy as np

from runtime import errors


class ArrayNamespace(types.SimpleNamespace):
    """An array library's functions as attributes, plus ``check``, ``erf``, ``canonical_dtype``
    and ``backend``.

    ``ArrayNamespace(np, backend="numpy", check=..., erf=..., ...)``: the module's public
    names are copied once, so ``xp.add`` is as fast as ``np.add``.
    """

    def __init__(self, module, **extras):
        names = {name: value for name, value in vars(module).items() if not name.startswith("_")}
        super().__init__(**{**names, **extras})

    def __repr__(self):
        return f"<array namespace {self.backend!r}>"


def _raise_where(failed, message, error_type=errors.InvalidArgumentError, detail=None):
    """numpy's ``check``: raise now if ``failed`` holds anywhere."""
    # An array's own any(): most of np.any's cost is its Python wrapper.
    if failed.any() if isinstance(failed, (np.ndarray, np.generic)) else failed:
        if detail is not None:
            shown = detail()
            message = message.format(*(shown if isinstance(shown, tuple) else (shown,)))
        raise error_type(message)


_erf_of_objects = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    """The error function elementwise: the C library's ``erf`` in float64 (Python's
    ``math.erf``, one call an element: slow), rounded to ``x``'s float type."""
    x = np.asarray(x)
    wide = _erf_of_objects(x.astype(np.float64))
    return np.asarray(wide, dtype=np.float64).astype(x.dtype)[()]


def elementwise(name):
    """The ``implementation`` of an op that is the namespace's function ``name`` on its inputs
    (``elementwise("tanh")``: ``np.tanh`` under numpy, ``jnp.tanh`` under XLA).

    >>> elementwise("negative")(NUMPY, np.int32(3))
    np.int32(-3)
    """

    def implementation(xp, *values):
        return getattr(xp, name)(*values)

    implementation.__name__ = implementation.__qualname__ = name
    return implementation


NUMPY = ArrayNamespace(np, backend="numpy", check=_raise_where, erf=_erf, canonical_dtype=np.dtype)
"""numpy as an array namespace: what kernels and eager ops run on."""
