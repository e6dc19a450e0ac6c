"""``rt.train.list_variables``: what a checkpoint holds, by the names TensorFlow gives its keys.

A variable's key is the path of attributes from the checkpoint's root then
``/.ATTRIBUTES/VARIABLE_VALUE`` (``model/dense/w/.ATTRIBUTES/VARIABLE_VALUE``); an optimizer's
slot is its variable's path, ``/.OPTIMIZER_SLOT/``, the optimizer's path and the slot's name.
The object graph itself is listed as ``_CHECKPOINTABLE_OBJECT_GRAPH``, as in TensorFlow.

>>> import tempfile, runtime as rt
>>> path = rt.train.Checkpoint(scale=rt.Variable([1.0, 2.0])).write(tempfile.mkdtemp() + "/c")
>>> rt.train.list_variables(path)
[('_CHECKPOINTABLE_OBJECT_GRAPH', []), ('scale/.ATTRIBUTES/VARIABLE_VALUE', [2])]
"""

from __future__ import annotations

import os

from runtime.saving.checkpoint_files import CheckpointFile
from runtime.saving.checkpoint_manager import latest_checkpoint


def list_variables(ckpt_dir_or_file):
    """``[(key, shape)]``, sorted by key, of the checkpoint at a prefix or the newest in a
    directory (TensorFlow's ``tf.train.list_variables``)."""
    prefix = ckpt_dir_or_file
    if os.path.isdir(prefix):
        prefix = latest_checkpoint(prefix)
        if prefix is None:
            raise ValueError(
                f"Couldn't find 'checkpoint' file or checkpoints in {ckpt_dir_or_file}"
            )
    checkpoint = CheckpointFile(os.fspath(prefix))
    paths = _paths(checkpoint.nodes)
    listed = [("_CHECKPOINTABLE_OBJECT_GRAPH", [])]
    with checkpoint.reading() as value:
        for node, path in paths.items():
            if checkpoint.has_value(node):
                listed.append((f"{path}/.ATTRIBUTES/VARIABLE_VALUE", list(value(node).shape)))
            for optimizer, name, slot in checkpoint.nodes[node].get("slots", ()):
                if checkpoint.has_value(slot) and optimizer in paths:
                    key = f"{path}/.OPTIMIZER_SLOT/{paths[optimizer]}/{name}"
                    listed.append((f"{key}/.ATTRIBUTES/VARIABLE_VALUE", list(value(slot).shape)))
    return sorted(listed)


def _paths(nodes):
    """Each node reached from the root (node 0) by its first path, breadth first."""
    paths, queue = {0: ""}, [0]
    for node in queue:
        for name, child in nodes[node]["children"]:
            if child not in paths:
                paths[child] = f"{paths[node]}/{name}" if paths[node] else name
                queue.append(child)
    return paths
