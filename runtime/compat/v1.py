"""``rt.compat.v1``: the TensorFlow 1 spellings the seeds use, for graphs built by hand.

>>> import runtime as rt
>>> g = rt.compat.v1.Graph()
>>> with g.as_default():
...     x = rt.compat.v1.placeholder(rt.int32, [])
...     y = x * 2
>>> rt.compat.v1.Session(graph=g).run(y, {x: 21})
np.int32(42)
"""

from runtime.core.graph import Graph, get_default_graph, name_scope
from runtime.execution.session import Session
from runtime.ops.constant_ops import placeholder
from runtime.ops.string_ops import join as string_join  # tf.string_join, tf.compat.v1's too

__all__ = ["Graph", "Session", "get_default_graph", "name_scope", "placeholder", "string_join"]
