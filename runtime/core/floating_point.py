"""numpy's floating-point warnings, switched off cheaply: x/0 is inf and overflow wraps, silently.

TensorFlow's kernels give ``inf``, ``nan`` and wrapped integers without a
warning; numpy warns unless told otherwise. ``np.errstate(all="ignore")`` says
so but costs ~1.5 us a time, more than a scalar op, so the hot paths (each
compiled program call, each fast eager operator) set numpy's error state with a
token instead, the way ``np.errstate`` does inside.

>>> import numpy as np
>>> token = ignore()
>>> float(np.float32(1) / np.float32(0))
inf
>>> restore(token)
"""

from __future__ import annotations

import functools

import numpy as np

try:  # numpy >= 2 keeps its error state in a context variable
    from numpy._core._ufunc_config import _extobj_contextvar as _error_state
    from numpy._core._ufunc_config import _make_extobj

    # Bound C functions, not Python ones: a call costs what setting the variable does.
    ignore = functools.partial(_error_state.set, _make_extobj(all="ignore"))
    ignore.__doc__ = "Silences numpy's floating-point warnings until ``restore(token)``."
    restore = _error_state.reset

except ImportError:  # pragma: no cover - numpy moved its internals: the public, slower way

    def ignore():
        """Silences numpy's floating-point warnings until ``restore(token)``; returns the token."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(token):
        token.__exit__(None, None, None)
