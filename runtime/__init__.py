"""runtime: numpy-backed tensors that run eagerly, graphs built by tracing, and sessions.

>>> import runtime as rt
>>> rt.constant(3) + 4
<rt.Tensor: shape=(), dtype=int32, numpy=7>
"""

from runtime import (
    compat,
    config,
    data,
    debugging,
    errors,
    keras,
    linalg,
    math,
    nn,
    onnx,
    profiler,
    random,
    saved_model,
    strings,
    summary,
    train,
)
from runtime._version import __version__
from runtime.core import nest
from runtime.core.context import executing_eagerly, init_scope
from runtime.core.devices import device
from runtime.core.dtypes import (
    DType,
    as_dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    variant,
)
from runtime.core.dtypes import bool_ as bool
from runtime.core.graph import FuncGraph, Graph, Operation, get_default_graph, name_scope
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.core.tensor_spec import TensorSpec
from runtime.execution.session import Session
from runtime.functions.control_flow import cond, while_loop
from runtime.functions.switch_case import switch_case
from runtime.gradients.custom_gradient import custom_gradient, recompute_grad
from runtime.gradients.graph import gradients
from runtime.gradients.tape import GradientTape
from runtime.ops import eager_operators as _eager_operators  # installs fast operators
from runtime.ops import op_samples as _op_samples  # noqa: F401 (registers the ops' samples)
from runtime.ops.array_ops import (
    concat,
    expand_dims,
    identity,
    ones_like,
    reshape,
    squeeze,
    stack,
    stop_gradient,
    transpose,
    unstack,
    zeros_like,
)
from runtime.ops.broadcast_ops import fill, ones, where, zeros
from runtime.ops.clip_ops import clip_by_global_norm, clip_by_value
from runtime.ops.constant_ops import cast, constant, convert_to_tensor, placeholder, range
from runtime.ops.control_flow_ops import control_dependencies, group, no_op
from runtime.ops.indexing_ops import gather, one_hot
from runtime.ops.linalg_ops import einsum, eye
from runtime.ops.logging_ops import (
    Assert,
    print,
)
from runtime.ops.math_ops import (
    abs,
    add,
    add_n,
    cos,
    divide,
    equal,
    exp,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
)
from runtime.ops.padding_ops import pad, tile
from runtime.ops.reduction_ops import (
    argmax,
    argmin,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from runtime.ops.scan_ops import cumsum
from runtime.ops.script_ops import py_function
from runtime.ops.sequence_ops import linspace
from runtime.ops.shape_ops import rank, shape, size
from runtime.ops.tensor_array_ops import TensorArray
from runtime.state.module import Module
from runtime.state.variables import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
    variable_creator_scope,
)
from runtime.views import dot as _dot  # noqa: F401 (each registers its view of graphs)
from runtime.views import render as _render  # noqa: F401
from runtime.views import text as _text  # noqa: F401

newaxis = None  # x[:, rt.newaxis] adds a dimension of size 1, as x[:, None] does

__all__ = [name for name in dir() if not name.startswith("_")]
