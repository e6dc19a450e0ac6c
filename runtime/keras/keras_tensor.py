"""``KerasTensor``: a symbolic tensor of the functional API, and the nodes that connect them.

``rt.keras.Input(shape=(3,))`` is a KerasTensor: a shape (batch dimension ``None``), a dtype
and a name, with no value. Calling a layer on KerasTensors computes nothing: the layer is
traced once on placeholders of those shapes in a scratch graph (which builds it), its outputs
are new KerasTensors of the traced shapes, and a ``Node`` records the call (which layer, on
which tensors, with which other arguments). ``rt.keras.Model(inputs, outputs)`` then runs
those nodes again on real tensors.

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> x = rt.keras.Input(shape=(3,), name="x")
>>> y = rt.keras.layers.Dense(4)(x)
>>> x
<KerasTensor shape=(None, 3), dtype=float32, sparse=False, ragged=False, name=x>
>>> y.shape, y.dtype, y._keras_history.operation.name
((None, 4), 'float32', 'dense')
"""

from __future__ import annotations

import collections
import threading

from runtime.core import context, dtypes, nest
from runtime.core.tensor_spec import TensorSpec
from runtime.execution.tracing import trace
from runtime.keras import backend

KerasHistory = collections.namedtuple("KerasHistory", ["operation", "node_index", "tensor_index"])


class KerasTensor:
    """A symbolic tensor: ``shape`` (a tuple, ``None`` for unknown sizes), ``dtype`` (a
    string), ``name``; ``_keras_history`` says which layer call made it."""

    # Above numpy's arrays: ``np.ones(3) @ x`` and ``np.ones(3) + x`` call ``x``'s reflected
    # operator, not numpy's, which would make an array of objects.
    __array_priority__ = 100

    def __init__(self, shape, dtype="float32", sparse=False, ragged=False, name=None):
        self._shape = standardize_shape(shape)
        self._dtype = dtypes.as_dtype(dtype or backend.floatx()).name
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        self.name = name or backend.unique_object_name("keras_tensor")
        self._keras_history = None
        self._keras_mask = None  # a KerasTensor too, where the layer that made this one masks

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    def __repr__(self):
        return (
            f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse={self.sparse}, "
            f"ragged={self.ragged}, name={self.name}>"
        )

    def __iter__(self):
        raise NotImplementedError("Iterating over a symbolic KerasTensor is not supported.")

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a boolean.")

    def numpy(self):
        raise ValueError(
            "A KerasTensor is symbolic: it's a placeholder for a shape and a dtype. It doesn't "
            "have any actual numerical value. You cannot convert it to a NumPy array."
        )

    # Arithmetic records an operation, as Keras 3's ops do on KerasTensors (operands in order).
    def __add__(self, other):
        return _operate("Add", self, other)

    def __radd__(self, other):
        return _operate("Add", other, self)

    def __sub__(self, other):
        return _operate("Subtract", self, other)

    def __rsub__(self, other):
        return _operate("Subtract", other, self)

    def __mul__(self, other):
        return _operate("Multiply", self, other)

    def __rmul__(self, other):
        return _operate("Multiply", other, self)

    def __truediv__(self, other):
        return _operate("TrueDivide", self, other)

    def __rtruediv__(self, other):
        return _operate("TrueDivide", other, self)

    def __neg__(self):
        return _operate("Negative", self)

    def __gt__(self, other):
        return _operate("Greater", self, other)

    def __ge__(self, other):
        return _operate("GreaterEqual", self, other)

    def __lt__(self, other):
        return _operate("Less", self, other)

    def __le__(self, other):
        return _operate("LessEqual", self, other)

    def __getitem__(self, key):
        return _operate("GetItem", self, key)

    # Keras 3's KerasTensor defines ``!=`` (an op) but not ``==``: equality stays identity, so
    # KerasTensors hash and sit in dicts and sets.
    def __ne__(self, other):
        return _operate("NotEqual", self, other)

    def __matmul__(self, other):
        return _operate("Matmul", self, other)

    def __rmatmul__(self, other):
        return _operate("Matmul", other, self)

    def __pow__(self, other):
        return _operate("Power", self, other)

    def __rpow__(self, other):
        return _operate("Power", other, self)

    def __floordiv__(self, other):
        return _operate("FloorDivide", self, other)

    def __rfloordiv__(self, other):
        return _operate("FloorDivide", other, self)

    def __mod__(self, other):
        return _operate("Mod", self, other)

    def __rmod__(self, other):
        return _operate("Mod", other, self)

    def __abs__(self):
        return _operate("Absolute", self)

    def __and__(self, other):
        return _operate("LogicalAnd", self, other)

    def __rand__(self, other):
        return _operate("LogicalAnd", other, self)

    def __or__(self, other):
        return _operate("LogicalOr", self, other)

    def __ror__(self, other):
        return _operate("LogicalOr", other, self)

    def __xor__(self, other):
        return _operate("LogicalXor", self, other)

    def __rxor__(self, other):
        return _operate("LogicalXor", other, self)

    def __invert__(self):
        return _operate("LogicalNot", self)

    def __round__(self, ndigits=None):
        return _operate("Round", self, decimals=ndigits or 0)


def standardize_shape(shape):
    """``shape`` as a tuple of ints and ``None`` (numpy's ints too), as Keras keeps it."""
    if shape is None:
        raise ValueError("Undefined shapes are not supported.")
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if isinstance(shape, int):
        shape = (shape,)
    out = []
    for size in shape:
        if size is not None:
            if not hasattr(size, "__index__") or isinstance(size, bool) or int(size) < 0:
                raise ValueError(
                    f"Cannot convert '{tuple(shape)}' to a shape. Found invalid dimension "
                    f"'{size}' of type '{type(size)}'. "
                )
            size = int(size)
        out.append(size)
    return tuple(out)


class Node:
    """One call of ``operation`` on KerasTensors: its arguments (the inputs first) and its
    outputs. An InputLayer's node has no inputs (``is_input``)."""

    def __init__(self, operation, args, kwargs, outputs):
        self.operation = operation
        self.args, self.kwargs = tuple(args), dict(kwargs)
        self.input_tensors = [x for x in nest.flatten([self.args, self.kwargs]) if is_symbolic(x)]
        self.outputs_structure = outputs
        self.outputs = [x for x in nest.flatten(outputs) if is_symbolic(x)]
        # The outputs' masks are made by this call too (after the outputs, by index).
        self.output_masks = [x._keras_mask for x in self.outputs if is_symbolic(x._keras_mask)]
        nodes = inbound_nodes(operation)
        nodes.append(self)
        for index, tensor in enumerate(self.outputs + self.output_masks):
            tensor._keras_history = KerasHistory(operation, len(nodes) - 1, index)

    @property
    def is_input(self):
        return not self.input_tensors

    @property
    def parent_nodes(self):
        """The nodes that made this node's input tensors."""
        return [node_of(x) for x in self.input_tensors]

    def fill_in(self, values):
        """The call's arguments with each KerasTensor replaced by ``values[id(tensor)]``."""
        flat = nest.flatten([self.args, self.kwargs])
        filled = [values[id(x)] if is_symbolic(x) else x for x in flat]
        args, kwargs = nest.pack_sequence_as([self.args, self.kwargs], filled)
        return args, kwargs

    def __repr__(self):
        return f"<Node operation={self.operation.name}, id={id(self)}>"


def inbound_nodes(operation):
    """The nodes of ``operation``'s calls on KerasTensors, in order (kept on the layer)."""
    nodes = operation.__dict__.get("_inbound_nodes")
    if nodes is None:
        nodes = []
        object.__setattr__(operation, "_inbound_nodes", nodes)
    return nodes


def node_attribute(layer, attribute):
    """``layer.input`` or ``layer.output``: of its first call on KerasTensors (Keras' rule)."""
    nodes = inbound_nodes(layer)
    if not nodes:
        raise AttributeError(
            f"The layer {layer.name} has never been called and thus has no defined {attribute}."
        )
    values = nodes[0].outputs if attribute == "output" else nodes[0].input_tensors
    return values[0] if len(values) == 1 else values


def node_of(tensor):
    """The node that made ``tensor``."""
    history = tensor._keras_history
    return inbound_nodes(history.operation)[history.node_index]


def is_symbolic(x):
    return isinstance(x, KerasTensor)


def any_symbolic(inputs, args, kwargs):
    """Whether a layer call is on KerasTensors (checked cheaply: eager calls pay for it)."""
    return (
        _holds_symbolic(inputs)
        or any(map(_holds_symbolic, args))
        or any(map(_holds_symbolic, kwargs.values()))
    )


def _holds_symbolic(value):
    if isinstance(value, KerasTensor):
        return True
    if isinstance(value, (list, tuple, dict)):
        return any(is_symbolic(x) for x in nest.flatten(value))
    return False


class _SymbolicCalls(threading.local):
    depth = 0


_symbolic_calls = _SymbolicCalls()


def tracing_symbolically():
    """How many symbolic calls are being traced (0: a call on values)."""
    return _symbolic_calls.depth


def symbolic_call(layer, inputs, args, kwargs):
    """Calls ``layer`` on placeholders standing for the KerasTensors among its arguments, in a
    scratch graph: returns KerasTensors of the traced outputs' shapes and records the node."""
    call = [(inputs, *args), kwargs]
    flat = nest.flatten(call)
    symbolic = [x for x in flat if is_symbolic(x)]
    specs = [TensorSpec(x.shape, x.dtype) for x in symbolic]
    masked = [i for i, x in enumerate(symbolic) if is_symbolic(x._keras_mask)]
    mask_specs = [TensorSpec(symbolic[i]._keras_mask.shape, "bool") for i in masked]

    def run(placeholders, mask_placeholders):
        for i, mask in zip(masked, mask_placeholders):  # the layer reads the inputs' masks
            placeholders[i]._keras_mask = mask
        given = iter(placeholders)
        filled = [next(given) if is_symbolic(x) else x for x in flat]
        (call_inputs, *call_args), call_kwargs = nest.pack_sequence_as(call, filled)
        outputs = layer(call_inputs, *call_args, **call_kwargs)
        return outputs, [getattr(x, "_keras_mask", None) for x in nest.flatten(outputs)]

    _symbolic_calls.depth = tracing_symbolically() + 1
    try:
        with context.eager_mode():  # a scratch graph of its own, whatever is being built
            graph = trace(run, [specs, mask_specs], "scratch_graph")
    finally:
        _symbolic_calls.depth -= 1
    traced, traced_masks = graph.structured_outputs
    outputs = nest.map_structure(_symbolic_like, traced)
    for output, mask in zip(nest.flatten(outputs), traced_masks):
        if is_symbolic(output) and mask is not None:
            output._keras_mask = _symbolic_like(mask)
    Node(layer, call[0], call[1], outputs)
    return outputs


def _symbolic_like(tensor):
    if tensor is None:
        return None
    shape = tensor.shape.as_list() if tensor.shape.rank is not None else ()
    return KerasTensor(shape, tensor.dtype.name)


# The layer class that records arithmetic on KerasTensors: runtime.keras.layers.tensor_operation
# sets it (a layer module: this one is imported by the base layer).
_operation_layer = {}


def _operate(kind, *operands, **options):
    return _operation_layer["class"](kind, **options)(*operands)
