"""Restorations waiting for their object: a checkpoint restored before a variable exists.

``restore`` matches a checkpoint's object graph to the live one by edge names.
Where the live graph lacks an edge (a layer not built yet, an attribute set
later), the restore leaves a callback here, keyed by the parent object and the
edge's name; attaching a trackable to that parent under that name (a module's
``__setattr__``, an optimizer making a slot) runs it, so the new variable gets
its saved value when it is created, as TensorFlow's deferred restoration does.

Parents are held weakly: a pending restoration keeps nothing alive.

>>> class Parent:
...     pass
>>> parent, got = Parent(), []
>>> defer(parent, "w", got.append)
True
>>> attached(parent, "w", "the new value")
>>> got
['the new value']
"""

from __future__ import annotations

import threading
import weakref

_lock = threading.Lock()
_waiting = {}  # id(parent) -> (weak reference to parent, {edge name: [callbacks]})


def defer(parent, name, restore) -> bool:
    """Calls ``restore(child)`` when ``child`` is attached to ``parent`` under ``name``.

    Returns False when ``parent`` cannot be held weakly (a list or a dict): nothing
    can report an attachment to those, so nothing waits.
    """
    key = id(parent)
    with _lock:
        entry = _waiting.get(key)
        if entry is None or entry[0]() is not parent:
            try:
                ref = weakref.ref(parent, lambda _, key=key: _forget(key))
            except TypeError:
                return False
            entry = _waiting[key] = (ref, {})
        entry[1].setdefault(name, []).append(restore)
    return True


def _forget(key):
    with _lock:
        entry = _waiting.get(key)
        if entry is not None and entry[0]() is None:
            del _waiting[key]


def attached(parent, name, value):
    """``value`` was attached to ``parent`` under ``name``: runs what waited for it, in the
    order the restores were made (the last restore's value stays)."""
    if not _waiting:  # the common case, on every attribute set of every module
        return
    with _lock:
        entry = _waiting.get(id(parent))
        if entry is None or entry[0]() is not parent or name not in entry[1]:
            return
        restores = entry[1].pop(name)
        if not entry[1]:
            del _waiting[id(parent)]
    for restore in restores:
        restore(value)


def waiting(parent):
    """The edge names of ``parent`` that restorations wait for."""
    entry = _waiting.get(id(parent))
    return [] if entry is None or entry[0]() is not parent else sorted(entry[1])
