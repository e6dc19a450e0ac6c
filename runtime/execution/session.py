"""TensorFlow 1 style execution: ``Session.run(fetches, feed_dict)``.

Only the ops the fetches need run; the compiled program for each set of
fetches and feeds is cached.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.string, [], name="x")
...     y = rt.placeholder(rt.string, [], name="y")
...     z = rt.strings.join([x, y], separator=" ")
>>> with rt.Session(graph=g) as sess:
...     sess.run(z, feed_dict={x: "hello", y: "world"})
b'hello world'
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from runtime.core import nest, tracebacks
from runtime.core.graph import Graph, Operation, get_default_graph
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, to_numpy
from runtime.execution.compile import compile_graph
from runtime.ops.constant_ops import constant_value


class Session:
    """Runs parts of one graph. Usable as a context manager, which also makes its graph the default."""

    def __init__(self, graph: Graph | None = None):
        self.graph = graph if graph is not None else get_default_graph()
        self._programs = {}
        self._states = {}  # this session's random generators, restarted per session as in TF1
        self._closed = False
        self._default = None

    def run(self, fetches, feed_dict=None):
        """Computes ``fetches`` (a tensor, op, or nested list/tuple/dict of them).

        Returns numpy values in the same structure (``bytes`` for string
        scalars, None for ops).
        """
        try:
            return self._run(fetches, feed_dict)
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _run(self, fetches, feed_dict):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = nest.flatten(fetches)
        elements = [self._fetch_element(f) for f in flat]
        feed_tensors, feed_values = self._feeds(feed_dict)
        key = (tuple(map(id, elements)), tuple(map(id, feed_tensors)), self.graph.version)
        program = self._programs.get(key)
        if program is None:
            program = compile_graph(self.graph, feed_tensors, elements, states=self._states)
            self._programs[key] = program
        results = program(*feed_values)
        return nest.pack_sequence_as(fetches, [_user_value(r) for r in results])

    def _fetch_element(self, fetch):
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type: fetch a tensor or an operation")
        if hasattr(fetch, "_as_tensor") and not isinstance(fetch, Tensor):
            with self.graph.as_default():
                return fetch.read_value()
        if isinstance(fetch, EagerTensor):
            raise TypeError("Cannot fetch an eager tensor from a Session: it already has its value")
        element = self.graph.as_graph_element(fetch)
        if not isinstance(element, (SymbolicTensor, Operation)):
            raise TypeError(f"Cannot fetch {fetch!r}")
        return element

    def _feeds(self, feed_dict):
        if feed_dict is None:
            return [], []
        if not isinstance(feed_dict, Mapping):
            raise TypeError(
                f"feed_dict must be a dict from placeholders to values, like {{x: 1.0}}; "
                f"got a {type(feed_dict).__name__}: {feed_dict!r}"
            )
        tensors, values = [], []
        for key, value in feed_dict.items():
            t = self.graph.as_graph_element(key)
            if not isinstance(t, SymbolicTensor):
                raise TypeError(f"Cannot feed {key!r}: feed keys must be tensors")
            tensors.append(t)
            values.append(feed_value(t, value))
        return tensors, values

    def close(self):
        self._closed = True
        self._programs.clear()

    def __enter__(self):
        self._default = self.graph.as_default()
        self._default.__enter__()
        return self

    def __exit__(self, *exc):
        self._default.__exit__(*exc)
        self._default = None
        self.close()


def feed_value(t: SymbolicTensor, value):
    """``value`` converted for feeding ``t``; TypeError or ValueError naming ``t`` if it does not fit.

    Values of another precision of the same kind are cast (a float64 array
    feeds a float32 placeholder); a value of another kind (a float for an
    int placeholder, a number for a string) is an error.
    """
    if isinstance(value, EagerTensor):
        value = value._value
    elif isinstance(value, SymbolicTensor):
        # A constant made inside `with Session(graph):` lands in the graph; its value is known.
        known = constant_value(value)
        if known is None:
            raise TypeError(
                f"The value fed to {t.name!r} cannot be the symbolic tensor {value.name!r}: feed "
                "Python scalars, strings, lists, numpy arrays or eager tensors."
            )
        value = known
    elif hasattr(value, "_as_tensor"):
        value = value.numpy()
    dtype = t.dtype
    try:
        arr = _feed_numpy(value, dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"Cannot feed {_describe(value)} to {t.name!r}, which has dtype {dtype.name}: {e}"
        ) from None
    if not t.shape.is_compatible_with(np.shape(arr)):
        raise ValueError(
            f"Cannot feed value of shape {np.shape(arr)} for Tensor {t.name!r}, which has shape {t.shape}"
        )
    return arr


def _feed_numpy(value, dtype):
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind not in "SUO":
        kind = value.dtype.kind
        ok = (
            (kind == "b" and dtype.is_bool)
            or (kind in "iu" and dtype.is_numeric)
            or (kind == "f" and dtype.is_floating)
        )
        if not ok:
            raise TypeError(f"a {value.dtype} value does not silently become {dtype.name}")
        return to_numpy(value, dtype)
    return to_numpy(value, dtype, cast_numpy=False)


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of shape {value.shape}"
    return f"{value!r}"


def _user_value(value):
    """Numpy values as Session.run returns them: scalars unwrapped (bytes for strings)."""
    if isinstance(value, np.ndarray):
        return value[()] if value.ndim == 0 else value.copy()  # never a view of graph state
    return value
