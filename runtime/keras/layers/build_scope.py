"""How a layer is built and called in scope: the calls in progress (``training``, the layers
being called), a ``build`` that marks the layer built, and the name scope its variables get.

>>> import runtime as rt
>>> class Inner(rt.keras.layers.Layer):
...     def build(self, input_shape):
...         self.w = rt.Variable(1.0, name="w")   # made in build: named under the layer
>>> class Outer(rt.keras.layers.Layer):
...     def __init__(self):
...         super().__init__(name="outer")
...         self.inner = Inner(name="inner")
...     def call(self, x):
...         return self.inner(x)
>>> outer = Outer()
>>> _ = outer(rt.constant([1.0]))
>>> outer.inner.w.name
'outer/inner/w:0'
"""

from __future__ import annotations

import contextlib
import functools
import threading

from runtime.core.graph import name_scope
from runtime.core.tensor_shape import TensorShape


class CallContext(threading.local):
    """The ``training`` value of the layer calls in progress: inner layers inherit it."""

    def __init__(self):
        self.training = None
        self.depth = 0  # layer calls in progress: the outermost one clears the added losses
        # The layers whose calls or builds are in progress, outermost first: a variable a
        # layer's build() makes is named under them ("model/dense/w:0"), as in Keras.
        self.path = []


call_context = CallContext()  # this thread's layer calls and builds in progress


def marking_built(build):
    """``build``, then the layer marked built, as Keras 3 wraps every layer's ``build``: a layer
    built by hand (``dense.build((1, 2))``, then ``set_weights``) keeps its weights at its first
    call instead of being built again with fresh ones, whether or not its ``build`` says
    ``self.built = True`` or calls ``super().build``."""

    @functools.wraps(build)
    def build_then_mark_built(self, *args, **kwargs):
        with _in_scope_of(self):
            build(self, *args, **kwargs)
        self.built = True
        if getattr(self, "_build_input_shape", None) is None and args and args[0] is not None:
            self._build_input_shape = _as_shape(args[0])

    build_then_mark_built._marks_built = True
    return build_then_mark_built


@contextlib.contextmanager
def _in_scope_of(layer):
    """The variables made inside are named under ``layer`` and the layers calling it
    (``outer/inner/w:0``), as Keras 3 builds a layer in its name scope; a subclass's build
    calling ``super().build`` stays in the same scope."""
    path = call_context.path
    if path and path[-1] is layer:
        yield
        return
    path.append(layer)
    try:
        with name_scope("/".join(entry.name for entry in path) + "/"):
            yield
    finally:
        path.pop()


def _as_shape(shape):
    """One shape (a tuple of sizes) as a TensorShape; several shapes as they are."""
    flat = isinstance(shape, (list, tuple)) and all(d is None or isinstance(d, int) for d in shape)
    return TensorShape(shape) if flat else shape


class LayerNameScope(name_scope):
    """``layer.name_scope``: a name scope that, called, gives the layer's name."""

    def __init__(self, scope_name, layer_name):
        super().__init__(scope_name)
        self._layer_name = layer_name

    def __call__(self):
        return self._layer_name
