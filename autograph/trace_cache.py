"""The traced graphs of one Function, found by the signature of a call.

A call's signature key (``autograph.signatures``) finds its graph by hash. Only
when that misses are the graphs traced for more general shapes (``None`` dims:
a TensorSpec's, or reduce_retracing's) tried, and only those of the same
signature without shapes, so tracing n shapes costs n look-ups, not n² shape
comparisons. The cache is bounded, least recently used first out (TensorFlow
bounds its look-ups the same way; here nearly: one used in the last half of
the capacity's stores is never the next out, and a hit on it costs one dict
look-up), and objects in a key are held weakly where Python allows: an entry
whose object is gone matches nothing and is dropped.

>>> cache = TraceCache(capacity=2)
>>> for n in range(3):
...     cache.store(("key", n), ("rank",), f"graph {n}", objects=[])
>>> cache.lookup(("key", 0)) is None, cache.lookup(("key", 2))
(True, 'graph 2')
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import OrderedDict

MAX_SIGNATURES = 1024
"""How many signatures a Function remembers (TensorFlow's dispatch cache holds as many); the
least recently used beyond that are forgotten, and a call with one of them traces again."""


class TraceCache:
    """Signature key -> traced graph, with the graphs of general shapes found by matching.

    ``lookup`` may be called from any thread at any time; everything else is called with
    ``lock`` held, which a Function holds while it traces, so that each signature is traced
    once however many threads ask for it.
    """

    def __init__(self, capacity=None):
        self.capacity = MAX_SIGNATURES if capacity is None else capacity
        self._recent = self.capacity // 2  # stores since an entry was moved: still recent
        self.lock = threading.RLock()
        self._exact = OrderedDict()  # signature key -> _Entry, least recently used first
        self._general = {}  # key without shapes -> graphs with unknown dims, newest first
        self._newest = {}  # key without shapes -> the graph traced last for it
        self._uses = {}  # graph -> how many signature keys lead to it
        self._gone = []  # keys whose objects were freed (appended by weakref callbacks)
        self._stores = 0  # how many entries were stored: the clock of recent use
        # The fast path of a call with eager tensors only: their dtypes and shapes -> graph,
        # and -> its entry function (runtime.execution.entry). Bounded too, oldest first out,
        # and a graph forgotten above leaves it.
        self.by_call = {}
        self.entries = {}
        self._calls_of = {}  # graph -> its keys in by_call

    def lookup(self, key):
        """The graph stored under ``key``, or None."""
        entry = self._exact.get(key)
        if entry is None or entry.refs and not entry.alive():
            return None
        if self._stores - entry.moved_at > self._recent:
            # In the older half: to the back, so that it is not the next out. (Only then, so
            # that a hit on a recent one costs one dict look-up.)
            entry.moved_at = self._stores
            with contextlib.suppress(KeyError):  # forgotten by another thread meanwhile
                self._exact.move_to_end(key)
        return entry.graph

    def find_general(self, rank_key, shapes):
        """The newest graph of ``rank_key`` traced for shapes that ``shapes`` all fit, or None."""
        self._drop_gone()
        for graph in self._general.get(rank_key, ()):
            if all(s.is_subtype_of(g) for g, s in zip(graph.input_shapes, shapes)):
                return graph
        return None

    def newest(self, rank_key):
        """The graph traced last for ``rank_key`` (reduce_retracing relaxes its shapes)."""
        self._drop_gone()
        return self._newest.get(rank_key)

    def store(self, key, rank_key, graph, objects, general=False):
        """Remembers that ``graph`` serves ``key``; ``objects`` are the objects whose ids the
        key holds; ``general``: the graph has unknown dims, so other shapes may fit it."""
        self._drop_gone()
        if graph not in self._uses:  # newly traced
            self._uses[graph] = 0
            self._newest[rank_key] = graph
            if general:
                self._general.setdefault(rank_key, []).insert(0, graph)
        old = self._exact.pop(key, None)
        self._stores += 1
        self._exact[key] = _Entry(graph, rank_key, objects, key, self._gone, self._stores)
        self._uses[graph] += 1
        if old is not None:
            self._release(old)
        while len(self._exact) > self.capacity:
            self._release(self._exact.popitem(last=False)[1])

    def remember_call(self, call_key, graph):
        """The fast path serves calls of ``call_key`` with ``graph`` from now on."""
        if graph not in self._uses or call_key in self.by_call:
            return  # forgotten since the call found it, or remembered by another thread
        if len(self.by_call) >= self.capacity:
            self._forget_call(next(iter(self.by_call)))
        self.by_call[call_key] = graph
        self._calls_of.setdefault(graph, set()).add(call_key)

    def clear(self):
        """Forgets every graph (``lock`` held): each signature traces again. In place, so that
        a thread that waited on ``lock`` stores its graph here."""
        for table in (self._exact, self._general, self._newest, self._uses, self.by_call):
            table.clear()
        self.entries.clear()
        self._calls_of.clear()
        self._gone.clear()  # (a freed object's key queued later finds no entry: skipped)

    def graphs(self):
        """The graphs remembered now, each once (for inspection: tests and debugging)."""
        return list(self._uses)

    def _forget_call(self, call_key):
        graph = self.by_call.pop(call_key)
        self.entries.pop(call_key, None)
        calls = self._calls_of[graph]
        calls.discard(call_key)
        if not calls:
            del self._calls_of[graph]

    def _release(self, entry):
        graph = entry.graph
        self._uses[graph] -= 1
        if self._uses[graph]:
            return
        del self._uses[graph]  # no key leads to it: forget it
        for call_key in self._calls_of.pop(graph, ()):
            del self.by_call[call_key]
            self.entries.pop(call_key, None)
        general = self._general.get(entry.rank_key, [])
        if graph in general:
            general.remove(graph)
            if not general:
                del self._general[entry.rank_key]
        if self._newest.get(entry.rank_key) is graph:
            del self._newest[entry.rank_key]

    def _drop_gone(self):
        while self._gone:
            key = self._gone.pop()
            entry = self._exact.get(key)
            if entry is not None and not entry.alive():  # (not a new entry under that key)
                del self._exact[key]
                self._release(entry)


class _Entry:
    """A stored graph, and the objects of its key: weakly held where they can be (freeing one
    queues the key to be dropped), strongly otherwise (so that no other object takes its id)."""

    __slots__ = ("graph", "rank_key", "refs", "moved_at", "_kept")

    def __init__(self, graph, rank_key, objects, key, gone, now):
        self.graph = graph
        self.rank_key = rank_key
        self.moved_at = now  # when it was stored or last moved to the back
        refs, self._kept = [], []
        for value in objects:
            try:
                # The callback holds the list, not the cache: it runs in whichever thread frees
                # the object, and only queues the key.
                refs.append(weakref.ref(value, lambda _, key=key: gone.append(key)))
            except TypeError:
                self._kept.append(value)
        self.refs = tuple(refs)

    def alive(self):
        return all(ref() is not None for ref in self.refs)


class IdentityWeakMap:
    """A map from objects, by identity, to values, holding the objects weakly: what a method's
    Function keeps per instance. (A ``WeakKeyDictionary`` compares keys with ``==``, so two
    equal instances, as dataclasses with equal fields are, would share one Function and one
    ``self``.)

    >>> class Point:
    ...     def __eq__(self, other): return True
    ...     __hash__ = object.__hash__
    >>> first, second = Point(), Point()
    >>> held = IdentityWeakMap()
    >>> held.set(first, "first's")
    >>> held.get(first), held.get(second)
    ("first's", None)
    >>> del first
    >>> len(held)
    0
    """

    def __init__(self):
        self._entries = {}  # id(object) -> (weak reference to it, value)

    def get(self, obj):
        """The value set for ``obj`` itself, or None; TypeError if ``obj`` cannot be held weakly."""
        entry = self._entries.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        weakref.ref(obj)  # (TypeError for an object that cannot be held weakly, as set raises)
        return None

    def set(self, obj, value):
        key = id(obj)

        def forget(reference):  # the object is gone: its id may be another object's next
            entry = self._entries.get(key)
            if entry is not None and entry[0] is reference:
                del self._entries[key]

        self._entries[key] = (weakref.ref(obj, forget), value)

    def values(self):
        """The values of the objects still alive."""
        return [value for ref, value in list(self._entries.values()) if ref() is not None]

    def __len__(self):
        return len(self._entries)
