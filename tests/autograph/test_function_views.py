"""What a Function and its ConcreteFunctions show of themselves under TensorFlow's names:
clear_cache, pretty_printed_concrete_signatures, function_type, inference_fn, variables,
captured_inputs, the graph's as_graph_def, pickling."""

import pickle

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def _triple(x, n=3):  # a module-level function: picklable by reference
    return x * n


def test_as_graph_def_names_inputs_as_tensorflow_does():
    # TensorFlow's NodeDef.input: "op" for output 0, "op:1" for output 1, "^op" for a control
    # input; a function graph's outputs each go through an Identity node.
    @ag.function(autograph=False)
    def f(x):
        a, b = rt.unstack(x)
        with rt.control_dependencies([a.op]):
            return rt.identity(b) + 0.0

    graph = f.get_concrete_function(rt.TensorSpec([2])).graph
    nodes = {node.name: node for node in graph.as_graph_def().node}
    unstack = next(n for n in nodes.values() if n.op == "Unpack")
    identity = nodes["Identity"]  # rt.identity's; the returned value's is named after it
    assert unstack.input == ["x"]
    assert identity.input[0] == f"{unstack.name}:1"
    assert f"^{unstack.name}" in identity.input
    returned = nodes["Identity_1"]
    assert returned.input == [graph.outputs[0].op.name]


def test_clear_cache_traces_again():
    traces = []

    @ag.function
    def f(x):
        traces.append(1)
        return x + 1

    f(rt.constant(1))
    f.clear_cache()
    assert f.experimental_get_tracing_count() == 0
    assert int(f(rt.constant(1))) == 2
    assert len(traces) == 2


def test_pretty_printed_concrete_signatures_joins_each_trace():
    f = ag.function(lambda a: a)
    f(rt.constant(1))
    f(rt.constant(1.0))
    printed = f.pretty_printed_concrete_signatures(verbose=False).split("\n")
    assert printed == [
        "(a: TensorSpec(shape=(), dtype=rt.int32, name=None)) -> "
        "TensorSpec(shape=(), dtype=rt.int32, name=None)",
        "(a: TensorSpec(shape=(), dtype=rt.float32, name=None)) -> "
        "TensorSpec(shape=(), dtype=rt.float32, name=None)",
    ]


def test_function_type_shows_a_python_argument_as_a_literal():
    # TensorFlow prints pow.get_concrete_function(a=TensorSpec(None), b=2).function_type so.
    f = ag.function(lambda a, b: a**b)
    cf = f.get_concrete_function(a=rt.TensorSpec(None, rt.float32), b=2)
    assert str(cf.function_type) == (
        "(a: TensorSpec(shape=<unknown>, dtype=rt.float32, name=None), b: Literal[2]) -> "
        "TensorSpec(shape=<unknown>, dtype=rt.float32, name=None)"
    )


def test_inference_fn_takes_the_flat_tensors():
    f = ag.function(lambda pair: pair[0] * pair[1])
    cf = f.get_concrete_function((rt.TensorSpec([]), rt.TensorSpec([])))
    np.testing.assert_allclose(cf.inference_fn(rt.constant(3.0), rt.constant(4.0)).numpy(), 12.0)


def test_variables_and_captured_inputs():
    read = rt.Variable(1.0, trainable=False)
    scale = rt.Variable(2.0)
    offset = rt.constant(5.0)

    @ag.function
    def f(v):
        return v * scale + read + offset

    passed = rt.Variable(3.0)
    cf = f.get_concrete_function(passed)
    assert {v.ref() for v in cf.variables} == {v.ref() for v in (read, scale, passed)}
    assert {v.ref() for v in cf.trainable_variables} == {scale.ref(), passed.ref()}
    assert {id(x) for x in cf.captured_inputs} == {id(read), id(scale)}


def test_pickled_function_traces_its_own_graphs():
    f = ag.function(_triple, input_signature=[rt.TensorSpec([])], reduce_retracing=True)
    f(rt.constant(1.0))
    clone = pickle.loads(pickle.dumps(f))
    assert clone.input_signature == f.input_signature
    assert clone.tracing_count == 0
    np.testing.assert_allclose(clone(rt.constant(2.0)).numpy(), 6.0)


def test_a_tensor_of_another_dtype_is_tensorflows_invalid_argument_and_a_type_error():
    double = ag.function(lambda a: a + a)
    cf = double.get_concrete_function(rt.TensorSpec([], rt.string))
    with pytest.raises(rt.errors.InvalidArgumentError, match="int32"):
        cf(rt.constant(1))
    with pytest.raises(TypeError):  # as TensorFlow's input_signature check, and before
        ag.function(lambda a: a, input_signature=[rt.TensorSpec([], rt.string)])(rt.constant(1))


def test_printing_shows_a_python_argument_in_the_header_with_its_value():
    # TensorFlow's layout for pow.get_concrete_function(a=TensorSpec(None), b=2), as the
    # function guide shows it.
    power = ag.function(lambda a, b: a**b)
    square = power.get_concrete_function(a=rt.TensorSpec(None, rt.float32), b=2)
    assert str(square).splitlines()[:3] == [
        "ConcreteFunction <lambda>(a, b=2)",
        "  Args:",
        "    a: float32 Tensor, shape=<unknown>",
    ]


def test_a_numpy_argument_is_cast_to_its_spec_within_its_kind_or_wider():
    # TensorFlow converts np.array([[1, 1]]) (int64) for a float32 spec; a float array for an
    # int spec would lose its fractions, and stays refused.
    shape_of = ag.function(lambda a: rt.shape(a), input_signature=[rt.TensorSpec(None)])
    np.testing.assert_array_equal(shape_of(np.array([[1, 1], [2, 2]])).numpy(), [2, 2])
    ints = ag.function(lambda a: a, input_signature=[rt.TensorSpec(None, rt.int32)])
    with pytest.raises(TypeError):
        ints(np.array([1.5]))


@ag.function
def _decorated_double(x):
    return x * 2.0


class _Scaler:
    def __init__(self, k):
        self.k = k

    @ag.function
    def scale(self, x):
        return x * self.k


def test_decorated_functions_and_methods_pickle_by_their_names():
    # What a module's name holds is pickled by that name, as Python pickles functions: the
    # decorated function itself (its own name would find the Function, not the function).
    assert pickle.loads(pickle.dumps(_decorated_double)) is _decorated_double
    assert pickle.loads(pickle.dumps(_Scaler.scale)) is _Scaler.scale
    bound = pickle.loads(pickle.dumps(_Scaler(3.0).scale))  # with a copy of its object
    assert bound(rt.constant(2.0)).numpy() == 6.0
