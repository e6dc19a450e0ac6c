"""``TensorOperation``: arithmetic and comparisons on KerasTensors (``x + y``, ``2 * x``,
``x > 0.5``, ``x[:, 0]``) as a node of the functional graph, as Keras 3's ops on KerasTensors
are. It is an operation, not a layer of the model: ``model.layers`` leaves it out. Its config
is Keras 3's for the op (``Add``, ``Subtract``, ``Multiply``, ``TrueDivide``, ``Negative``,
``Greater``, ``Matmul``, ``Power``, ``NotEqual``, ``LogicalAnd``, ``Round``... of
``keras.src.ops.numpy``), so a functional config holding ``x + y`` reads and
writes as Keras'; ``x[...]`` has none.

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> a, b = rt.keras.Input(shape=(2,)), rt.keras.Input(shape=(2,))
>>> model = rt.keras.Model([a, b], 2 * a - b)
>>> model([np.ones((1, 2)), np.ones((1, 2))]).numpy()
array([[1., 1.]], dtype=float32)
>>> [layer.name for layer in model.layers], [op.name for op in model.operations]
(['input_layer', 'input_layer_1'], ['input_layer', 'multiply', 'input_layer_1', 'subtract'])
"""

from __future__ import annotations

import operator

import numpy as np

from runtime.core import nest
from runtime.keras import backend, keras_tensor
from runtime.keras.layers.base import Layer
from runtime.ops.broadcast_ops import where, zeros_like
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.math_ops import logical_and, logical_not, logical_or, logical_xor, not_equal

# Keras 3's op classes (keras.src.ops.numpy) this layer stands for, with what they compute.
KERAS_OPS_MODULE = "keras.src.ops.numpy"
OPERATIONS = {
    "Add": operator.add,
    "Subtract": operator.sub,
    "Multiply": operator.mul,
    "TrueDivide": operator.truediv,
    "Negative": operator.neg,
    "Greater": operator.gt,
    "GreaterEqual": operator.ge,
    "Less": operator.lt,
    "LessEqual": operator.le,
    "GetItem": operator.getitem,
    "Matmul": operator.matmul,
    "Absolute": operator.abs,
    "Power": operator.pow,
    "FloorDivide": operator.floordiv,
    "Mod": operator.mod,
    "NotEqual": operator.ne,
    "LogicalAnd": lambda x, y: logical_and(_as_bool(x), _as_bool(y)),
    "LogicalOr": lambda x, y: logical_or(_as_bool(x), _as_bool(y)),
    "LogicalXor": lambda x, y: logical_xor(_as_bool(x), _as_bool(y)),
    "LogicalNot": lambda x: logical_not(_as_bool(x)),
    "Round": lambda x, decimals=0: _round(x, decimals),
}
_SERIALIZABLE = set(OPERATIONS) - {"GetItem"}


def _as_bool(x):
    """Keras's logical ops take any dtype: nonzero is True."""
    x = convert_to_tensor(x)
    return x if x.dtype.is_bool else not_equal(x, zeros_like(x))


def _round(x, decimals):
    """numpy's ``round``: to ``decimals`` places, halves to the even neighbour."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        return x
    scale = 10.0**decimals
    scaled = x * scale if decimals else x
    low = scaled // 1.0
    above = scaled - low
    even = low + low % 2.0  # the even one of low and low + 1
    rounded = where(above > 0.5, low + 1.0, where(above < 0.5, low, even))
    return rounded / scale if decimals else rounded


class TensorOperation(Layer):
    """Keras 3's op ``kind`` (``"Add"``...) on its operands, as one node; the operands keep
    their dtypes (no autocasting), Python numbers stay numbers."""

    def __init__(self, kind, name=None, **options):
        if kind not in OPERATIONS:
            raise ValueError(f"Unknown operation {kind!r}: expected one of {sorted(OPERATIONS)}")
        super().__init__(name=name or backend.unique_object_name(backend.to_snake_case(kind)))
        self.kind = kind
        self.options = options  # Keras's arguments of the op itself: Round's ``decimals``
        self.built = True  # no weights; its first operand may be a number

    def call(self, *operands):
        return OPERATIONS[self.kind](*operands, **self.options)

    # An op, not a layer: as Keras 3's ops, it makes no mask and does not warn that it drops one.
    _supports_masking = True

    def compute_mask(self, inputs, previous_mask):
        return None

    def _cast_inputs(self, inputs):
        return nest.map_structure(
            lambda x: convert_to_tensor(x) if isinstance(x, np.ndarray) else x, inputs
        )

    def get_config(self):
        if self.kind not in _SERIALIZABLE:
            raise NotImplementedError(
                f"The operation {self.name!r} ({self.kind} on KerasTensors) cannot be "
                "serialized: use a layer in a model you want to save."
            )
        return {"name": self.name, **self.options}


keras_tensor._operation_layer["class"] = TensorOperation
