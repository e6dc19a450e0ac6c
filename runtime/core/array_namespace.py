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

- ``xp.check(failed, message)``: the op fails with ``InvalidArgumentError``
  where ``failed`` holds: under numpy, at once; under XLA, as a checked error
  that the program raises after the call, as the default executor would have;
- ``xp.erf``: the error function, which numpy lacks;
- ``xp.backend``: the backend's name (``"numpy"``, ``"jax"``), for the rare
  rule that must differ (precision flags of a matmul).

>>> import numpy as np
>>> NUMPY.maximum is np.maximum, NUMPY.backend
(True, 'numpy')
>>> NUMPY.check(np.array([False, True]), "negative size")
Traceback (most recent call last):
  ...
runtime.errors.InvalidArgumentError: negative size
>>> float(NUMPY.erf(np.float64(0.5)))  # math.erf(0.5)
0.5204998778130465
"""

from __future__ import annotations

import math
import types

import numpy as np

from runtime import errors


class ArrayNamespace(types.SimpleNamespace):
    """An array library's functions as attributes, plus ``check``, ``erf`` and ``backend``.

    ``ArrayNamespace(np, backend="numpy", check=..., erf=...)``: the module's public
    names are copied once, so ``xp.add`` is as fast as ``np.add``.
    """

    def __init__(self, module, **extras):
        names = {name: value for name, value in vars(module).items() if not name.startswith("_")}
        super().__init__(**{**names, **extras})

    def __repr__(self):
        return f"<array namespace {self.backend!r}>"


def _raise_where(failed, message, error_type=errors.InvalidArgumentError):
    """numpy's ``check``: raise now if ``failed`` holds anywhere."""
    if np.any(failed):
        raise error_type(message)


_erf_of_objects = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    """The error function elementwise, from the C library's ``erf`` (correctly rounded in
    float64, then rounded to ``x``'s float type)."""
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
    implementation.ufunc_name = name
    return implementation


NUMPY = ArrayNamespace(np, backend="numpy", check=_raise_where, erf=_erf)
"""numpy as an array namespace: what kernels and eager ops run on."""
