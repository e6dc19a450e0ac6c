"""Restoring a checkpoint by its object graph, now or when the objects are created.

A restore walks the saved graph and the live one together from their roots,
matching edges by name: a variable found at a saved variable's path takes its
value. Where the live graph lacks an edge whose saved subtree holds values, the
restore waits for it (``runtime.state.deferred``): attaching a trackable there
later (``self.v = rt.Variable(...)``, a layer building its kernel, an optimizer
making a slot) matches it then. Every value a step assigns is checked (dtype and
shape) before any is assigned, so a mismatch leaves the variables as they were.

Named edges win over positions: a saved object that an attribute or a dict key
reaches is never matched through a list index (a layer's weights list, in the
order ``add_weight`` made them, does not decide which weight is ``kernel``).
An optimizer's slots are recorded on their variable's node, so a slot follows
its variable's path, whatever order the variables were first updated in.

The restoration holds live objects only weakly (containers by id), no values
and no open file: each value is read from the data file, opened again, when its
variable is matched. Waiting restorations are kept by the objects they wait on,
and keep none of them alive. Restores wait side by side, as TensorFlow's: a
newer one waiting for the same attribute replaces an older one's wait there
(the newest value wins), and leaves its waits elsewhere in place.
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
_MAX_WARNED_VALUES = 100


class NodeNames:
    """TensorFlow's names of the saved nodes (``(root)``, ``(root).model.dense.kernel``),
    each built from parent links when asked for: the index may describe a long chain."""

    def __init__(self, edges, slots=()):
        self._slot_of = {record.node: record for record in slots}
        self._parent = {0: None}  # node -> (parent node, edge name), by the first path found
        queue = collections.deque([0])
        while queue:
            node = queue.popleft()
            for name, child in edges[node]:
                if child not in self._parent:
                    self._parent[child] = (node, name)
                    queue.append(child)

    def __getitem__(self, node):
        if node not in self._parent and node in self._slot_of:  # TensorFlow's name of a slot
            slot = self._slot_of[node]
            optimizer = self[slot.optimizer].removeprefix("(root).")
            return f"{self[slot.primary]}.OPTIMIZER_SLOT.{optimizer}.{slot.name}"
        if node not in self._parent:
            return f"(unreachable node {node})"
        parts = []
        while self._parent[node] is not None:
            node, name = self._parent[node]
            parts.append(name)
        return ".".join(["(root)", *reversed(parts)])


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


def _positional_edges_to_named_nodes(edges):
    """``{(parent, name)}``: edges of a list (named ``"0"``... ``"k-1"``) leading to a node that
    an edge of another kind (an attribute, a key) reaches too. A restore never follows them."""
    lists = {
        node
        for node, out in enumerate(edges)
        if out and sorted(name for name, _ in out) == sorted(str(i) for i in range(len(out)))
    }
    named = {child for node, out in enumerate(edges) if node not in lists for _, child in out}
    return {(node, name) for node in lists for name, child in edges[node] if child in named}


class _Binding:
    """A live object a node was matched to: by weak reference, or by id for a container."""

    __slots__ = ("key", "ref", "kind")

    def __init__(self, obj):
        self.key = id(obj)
        self.kind = type(obj).__name__
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = None

    def holds(self, obj):
        return self.key == id(obj) and (self.ref is None or self.ref() is obj)

    def get(self):
        return None if self.ref is None else self.ref()

    @property
    def text(self):
        """The object, described (formatted only when a message shows it)."""
        obj = self.get()
        return f"a {self.kind}" if obj is None else f"{obj!r:.200}"


class _Step:
    """What one match decides, applied only once all of it is checked."""

    def __init__(self):
        self.bound = {}
        self.assignments = []  # (node, variable)
        self.unused = {}
        self.waits = []  # (parent, edge name, node)


class _Slot:
    """A saved slot variable: ``optimizer``'s slot ``name`` of the variable at ``primary``."""

    __slots__ = ("primary", "optimizer", "name", "node")

    def __init__(self, primary, optimizer, name, node):
        self.primary, self.optimizer, self.name, self.node = primary, optimizer, name, node


class Restoration:
    """The state of one restore from ``checkpoint`` (an open ``CheckpointFile``): which saved
    nodes are matched to which objects."""

    def __init__(self, path, checkpoint):
        self.path = path
        nodes = checkpoint.nodes
        self.edges = [[(name, child) for name, child in node["children"]] for node in nodes]
        self.has_value = [checkpoint.has_value(node) for node in range(len(nodes))]
        self._file = checkpoint
        self._slots = collections.defaultdict(list)  # node -> the _Slots it takes part in
        records = []
        for primary, node in enumerate(nodes):
            for optimizer, name, slot in node.get("slots", ()):
                records.append(_Slot(primary, optimizer, name, slot))
                self._slots[primary].append(records[-1])
                self._slots[optimizer].append(records[-1])
        self.names = NodeNames(self.edges, records)
        self.worth_waiting = _nodes_leading_to_values(self.edges, self.has_value)
        self.worth_waiting |= {
            record.primary for records in self._slots.values() for record in records
        }
        self._skipped = _positional_edges_to_named_nodes(self.edges)
        self.bound = {}  # node -> _Binding
        self.unused_attributes = {}  # node -> _Binding: a value whose object is no variable
        self.failed = set()  # nodes whose value did not fit (the error said so: no warning)
        self.expect_partial = [False]  # shared with the finalizer, which outlives this object
        self._to_assign = sum(self.has_value)
        self._waited_on = {}  # id(parent) -> weak reference: where this restoration waits
        weakref.finalize(
            self,
            _warn_unused,
            self.names,
            self.has_value,
            self.bound,
            self.unused_attributes,
            self.failed,
            self.expect_partial,
        )

    def cancel(self):
        """Stops waiting (the restore failed)."""
        parents = [ref() for ref in self._waited_on.values()]
        deferred.cancel(self, [p for p in parents if p is not None])
        self._waited_on.clear()

    def check_readable(self):
        """Raises DataLossError, before a waited-for attribute is set, when the data file is
        no longer the one restored from (its values could not be read once it is set). It
        raises once: the restoration stops waiting, so setting the attribute again works."""
        try:
            self._file.check_unchanged()
        except errors.DataLossError:
            self.expect_partial[0] = True  # the error said it: no warning about the values
            self.cancel()
            raise

    def bind(self, node, obj, parent_of=None, owner=None, edge=None, again=False):
        """Matches ``obj`` (held by ``owner`` under ``edge``) to ``node`` and what hangs below
        it; assigns the values found. ``again``: ``obj``, a list or dict matched before, was
        reported again (entries added): its new entries are matched."""
        step = _Step()
        self._match(node, obj, step, parent_of, owner, edge, again)
        self._assign(step)
        self.bound.update(step.bound)
        self.unused_attributes.update(step.unused)
        for parent, name, child in step.waits:
            self._wait(parent, name, child, functools.partial(self._attached, name, child))
        for node in step.bound:
            self._bind_slots(node)

    def _assign(self, step):
        """Reads the step's values, checks them all, then assigns them all."""
        if not step.assignments:
            return
        with self._file.reading() as value:
            values = [(n, variable, value(n)) for n, variable in step.assignments]
        try:
            for saved, variable, value in values:
                self._check(saved, variable, value)
        except (errors.InvalidArgumentError, ValueError):
            self.failed.update(n for n, _ in step.assignments)
            raise
        with context.eager_mode():
            for _, variable, value in values:
                variable.assign(value)
        self._to_assign -= len(values)

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
                if (node, name) in self._skipped:
                    continue
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
                step.assignments.append((node, obj))
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

    # --- waiting -------------------------------------------------------------------------------

    def _wait(self, parent, name, node, callback):
        try:
            parent_ref = weakref.ref(parent)
        except TypeError:
            return  # a list or dict: nothing reports what is appended to it
        self._waited_on[id(parent)] = parent_ref
        deferred.defer(parent, name, functools.partial(callback, parent_ref), owner=self)

    def _attached(self, name, node, parent_ref, value):
        parent = parent_ref()
        binding = self.bound.get(node)
        if binding is not None:
            if binding.holds(value) and isinstance(value, _CONTAINERS):
                self.bind(node, value, owner=parent, edge=name, again=True)
            return
        if not holds_trackables(value):  # not what was waited for (yet): keep waiting
            if parent is not None:
                self._wait(parent, name, node, functools.partial(self._attached, name, node))
            return
        self.bind(node, value, owner=parent, edge=name)

    # --- slots ---------------------------------------------------------------------------------

    def _bind_slots(self, node):
        """Matches the slots ``node`` takes part in whose variable and optimizer are both
        matched: to the optimizer's slot if it has one, else when it makes it."""
        for record in self._slots.get(node, ()):
            if record.node in self.bound or record.node in self.failed:
                continue
            primary, optimizer = self.bound.get(record.primary), self.bound.get(record.optimizer)
            variable = primary and primary.get()
            live = optimizer and optimizer.get()
            if variable is None or live is None or not hasattr(live, "_existing_slot"):
                continue
            existing = live._existing_slot(variable, record.name)
            if existing is not None:
                self.bind(record.node, existing)
            else:
                edge = deferred.slot_key(variable, record.name)
                self._wait(live, edge, record.node, functools.partial(self._slot_made, record))

    def _slot_made(self, record, parent_ref, slot):
        primary = self.bound.get(record.primary)
        if record.node not in self.bound and primary is not None and primary.get() is not None:
            self.bind(record.node, slot)  # (the variable lives: the id in the edge is its own)

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


def _warn_unused(names, has_value, bound, unused_attributes, failed, expect_partial):
    """Logs, when a restoration ends, the values it found no object for (TensorFlow's warning;
    ``expect_partial()`` silences it). A restoration ends when its status is gone and nothing
    waits for an object any more. Values whose restore failed are not listed (it raised)."""
    if expect_partial[0]:
        return
    unresolved = [
        n for n, value in enumerate(has_value) if value and n not in bound and n not in failed
    ]
    for node in unresolved[:_MAX_WARNED_VALUES]:
        logger.warning(
            "Value in checkpoint could not be found in the restored object: %s", names[node]
        )
    if len(unresolved) > _MAX_WARNED_VALUES:
        logger.warning("... and %d more values", len(unresolved) - _MAX_WARNED_VALUES)
    for node in sorted(unused_attributes):
        logger.warning("Unused attribute in object %s: VARIABLE_VALUE", names[node])
    if unresolved or unused_attributes:
        logger.warning(
            "A checkpoint was restored (e.g. rt.train.Checkpoint.restore) but not all "
            "checkpointed values were used. See above for specific issues. Use expect_partial() "
            "on the load status object, e.g. rt.train.Checkpoint.restore(...).expect_partial(), "
            "to silence these warnings, or use assert_consumed() to make the check explicit."
        )
