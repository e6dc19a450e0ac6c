"""Generated source leaves linecache without breaking a linecache walk in progress."""

import gc
import linecache

from runtime.execution.sources import register_source


def _make(name):
    namespace = {}
    source = "def f():\n    return 1\n"
    exec(compile(source, name, "exec"), namespace)
    register_source(name, source, namespace["f"])
    return namespace


def test_a_collection_during_checkcache_leaves_every_name_it_listed_readable():
    # linecache.checkcache lists the cache's names, then reads each: a function collected in
    # between (the doctest runner calls checkcache, and a collection can run at any
    # allocation) must not take its name out of the cache.
    namespace = _make("<sources-test-1>")
    names = list(linecache.cache.keys())
    del namespace
    gc.collect()
    for name in names:
        linecache.cache[name]  # a KeyError before the fix
    assert linecache.getline("<sources-test-1>", 2) == ""


def test_emptied_entries_are_removed_at_the_next_registration():
    namespace = _make("<sources-test-2>")
    del namespace
    gc.collect()
    kept = _make("<sources-test-3>")
    assert "<sources-test-2>" not in linecache.cache
    assert linecache.getline("<sources-test-3>", 2) == "    return 1\n"
    del kept
