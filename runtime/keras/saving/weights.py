"""Keras 3's weights layout in HDF5 (``model.weights.h5``, ``*.weights.h5``).

Each Keras object with state (a layer, a model, an optimizer) has a group
``<path>/vars`` whose datasets ``0``, ``1``... are its own variables: a layer's
trainable ones then the others, each in the order it made them; an optimizer's
``variables``. The model is at the root (``/vars``); a Sequential's layers under
``layers/<class name in snake case>`` (``dense``, ``dense_1``...: a number per class,
not the layers' own names); other layers and the optimizer under the attribute
holding them (``optimizer``, ``dense``), lists under the list's attribute. The
``vars`` group's ``name`` attribute is the object's name.

Reading checks each dataset before reading it: a plain dataset reached through hard
links alone (no soft link, no link out of the file, no external storage), of the
variable's shape; so a file never reads more than the model's own size.
"""

from __future__ import annotations

import posixpath
import warnings

import numpy as np

from runtime.keras import backend
from runtime.state.variables import Variable

# Attributes of layers and models that are not children to save (they are saved otherwise, or
# are bookkeeping).
_SKIPPED = {
    "_layers",
    "_operations",  # a functional model's: its layers are saved under layers/
    "_tracking",
    "_own_weights",
    "compiled_loss",
    "compiled_metrics",
}


def _is_optimizer(obj):
    return hasattr(obj, "apply_gradients") and hasattr(obj, "iterations")


def is_layer(obj):
    from runtime.keras.layers.base import Layer  # here: layers read configs through saving

    return isinstance(obj, Layer)


def _is_saveable(obj):
    return is_layer(obj) or _is_optimizer(obj)


def own_variables(obj):
    """The variables ``obj`` stores in its own ``vars`` group, in Keras's order. An optimizer's
    are its ``variables`` (iterations, learning rate, then the slots as ``build`` made them
    for the model's trainable variables)."""
    if _is_optimizer(obj):
        return list(obj.variables)
    own = obj._own_variables()
    return [v for v in own if v.trainable] + [v for v in own if not v.trainable]


def children(obj):
    """``[(attribute, child)]`` of a saveable, in Keras's order: a Sequential's ``layers``
    first, then attributes by name, private ones (``_x``) last."""
    found = []
    if getattr(obj, "_saves_layers_first", False):  # Sequential, functional models
        found.append(("layers", list(obj.layers)))
    names = sorted(vars(obj), key=lambda n: "~" + n if n.startswith("_") else n)
    for name in names:
        if name.startswith("__") or name in _SKIPPED:
            continue
        value = vars(obj)[name]
        if _is_saveable(value) or isinstance(value, (list, tuple, dict)):
            found.append((name, value))
    return found


def _join(path, name):
    return f"{path}/{name}" if path else name


def walk(obj, path="", visited=None):
    """``[(path, saveable)]`` of ``obj`` and everything it holds, each once, in Keras's order."""
    visited = set() if visited is None else visited
    if id(obj) in visited:
        return []
    visited.add(id(obj))
    found = [(path, obj)]
    for name, child in children(obj):
        if _is_saveable(child):
            found += walk(child, _join(path, name), visited)
        else:
            found += _walk_container(child, _join(path, name), visited)
    return found


def _walk_container(container, path, visited):
    items = list(container.values()) if isinstance(container, dict) else list(container)
    used, found = {}, []
    for item in items:
        if _is_saveable(item):
            base = backend.to_snake_case(type(item).__name__)
        elif isinstance(item, (list, tuple, dict)):
            base = "container"
        else:
            continue
        count = used.get(base)
        used[base] = 0 if count is None else count + 1
        name = base if count is None else f"{base}_{count + 1}"
        if _is_saveable(item):
            found += walk(item, _join(path, name), visited)
        elif id(item) not in visited:
            visited.add(id(item))
            found += _walk_container(item, _join(path, name), visited)
    return found


def prepare_optimizer(model):
    """Makes the optimizer's variables for every trainable variable of ``model``, as Keras
    builds its optimizer before saving or loading its state."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not _is_optimizer(optimizer):
        return
    optimizer.build(model.trainable_variables)


def save_weights(model, h5file):
    """Writes ``model``'s state into the open h5py File ``h5file``."""
    prepare_optimizer(model)
    for path, obj in walk(model):
        group = h5file.require_group(_join(path, "vars"))
        name = getattr(obj, "name", None)
        if isinstance(name, str):
            group.attrs["name"] = name
        for index, variable in enumerate(own_variables(obj)):
            group.create_dataset(str(index), data=variable.numpy())


def load_weights(model, h5file, where, skip_mismatch=False):
    """Assigns ``model``'s state from the open h5py File ``h5file`` (``where``: the file, for
    errors). Every value is checked before any is assigned: a failure changes nothing. With
    ``skip_mismatch``, an object whose values do not fit is left as it is, with a warning. An
    optimizer whose number of variables differs from the file's is left as it is, with a
    warning, as Keras does (its state was saved for another model, or none was)."""
    prepare_optimizer(model)
    assignments = []
    for path, obj in walk(model):
        variables = own_variables(obj)
        try:
            values = _read_vars(h5file, path, variables, obj, where)
        except ValueError as e:
            if not skip_mismatch:
                raise
            warnings.warn(
                f"Skipping loading weights for '/{path}' due to mismatch: {e}", stacklevel=3
            )
            continue
        if values is not None:
            assignments += zip(variables, values)
    for variable, value in assignments:
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))


def _read_vars(h5file, path, variables, obj, where):
    """The values of ``obj``'s ``variables``, checked; None for an optimizer skipped."""
    import h5py

    group = _stored(h5file, _join(path, "vars"), h5py.Group, where)
    names = list(group.keys()) if group is not None else []
    label = getattr(obj, "name", type(obj).__name__)
    if len(names) != len(variables) and _is_optimizer(obj):
        warnings.warn(_optimizer_skipped(label, len(variables), len(names)), stacklevel=4)
        return None
    if len(names) != len(variables):
        raise ValueError(
            f"Layer '{label}' expected {len(variables)} variables, but received {len(names)} "
            f"variables during loading. Expected: {[_short(v) for v in variables]} "
            f"(in {where}, at '/{_join(path, 'vars')}')"
        )
    values = []
    for index, variable in enumerate(variables):
        dataset = _stored(group, str(index), h5py.Dataset, where)
        if dataset is None:
            raise ValueError(f"{where}: '/{_join(path, 'vars')}' has no dataset '{index}'")
        _check_dataset(dataset, variable, label, where)
        values.append(np.asarray(dataset[()]))
    return values


def _optimizer_skipped(name, expected, stored):
    message = (
        f"Skipping variable loading for optimizer '{name}', because it has {expected} "
        f"variables whereas the saved optimizer has {stored} variables. "
    )
    if expected == 0:
        message += "This is likely because the optimizer has not been called/built yet."
    return message


def _stored(parent, path, kind, where):
    """``parent[path]`` when it is a ``kind`` reached through hard links alone, None when
    absent. Each step of ``path`` is checked: a soft or external link anywhere along it (not
    only at its end) would read weights from elsewhere, even from another file."""
    import h5py

    node = parent
    for name in path.split("/"):
        if not isinstance(node, h5py.Group):
            raise ValueError(f"{where}: '{node.name}' is not an HDF5 group")
        link = node.get(name, getlink=True)
        if link is None:
            return None
        shown = posixpath.join(node.name, name)
        if isinstance(link, h5py.ExternalLink):
            raise ValueError(f"{where}: '{shown}' links outside the file (ExternalLink)")
        if not isinstance(link, h5py.HardLink):
            raise ValueError(
                f"{where}: '{shown}' is a {type(link).__name__}: weights are read only "
                "where they are stored, through hard links"
            )
        node = node[name]
    if not isinstance(node, kind):
        raise ValueError(f"{where}: '{node.name}' is not an HDF5 {kind.__name__.lower()}")
    return node


def _check_dataset(dataset, variable, label, where):
    if dataset.is_virtual or dataset.external:
        raise ValueError(f"{where}: '{dataset.name}' keeps its data outside the file")
    expected = tuple(variable.shape.as_list())
    if tuple(dataset.shape) != expected:
        raise ValueError(
            f"{where}: the weight {_short(variable)!r} of layer '{label}' has shape {expected}, "
            f"but '{dataset.name}' holds shape {tuple(dataset.shape)}"
        )
    if dataset.dtype.kind not in "fiub":
        raise ValueError(f"{where}: '{dataset.name}' holds {dataset.dtype}, not numbers")


def _short(variable: Variable):
    return variable.name.rsplit("/", 1)[-1].removesuffix(":0")
