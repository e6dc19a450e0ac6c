"""Building a graph without the cyclic garbage collector running.

Tracing, optimising and compiling a graph allocate many objects and free few;
CPython's cyclic collector, triggered by allocations, walks the growing heap
again and again, which makes building a large graph quadratic. Nothing built
there is garbage until the graph is, so the collector waits until the build is
over (reference counting still frees what is dropped).

>>> import gc
>>> with no_cyclic_gc():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def no_cyclic_gc():
    """The cyclic collector off inside (as it was before, after): nested uses are fine."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
