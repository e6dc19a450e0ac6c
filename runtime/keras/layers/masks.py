"""How a layer call passes Keras masks along, as Keras 3's ``Layer.__call__`` does.

A mask is a boolean tensor attached to a tensor (``tensor._keras_mask``). A layer whose
``call`` takes ``mask`` and is given none gets its input's; after the call, a layer that
``supports_masking`` attaches ``compute_mask(inputs, mask)`` to its outputs; a layer that does
not drops the mask, with a warning, as Keras warns.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from runtime.core import nest
from runtime.core.tensor import Tensor
from runtime.keras.backend import get_keras_mask
from runtime.ops.constant_ops import convert_to_tensor

_named_masks = {}  # a Layer subclass -> its call's "<argument>_mask" parameters


def fill_in(layer, inputs, args, kwargs, takes_mask):
    """The mask the call is given (``mask=``), else its inputs' masks; fills in ``mask`` (a
    call of only its inputs) or ``<argument>_mask`` (a call of several tensors) where the call
    takes them and is not given them."""
    given = kwargs.get("mask")
    if given is not None:
        return given
    found = input_masks(inputs)
    if takes_mask:
        if found is not None and takes_only_inputs(args, kwargs):
            kwargs["mask"] = found
    elif args and _named_mask_parameters(layer):
        _fill_in_named(layer, inputs, args, kwargs)
    return found


def _named_mask_parameters(layer):
    cls = type(layer)
    found = _named_masks.get(cls)
    if found is None:
        names = inspect.signature(layer.call).parameters
        found = _named_masks[cls] = [n for n in names if n.endswith("_mask") and n[:-5] in names]
    return found


def _fill_in_named(layer, inputs, args, kwargs):
    bound = inspect.signature(layer.call).bind_partial(inputs, *args, **kwargs).arguments
    for name in _named_mask_parameters(layer):
        value = bound.get(name[:-5])
        if bound.get(name) is None and isinstance(value, (Tensor, list, tuple, dict)):
            masks = nest.map_structure(get_keras_mask, value)
            if any(m is not None for m in nest.flatten(masks)):
                kwargs[name] = masks


def input_masks(inputs):
    """The masks of ``inputs`` (one, or the structure of them); None when none has one."""
    if isinstance(inputs, Tensor):
        return getattr(inputs, "_keras_mask", None)
    if not isinstance(inputs, (list, tuple, dict)):
        return None
    masks = nest.map_structure(get_keras_mask, inputs)
    return masks if any(m is not None for m in nest.flatten(masks)) else None


def takes_only_inputs(args, kwargs):
    """Whether the call's only tensor argument is its inputs: Keras then fills in ``mask``
    (an ``initial_state`` given too leaves it out)."""
    others = [*args, *(v for k, v in kwargs.items() if k not in ("mask", "training"))]
    return not any(isinstance(x, (Tensor, np.ndarray)) for x in nest.flatten(others))


def attach_output_masks(layer, inputs, outputs, previous_mask):
    """Attaches ``layer.compute_mask(inputs, previous_mask)`` to the outputs that have no mask
    (a layer that supports masking), or warns that the mask is lost (one that does not).
    Called when there is a mask, or the layer's class computes its own."""
    if not layer.supports_masking:
        if previous_mask is not None and any(m is not None for m in nest.flatten(previous_mask)):
            warnings.warn(
                f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input with "
                "a mask attached to it. However, this layer does not support masking and will "
                "therefore destroy the mask information. Downstream layers will not see the mask.",
                stacklevel=3,
            )
        return
    flat_outputs = nest.flatten(outputs)
    if all(get_keras_mask(x) is not None for x in flat_outputs):
        return  # the call attached them itself
    masks = layer.compute_mask(inputs, previous_mask)
    if masks is None:
        return
    for output, mask in zip(flat_outputs, nest.flatten(masks)):
        if mask is not None and isinstance(output, Tensor) and get_keras_mask(output) is None:
            output._keras_mask = mask if isinstance(mask, Tensor) else convert_to_tensor(mask)
