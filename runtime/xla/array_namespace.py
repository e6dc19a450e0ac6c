"""``jax.numpy`` as an op implementation's array namespace, and rules made from implementations.

A row of the op table that gives ``implementation(xp, *values, **attrs)``
(``runtime.core.op_def``) needs no XLA rule of its own: ``implemented(fn)``
makes one, calling it with ``JAX``, bound to the lowering that traces it, so
that ``xp.check`` becomes the lowering's run-time check (the program fails with
the same error and message the numpy kernel raises).

>>> import jax.numpy as jnp
>>> JAX.tanh is jnp.tanh, JAX.backend
(True, 'jax')
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
from jax import lax

from runtime import errors
from runtime.core.array_namespace import ArrayNamespace
from runtime.xla.effects import is_static


def _check_outside_a_lowering(failed, message, error_type=errors.InvalidArgumentError, detail=None):
    raise TypeError(
        "xp.check under JAX records a check of the lowering being traced: call the "
        "implementation through runtime.xla.array_namespace.implemented"
    )


JAX = ArrayNamespace(
    jnp,
    backend="jax",
    erf=jax.scipy.special.erf,
    check=_check_outside_a_lowering,
    canonical_dtype=jax.dtypes.canonicalize_dtype,
    # HIGHEST: float32 products in float32, as numpy computes them (not TF32 on GPUs).
    matmul=functools.partial(jnp.matmul, precision=lax.Precision.HIGHEST),
    einsum=functools.partial(jnp.einsum, precision=lax.Precision.HIGHEST),
)
"""jax.numpy as an array namespace; ``check`` is bound per lowering (``implemented``)."""


class Checked:
    """``JAX`` with ``check`` recording a run-time check of one lowering (``ctx`` of a rule):
    an XLA rule of its own checks with ``Checked(ctx).check(failed, message)`` too."""

    __slots__ = ("check",)

    def __init__(self, lowering):
        def check(failed, message, error_type=errors.InvalidArgumentError, detail=None):
            if not is_static(failed) and not isinstance(failed, bool):
                failed = jnp.any(failed)
            elif np.any(failed):
                failed = True
            else:
                return
            shown = None if detail is None else detail()
            lowering.check(failed, message, detail=shown, error_type=error_type)

        self.check = check

    def __getattr__(self, name):
        return getattr(JAX, name)


def implemented(implementation):
    """The XLA rule ``rule(ctx, *values, **attrs)`` of a row's ``implementation``.

    >>> import jax
    >>> from runtime.ops.math_ops import FLOOR_MOD
    >>> rule = implemented(FLOOR_MOD.implementation)
    >>> float(jax.jit(lambda x, y: rule(None, x, y))(7.5, 2.0))  # floats: no check to record
    1.5
    """

    def rule(ctx, *values, **attrs):
        return implementation(Checked(ctx), *values, **attrs)

    return rule
