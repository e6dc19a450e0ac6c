"""Generated source in ``linecache``, for tracebacks, for exactly as long as its code can run.

A traceback through generated code shows its lines only if ``linecache`` has
them; an entry kept for ever would keep every compiled program's source, so
each is removed when the function it belongs to is garbage-collected.

>>> namespace = {}
>>> exec(compile("def f():\\n    return 1\\n", "<example>", "exec"), namespace)
>>> register_source("<example>", "def f():\\n    return 1\\n", namespace["f"])
>>> linecache.getline("<example>", 2)
'    return 1\\n'
>>> del namespace
>>> import gc; _ = gc.collect()
>>> linecache.getline("<example>", 2)
''
"""

from __future__ import annotations

import linecache
import weakref


def register_source(filename, source, fn):
    """Puts ``source`` in linecache under ``filename`` until ``fn`` is garbage-collected."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    weakref.finalize(fn, linecache.cache.pop, filename, None).atexit = False
