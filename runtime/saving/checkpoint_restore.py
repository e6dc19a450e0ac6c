"""Restoring a checkpoint by its object graph, now or when the objects are created.

A restore walks the saved graph and the live one together from their roots,
matching edges by name: a variable found at a saved variable's path takes its
value. Where the live graph lacks an edge whose saved subtree holds values, the
restore waits for it (``runtime.state.deferred``): attaching a trackable there
later (``self.v = rt.Variable(...)``, a layer building its kernel, an optimizer
making a slot) matches it then. Every value a step assigns is checked (dtype and
shape) before any is assigned, so a mismatch leaves the variables as they were.

The restoration holds live objects only weakly (containers by id): waiting
restorations are kept by the objects they wait on, and keep none of them alive.
"""

from __future__ import annotations

import collections
import functools
import logging
import weakref

from runtime import errors
from runtime.core import context
from runtime.saving.arrays import dtype_of
from runtime.state import deferred
from runtime.state.trackable import children, holds_trackables, walk
from runtime.state.variables import Variable

logger = logging.getLogger("runtime")
_CONTAINERS = (list, tuple, dict)


def node_names(edges):
    """TensorFlow's names of the saved nodes: ``(root)``, ``(root).model.dense.kernel``."""
    names = {0: "(root)"}
    queue = collections.deque([0])
    while queue:
        node = queue.popleft()
        for name, child in edges[node]:
            if child not in names:
                names[child] = f"{names[node]}.{name}"
                queue.append(child)
    return [names.get(i, f"(unreachable node {i})") for i in range(len(edges))]


def _nodes_leading_to_values(edges, has_value):
    """The nodes from which a node with a value can be reached (those worth waiting for)."""
    parents = [[] for _ in edges]
    for node, out in enumerate(edges):
        for _, child in out:
            parents[child].append(node)
    found = {i for i, value in enumerate(has_value) if value}
    queue = collections.deque(found)
    while queue:
        for parent in parents[queue.popleft()]:
            if parent not in found:
                found.add(parent)
                queue.append(parent)
    return found


class _Binding:
    """A live object a node was matched to: by weak reference, or by id for a container."""

    __slots__ = ("key", "ref", "text")

    def __init__(self, obj):
        self.key = id(obj)
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = None
        self.text = f"{obj!r:.200}"

    def holds(self, obj):
        return self.key == id(obj) and (self.ref is None or self.ref() is obj)


class _Step:
    """What one match decides, applied only once all of it is checked."""

    def __init__(self):
        self.bound = {}
        self.assignments = []  # (node, variable, value)
        self.unused = {}
        self.waits = []  # (parent, edge name, node)


class Restoration:
    """The state of one restore: which saved nodes are matched to which objects."""

    def __init__(self, path, nodes, values):
        self.path = path
        self.edges = [[(name, child) for name, child in node["children"]] for node in nodes]
        self.values = list(values)
        self.has_value = [value is not None for value in values]
        self.names = node_names(self.edges)
        self.worth_waiting = _nodes_leading_to_values(self.edges, self.has_value)
        self.bound = {}  # node -> _Binding
        self.unused_attributes = {}  # node -> _Binding: a value whose object is no variable
        self.expect_partial = [False]  # shared with the finalizer, which outlives this object
        weakref.finalize(
            self,
            _warn_unused,
            self.names,
            self.has_value,
            self.bound,
            self.unused_attributes,
            self.expect_partial,
        )

    def bind(self, node, obj, parent_of=None, owner=None, edge=None, again=False):
        """Matches ``obj`` (held by ``owner`` under ``edge``) to ``node`` and what hangs below
        it; assigns the values found. ``again``: ``obj``, a list or dict matched before, was
        reported again (entries added): its new entries are matched."""
        step = _Step()
        self._match(node, obj, step, parent_of, owner, edge, again)
        for saved, variable, value in step.assignments:
            self._check(saved, variable, value)
        self.bound.update(step.bound)
        self.unused_attributes.update(step.unused)
        with context.eager_mode():
            for saved, variable, value in step.assignments:
                variable.assign(value)
                self.values[saved] = None  # assigned: no need to hold it any more
        for parent, name, child in step.waits:
            self._wait(parent, name, child)

    def _match(self, node, obj, step, parent_of, owner, edge, again):
        queue = collections.deque([(node, obj, owner, edge)])
        while queue:
            node, obj, owner, edge = queue.popleft()
            if again:
                again = False  # matched before: only its entries are looked at again
            elif not self._bind_one(node, obj, step):
                continue
            live = dict(children(obj))
            missing = False
            for name, child in self.edges[node]:
                if name in live:
                    queue.append((child, live[name], obj, name))
                elif child in self.worth_waiting:
                    missing = True
                    parent = parent_of(name) if parent_of and node == 0 else obj
                    step.waits.append((parent, name, child))  # dropped for a list or dict
            if missing and owner is not None and isinstance(obj, _CONTAINERS):
                # Nothing reports what is added to a list: its owner may report the list again.
                step.waits.append((owner, edge, node))

    def _bind_one(self, node, obj, step):
        """Binds ``node`` to ``obj``; False when it was bound already (to it, or to another
        object: then it stays as it is, as in TensorFlow)."""
        current = step.bound.get(node) or self.bound.get(node)
        if current is not None:
            if not current.holds(obj):
                logger.warning(
                    "Inconsistent references when loading the checkpoint %s into this object "
                    "graph: %s refers to one object in the checkpoint but to two here "
                    "(%s and %.200r).",
                    self.path,
                    self.names[node],
                    current.text,
                    obj,
                )
            return False
        step.bound[node] = _Binding(obj)
        if self.has_value[node]:
            if isinstance(obj, Variable):
                step.assignments.append((node, obj, self.values[node]))
            else:
                step.unused[node] = step.bound[node]
        return True

    def _check(self, node, variable, value):
        where = f"{self.names[node]} of checkpoint {self.path}"
        saved = dtype_of(value)
        if saved is not variable.dtype:
            raise errors.InvalidArgumentError(
                f"Cannot restore variable {variable.name!r} from {where}: expected dtype "
                f"{variable.dtype.name} does not equal original dtype {saved.name}"
            )
        if list(value.shape) != variable.shape.as_list():
            raise ValueError(
                f"Received incompatible tensor with shape {tuple(value.shape)} when attempting "
                f"to restore variable with shape {tuple(variable.shape.as_list())} and name "
                f"{variable.name} (from {where})."
            )

    def _wait(self, parent, name, node):
        try:
            parent_ref = weakref.ref(parent)
        except TypeError:
            return  # a list or dict: nothing reports what is appended to it
        deferred.defer(parent, name, functools.partial(self._attached, parent_ref, name, node))

    def _attached(self, parent_ref, name, node, value):
        parent = parent_ref()
        binding = self.bound.get(node)
        if binding is not None:
            if binding.holds(value) and isinstance(value, _CONTAINERS):
                self.bind(node, value, owner=parent, edge=name, again=True)
            return
        if not holds_trackables(value):  # not what was waited for (yet): keep waiting
            if parent is not None:
                self._wait(parent, name, node)
            return
        self.bind(node, value, owner=parent, edge=name)

    # --- what the status reports ---------------------------------------------------------------

    def unresolved(self):
        """Saved nodes with values that no object took."""
        return [n for n, value in enumerate(self.has_value) if value and n not in self.bound]

    def unmatched_variables(self, root):
        """Variables reachable from ``root`` that no saved value reached."""
        bound = {binding.key: binding for binding in self.bound.values()}
        found = []
        for _, obj in walk(root):
            if isinstance(obj, Variable):
                binding = bound.get(id(obj))
                if binding is None or not binding.holds(obj):
                    found.append(obj)
        return found


def _warn_unused(names, has_value, bound, unused_attributes, expect_partial):
    """Logs, when a restoration ends, the values it found no object for (TensorFlow's warning;
    ``expect_partial()`` silences it). A restoration ends when its status is gone and nothing
    waits for an object any more."""
    if expect_partial[0]:
        return
    unresolved = [n for n, value in enumerate(has_value) if value and n not in bound]
    for node in unresolved:
        logger.warning(
            "Value in checkpoint could not be found in the restored object: %s", names[node]
        )
    for node in sorted(unused_attributes):
        logger.warning("Unused attribute in object %s: VARIABLE_VALUE", names[node])
    if unresolved or unused_attributes:
        logger.warning(
            "A checkpoint was restored (e.g. rt.train.Checkpoint.restore) but not all "
            "checkpointed values were used. See above for specific issues. Use expect_partial() "
            "on the load status object, e.g. rt.train.Checkpoint.restore(...).expect_partial(), "
            "to silence these warnings, or use assert_consumed() to make the check explicit."
        )
