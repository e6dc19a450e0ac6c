"""Restorations waiting for their object: a checkpoint restored before a variable exists.

``restore`` matches a checkpoint's object graph to the live one by edge names.
Where the live graph lacks an edge (a layer not built yet, an attribute set
later), the restore leaves a callback here, keyed by the parent object and the
edge's name; attaching a trackable to that parent under that name (a module's
``__setattr__``, an optimizer making a slot) runs it, so the new variable gets
its saved value when it is created, as TensorFlow's deferred restoration does.

Parents are held weakly: a pending restoration keeps nothing alive. Each
callback belongs to an ``owner`` (a restoration), and ``cancel(owner)`` drops
all of an owner's callbacks at once. An owner waiting for an edge another owner
waits for already replaces that wait (the newer restore's value would win), so
restoring again and again into objects never completed keeps one wait per edge.
``attaching(parent, name)``, called before the attachment, lets each owner refuse
it first (``owner.check_readable()``: its values can no longer be read).

>>> class Parent:
...     pass
>>> parent, got = Parent(), []
>>> defer(parent, "w", got.append, owner="restore 1")
True
>>> is_waited_on(parent)
True
>>> attached(parent, "w", "the new value")
>>> got, is_waited_on(parent)
(['the new value'], False)
"""

from __future__ import annotations

import threading
import weakref

_lock = threading.RLock()  # (a weak reference callback may run while it is held)
# id(parent) -> (weak reference to parent, {edge name: [(owner, callback)]}). Read without the
# lock by ``is_waited_on`` (one dict lookup, on every attribute set of every module); written
# under it.
_waiting = {}
_switches = []  # functions told True when a first restoration waits, False when none does


def while_any_waits(switch):
    """Calls ``switch(True)`` whenever restorations start to wait (none did), ``switch(False)``
    when the last stops: a class reports attachments only then, so that its attribute sets
    cost nothing the rest of the time."""
    _switches.append(switch)
    switch(bool(_waiting))


def _switch(on):
    for switch in _switches:
        switch(on)


def is_waited_on(parent) -> bool:
    """Whether a restoration may wait on ``parent``: the fast test a ``__setattr__`` makes
    before calling ``attached``."""
    return id(parent) in _waiting


def defer(parent, name, restore, owner=None) -> bool:
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
            if not _waiting:
                _switch(True)
            entry = _waiting[key] = (ref, {})
        waits = entry[1].setdefault(name, [])
        waits[:] = [pair for pair in waits if pair[0] is owner]  # a newer owner replaces others
        waits.append((owner, restore))
    return True


def attaching(parent, name):
    """Before ``parent`` gets an attribute ``name``: each owner waiting for it may raise (its
    value cannot be read any more), so the attribute is not set without its value."""
    entry = _waiting.get(id(parent))
    if entry is None or entry[0]() is not parent:
        return
    for owner, _ in list(entry[1].get(name, ())):
        check = getattr(owner, "check_readable", None)
        if check is not None:
            check()


def cancel(owner, parents):
    """Drops the callbacks of ``owner`` left on ``parents`` (those still alive)."""
    with _lock:
        for parent in parents:
            entry = _waiting.get(id(parent))
            if entry is None or entry[0]() is not parent:
                continue
            edges = entry[1]
            for name in list(edges):
                kept = [pair for pair in edges[name] if pair[0] is not owner]
                if kept:
                    edges[name] = kept
                else:
                    del edges[name]
            if not edges:
                _drop(id(parent))


def slot_key(variable, slot_name):
    """The name an optimizer reports to ``attached`` when it makes ``variable``'s slot
    ``slot_name``: a restore waits for it under that name."""
    return ("slot", id(variable), slot_name)


def _forget(key):
    with _lock:
        entry = _waiting.get(key)
        if entry is not None and entry[0]() is None:
            _drop(key)


def _drop(key):
    del _waiting[key]
    if not _waiting:
        _switch(False)


def attached(parent, name, value):
    """``value`` was attached to ``parent`` under ``name``: runs what waited for it, in the
    order the restores were made (the last restore's value stays)."""
    if id(parent) not in _waiting:  # the common case, on every attribute set of every module
        return
    with _lock:
        entry = _waiting.get(id(parent))
        if entry is None or entry[0]() is not parent or name not in entry[1]:
            return
        restores = entry[1].pop(name)
        if not entry[1]:
            _drop(id(parent))
    for _, restore in restores:
        restore(value)
