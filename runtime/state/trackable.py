"""The object graph: what a checkpoint or a saved model reaches from a root object, by name.

TensorFlow saves and restores state by this graph, not by variable names: an edge
is an attribute (``model.dense.kernel``), a list or tuple index, or a dict key;
the nodes are variables, modules, the lists, tuples and dicts holding them, and
any object that names its own children with ``_trackable_children()`` (a
checkpoint, an optimizer). Restoring follows the same edges in a new program, so
a variable is found by its path, whatever its name.

>>> import runtime as rt
>>> class Net(rt.Module):
...     def __init__(self):
...         super().__init__()
...         self.layers = [rt.Module(name="a"), rt.Module(name="b")]
...         self.layers[1].w = rt.Variable(1.0)
...         self.scale = rt.Variable(2.0)
>>> [(path, type(obj).__name__) for path, obj in walk(Net())]
[('', 'Net'), ('layers', 'list'), ('scale', 'Variable'), ('layers/0', 'Module'), ('layers/1', 'Module'), ('layers/1/w', 'Variable')]
"""

from __future__ import annotations

from runtime.state.module import Module, ignored_properties
from runtime.state.variables import Variable


def is_trackable(value) -> bool:
    """Whether ``value`` is a node of the object graph on its own (not a container)."""
    return isinstance(value, (Variable, Module)) or callable(
        getattr(type(value), "_trackable_children", None)
    )


def is_function(value) -> bool:
    """Whether ``value`` is an ``ag.function``, a concrete function or a loaded one: a saved
    model keeps it as an edge of the object graph (a checkpoint has nothing of it to keep)."""
    kind = type(value)
    return callable(getattr(kind, "_list_all_concrete_functions", None)) or (
        hasattr(kind, "structured_input_signature") and hasattr(value, "graph")
    )


def holds_trackables(value, _seen=None, functions=False) -> bool:
    """Whether ``value`` is trackable, or a list, tuple or dict holding one (at any depth);
    with ``functions``, a function (``is_function``) counts as one."""
    if is_trackable(value) or (functions and is_function(value)):
        return True
    if not isinstance(value, (list, tuple, dict)):
        return False
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return False
    seen.add(id(value))
    items = value.values() if isinstance(value, dict) else value
    return any(holds_trackables(v, seen, functions) for v in items)


def children(obj, functions=False):
    """``[(name, child)]``: the edges leaving ``obj``, in a fixed order.

    A module's are its attributes that hold trackables (by attribute name, those in
    ``_TF_MODULE_IGNORED_PROPERTIES`` left out); a list's or tuple's its items
    (``"0"``, ``"1"``...); a dict's its values (by key); an object with
    ``_trackable_children()`` names its own (a dict of them, or ``(name, child)``
    pairs). A variable has none. With ``functions`` (a saved model's walk), the functions
    they hold are edges too, and a function has none.
    """
    if functions and is_function(obj):
        return []
    own = getattr(type(obj), "_trackable_children", None)
    if callable(own):
        named = obj._trackable_children()  # a dict, as TensorFlow's, or (name, child) pairs
        items = list(named.items() if isinstance(named, dict) else named)
    elif isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        items = [(str(k), obj[k]) for k in sorted(obj, key=repr)]
    elif isinstance(obj, Module):
        skip = ignored_properties(obj)
        items = [(k, v) for k, v in sorted(vars(obj).items()) if k not in skip]
    else:
        return []
    return [(name, child) for name, child in items if holds_trackables(child, None, functions)]


def walk(root):
    """``(path, obj)`` for every object reachable from ``root``, breadth first, each once (by
    its first path); the root's path is ``""``, the others join edge names with ``/``."""
    objects, edges = graph(root)
    paths = [""] + [None] * (len(objects) - 1)
    for node, out in enumerate(edges):  # (a node's first edge comes from an earlier node)
        for name, child in out:
            if paths[child] is None:
                paths[child] = f"{paths[node]}/{name}" if paths[node] else name
    return list(zip(paths, objects))


def graph(root):
    """The object graph from ``root`` as numbered nodes: ``(objects, edges)``, where
    ``objects[i]`` is node ``i`` (``root`` is 0, then breadth first, as ``walk``) and
    ``edges[i]`` its ``[(name, node)]``, every edge, those to nodes met before too.

    >>> import runtime as rt
    >>> v = rt.Variable(1.0)
    >>> objects, edges = graph({"a": v, "b": [v]})
    >>> [type(o).__name__ for o in objects], edges
    (['dict', 'Variable', 'list'], [[('a', 1), ('b', 2)], [], [('0', 1)]])
    """
    objects, edges, number = [root], [], {id(root): 0}
    for obj in objects:  # grows while it is read
        out = []
        for name, child in children(obj):
            if id(child) not in number:
                number[id(child)] = len(objects)
                objects.append(child)
            out.append((name, number[id(child)]))
        edges.append(out)
    return objects, edges
