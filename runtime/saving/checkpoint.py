"""``rt.train.Checkpoint``: training state saved and restored by object graph (``tf.train.Checkpoint``).

A checkpoint saves every variable reachable from its root through named edges
(attributes, list indices, dict keys, an optimizer's slots) and restores them
by the same paths in another program, whatever the variables' names. A
variable that does not exist yet when ``restore`` runs (a layer built on its
first call, an attribute set later) takes its saved value when it is created.

>>> import os, tempfile
>>> import runtime as rt
>>> directory = tempfile.mkdtemp()
>>> model = rt.Module()
>>> model.w = rt.Variable([1.0, 2.0])
>>> checkpoint = rt.train.Checkpoint(model=model)
>>> path = checkpoint.save(os.path.join(directory, "ckpt"))
>>> os.path.basename(path), os.path.exists(path + ".index")
('ckpt-1', True)
>>> fresh = rt.Module()
>>> status = rt.train.Checkpoint(model=fresh).restore(rt.train.latest_checkpoint(directory))
>>> fresh.w = rt.Variable([0.0, 0.0])      # created after the restore: restored now
>>> fresh.w.numpy()
array([1., 2.], dtype=float32)
>>> _ = status.assert_consumed()
"""

from __future__ import annotations

import os
import weakref

import numpy as np

from runtime import errors
from runtime.core import context, dtypes
from runtime.core.graph import name_scope
from runtime.saving.arrays import ArraysWriter
from runtime.saving.checkpoint_files import CheckpointFile, check_edge_name, write_checkpoint
from runtime.saving.checkpoint_restore import Restoration
from runtime.saving.checkpoint_state import CheckpointState, write_state
from runtime.state import deferred
from runtime.state.trackable import children, graph, holds_trackables, is_trackable
from runtime.state.variables import Variable

_OWN_ATTRIBUTES = frozenset({"_root", "_attached", "_save_counter"})
_NOT_FOUND_ADVICE = (
    "\nPlease double-check that the path is correct. You may be missing the checkpoint "
    "suffix (e.g. the '-1' in 'path/to/ckpt-1')."
)


def _check_trackable(value, name):
    # An ``ag.function`` is trackable in TensorFlow too (it holds no values to save).
    is_function = callable(getattr(value, "get_concrete_function", None))
    if not (is_trackable(value) or is_function or isinstance(value, (list, tuple, dict))):
        raise ValueError(
            f"`Checkpoint` was expecting {name} to be a trackable object (an object derived "
            f"from `Trackable`), got {value!r}. If you believe this object should be trackable "
            "(i.e. it is part of the TensorFlow Python API and manages state), please open an "
            "issue."
        )


class Checkpoint:
    """Groups trackable objects, saving and restoring them (``tf.train.Checkpoint``).

    ``Checkpoint(model=model, optimizer=optimizer)`` depends on each keyword's
    object under that name; ``Checkpoint(root)`` saves ``root``'s own graph (and
    the keywords next to its attributes). Attributes set on a checkpoint later
    are saved too. ``save`` numbers checkpoints with ``save_counter``.
    """

    # A subclass whose __init__ does not call Checkpoint's still works, as in TensorFlow.
    _save_counter = None
    _root = None
    _attached = {}  # (only read on the class; __init__ gives each checkpoint its own)

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_attached", {})
        object.__setattr__(self, "_root", root)  # may be a weakref.ref, as in TensorFlow
        if root is not None:
            _check_trackable(self._root_object(), "root")
        own = dict(children(self._root_object())) if root is not None else {}
        for name, value in sorted(kwargs.items()):
            _check_trackable(value, name)
            if root is not None:
                if name in own and own[name] is not value:
                    raise ValueError(
                        f"Cannot create a Checkpoint with keyword argument {name} if "
                        f"root.{name} already exists."
                    )
                self._attached[name] = value
            setattr(self, name, value)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name not in _OWN_ATTRIBUTES and deferred.is_waited_on(self):
            deferred.attached(self, name, value)

    @property
    def root(self):
        """The root object: ``root`` as given, else this checkpoint (TensorFlow's
        ``Checkpoint.root``)."""
        return self if self._root is None else self._root_object()

    def _trackable_children(self):
        found = {
            name: value
            for name, value in sorted(vars(self).items())
            if name not in _OWN_ATTRIBUTES and holds_trackables(value)
        }
        if self._save_counter is not None:
            found["save_counter"] = self._save_counter
        return found

    def _root_object(self):
        root = self._root
        if isinstance(root, weakref.ref):
            root = root()
            if root is None:
                raise ValueError("The root object of this Checkpoint (a weak reference) is gone.")
        return root

    def _graph_root(self):
        """The object the saved graph starts from: this checkpoint, or its root with the
        keyword objects and the save counter next to the root's own edges."""
        return self if self._root is None else _RootView(self)

    def _waits_on(self, name):
        """Which object a restoration waiting for the root's edge ``name`` waits on."""
        if self._root is None or name in self._attached or name == "save_counter":
            return self
        return self._root_object()

    @property
    def save_counter(self):
        """An int64 variable, 0 until the first ``save``, which adds 1 to it: it numbers them."""
        if self._save_counter is None:
            with context.eager_mode(), name_scope(""):
                counter = Variable(0, dtype=dtypes.int64, trainable=False, name="save_counter")
            object.__setattr__(self, "_save_counter", counter)
            deferred.attached(self, "save_counter", counter)
        return self._save_counter

    # --- writing ------------------------------------------------------------------------------

    def write(self, file_prefix, options=None):
        """Writes ``<file_prefix>.index`` and ``<file_prefix>.data-00000-of-00001``; returns
        ``file_prefix``. No numbering, no ``checkpoint`` state file: see ``save``."""
        _refuse_in_graph("write")
        prefix = os.fspath(file_prefix)
        objects, edges = graph(self._graph_root())
        arrays = ArraysWriter()
        nodes = []
        slots = _slot_records(objects)
        edges += [[] for _ in range(len(objects) - len(edges))]  # the slots: no edges
        for obj, out in zip(objects, edges):
            _refuse_bad_names(obj, out)
            node = {"children": [[name, child] for name, child in out]}
            if isinstance(obj, Variable):
                node["value"] = arrays.add(_stored_value(obj), obj.dtype, f"variable {obj.name!r}")
            if id(obj) in slots:
                node["slots"] = slots[id(obj)]
            nodes.append(node)
        write_checkpoint(prefix, nodes, arrays)
        return prefix

    def save(self, file_prefix, options=None):
        """Writes the checkpoint ``<file_prefix>-<n>`` (``n`` counts saves from 1), records it
        in the directory's ``checkpoint`` file for ``rt.train.latest_checkpoint``; returns its
        path."""
        _refuse_in_graph("save")
        prefix = os.fspath(file_prefix)
        with context.eager_mode():
            number = int(self.save_counter.assign_add(1).numpy())
        path = self.write(f"{prefix}-{number}")
        write_state(os.path.dirname(path) or ".", CheckpointState(path, [path]))
        return path

    # --- reading ------------------------------------------------------------------------------

    def read(self, save_path, options=None):
        """Restores the checkpoint ``save_path`` (as ``write`` returned it): see ``restore``;
        unlike it, does not create ``save_counter``."""
        if save_path is None:
            return InitializationOnlyStatus()
        prefix = os.fspath(save_path)
        restoration = Restoration(prefix, CheckpointFile(prefix))
        try:
            restoration.bind(0, self._graph_root(), self._waits_on)
        except (errors.InvalidArgumentError, ValueError):
            restoration.expect_partial[0] = True  # the error says it all: no warnings besides
            restoration.cancel()
            raise
        return CheckpointLoadStatus(restoration, self)

    def restore(self, save_path, options=None):
        """Restores the checkpoint ``save_path`` (from ``save``, or
        ``rt.train.latest_checkpoint``) into the objects at the same paths.

        Variables that exist take their values now; those created later at a
        restored path take theirs when they are attached. Returns a status:
        ``assert_consumed()``, ``assert_existing_objects_matched()``,
        ``assert_nontrivial_match()``, ``expect_partial()``. ``None`` restores
        nothing. A missing checkpoint raises ``rt.errors.NotFoundError``, a damaged
        one ``rt.errors.DataLossError``.
        """
        try:
            status = self.read(save_path, options)
        except errors.NotFoundError as e:
            raise errors.NotFoundError(
                f"Error when restoring from checkpoint or SavedModel at {save_path}: {e.message}"
                + _NOT_FOUND_ADVICE
            ) from None
        self.save_counter  # noqa: B018 (created now, so the restore reaches it)
        return status

    def __repr__(self):
        return f"<rt.train.Checkpoint {sorted(self._trackable_children())}>"


class _RootView:
    """A checkpoint's root as the saved graph sees it: its edges, the keyword objects, and
    the save counter."""

    def __init__(self, checkpoint):
        self._checkpoint = weakref.ref(checkpoint)

    def _trackable_children(self):
        checkpoint = self._checkpoint()
        found = dict(children(checkpoint._root_object()))
        found.update(checkpoint._attached)
        if checkpoint._save_counter is not None:
            found["save_counter"] = checkpoint._save_counter
        return found


def _stored_value(variable):
    value = np.asarray(variable.numpy())
    if variable.dtype is dtypes.string:
        stored = np.empty(value.shape, dtype=object)
        stored[...] = value
        return stored
    return value


def _slot_records(objects):
    """``{id(variable): [[optimizer node, slot name, slot node]]}`` for the optimizers among
    ``objects``, their slots appended to ``objects`` as nodes (TensorFlow records a slot on
    its variable's node). A slot of a variable not saved is not saved either."""
    number = {id(obj): i for i, obj in enumerate(objects)}
    records = {}
    for optimizer in list(objects):
        if not callable(getattr(type(optimizer), "_slot_variables", None)):
            continue
        for variable, name, slot in optimizer._slot_variables():
            if id(variable) not in number:
                continue
            if id(slot) not in number:
                number[id(slot)] = len(objects)
                objects.append(slot)
            records.setdefault(id(variable), []).append(
                [number[id(optimizer)], name, number[id(slot)]]
            )
    return records


def _refuse_bad_names(obj, edges):
    names = [name for name, _ in edges]
    for name in names:
        check_edge_name(name, obj)
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(
            f"Cannot save {obj!r:.100}: two of its entries are both named {twice[0]!r} (dict "
            "keys that are equal as text), so a restore could not tell them apart"
        )


def _refuse_in_graph(what):
    if context.building_graph() is not None:
        raise NotImplementedError(
            f"Calling rt.train.Checkpoint.{what}() from a function is not supported: it writes "
            "files when it is called, not when the function runs. Call it eagerly, outside the "
            "ag.function."
        )


class CheckpointLoadStatus:
    """What a restore matched: assertions about it (TensorFlow's ``CheckpointLoadStatus``)."""

    def __init__(self, restoration, checkpoint):
        self._restoration = restoration
        self._checkpoint = checkpoint

    def assert_consumed(self):
        """Every value in the checkpoint found its object, and every variable its value."""
        self.assert_existing_objects_matched()
        restoration = self._restoration
        unresolved = restoration.unresolved()
        if unresolved:
            names = ", ".join(restoration.names[node] for node in unresolved[:10])
            raise AssertionError(
                f"Unresolved object in checkpoint {restoration.names[unresolved[0]]}: "
                f'attributes {{ name: "VARIABLE_VALUE" }} ({len(unresolved)} values in '
                f"{restoration.path} have no object to restore into: {names})"
            )
        if restoration.unused_attributes:
            lines = "\n".join(
                f"{restoration.names[node]} ({binding.text}): ['VARIABLE_VALUE']"
                for node, binding in sorted(restoration.unused_attributes.items())
            )
            raise AssertionError(
                "Unused attributes in these objects (the attributes exist in the checkpoint "
                f"but were not restored):\n{lines}"
            )
        return self

    def assert_existing_objects_matched(self):
        """Every variable that exists now found its value (values without an object are
        allowed: a layer not built yet)."""
        unmatched = self._unmatched()
        if unmatched:
            shown = min(10, len(unmatched))
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed "
                f"values, likely due to changes in the Python program. Showing {shown} of "
                f"{len(unmatched)} unmatched objects: {unmatched[:shown]}"
            )
        return self

    def assert_nontrivial_match(self):
        """Something besides the root was matched."""
        if len(self._restoration.bound) <= 1:
            unmatched = self._unmatched()
            if unmatched:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically "
                    "this means that the checkpoint does not match the Python program. The "
                    f"following objects have no matching checkpointed value: {unmatched}"
                )
            raise AssertionError(
                f"Nothing to load. No dependencies have been added to {self._checkpoint!r} yet."
            )
        return self

    def expect_partial(self):
        """Says a partial restore is intended: no warning about values left unused. Returns
        the status."""
        self._restoration.expect_partial[0] = True
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: values are assigned eagerly (TensorFlow 1's graph mode needed it)."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: values are assigned eagerly."""

    def _unmatched(self):
        return self._restoration.unmatched_variables(self._checkpoint._graph_root())


class InitializationOnlyStatus:
    """The status of ``restore(None)``: nothing is restored."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def assert_consumed(self):
        raise AssertionError(self._MESSAGE)

    def assert_existing_objects_matched(self):
        raise AssertionError(self._MESSAGE)

    def assert_nontrivial_match(self):
        raise AssertionError(self._MESSAGE)

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        raise AssertionError(
            "No checkpoint specified, so no restore ops are available (save_path=None to "
            "Saver.restore)."
        )

    def initialize_or_restore(self, session=None):
        """Variables are initialised when they are created: nothing to run."""
