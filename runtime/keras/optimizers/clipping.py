"""Gradient clipping as Keras 3's optimizers do it, before each update.

- ``clipnorm``: each gradient ``g`` becomes ``g * clipnorm / max(norm(g), clipnorm)``.
- ``clipvalue``: each element is clipped to ``[-clipvalue, clipvalue]``.
- ``global_clipnorm``: all gradients are scaled together so that their joint norm is at most
  ``global_clipnorm`` (an infinite or NaN norm makes them NaN, to show the overflow).

>>> import runtime as rt
>>> clip_gradients([rt.constant([3.0, 4.0])], clipnorm=1.0)[0].numpy()
array([0.6, 0.8], dtype=float32)
"""

from __future__ import annotations

from runtime.ops.broadcast_ops import where
from runtime.ops.clip_ops import clip_by_global_norm, clip_by_value
from runtime.ops.math_ops import maximum, sqrt, square
from runtime.ops.reduction_ops import reduce_sum


def check_clip_arguments(clipnorm, clipvalue, global_clipnorm):
    """ValueError (Keras' words) when more than one way of clipping is asked for."""
    if sum(arg is not None for arg in (clipnorm, clipvalue, global_clipnorm)) > 1:
        raise ValueError(
            "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. "
            f"Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
            f"global_clipnorm={global_clipnorm}"
        )


def clip_by_norm(gradient, clipnorm):
    """``gradient * clipnorm / max(norm, clipnorm)``, with a finite gradient at norm 0."""
    squares = reduce_sum(square(gradient))
    positive = squares > 0.0
    norm = where(positive, sqrt(where(positive, squares, 1.0)), squares)
    return gradient * clipnorm / maximum(norm, clipnorm)


def clip_gradients(grads, clipnorm=None, clipvalue=None, global_clipnorm=None):
    """The gradients clipped by whichever of the three arguments is set (as they are if none)."""
    if clipnorm is not None:
        return [clip_by_norm(g, clipnorm) for g in grads]
    if clipvalue is not None:
        return [clip_by_value(g, -clipvalue, clipvalue) for g in grads]
    if global_clipnorm is not None:
        return clip_by_global_norm(list(grads), global_clipnorm)[0]
    return list(grads)
