"""Which framework stages a value: the backends that converted control flow dispatches to.

Converted code calls ``ag__.if_stmt``, ``ag__.while_stmt``, ``ag__.for_stmt``,
``ag__.and_``... with whatever values the program computes. On a Python value
they run as Python. On a *staged* value (one that only has a value when a
compiled program runs) they ask the value's backend to build the framework's
own control flow:

- the runtime (the default): ``rt.SymbolicTensor`` -> ``rt.cond`` / ``rt.while_loop``
  (``autograph.operators.runtime_backend``);
- JAX: a tracer (inside ``jax.jit``, ``jax.grad``...) -> ``lax.cond`` /
  ``lax.while_loop`` / ``lax.fori_loop`` (``autograph.operators.jax_backend``).
  It is loaded only once JAX itself is: autograph never imports JAX.

A third framework is one more ``Backend`` (``backend_protocol``), given to
``register``. What a backend provides is small, because the converter's
analyses (which variables a statement carries, ``break``/``continue``/``return``
turned into flags), the reading and writing of those variables (``State``) and
the joining of them across branches and loops (``staged_if``, ``staged_loops``)
are shared.

>>> import runtime as rt
>>> staging(3) is None
True
>>> with rt.Graph().as_default():
...     staging(rt.placeholder(rt.int32, [])).name
'runtime'
"""

from __future__ import annotations

import sys

from autograph.operators.backend_protocol import Backend

_registered: list[Backend] = []
_loaded_jax = False

PLAIN_TYPES = {bool, int, float, str, type(None)}
"""Types no backend stages a value of: converted code tests ``type(x) in PLAIN_TYPES`` before it
asks ``staging(x)``, so a loop over Python values (or eager tensors) pays one lookup per test."""


def register(backend: Backend):
    """Adds ``backend``; those registered first are asked first. Its ``plain_types`` (if any) are
    types no backend stages (the runtime's eager tensors)."""
    _registered.append(backend)
    PLAIN_TYPES.update(getattr(backend, "plain_types", ()))


def unregister(backend: Backend):
    """Removes ``backend``, which ``register`` added (a test's): its values are no longer staged.
    Its ``plain_types`` stay plain."""
    _registered.remove(backend)


def staging(value):
    """The backend whose staged value ``value`` is, or None (a Python value, an eager tensor)."""
    for backend in _registered:
        if backend.is_staged(value):
            return backend
    if not _loaded_jax and "jax" in sys.modules and _is_jax_value(value):
        _load_jax()
        return staging(value)
    return None


def staging_any(values):
    """The backend of the first staged value among ``values``, or None."""
    for value in values:
        backend = staging(value)
        if backend is not None:
            return backend
    return None


def _is_jax_value(value):
    # Only JAX's own types load the backend: a module named like one of JAX's is enough to ask.
    return type(value).__module__.startswith(("jax", "jaxlib"))


def _load_jax():
    global _loaded_jax
    from autograph.operators.jax_backend import JAX_BACKEND

    _loaded_jax = True
    register(JAX_BACKEND)
