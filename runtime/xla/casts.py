"""Casts from floats to integers on XLA, giving the default executor's (numpy's) values.

In range, both truncate toward zero. For NaN and values out of range C defines no result,
and numpy gives what the CPU's conversion gives: on x86 the lowest int32 or int64, on ARM
the nearest bound (0 for NaN). Types narrower than int32 keep the low bits of the int32
result, as C compilers convert through int32. XLA saturates instead, so a cast lowered
as it is would give other values than the same function without ``jit_compile``. What
numpy gives here is asked once, on import, so the lowering follows this machine's numpy.

>>> import jax.numpy as jnp
>>> x = np.array([np.nan, 1e10, -1e10, 3.7, -3.7, 300.0], np.float32)
>>> with np.errstate(invalid="ignore"):
...     expected = x.astype(np.int8)
>>> bool((np.asarray(float_to_int(jnp.asarray(x), np.dtype(np.int8))) == expected).all())
True
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

_INT32, _INT64 = np.dtype(np.int32), np.dtype(np.int64)


def _through_int32(target) -> bool:
    """Whether numpy casts floats to ``target`` as the low bits of an int32 cast here (x86's
    compilers do; ARM's convert to unsigned types saturating, -3.7 giving 0, not 253)."""
    probe = np.array([-3.7, 300.0, -300.0, 7e4, 2.0**40])
    with np.errstate(invalid="ignore"):
        return np.array_equal(probe.astype(target), probe.astype(np.int32).astype(target))


_NARROW = (np.int8, np.int16, np.uint8, np.uint16)
_THROUGH = {np.dtype(t): _INT32 for t in _NARROW if _through_int32(t)}
_THROUGH[_INT32] = _INT32
_THROUGH[_INT64] = _INT64
"""Target -> the type numpy converts a float through. Others (uint32 and uint64, and narrow
types numpy does not cast through int32 here) are left to XLA: numpy's results for them differ
with the source type and the CPU's vector instructions."""


def _numpy_invalid(through):
    """What numpy gives for NaN, a value too high and one too low, cast to ``through``."""
    with np.errstate(invalid="ignore"):
        return tuple(np.array([np.nan, 1e300, -1e300]).astype(through))


_INVALID = {through: _numpy_invalid(through) for through in (_INT32, _INT64)}


def needs_numpy_cast(source, target) -> bool:
    """Whether a cast from ``source`` to ``target`` (numpy dtypes) takes ``float_to_int``."""
    return np.issubdtype(source, np.floating) and target in _THROUGH


def float_to_int(x, target):
    """``x`` (a JAX array of floats) cast to the integer dtype ``target`` as numpy casts it."""
    through = _THROUGH[target]
    nan, too_high, too_low = _INVALID[through]
    if x.dtype.itemsize < 4:  # (float16, bfloat16: exactly, so that the bounds are exact)
        x = x.astype(jnp.float32)
    bound = 2.0 ** (8 * through.itemsize - 1)
    whole = jnp.trunc(x)
    result = jnp.where(
        jnp.isnan(x),
        nan,
        jnp.where(
            whole >= bound,
            too_high,
            jnp.where(whole < -bound, too_low, lax.convert_element_type(x, through)),
        ),
    )
    return lax.convert_element_type(result, target)  # narrower types: the low bits
