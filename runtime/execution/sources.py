"""Generated source in ``linecache``, for tracebacks, for exactly as long as its code can run.

A traceback through generated code shows its lines only if ``linecache`` has
them; an entry kept for ever would keep every compiled program's source, so
each is emptied when the function it belongs to is garbage-collected, and removed
at the next registration.

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

_emptied = []  # (name, emptied entry) of collected functions, to remove outside the collector


def register_source(filename, source, fn):
    """Puts ``source`` in linecache under ``filename`` until ``fn`` is garbage-collected."""
    while _emptied:
        name, entry = _emptied.pop()
        if linecache.cache.get(name) is entry:
            del linecache.cache[name]
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    weakref.finalize(fn, _empty_entry, filename).atexit = False


def _empty_entry(filename):
    # Runs inside the garbage collector, which can run while linecache.checkcache loops over
    # a list of the cache's names and then reads each: removing a name here would make that
    # read a KeyError, so the entry keeps its name and loses its lines.
    if filename in linecache.cache:
        entry = linecache.cache[filename] = (0, None, [], filename)
        _emptied.append((filename, entry))
