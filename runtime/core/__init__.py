"""The data the rest is built on: dtypes, shapes, tensors, specs, op rows, graphs, nesting,
and how values print (``formatting``, tf.print's text)."""
