"""``export``: a function's optimised graph as an ONNX model file, checked by ``onnx.checker``.

The model's inputs are the function's tensor arguments, in order and under
their names, unknown dimensions named after them (``x_dim0``); its outputs are
the function's results, flattened, named ``output_0``, ``output_1``... (with a suffix,
``output_0_1``, where an input already has that name).
"""

from __future__ import annotations

import contextlib
import os
import tempfile

from runtime import errors
from runtime.core import dtypes
from runtime.core.graph import FuncGraph
from runtime.execution.optimize import optimize
from runtime.export.onnx_branches import inline_constant_branches
from runtime.export.onnx_graph import ModelParts, Scope
from runtime.export.onnx_types import OPSET
from runtime.extras import require

PRODUCER = "autograph"


def export(fn, path, input_signature=None):
    """Writes ``fn`` as an ONNX model to ``path`` and returns the model (an ``onnx.ModelProto``).

    ``fn`` is a ConcreteFunction, an ``ag.function`` with an input_signature (or
    ``input_signature`` given here), or a function of a loaded saved model.
    Raises UnimplementedError, naming the op and the line that made it, when an
    op has no ONNX form; nothing is then written. Needs the ``onnx`` extra.
    """
    onnx = require("onnx", "onnx", "Exporting to ONNX")
    graph, input_names, name = _function_graph(fn, input_signature)
    model = build_model(onnx, graph, input_names, name)
    onnx.checker.check_model(model, full_check=True)
    _write_atomically(model.SerializeToString(), os.fspath(path))
    return model


def _function_graph(fn, input_signature):
    """The optimised graph of ``fn``, its inputs' names, and its name."""
    if hasattr(fn, "get_concrete_function"):  # an ag.function
        if input_signature is not None:
            fn = fn.get_concrete_function(*input_signature)
        elif getattr(fn, "input_signature", None) is not None:
            fn = fn.get_concrete_function()
        else:
            raise TypeError(
                f"rt.onnx.export: {getattr(fn, '__name__', fn)!r} has no input_signature, so the "
                "model's inputs are unknown: give it one, pass input_signature=[rt.TensorSpec(...), "
                "...], or pass a concrete function (fn.get_concrete_function(...))"
            )
    elif input_signature is not None:
        raise TypeError(
            "rt.onnx.export: input_signature is for an ag.function; a concrete or loaded "
            "function's inputs are already fixed"
        )
    graph = getattr(fn, "graph", None)
    if not isinstance(graph, FuncGraph):
        raise TypeError(
            "rt.onnx.export: expected a ConcreteFunction, an ag.function with an "
            f"input_signature, or a function of a loaded saved model; got {fn!r}"
        )
    names = getattr(fn, "arguments", None) or [t.op.name for t in graph.inputs]
    return optimize(graph)[0], [str(n) for n in names], getattr(fn, "name", graph.graph_name)


def build_model(onnx, graph, input_names, name):
    """The ONNX model computing ``graph`` (a FuncGraph) from inputs named ``input_names``."""
    parts = ModelParts(onnx, graph)
    scope = Scope(parts)
    inputs, bindings = [], []
    for t, arg in zip(graph.inputs, input_names, strict=True):
        if t.shape.rank is None:
            raise ValueError(
                f"rt.onnx.export: ONNX needs the rank of every input, and {arg!r} has an unknown "
                "shape; give it a shape (None for a dimension of any size)"
            )
        if t.dtype is dtypes.resource:
            raise errors.UnimplementedError(
                f"rt.onnx.export: argument {arg!r} of {name!r} is a variable, which an ONNX "
                "model cannot take as an input; read the variable from the function's closure "
                "(its value is exported), or pass its value as a tensor"
            )
        input_name = parts.claim(arg)  # (not ``name``: the model's, used below)
        bindings.append(input_name)
        inputs.append(
            parts.value_info(
                input_name, scope.type_of(t), dims=lambda i, a=input_name: f"{a}_dim{i}"
            )
        )
    output_names = [parts.claim(f"output_{i}") for i in range(len(graph.outputs))]
    results = scope.emit(graph, bindings)
    outputs = []
    for i, (t, result, out) in enumerate(zip(graph.outputs, results, output_names)):
        if t.shape.rank is None:
            raise ValueError(
                f"rt.onnx.export: output {i} of {name!r} has an unknown rank, which an ONNX "
                "model cannot declare; give the function inputs of known shapes"
            )
        scope.nodes.append(
            onnx.helper.make_node("Identity", [result], [out], name=parts.node_name(out))
        )
        outputs.append(parts.value_info(out, scope.type_of(t)))
    onnx_graph = onnx.helper.make_graph(
        scope.nodes,
        name,
        inputs,
        outputs,
        initializer=parts.initializers,
        value_info=scope.value_infos,
    )
    opsets = [onnx.helper.make_opsetid("", OPSET)]
    model = onnx.helper.make_model(
        onnx_graph,
        opset_imports=opsets,
        ir_version=onnx.helper.find_min_ir_version_for(opsets),
        producer_name=PRODUCER,
        doc_string=f"{name}, exported from its graph",
    )
    inline_constant_branches(onnx, model)
    return model


def _write_atomically(data, path):
    """Writes ``data`` to ``path`` through a temporary file renamed over it: a failure or a
    kill midway leaves whatever was at ``path`` before, never half a model."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".onnx-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
