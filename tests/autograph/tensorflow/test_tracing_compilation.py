"""TensorFlow's ``tracing_compilation_test.py``, ported to ``ag.function`` and ``rt``.

Source: tensorflow/tensorflow, tensorflow/python/eager/polymorphic_function/
tracing_compilation_test.py at commit 84e2e6c717e89d7e8a9b7458290b11aa5b596658 (the
TensorFlow 2.x tree the issue's 2.21 behaviour comes from). The same programs and expected
values; only the names change (``tf.X`` -> ``rt.X``, TensorFlow's test-only ``compiled_fn``
wrapper of ``tracing_compilation`` -> ``ag.function``, which is what it stands for).
``assertLen(function_cache, n)`` (a private cache object passed to ``compiled_fn``) becomes
``f.tracing_count == n`` (the project's public count of traced graphs: every test here that
counts traces creates no variable, so the two agree).

TensorFlow test methods in the file: 79. Ported: 44. Skipped: 35, by reason:
- 14 devices and GPUs (``run_gpu_only``, ``ops.device``, ``colocate_with``, the
  ``MultiDeviceCompilationTest`` and ``DevicePlacementTest`` classes): testMultiDeviceOutput,
  testEmptyBody, testMultiDeviceInt32, testMultiDeviceColocateWith, testMultiDeviceResources,
  testOutputResources, testPassResourceThroughNestedFunctionCall,
  testReturnResourceFromNestedFunctionCall, testComplexInputOutputDevicePattern,
  testArgumentPruning, testFunctionWithResourcesOnDifferentDevices,
  testVariablesPlacedOnOutsideDevice, testMultipleDeviceCheck, testDeviceAnnotationsRespected.
- 13 TensorFlow internals (the graph's function library and its registration, Grappler
  implementation swapping, executors, call options, private attributes and raw C++ ops):
  testGraphEagerIsolation (calls ``tracing_compilation`` directly, which lacks tf.function's
  rule against a variable created on every trace), testFuncListAttr (gen_functional_ops.case), testCompilationForcesResourceVariables,
  testCallOptionsMemory, testFunctionWithInvalidAttribute, testRegisterFunction,
  testRegisterConcreteFunction, testEagerCaptures, testRegisterFunctionWithInputSignature,
  testRegisterFunctionWithCache, testSwapImplementationWithGrapplerPlugin,
  testSwapImplementationInEager, testExecutorType.
- 4 TensorFlow 1 graph mode only (collections, ``variable_scope.get_variable``, variable
  initializers run in a session): testExternalControlDependency, testVariableInLoopInFunction,
  testCollectionValueAccess, testCollectionVariableValueAccess.
- 3 complex dtypes, which the project does not have (API.md lists its dtypes):
  testCacheTensorDtypeCollision, testCacheTensorShapeCollision,
  testCacheTensorShapeDtypeCollision.
- 1 composite tensors (RaggedTensor), which the project does not have:
  testInputSignatureWithCompositeTensors.

In ``CompilationArgumentNamingTest`` the ports check each input's ``op.name`` but not its
private ``_user_specified_name`` attribute. Tests marked ``xfail(strict=True)`` fail today for
the reason given; the mark goes once the feature lands.
"""

import copy
import functools
import gc
import weakref

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.tensorflow.helpers import assert_all_close, assert_all_equal


def leading_dim(t):
    """TensorFlow's ``t._shape_tuple()[0]``."""
    return t.shape.as_list()[0]


# --- TracingCompilationTest ------------------------------------------------------------------


def test_backward_none_gradient():  # testBackwardNoneGradient (its eager half)
    model = rt.Variable(1.0, name="model")
    count = rt.Variable(0)

    @ag.function
    def forward_pass(value):
        count.assign_add(1)
        residuals = value - model
        loss = 0.5 * rt.reduce_mean(rt.pow(residuals, 2))
        # count is an integer, so its gradient is None
        return loss, count

    with rt.GradientTape() as t:
        loss, _ = forward_pass(rt.constant([7.0]))
    g = t.gradient(loss, model)
    assert_all_equal(rt.nest.flatten(g), [-6.0])


def test_input_shape_function_relaxation():  # testInputShapeFunctionRelaxation
    unknown_dim = [False]

    @ag.function(reduce_retracing=True)
    def func(a):
        if leading_dim(a) is None:
            unknown_dim[0] = True
        return a + 1

    func(rt.constant([]))
    assert not unknown_dim[0]
    assert func.tracing_count == 1

    func(rt.constant([1.0]))
    assert unknown_dim[0]
    assert func.tracing_count == 2

    func(rt.constant([1.0, 2.0]))
    assert unknown_dim[0]


def test_nested_input_shape_function_relaxation():  # testNestedInputShapeFunctionRelaxation
    unknown_dim = [False]
    scalar_shapes = []

    @ag.function(reduce_retracing=True)
    def func(a_, b_=None):
        del a_  # Only used to check which cache is used.
        scalar_shapes.append(b_[0].shape.as_list())
        if leading_dim(b_[1]) is None:
            unknown_dim[0] = True
        return b_[0] + 1

    a = "hi"
    b0 = rt.constant(1.0)
    func(a, b_=[b0, rt.constant([])])
    assert not unknown_dim[0]
    assert func.tracing_count == 1

    func(a, b_=[b0, rt.constant([1.0])])
    assert unknown_dim[0]
    assert func.tracing_count == 2

    func(a, b_=[b0, rt.constant([1.0, 1.0])])
    assert unknown_dim[0]
    assert func.tracing_count == 2

    unknown_dim[0] = False

    # Now do the same except with a new a which is not a tensor; this should
    # change the cache key.
    a = "bye"
    func(a, b_=[b0, rt.constant([])])
    assert not unknown_dim[0]
    assert func.tracing_count == 3

    # We relax the type traced previously.
    func(a, b_=[b0, rt.constant([1.0])])
    assert unknown_dim[0]
    assert func.tracing_count == 4
    assert all(shape == [] for shape in scalar_shapes)


def test_compilation_numpy_arrays_converted_to_tensors():
    # testCompilationNumpyArraysConvertedToTensors
    def f(x):
        assert isinstance(x, rt.Tensor)
        return x

    x = rt.random.uniform([2, 2]).numpy()
    defined = ag.function(f)
    defined(x)
    assert defined.tracing_count == 1

    x = rt.random.uniform([2, 2]).numpy()
    defined(x)
    # A NumPy array with different values but the same shape and dtype
    # shouldn't trigger another function definition.
    assert defined.tracing_count == 1

    np_ones = np.ones([], np.float32)
    np_zeros = np.zeros([], np.float32)
    tf_ones = rt.ones([])
    tf_zeros = rt.zeros([])

    # Test that the numpy array is properly an argument to the graph function.
    assert defined(np_ones).numpy() == 1.0
    assert defined.tracing_count == 2
    assert defined(np_zeros).numpy() == 0.0
    assert defined(tf_ones).numpy() == 1.0
    assert defined(tf_zeros).numpy() == 0.0
    assert defined.tracing_count == 2

    # Test that mutable inputs are supported.
    mutable = np.ones([], np.float32)
    assert defined(mutable).numpy() == 1.0
    mutable.fill(0)
    assert defined(mutable).numpy() == 0.0

    class MyNdarray(np.ndarray):
        pass

    # Test that the subclasses of ndarray are converted too.
    assert defined(np_ones.view(MyNdarray)).numpy() == 1.0
    assert defined(np_zeros.view(MyNdarray)).numpy() == 0.0

    # We should not have triggered any re-tracing of the python function.
    assert defined.tracing_count == 2


def test_numpy_dtype_input_supported():  # testNumpyDtypeInputSupported
    @ag.function
    def f(x, dtype):
        return rt.constant(dtype(x))

    assert f(1, np.float32).numpy() == np.float32(1)
    assert f(2, np.float32).numpy() == np.float32(2)
    assert f(1, np.int32).numpy() == np.int32(1)
    assert f(2, np.int32).numpy() == np.int32(2)


def test_compilation_numpy_arrays_converted_to_tensors_in_kwargs():
    # testCompilationNumpyArraysConvertedToTensorsInKwargs
    def f(**kwargs):
        x = kwargs.pop("x")
        assert isinstance(x, rt.Tensor)
        return x

    x = rt.random.uniform([2, 2]).numpy()
    defined = ag.function(f)
    defined(x=x)
    assert defined.tracing_count == 1

    x = rt.random.uniform([2, 2]).numpy()
    defined(x=x)
    # A NumPy array with different values but the same shape and dtype
    # shouldn't trigger another function definition.
    assert defined.tracing_count == 1

    # Test that the numpy array is properly an argument to the graph function.
    assert defined(x=np.ones([])).numpy() == 1.0
    assert defined(x=np.zeros([])).numpy() == 0.0
    assert defined(x=rt.ones([])).numpy() == 1.0
    assert defined(x=rt.zeros([])).numpy() == 0.0


def test_cache_object_hash_collisions():  # testCacheObjectHashCollisions
    class Foo:
        def __hash__(self):
            return 42

    def func(foo):
        return rt.constant([id(foo)])

    defined = ag.function(func)
    foo_1 = Foo()
    defined(foo_1)
    assert defined.tracing_count == 1

    foo_2 = Foo()
    defined(foo_2)
    assert defined.tracing_count == 2


@pytest.mark.xfail(
    strict=True,
    reason="a Function called while a TF1 graph is built is inlined there, not traced into its cache (tracing_count stays 0)",
)
def test_cache_tensor_unknown_shapes_collision_relaxed_shapes():
    # testCacheTensorUnknownShapesCollisionRelaxedShapes (TensorFlow 1 placeholders in a graph)
    def func(t):
        return t + t

    with rt.Graph().as_default():
        defined = ag.function(func, reduce_retracing=True)

        p = rt.placeholder(dtype=rt.float32, shape=[])
        defined(p)
        assert defined.tracing_count == 1

        p = rt.placeholder(dtype=rt.float32, shape=[1])
        defined(p)
        assert defined.tracing_count == 2

        p = rt.placeholder(dtype=rt.float32, shape=[2])
        defined(p)
        # Gradual shape relaxation is performed; and the common shape between
        # [1] and [2] is one containing unknown dimensions.
        assert defined.tracing_count == 2

        t = rt.constant([1.0, 1.0, 1.0], dtype=rt.float32)
        defined(t)
        # Shape (3,) matches the relaxed shape TensorShape([None])
        assert defined.tracing_count == 2


def test_python_function_with_default_args():  # testPythonFunctionWithDefaultArgs
    def func(foo, bar=1, baz=2):
        del foo
        del bar
        del baz
        return

    defined = ag.function(func)
    defined(0, baz=20)
    assert defined.tracing_count == 1

    defined(1)  # bar=1, baz=2
    assert defined.tracing_count == 2

    # This matches the previous call.
    defined(foo=1)
    assert defined.tracing_count == 2

    defined(1, 2, 3)
    assert defined.tracing_count == 3

    # This matches the previous call.
    defined(1, bar=2, baz=3)
    assert defined.tracing_count == 3

    # This matches the previous call.
    defined(1, baz=3, bar=2)
    assert defined.tracing_count == 3


def test_functools_partial_unwrapped_correctly():  # testFunctoolsPartialUnwrappedCorrectly
    def full_function(a, b, c=3):
        return a, b, c

    partial = functools.partial(full_function, 1, c=4)
    a, b, c = partial(2)

    defined = ag.function(partial)
    func_a, func_b, func_c = defined(2)
    assert func_a.numpy() == a
    assert func_b.numpy() == b
    assert func_c.numpy() == c


def test_input_signature_with_matching_inputs():  # testInputSignatureWithMatchingInputs
    def foo(a):
        assert a.shape == (2,)
        return a

    signature = [rt.TensorSpec(shape=(2,), dtype=rt.float32)]
    defined = ag.function(foo, input_signature=signature)
    a = rt.ones([2])
    assert_all_equal(a, defined(a))
    assert defined.tracing_count == 1
    assert_all_equal(a, defined.get_concrete_function()(a))
    assert_all_equal(a, defined.get_concrete_function(a)(a))
    assert_all_equal(a, defined.get_concrete_function(rt.TensorSpec((2,), dtype=rt.float32))(a))
    assert defined.tracing_count == 1

    def bar(a):
        assert a.shape.as_list() == [2, None]
        return a

    signature = [rt.TensorSpec((2, None), rt.float32)]
    defined = ag.function(bar, input_signature=signature)
    a = rt.ones([2, 1])
    out = defined(a)
    # (TensorFlow's test counts the first function's cache here; this one's is what the
    # comment below means.)
    assert defined.tracing_count == 1
    assert_all_equal(out, a)

    # Changing the second dimension shouldn't create a new function.
    b = rt.ones([2, 3])
    out = defined(b)
    assert defined.tracing_count == 1
    assert_all_equal(out, b)


def test_input_signature_with_dict_in_positional_args():
    # testInputSignatureWithDictInPositionalArgs
    @ag.function
    def f(*_args, **_kwargs):
        return None

    f(1, x=2)
    assert f.tracing_count == 1
    f(1, x=2)
    assert f.tracing_count == 1
    f(1, {"x": 2})
    assert f.tracing_count == 2


def test_input_signature_with_compatible_inputs():  # testInputSignatureWithCompatibleInputs
    rank2_spec = rt.TensorSpec(shape=(None, None), dtype=rt.float32)

    @ag.function(input_signature=[rank2_spec])
    def func(a):
        assert a.shape.as_list() == [None, None]
        return rt.shape(a)

    assert_all_equal([3, 1], func([[0], [1.0], [1]]))
    assert_all_equal([2, 2], func(np.array([[1, 1], [2, 2]])))

    with pytest.raises(TypeError):
        func([0.0, 1.0, 2.0])  # Wrong shape.

    with pytest.raises(TypeError):
        func([["wrong dtype"]])


def test_nested_input_signatures():  # testNestedInputSignatures
    def expected_foo(a, b):
        return [a, b]

    @ag.function(
        input_signature=[
            [rt.TensorSpec((2, None), rt.float32)] * 2,
            rt.TensorSpec((1,), rt.float32),
        ]
    )
    def foo(a, b):
        assert a[0].shape.as_list() == [2, None]
        assert a[1].shape.as_list() == [2, None]
        assert b.shape.as_list() == [1]
        return [a, b]

    a = rt.ones([2, 1])
    b = rt.ones([1])
    expected = expected_foo([a, a], b)
    out = foo([a, a], b)
    assert foo.tracing_count == 1
    rt.nest.assert_same_structure(out, expected)
    assert_all_equal(out[0][0], a)
    assert_all_equal(out[0][1], a)
    assert_all_equal(out[1], b)

    # Changing the unspecified dimensions shouldn't create a new function.
    a = rt.ones([2, 3])
    b = rt.ones([2, 5])
    c = rt.ones([1])
    expected = expected_foo([a, b], c)
    out = foo([a, b], c)
    assert foo.tracing_count == 1
    rt.nest.assert_same_structure(out, expected)
    assert_all_equal(out[0][0], a)
    assert_all_equal(out[0][1], b)
    assert_all_equal(out[1], c)

    # Passing compatible inputs should work.
    a = a.numpy().tolist()
    b = b.numpy().tolist()
    c = c.numpy().tolist()
    out = foo([a, b], c)
    assert foo.tracing_count == 1
    rt.nest.assert_same_structure(out, expected)
    assert_all_equal(out[0][0], a)
    assert_all_equal(out[0][1], b)
    assert_all_equal(out[1], c)


def test_nested_input_signatures_with_dict():  # testNestedInputSignaturesWithDict
    def expected_bar(a):
        return a

    @ag.function(
        input_signature=[
            {
                "a": rt.TensorSpec((2, None), rt.float32),
                "b": rt.TensorSpec((2, None), rt.float32),
                "c": rt.TensorSpec((1,), rt.float32),
            }
        ]
    )
    def bar(a):
        assert a["a"].shape.as_list() == [2, None]
        assert a["b"].shape.as_list() == [2, None]
        assert a["c"].shape.as_list() == [1]
        return a

    a = rt.ones([2, 3])
    b = rt.ones([1])
    inputs = {"a": a, "b": a, "c": b}
    expected = expected_bar(inputs)
    out = bar(inputs)
    rt.nest.assert_same_structure(out, expected)
    assert_all_equal(out["a"], expected["a"])
    assert_all_equal(out["b"], expected["b"])
    assert_all_equal(out["c"], expected["c"])

    # Passing compatible inputs should work.
    a = a.numpy().tolist()
    b = b.numpy().tolist()
    inputs = {"a": a, "b": a, "c": b}
    out = bar(inputs)
    rt.nest.assert_same_structure(out, expected)
    assert_all_equal(out["a"], expected["a"])
    assert_all_equal(out["b"], expected["b"])
    assert_all_equal(out["c"], expected["c"])


@pytest.mark.xfail(
    strict=True, reason="TensorFlow's wording: 'input_signature must be either a tuple or a list'"
)
def test_input_signature_must_be_sequence_of_tensor_specs():
    # testInputSignatureMustBeSequenceOfTensorSpecs
    def foo(a, b):
        del a
        del b

    # Signatures must be either lists or tuples on their outermost levels.
    signature = {"t1": rt.TensorSpec([], rt.float32)}
    with pytest.raises(TypeError, match="input_signature must be either a tuple or a list.*"):
        ag.function(foo, input_signature=signature)


def test_inputs_incompatible_with_nested_signature_raises_error():
    # testInputsIncompatibleWithNestedSignatureRaisesError
    def foo(a, b):
        return [a, b]

    signature = [
        [rt.TensorSpec((1,), rt.float32)] * 2,
        [rt.TensorSpec((1,), rt.float32)] * 2,
    ]
    defined = ag.function(foo, input_signature=signature)
    a = rt.ones([1])

    with pytest.raises(TypeError):
        defined([a, a, a], [a])

    with pytest.raises(TypeError):
        defined([a], [a, a, a])
    defined([a, a], [a, a])


def test_underspecified_input_signature():  # testUnderspecifiedInputSignature
    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def foo(a, training=True):
        if training:
            return a
        else:
            return -1.0 * a

    x = rt.constant(1.0)
    # TensorFlow's compiled_fn binds with FunctionType.bind_with_defaults directly, which
    # raises ValueError; tf.function (function_type_utils.bind_function_inputs) raises that
    # as TypeError("Binding inputs to tf.function failed ..."), and ag.function is tf.function.
    with pytest.raises(TypeError):
        foo(x, training=False)

    assert_all_equal(x.numpy(), foo(x).numpy())


def test_input_signature_with_partial_function():  # testInputSignatureWithPartialFunction
    def full_function(a, b, c=3.0):
        return a, b, c

    partial = functools.partial(full_function, 1, c=4)
    a, b, c = partial(2.0)
    signature = [rt.TensorSpec([], rt.float32)]
    defined = ag.function(partial, input_signature=signature)
    x = rt.constant(2.0)
    func_a, func_b, func_c = defined(x)
    assert func_a.numpy() == a
    assert func_b.numpy() == b
    assert func_c.numpy() == c


def test_input_signature_with_keyword_positional_args():
    # testInputSignatureWithKeywordPositionalArgs
    @ag.function(
        input_signature=[
            rt.TensorSpec([], rt.float32),
            rt.TensorSpec([], rt.int64),
        ]
    )
    def foo(flt, integer):
        return flt, integer

    flt = rt.constant(1.0)
    integer = rt.constant(2, rt.int64)

    out1, out2 = foo(flt, integer)
    assert foo.tracing_count == 1
    assert out1.numpy() == 1.0
    assert out2.numpy() == 2

    out1, out2 = foo(flt=flt, integer=integer)
    assert foo.tracing_count == 1
    assert out1.numpy() == 1.0
    assert out2.numpy() == 2

    out1, out2 = foo(integer=integer, flt=flt)
    assert foo.tracing_count == 1
    assert out1.numpy() == 1.0
    assert out2.numpy() == 2

    out1, out2 = foo(flt, integer=integer)
    assert foo.tracing_count == 1
    assert out1.numpy() == 1.0
    assert out2.numpy() == 2


def test_input_signature_with_keyword_args():  # testInputSignatureWithKeywordArgs
    def foo(a, b, **kwargs):
        del kwargs
        return a, b

    x = ag.function(
        foo,
        input_signature=[
            rt.TensorSpec([], rt.float32),
            rt.TensorSpec([], rt.int32),
        ],
    ).get_concrete_function()
    result = x(rt.constant(5.0), rt.constant(5))
    assert_all_equal(result, [5.0, 5])


@pytest.mark.xfail(strict=True, reason="ag.function refuses functools.partial")
def test_input_signature_with_keyword_only_args(tmp_path):  # testInputSignatureWithKeywordOnlyArgs
    def f(a, b, c=3, *, d=4):
        assert isinstance(a, rt.Tensor)
        assert isinstance(b, rt.Tensor)
        assert isinstance(c, int)
        assert isinstance(d, (int, rt.Tensor))
        return a + b + c + d

    signature = [
        rt.TensorSpec(shape=[], dtype=rt.int32),
        rt.TensorSpec(shape=[], dtype=rt.int32),
    ]
    defined = ag.function(f, input_signature=signature)
    assert defined(1, 2).numpy() == 10

    defined = ag.function(functools.partial(f, c=4), input_signature=signature)
    assert defined(1, 2).numpy() == 11

    defined = ag.function(functools.partial(f, d=5), input_signature=signature)
    assert defined(1, 2).numpy() == 11

    defined = ag.function(functools.partial(f, d=rt.constant(5)), input_signature=signature)
    assert defined(1, 2).numpy() == 11

    mod = rt.Module()
    path = str(tmp_path / "kwonlyf")
    rt.saved_model.save(mod, path, defined.get_concrete_function(*signature))
    loaded = rt.saved_model.load(path)
    result = loaded.signatures["serving_default"](
        a=rt.constant(1),
        b=rt.constant(2),
        d=rt.constant(5),
    )
    assert result["output_0"].numpy() == 11


def test_input_signature_with_keyword_only_args_no_defaults():
    # testInputSignatureWithKeywordOnlyArgsNoDefaults
    signature = [
        rt.TensorSpec(shape=[], dtype=rt.int32),
        rt.TensorSpec(shape=[], dtype=rt.int32),
    ]

    def test_func(a, *, b):
        return a + b

    message = (
        "Since input_signature is defined, keyword-only parameter `b` must have a default value"
    )
    with pytest.raises(TypeError, match=message):
        ag.function(test_func, input_signature=signature)

    test_func_lambda = lambda a, *, b: a + b  # noqa: E731 (as TensorFlow's test has it)
    with pytest.raises(TypeError, match=message):
        ag.function(test_func_lambda, input_signature=signature)


def test_tensor_keyword_arguments():  # testTensorKeywordArguments
    def foo(a, b):
        del a
        return b

    defined = ag.function(foo)
    a = rt.constant(2.0)
    b = rt.constant([1.0, 2.0])
    one = defined(a, b)
    assert defined.tracing_count == 1

    two = defined(a=a, b=b)
    assert defined.tracing_count == 1

    three = defined(b=b, a=a)
    assert defined.tracing_count == 1

    four = defined(a, b=b)
    assert defined.tracing_count == 1

    # The next call corresponds to a new input signature, hence
    # we expect another function to be defined.
    five = defined(b, a)
    assert defined.tracing_count == 2

    six = defined(a=b, b=a)
    assert defined.tracing_count == 2

    seven = defined(b=a, a=b)
    assert defined.tracing_count == 2

    assert_all_equal(one, [1.0, 2.0])
    assert_all_equal(two, [1.0, 2.0])
    assert_all_equal(three, [1.0, 2.0])
    assert_all_equal(four, [1.0, 2.0])
    assert_all_equal(five, 2.0)
    assert_all_equal(six, 2.0)
    assert_all_equal(seven, 2.0)


def test_calling_function_with_different_variables():  # testCallingFunctionWithDifferentVariables
    @ag.function
    def foo(v):
        v.assign_add(1.0)
        return v.read_value()

    v = rt.Variable(0.0)
    graph_function = foo.get_concrete_function(v)
    assert len(graph_function.inputs) == 1
    assert len(graph_function.captured_inputs) == 0

    assert float(graph_function(v)) == 1.0
    assert float(graph_function(v)) == 2.0

    w = rt.Variable(0.0)

    @ag.function
    def bar(v):
        del v
        return rt.constant(1.0)

    graph_function = bar.get_concrete_function(v)
    assert float(graph_function(v)) == 1.0
    assert float(graph_function(w)) == 1.0


def test_calling_function_with_non_tensors_fails():  # testCallingFunctionWithNonTensorsFails
    @ag.function
    def foo(x):
        return x

    graph_function = foo.get_concrete_function(rt.constant(1.0))
    with pytest.raises((TypeError, ValueError)):
        graph_function("Not a Tensor.")


@pytest.mark.xfail(
    strict=True,
    reason="a Function called while a TF1 graph is built is inlined there, not traced into its cache (tracing_count stays 0)",
)
def test_compilation_function_separate_graphs():  # testCompilationFunctionSeparateGraphs
    @ag.function
    def add(x):
        return x + 5

    @ag.function
    def maybe_add(x, should_add):
        if should_add:
            return add(x)
        else:
            return x

    with rt.Graph().as_default():
        x = rt.constant(11)
        maybe_add(x, True)
        assert maybe_add.tracing_count == 1
        assert add.tracing_count == 1

        maybe_add(x, False)
        assert maybe_add.tracing_count == 2
        assert add.tracing_count == 1

    with rt.Graph().as_default():
        x = rt.constant(11)
        maybe_add(x, True)
        assert maybe_add.tracing_count == 3
        assert add.tracing_count == 2


def test_cache_key_overlapping_shapes():  # testCacheKeyOverlappingShapes
    @ag.function
    def defined(t):
        return t

    defined(rt.zeros([12, 1]))
    assert defined.tracing_count == 1
    defined(rt.zeros([1, 21]))
    assert defined.tracing_count == 2

    @ag.function
    def defined_again(t):
        return defined(t)

    defined_again.get_concrete_function(rt.zeros([12, 1]))
    assert defined_again.tracing_count == 1
    defined_again.get_concrete_function(rt.zeros([1, 21]))
    assert defined_again.tracing_count == 2


def test_cache_tensor_spec_identical_to_tensor():  # testCacheTensorSpecIdenticalToTensor
    @ag.function
    def defined(t):
        return t

    z = rt.zeros([2, 2])
    z_spec = rt.TensorSpec.from_tensor(z)
    assert defined.get_concrete_function(z_spec) is defined.get_concrete_function(z)


def test_cache_key_nested_lists():  # testCacheKeyNestedLists
    @ag.function
    def defined(l):  # noqa: E741 (TensorFlow's name)
        return l

    a = rt.constant(1.0)
    b = rt.constant(2.0)
    c = rt.constant(3.0)
    defined([[a], b, c])
    assert defined.tracing_count == 1

    defined([[a, b], c])
    assert defined.tracing_count == 2


def test_cache_key_attrs_class():  # testCacheKeyAttrsClass
    attr = pytest.importorskip("attr")  # TensorFlow's test skips itself without it too

    @attr.s
    class TestClass:
        a = attr.ib()
        b = attr.ib()

    @ag.function
    def defined(l):  # noqa: E741 (TensorFlow's name)
        return l

    defined(TestClass(rt.constant(1.0), [rt.constant(2.0), rt.constant(3.0)]))
    assert defined.tracing_count == 1
    defined(TestClass(rt.constant(1.0), [rt.constant(2.0), rt.constant(3.0)]))
    assert defined.tracing_count == 1

    defined(TestClass([rt.constant(1.0), rt.constant(2.0)], rt.constant(3.0)))
    assert defined.tracing_count == 2


def test_distinct_variables_no_retracing():  # testDistinctVariablesNoRetracing
    @ag.function
    def defined(a, b, c):
        return a + b + c

    x = rt.Variable(0.0)
    y = rt.Variable(0.0)
    z = rt.Variable(0.0)

    # We generate cache keys based on unique combinations of resource ids.
    defined(x, y, z)
    assert defined.tracing_count == 1

    # Re-arranging arguments should not cause cache miss
    # because the three inputs are still distinct
    defined(z, y, x)
    assert defined.tracing_count == 1


def test_retracing_on_different_varible_combination_patterns():
    # testRetracingOnDifferentVaribleCombinationPatterns
    @ag.function
    def defined(a, b, c):
        return a + b + c

    x = rt.Variable(0.0)
    y = rt.Variable(0.0)
    z = rt.Variable(0.0)

    defined(x, y, z)
    assert defined.tracing_count == 1

    # Retracing because the first two arguments are the same
    defined(x, x, z)
    assert defined.tracing_count == 2

    # Replacing x with y does not cause cache miss
    # because the combination stays the same as (x, x, z)
    defined(y, y, z)
    assert defined.tracing_count == 2

    # A different combination pattern causes cache miss
    defined(z, y, y)
    assert defined.tracing_count == 3
    defined(z, y, y)
    assert defined.tracing_count == 3


def test_deepcopy_variable_no_retracing():  # testDeepcopyVariableNoRetracing
    @ag.function
    def defined(a, b, c):
        return a + b + c

    x = rt.Variable(0.0)
    y = rt.Variable(0.0)
    z = rt.Variable(0.0)
    defined(x, y, z)
    assert defined.tracing_count == 1

    x_copy = copy.deepcopy(x)
    defined(x_copy, y, z)
    assert defined.tracing_count == 1


def test_reference_cycles():  # testReferenceCycles
    gc.collect()
    gc.disable()  # as assert_no_garbage_created: freed by reference counting alone
    try:
        fn = ag.function(lambda x: 2.0 * x)

        fn(rt.constant(4.0))
        weak_fn = weakref.ref(fn)
        del fn
        # Tests that the weak reference we made to the function is now dead, which
        # means the object has been deleted. This should be true as long as the
        # function itself is not involved in a reference cycle.
        assert weak_fn() is None
    finally:
        gc.enable()


def test_shape_caching():  # testShapeCaching
    @ag.function
    def func(x):
        return rt.shape(x)

    @ag.function(input_signature=[rt.TensorSpec([None, None], rt.float32)])
    def calls_func(x):
        return func(x)

    assert_all_equal([1, 1], func(rt.zeros([1, 1])))
    assert_all_equal([2, 2], func(rt.zeros([2, 2])))
    assert_all_equal([3, 3], calls_func(rt.zeros([3, 3])))


@pytest.mark.filterwarnings("ignore::autograph.RetracingWarning")
def test_limited_retracing():  # testLimitedRetracing
    trace_count = [0]

    @ag.function
    def func(x):
        trace_count[0] += 1
        return x

    for _ in range(50):
        func(rt.constant(3.0))
        func(rt.constant(4.0))
        func(rt.constant([[1.0, 2.0]]))
        func(rt.constant([[]]))
        func(rt.constant([[3.0, 4.0], [5.0, 6.0]]))
        func(rt.constant([[3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]))
    # Tracing more than twice per input doesn't make sense.
    assert trace_count[0] < 13


# --- CompilationArgumentNamingTest -----------------------------------------------------------


@pytest.mark.xfail(
    strict=True,
    reason="a concrete function called eagerly checks shapes against its placeholders (TensorFlow leaves that to the kernels)",
)
def test_argument_naming_basic():  # CompilationArgumentNamingTest.testBasic
    @ag.function
    def fn(a, b):
        return a + b, a * b

    # Call the function to make def_function happy
    fn(rt.ones([]), rt.ones([]))

    fn_op = fn.get_concrete_function(
        rt.TensorSpec(shape=(None,), dtype=rt.float32),
        rt.TensorSpec(shape=(), dtype=rt.float32),
    )
    assert [inp.op.name for inp in fn_op.inputs] == ["a", "b"]
    assert len(fn_op.graph.structured_outputs) == 2
    assert_all_close(fn_op(rt.constant(1.0), rt.constant(2.0)), [3.0, 2.0])
    assert_all_close(fn_op(a=rt.constant(1.0), b=rt.constant(2.0)), [3.0, 2.0])


def test_argument_naming_variable():  # CompilationArgumentNamingTest.testVariable
    @ag.function
    def fn(a, b):
        return a + b, a * b

    # Call the function to make def_function happy
    fn(rt.ones([]), rt.ones([]))

    fn_op = fn.get_concrete_function(
        rt.TensorSpec(shape=(None,), dtype=rt.float32),
        rt.Variable(1.0),
    )
    assert [inp.op.name for inp in fn_op.inputs] == ["a", "b"]
    assert len(fn_op.graph.structured_outputs) == 2


def test_argument_naming_dict_returned():  # CompilationArgumentNamingTest.testDictReturned
    @ag.function
    def fn(x, z=(1.0, 2.0), y=3.0):
        z1, z2 = z
        return {"alpha": x + y + z1, "beta": x * y + z2}

    # Call the function to make def_function happy
    fn(rt.ones([]))

    fn_op = fn.get_concrete_function(
        x=rt.TensorSpec(shape=(None,), dtype=rt.float32),
        y=rt.TensorSpec(shape=(), dtype=rt.float32),
    )
    assert [inp.op.name for inp in fn_op.inputs] == ["x", "y"]
    assert set(fn_op.graph.structured_outputs.keys()) == {"alpha", "beta"}

    fn_op2 = fn.get_concrete_function(
        z=(
            rt.TensorSpec(shape=(None,), dtype=rt.float32, name="z_first"),
            rt.TensorSpec(shape=(), dtype=rt.float32, name="z_second"),
        ),
        y=rt.TensorSpec(shape=(), dtype=rt.float32, name="custom"),
        x=4.0,
    )
    assert [inp.op.name for inp in fn_op2.inputs] == ["z_first", "z_second", "custom"]

    fn_op3 = fn.get_concrete_function(
        rt.TensorSpec(shape=(), dtype=rt.float32, name="custom"),
        z=(
            rt.TensorSpec(shape=(None,), dtype=rt.float32, name="z1"),
            rt.TensorSpec(shape=(), dtype=rt.float32, name="z2"),
        ),
        y=rt.TensorSpec(shape=(), dtype=rt.float32),
    )
    assert [inp.op.name for inp in fn_op3.inputs] == ["custom", "z1", "z2", "y"]


def test_argument_naming_method():  # CompilationArgumentNamingTest.testMethod
    class HasMethod:
        def method(self, x):
            return x

    has_method = HasMethod()
    compiled_method = ag.function(has_method.method)
    class_op = compiled_method.get_concrete_function(rt.TensorSpec(shape=(), dtype=rt.float32))
    assert [inp.op.name for inp in class_op.inputs] == ["x"]

    method_op = compiled_method.get_concrete_function(rt.TensorSpec(shape=(), dtype=rt.float32))
    assert [inp.op.name for inp in method_op.inputs] == ["x"]
    # (The rest of TensorFlow's test follows a skipTest("Not working").)


def test_argument_naming_method_signature():  # CompilationArgumentNamingTest.testMethodSignature
    class HasMethod:
        def method(self, x):
            hash(self)  # No weak proxies passed as `self`
            return x

    has_method = HasMethod()
    compiled_method = ag.function(
        has_method.method,
        input_signature=(rt.TensorSpec(shape=None, dtype=rt.float64, name="y"),),
    )

    method_op = compiled_method.get_concrete_function()
    assert [inp.op.name for inp in method_op.inputs] == ["y"]
    method_op2 = compiled_method.get_concrete_function()
    assert [inp.op.name for inp in method_op2.inputs] == ["y"]


def test_argument_naming_variadic():  # CompilationArgumentNamingTest.testVariadic
    @ag.function
    def variadic_fn(x, *args, **kwargs):
        return x + rt.add_n(list(args) + list(kwargs.values()))

    # Call the function to make def_function happy
    variadic_fn(rt.ones([]), rt.ones([]))
    variadic_op = variadic_fn.get_concrete_function(
        rt.TensorSpec(shape=(), dtype=rt.float32),
        rt.TensorSpec(shape=None, dtype=rt.float32, name="y"),
        rt.TensorSpec(shape=(), dtype=rt.float32),
        rt.TensorSpec(shape=(), dtype=rt.float32, name="second_variadic"),
        z=rt.TensorSpec(shape=(), dtype=rt.float32),
        zz=rt.TensorSpec(shape=(), dtype=rt.float32, name="cust"),
    )
    assert [inp.op.name for inp in variadic_op.inputs] == [
        "x",
        "y",
        "args_1",
        "second_variadic",
        "z",
        "cust",
    ]


def test_argument_naming_variadic_input_signature():
    # CompilationArgumentNamingTest.testVariadicInputSignature. TensorFlow's compiled_fn is
    # given name="variadic_fn", the Python function's own name, which ag.function uses.
    @ag.function(
        input_signature=(
            rt.TensorSpec(shape=None, dtype=rt.float32),
            rt.TensorSpec(shape=None, dtype=rt.float32, name="y"),
            rt.TensorSpec(shape=(), dtype=rt.float32),
            rt.TensorSpec(shape=(), dtype=rt.float32, name="z"),
        ),
    )
    def variadic_fn(x, *args):
        return x + rt.add_n(list(args))

    # Call the function to make def_function happy
    variadic_fn(rt.ones([]), rt.ones([]), rt.ones([]), rt.ones([]))
    variadic_op = variadic_fn.get_concrete_function()
    assert "variadic_fn" in variadic_op.name
    assert [inp.op.name for inp in variadic_op.inputs] == ["x", "y", "args_1", "z"]
