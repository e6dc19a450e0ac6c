"""TensorFlow's ``polymorphic_function_test.py`` (the tests of ``tf.function``), ported to
``ag.function`` and ``rt``.

Source: tensorflow/tensorflow, tensorflow/python/eager/polymorphic_function/
polymorphic_function_test.py at commit 01f8de5f1b192f2c38fed5a787ab1fe3e2333934 (the
TensorFlow 2.x tree the issue's 2.21 behaviour comes from). The same programs and expected
values; only the names change (``tf.function`` -> ``ag.function``, ``tf.X`` -> ``rt.X``,
``ResourceVariable`` -> ``rt.Variable``, ``self.evaluate(x)`` -> ``x.numpy()``). Where
TensorFlow counts the traced concrete functions (the private ``_list_all_concrete_functions``)
the port reads ``Function.tracing_count`` (the project's public count; no such test creates a
variable, so the two agree); where it calls ``experimental_get_tracing_count()``, so does the
port. TensorFlow's retracing warnings are read from Python's ``logging`` (pytest's ``caplog``
for ``assertLogs``).

TensorFlow test methods in the file: 239 (its one benchmark not counted). Ported: 157.
Skipped: 82, by reason:
- 52 TensorFlow internals (private modules and attributes, the graph's function library,
  function attributes for Grappler and TFLite, resource handles, cancellation managers,
  deferred and by-reference captures, save contexts, ``_clone``/``_decorate``):
  testOnExitCallback, testCannotAddExitCallbackWhenNotInFunctionScope,
  testImplementsAttributeBasic, testImplementsAttributeAssertsOnSideInput,
  testImplementsAttributeWorksWithGradientTape, testImplementsAttributeWorksOnVariables,
  testImplementsAttributeWorksOnConstants, testImplementsAttributeSpecializes,
  testImplementsWorksWithTensorSpec, testImplementsAttributeAsNameAttrList,
  testDisableACDAttribute, testNestedFunctionGraphNotOutOfDate (FuncGraph.outer_graph),
  testShareRendezvous, testTensorInitializationInFunctionRaisesError,
  testCallableTensorInitializationInFunction, testInitScopeTensorInitializationInFunction,
  testVariableNamesRespectNameScopesWithDefun, testVariableNamesRespectNameScopesWithDefunInGraph
  (these five rely on ``ResourceVariable`` bypassing tf.function's variable creator),
  testDefunShapeInferenceWithCapturedResourceVariable,
  testDefunShapeInferenceWithCapturedResourceVariableInGraphMode,
  testDefunShapeInferenceWithCapturedTensorListInGraphMode, testRunMetadata,
  testVariableSpecWithInputSignature, testRegisterConcreteFunction, testEagerCaptures,
  testVariableAliasIdInStructuredInputSignature, testAutoGraphContext,
  testCancelBeforeFunctionExecution, testCancelBlockedFunctionExecution,
  testCancelAfterFunctionExecution, testConcreteFunctionFlatSignatureError,
  testFunctionInitializationFunction, test_serialization_signature_cache,
  testCacheWithinSaveContext, testDecorate, testClone, testDecorate_rejectedAfterTrace,
  testGetConcreteFunctionGraphLifetime, testReplaceCaptureWithDeferred,
  testRaiseReplaceCaptureWithDeferredTypeSpecMismatch, testConcreteFunctionSetExternalCapture,
  testGraphReplaceCaptureAndSetExternalCapture, testDeferredCapture, testNestedDeferredCapture,
  testNestedDeferredCaptureInTFWhileLoop, testDeferredCaptureWithKey,
  testDeferredCaptureTypeError, testDeferredCaptureReturnNestWithCompositeTensor,
  testDeferredCaptureCompositeTensorSpecTypeMismatch, testRetraceLogicWithSideInputs,
  testByRefCaptureWithInputSignature, testGraphRemoveFunction.
- 11 devices and GPUs: testPackedVariable, testFunctionOnDevice,
  testOpInFunctionWithConflictingResourceInputs, testFunctionHandlesInputsOnDifferentDevices,
  testFunctionHandlesInputsPlacedOnTheWrongDeviceGracefully, testVariablesPlacedOnOutsideDevice,
  testCallingGraphFunctionOnDifferentDevice, testColocateWithRespected,
  testFunctionIsNotPinned, testDeviceAnnotationRespected,
  testDeviceAnnotationForInitializerRespected.
- 10 composite tensors and extension types (RaggedTensor, SparseTensor, IndexedSlices,
  StructuredTensor, dataset iterators' type specs, ExtensionType), which the project does not
  have: testInputShapeFunctionRelaxationWithRaggedTensors,
  testInputShapeFunctionRelaxationWithStructuredTensors,
  testInputShapeFunctionRelaxationWithDatasetIterators, testReturnCompositeTensorWithDefun,
  testCompositeAsArgumentTensorWithDefun, testTracedCompositeDiscardsShapeInfo,
  testLimitedRetracingWithCompositeTensors, testCompositeTensorsWithReducedRetracing,
  testMultipleInputsWithReducedRetracing, testMethodExtensionType.
- 6 TensorFlow 1 graph mode only (``tf_function.Defun``, sessions with variable initializers,
  ``lift_to_graph``): testNestedFunctions, testGraphModeCaptureVariable,
  testLegacyGraphModeVariables, testLegacyGraphModeVariablesNonTrivialInitializer,
  testLegacyGraphModeInputDependentInitializerFails, testLiftPlaceholderInitializedVariable.
- 3 disabled in TensorFlow itself (``skipTest`` always, or whenever eager):
  testStructuredSignatureAndMultipleVariables, testFunctionStackInErrorMessage,
  testFunctoolsLruCache.

Parameterized TensorFlow tests are one pytest test each, parametrized the same way, less the
cases that need composite tensors (testConcreteFunctionStructuredSignatureError: 3 of 13) or
function attributes (test_pickle: ``experimental_implements``/``autograph_options``). A few
ports keep TensorFlow's program but not an assertion on an internal (said where). Tests marked
``xfail(strict=True)`` fail today for the reason given; the mark goes once the feature lands.
"""

import collections
import dataclasses
import functools
import gc
import logging
import multiprocessing.pool
import pickle
import weakref

import pytest

import autograph as ag
import runtime as rt
from tests.autograph.tensorflow.helpers import assert_all_close, assert_all_equal


def undecorated_function(x):
    return x * 3.0


class _HasDecoratedMethod:
    @ag.function
    def f(self, x):
        return x * 3.0


def dummy_tf_decorator(method):
    """TensorFlow's test decorator (``tf_decorator.make_decorator``): a wrapper that keeps the
    wrapped function's name and signature, as ``functools.wraps`` does."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        return method(*args, **kwargs)

    return wrapper


@dataclasses.dataclass
class MaskedTensor:
    mask: bool
    value: rt.Tensor

    def __tf_flatten__(self):
        metadata = (self.mask,)
        components = (self.value,)
        return metadata, components

    @classmethod
    def __tf_unflatten__(cls, metadata, leaves):
        mask = metadata[0]
        value = leaves[0]
        return MaskedTensor(mask=mask, value=value)


@dataclasses.dataclass
class MaskedTensorPair:
    masks: list
    value1: MaskedTensor
    value2: MaskedTensor

    def __tf_flatten__(self):
        metadata = (self.masks,)
        components = (self.value1, self.value2)
        return metadata, components

    @classmethod
    def __tf_unflatten__(cls, metadata, leaves):
        masks = metadata[0]
        value1, value2 = leaves
        return MaskedTensorPair(masks=masks, value1=value1, value2=value2)


def spec_for_value(value):
    """TensorFlow's ``_spec_for_value``: the (nested) TensorSpec of a value."""
    if isinstance(value, dict):
        return {k: spec_for_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(spec_for_value(v) for v in value)
    if isinstance(value, rt.Tensor):
        return rt.TensorSpec.from_tensor(value)
    return value


def warnings_logged(caplog):
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


# --- FunctionTest ----------------------------------------------------------------------------


def test_basic():  # testBasic
    matmul = ag.function(rt.matmul)
    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    sq = matmul(t, t, transpose_a=True)
    sq2 = matmul(sq, t, transpose_a=True)
    assert_all_equal(sq.numpy().reshape(-1), [10, 14, 14, 20])
    assert_all_equal(sq2.numpy().reshape(-1), [52, 76, 74, 108])


def test_python_function_not_callable():  # testPythonFunctionNotCallable
    with pytest.raises(TypeError, match="is not a callable object"):
        ag.function(1)


def test_variable():  # testVariable
    v1 = rt.Variable(1.0)
    add = ag.function(lambda x, v: x + v1 + v)
    v2 = rt.Variable(1.0)
    x = rt.constant(1.0)
    r = add(x, v2)
    assert r.numpy() == 3.0


def test_variable_only():  # testVariableOnly
    v = rt.Variable(1.0)
    add = ag.function(lambda x: x.assign_add(1.0))
    r1 = add(v)
    assert r1.numpy() == 2.0
    c = rt.constant(1.0)
    with pytest.raises(AttributeError, match="no attribute"):
        add(c)


def test_variable_multi_function():  # testVariableMultiFunction
    @ag.function
    def second(dup_var, dup_var_2, some_const):
        return dup_var + dup_var_2 + some_const

    @ag.function
    def first(dup_var, some_const):
        return second(dup_var, dup_var, some_const)

    my_const = rt.constant(1)
    my_var = rt.Variable(2, dtype=rt.int32)
    assert second(my_var, my_var, my_const).numpy() == 5
    assert first(my_var, my_const).numpy() == 5


def test_reduce_tracing_with_nested_tf_function():  # testReduceTracingWithNestedTFFunction
    v = rt.Variable([1.0, 2.0])

    @ag.function(reduce_retracing=True)
    def inner_test_fn(x):
        x.assign_add([2.0, 2.0])
        return x

    @ag.function(reduce_retracing=True)
    def test_fn(x):
        x.assign_add([1.0, 1.0])
        return inner_test_fn(x)

    with rt.GradientTape() as tape:
        y = test_fn(v)

    grad = tape.gradient(y, v)
    assert_all_equal(y, [4.0, 5.0])
    assert_all_equal(grad, [1.0, 1.0])

    with rt.GradientTape() as tape:
        y = test_fn(v)

    grad = tape.gradient(y, v)
    assert_all_equal(y, [7.0, 8.0])
    assert_all_equal(grad, [1.0, 1.0])


def test_input_shape_relaxation_on_instance_method():  # testInputShapeRelaxationOnInstanceMethod
    # Test that reduce_retracing is passed during
    # instance method bounding.
    unknown_dim = [False]

    class Foo:
        @ag.function(reduce_retracing=True)
        def func(self, a):
            if a.shape.as_list()[0] is None:
                unknown_dim[0] = True
            return a + 1

    foo = Foo()
    foo.func(rt.constant([]))
    assert not unknown_dim[0]

    foo.func(rt.constant([1.0]))
    assert unknown_dim[0]

    foo.func(rt.constant([1.0, 2.0]))
    assert unknown_dim[0]


def test_captures_variables():  # testCapturesVariables
    a = rt.Variable(1.0, trainable=False)
    b = rt.Variable(1.0)
    cc = [None]

    @ag.function
    def f():
        c = cc[0]
        if c is None:
            c = cc[0] = rt.Variable(1.0)
        return a + b + c + 1

    cf = f.get_concrete_function()
    c = cc[0]

    captured_variables = {v.ref() for v in (a, b, c)}
    trainable_variables = {v.ref() for v in (b, c)}
    assert {v.ref() for v in cf.variables} == captured_variables
    assert {v.ref() for v in cf.trainable_variables} == trainable_variables
    assert cf.variables == cf.graph.variables
    assert cf.trainable_variables == cf.graph.trainable_variables


@pytest.mark.xfail(
    strict=True,
    reason="a Function called from another is inlined with its caller's static shapes: reduce_retracing does not relax them",
)
def test_nested_shape_function_relaxation():  # testNestedShapeFunctionRelaxation
    traced_shape = None

    # The inner function will go through shape relaxation because the shapes it
    # receives will be [1], [2], [3], ...
    @ag.function(reduce_retracing=True)
    def bar(x_shape):
        nonlocal traced_shape
        traced_shape = tuple(x_shape.shape.as_list())
        return x_shape

    # The outer function will not go through shape relaxation because the shapes
    # it receives will be [1], [[1]], [[[1]]], ...
    @ag.function(reduce_retracing=True)
    def foo(ones):
        return bar(rt.shape(ones))

    assert_all_equal(foo(rt.ones([1])), [1])
    assert traced_shape == (1,)

    for rank in range(2, 6):
        x_shape = foo(rt.ones([1] * rank))
        assert_all_equal(x_shape, [1] * rank)
        assert traced_shape == (None,)


def test_no_hash():  # testNoHash
    @ag.function()
    def f(_):
        return 1.0

    with pytest.raises(TypeError, match=r"Could not generate a generic TraceType"):
        f(set([]))


def test_basic_graph_mode():  # testBasicGraphMode
    matmul = ag.function(rt.matmul)

    @ag.function
    def sq(a):
        return matmul(a, a)

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    out = sq(t)
    assert_all_equal(out, rt.matmul(t, t).numpy())


def test_nested_inputs_graph_mode():  # testNestedInputsGraphMode
    matmul = ag.function(rt.matmul)

    pair = collections.namedtuple("pair", ["a", "b"])

    @ag.function
    def a_times_b(inputs):
        return matmul(inputs.a["a"], inputs.b["b"])

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])

    out = a_times_b(pair({"a": t}, {"b": t}))
    assert_all_equal(out, rt.matmul(t, t).numpy())


def test_nested_outputs_graph_mode():  # testNestedOutputsGraphMode
    matmul = ag.function(rt.matmul)

    pair = collections.namedtuple("pair", ["a", "b"])

    @ag.function()
    def pairs_mul(pair_a, pair_b):
        return pair(matmul(pair_a.a, pair_b.a), matmul(pair_a.b, pair_b.b))

    a = rt.constant([[1.0, 2.0], [1.0, 2.0]])
    b = rt.constant([[3.0, 4.0], [3.0, 4.0]])

    out = pairs_mul(pair(a, b), pair(b, a))
    expected = pair(rt.matmul(a, b).numpy(), rt.matmul(b, a).numpy())
    assert isinstance(out, pair)
    assert_all_close(out, expected)


def test_basic_graph_function():  # testBasicGraphFunction
    matmul = ag.function(rt.matmul)

    @ag.function
    def sq(a):
        return matmul(a, a)

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])

    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == rt.TensorShape([2, 2])
    out = sq_op(t)
    assert_all_equal(out, rt.matmul(t, t).numpy())


def test_get_concrete_function_thread_safety():  # testGetConcreteFunctionThreadSafety
    @ag.function
    def sq():
        t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
        return rt.matmul(t, t)

    concrete_functions = []

    def thread_func(_):
        cf = sq.get_concrete_function()
        concrete_functions.append(cf)

    num_threads = 100
    pool = multiprocessing.pool.ThreadPool(num_threads)
    _ = pool.map(thread_func, list(range(num_threads)))
    pool.close()

    assert len(set(concrete_functions)) == 1


def test_get_concrete_function_thread_safety_with_args():
    # testGetConcreteFunctionThreadSafetyWithArgs
    @ag.function
    def add_100(*args):
        return rt.add_n(args)

    p = multiprocessing.pool.ThreadPool(2)
    args = (rt.constant(1.0),) * 100
    f1, f2 = p.map(add_100.get_concrete_function, [args] * 2)
    p.close()
    # I see about len(args) + max(0, len(args) - 3) arguments expected.
    f1(*args)
    del f2


def test_input_spec_graph_function():  # testInputSpecGraphFunction
    matmul = ag.function(rt.matmul)

    @ag.function
    def sq(a):
        return matmul(a, a)

    sq_op = sq.get_concrete_function(rt.TensorSpec((None, None), rt.float32))
    assert sq_op.output_shapes.as_list() == [None, None]

    t1 = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    out1 = sq_op(t1)
    assert_all_equal(out1, rt.matmul(t1, t1).numpy())

    t2 = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    out2 = sq_op(t2)
    assert_all_equal(out2, rt.matmul(t2, t2).numpy())


def test_nested_input_spec_graph_function():  # testNestedInputSpecGraphFunction
    matmul = ag.function(rt.matmul)

    @ag.function
    def sq(mats):
        ((a, b),) = mats
        return matmul(a, b)

    sq_op_autonamed = sq.get_concrete_function(
        [
            (
                rt.TensorSpec((None, None), rt.float32),
                rt.TensorSpec((None, None), rt.float32),
            )
        ]
    )
    assert sq_op_autonamed.output_shapes.as_list() == [None, None]

    sq_op = sq.get_concrete_function(
        [
            (
                rt.TensorSpec((None, None), rt.float32, name="first_mat"),
                rt.TensorSpec((None, None), rt.float32, name="second_mat"),
            )
        ]
    )
    assert sq_op.output_shapes.as_list() == [None, None]

    t1 = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    t2 = rt.constant([[1.4, 2.4], [3.4, 4.4]])
    out = sq_op(first_mat=t1, second_mat=t2)
    assert_all_equal(out, rt.matmul(t1, t2).numpy())
    assert_all_equal(sq_op_autonamed(t1, t2), rt.matmul(t1, t2).numpy())


def test_executing_stateless_defun_concurrently():  # testExecutingStatelessDefunConcurrently
    @ag.function
    def stateless(x):
        return rt.multiply(2.0, x)

    pool = multiprocessing.pool.ThreadPool()
    inputs = [rt.constant(1.0 * x) for x in range(100)]
    outputs = [float(out) for out in pool.map(stateless, inputs)]
    pool.close()
    expected = [float(2.0 * x) for x in inputs]
    assert outputs == expected


@pytest.mark.filterwarnings("ignore::autograph.RetracingWarning")  # 100 objects, 100 traces
def test_executing_many_stateless_defuns_concurrently():
    # testExecutingManyStatelessDefunsConcurrently
    @ag.function
    def stateless(x):
        del x
        return rt.multiply(2.0, 2.0)

    pool = multiprocessing.pool.ThreadPool()
    # `pool.map` below instantiates 100 functions, one for each object.
    objects = [object() for _ in range(100)]
    outputs = [float(out) for out in pool.map(stateless, objects)]
    pool.close()
    expected = [4.0] * 100
    assert outputs == expected


def test_executing_stateful_defun_concurrently():  # testExecutingStatefulDefunConcurrently
    v = rt.Variable(1.0)

    @ag.function
    def stateful(x):
        v.assign(x)

    pool = multiprocessing.pool.ThreadPool()
    inputs = [rt.constant(0.0)] * 100
    pool.map(stateful, inputs)
    pool.close()
    assert float(v.read_value()) == 0.0


@pytest.mark.filterwarnings("ignore::autograph.RetracingWarning")  # 100 objects, 100 traces
def test_executing_many_stateful_defuns_concurrently():
    # testExecutingManyStatefulDefunsConcurrently
    v = rt.Variable(1.0)

    @ag.function
    def stateful(x):
        del x
        return v.assign(0.0)

    pool = multiprocessing.pool.ThreadPool()
    # `pool.map` below instantiates 100 functions, one for each object.
    pool.map(stateful, [object() for _ in range(100)])
    pool.close()
    assert float(v.read_value()) == 0.0


def test_nested_inputs_graph_function():  # testNestedInputsGraphFunction
    matmul = ag.function(rt.matmul)

    pair = collections.namedtuple("pair", ["a", "b"])

    @ag.function
    def a_times_b(inputs):
        return matmul(inputs.a["a"], inputs.b["b"])

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = a_times_b.get_concrete_function(
        pair(
            dict(a=rt.TensorSpec([2, 2], rt.float32, "a")),
            dict(b=rt.TensorSpec([2, 2], rt.float32, "b")),
        )
    )
    assert sq_op.output_shapes == rt.TensorShape([2, 2])
    out = sq_op(a=t, b=t)
    assert_all_equal(out, rt.matmul(t, t).numpy())


def test_nested_output_graph_function():  # testNestedOutputGraphFunction
    matmul = ag.function(rt.matmul)

    @ag.function
    def sq(a):
        return (matmul(a, a), {"b": rt.constant(1.0)})

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])

    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == (rt.TensorShape([2, 2]), {"b": rt.TensorShape([])})
    assert sq_op.output_dtypes == (rt.float32, {"b": rt.float32})
    (a, b) = sq_op(t)
    assert_all_equal(a, rt.matmul(t, t).numpy())
    assert_all_equal(b["b"].numpy(), 1.0)


def test_zip_strict_builtin():  # testZipStrictBuiltin
    @ag.function
    def foo(x):
        return list(zip([x], [x], strict=True))

    assert foo(2)[0][0].numpy() == 2


def test_graph_function_none_output():  # testGraphFunctionNoneOutput
    @ag.function
    def fn(unused_a, unused_b):
        return None

    x = rt.constant(1)
    fn_op = fn.get_concrete_function(x, x)
    assert fn_op.output_dtypes is None
    assert fn_op.output_shapes is None
    assert fn_op(x, x) is None


def test_defun_captured_int32():  # testDefunCapturedInt32
    x = rt.constant(1, dtype=rt.int32)

    @ag.function
    def add_int32s():
        return x + x

    assert int(add_int32s()) == 2


def test_defun_read_variable():  # testDefunReadVariable
    v = rt.Variable(1.0)

    @ag.function
    def f():
        return v.read_value()

    assert float(f()) == 1.0


def test_defun_assign_add_variable():  # testDefunAssignAddVariable
    v = rt.Variable(1.0)
    x = rt.constant(2.0)

    @ag.function
    def test_assign_add():
        v.assign_add(x)
        return v.read_value()

    assert float(test_assign_add()) == 3.0


def test_get_concrete_function_creates_variables():  # testGetConcreteFunctionCreatesVariables
    v_holder = []

    @ag.function
    def tensor_init():
        if not v_holder:
            v_holder.append(rt.Variable(5.0))
        return v_holder[0].read_value()

    concrete = tensor_init.get_concrete_function()
    assert_all_equal(5.0, concrete())
    assert_all_equal(5.0, tensor_init())


def test_shape_inference_for_more_specific_input():  # testShapeInferenceForMoreSpecificInput
    def f(a):
        return rt.reshape(a, [-1, 3])

    signature = [rt.TensorSpec(None, rt.float32)]
    compiled = ag.function(f, input_signature=signature)
    shapes = []

    @ag.function
    def use_f():
        inputs = rt.zeros([10, 10, 3])
        shapes.append((f(inputs).shape, compiled(inputs).shape))

    use_f()
    for python_shape, function_shape in shapes:
        assert python_shape.as_list() == function_shape.as_list()


def test_defun_shape_inference_with_captured_variable_in_graph_mode():
    # testDefunShapeInferenceWithCapturedVariableInGraphMode
    shapes = []
    with rt.Graph().as_default():
        v = rt.Variable([[1, 2], [3, 4]])

        def f():
            x = rt.constant([[1, 2], [3, 4]])
            out = rt.matmul(v, x)
            shapes.append(out.shape)

        # Check that shape inference works while creating the defun
        compiled = ag.function(f)
        compiled()
    assert shapes and all(shape == rt.TensorShape([2, 2]) for shape in shapes)


def test_graph_mode_many_functions():  # testGraphModeManyFunctions
    with rt.Graph().as_default():

        @ag.function
        def f(x):
            return x * x

        @ag.function
        def g(x):
            return f(x) + 1

        result = g(rt.constant(2.0))
        with rt.Session() as sess:
            assert_all_equal(sess.run(result), 5.0)


def test_dict():  # testDict
    @ag.function
    def f(x):
        return {"name": x + 1}

    assert_all_equal(f(rt.constant(1.0))["name"], 2.0)


def test_weakref_inputs_rejected():  # testWeakrefInputsRejected
    @ag.function
    def f(x):
        return x

    class Dummy:
        pass

    o = Dummy()
    wr = weakref.ref(o)

    with pytest.raises(TypeError, match="weakref"):
        f(wr)


def test_tensor_conversion_with_defun():  # testTensorConversionWithDefun
    @ag.function
    def f(x):
        return rt.add(x, rt.constant(3))

    assert_all_equal(5, f(rt.constant(2)))


def test_tensor_conversion_call():  # testTensorConversionCall
    @ag.function
    def f(x):
        return rt.add(x, rt.constant(3))

    @ag.function
    def g(x):
        return f(f(x))

    assert_all_equal(8, g(rt.constant(2)))


def test_call_shape():  # testCallShape
    shapes = []

    @ag.function
    def f(x):
        return x + 1

    @ag.function
    def g(x):
        x = f(x)
        shapes.append(x.shape.as_list())
        return None

    g(rt.constant(1.0))
    assert shapes == [[]]


def test_nested_defun_with_no_output_and_taped_input():
    # testNestedDefunWithNoOutputAndTapedInput
    three = rt.Variable(3.0, name="v")

    @ag.function
    def f(x):
        # This function intentionally takes a taped variable as input,
        # but does not return any values
        rt.add(x, three)

    @ag.function
    def g(x):
        y = rt.add(x, three)
        f(y)

    g(three)


def test_gather_resource_with_defun():  # testGatherResourceWithDefun
    with rt.device("cpu:0"):
        v = rt.Variable([0.0, 1.0, 2.0])

    def sum_gather():
        return rt.reduce_sum(rt.gather(v, [1, 2]))

    defined = ag.function(sum_gather)
    assert_all_equal(sum_gather(), defined())


def test_none_output():  # testNoneOutput
    @ag.function
    def my_function(_):
        return None

    assert my_function(1) is None


def test_variable_capture_in_nested_functions():  # testVariableCaptureInNestedFunctions
    v = rt.Variable(1, dtype=rt.int32)

    @ag.function
    def inner_read():
        return v.read_value()

    @ag.function
    def outer():
        return inner_read()

    assert int(outer()) == 1


def test_return_captured_eager_tensor():  # testReturnCapturedEagerTensor
    t = rt.constant(1)

    @ag.function
    def read():
        return t

    assert int(read()) == 1


def test_return_captured_graph_tensor():  # testReturnCapturedGraphTensor
    with rt.Graph().as_default():
        t = rt.constant(1)

        @ag.function
        def read():
            return t

        result = read()
        with rt.Session() as sess:
            assert int(sess.run(result)) == 1


def test_concrete_function_type():  # testConcreteFunctionType (its results; function_type is internal)
    y = rt.constant(1)

    @ag.function
    def foo(x):
        return {"input": x, "capture": y}

    cf = foo.get_concrete_function(rt.TensorSpec([], rt.int32))
    x = rt.constant(2)
    output = cf(x)
    assert set(output.keys()) == {"input", "capture"}
    assert output["input"].numpy() == 2
    assert output["capture"].numpy() == 1


def test_sequence_inputs():  # testSequenceInputs
    clip_by_global_norm = ag.function(rt.clip_by_global_norm)
    t_list = [rt.constant(1.0), rt.constant(2.0)]
    clipped_list, global_norm = clip_by_global_norm(t_list, rt.constant(0.2))
    for t in clipped_list:
        assert isinstance(t, rt.Tensor)
    assert isinstance(global_norm, rt.Tensor)


def test_nested_sequence_inputs():  # testNestedSequenceInputs
    def my_op(inputs):
        a, b, c = inputs
        e, f = b
        g, h = e
        return [a + a, [tuple([f + f, g + g]), h + h], c + c], a + f + g + h + c

    my_eager_op = ag.function(my_op)
    ret = my_eager_op(
        [
            rt.constant(1),
            [(rt.constant(2), rt.constant(3)), rt.constant(4)],
            rt.constant(5),
        ]
    )
    assert len(ret) == 2
    assert_all_equal(ret[0][0], 2)
    assert_all_equal(ret[0][1][0][0], 8)
    assert_all_equal(ret[0][1][0][1], 4)
    assert isinstance(ret[0][1][0], tuple)
    assert_all_equal(ret[0][1][1], 6)
    assert_all_equal(ret[0][2], 10)
    assert_all_equal(ret[1], 15)


@pytest.mark.parametrize("reduce_retracing", [True, False])
def test_variables_are_tracked(reduce_retracing):  # testVariablesAreTracked
    v = rt.Variable(1.0)

    def foo(x):
        return v * x

    defined = ag.function(foo, reduce_retracing=reduce_retracing)

    x = rt.constant([1.0])
    assert_all_equal(defined(x), [1.0])
    v.assign(2.0)

    x = rt.constant([1.0, 2.0])
    assert_all_equal([2.0, 4.0], defined(x))


def test_input_signature_must_be_sequence_of_tensor_specs():
    # testInputSignatureMustBeSequenceOfTensorSpecs
    def foo(a, b):
        del a
        del b

    # Signatures must consist exclusively of `TensorSpec` objects.
    signature = [(2, 3), rt.TensorSpec([2, 3], rt.float32)]
    with pytest.raises(TypeError, match="input_signature.*nested sequence"):
        ag.function(foo, input_signature=signature)


def test_inputs_incompatible_with_signature_raises_error():
    # testInputsIncompatibleWithSignatureRaisesError. TensorFlow words a spec mismatch "Can not
    # cast TensorSpec(...) to TensorSpec(...)"; docs/function.md documents the project's own
    # wording, which names the argument: the port checks the exception type there.
    def foo(a):
        return a

    signature = [rt.TensorSpec(shape=(2,), dtype=rt.float32)]
    defined = ag.function(foo, input_signature=signature)

    # Valid call
    defined(rt.ones([2]))

    # Invalid shapes.
    with pytest.raises(TypeError):
        defined(rt.ones([3], dtype=rt.int32))

    # Invalid shapes.
    with pytest.raises(TypeError):
        defined(rt.ones([3]))

    with pytest.raises(TypeError):
        defined(rt.ones([2, 1]))

    # Wrong number of arguments.
    with pytest.raises(TypeError, match="too many positional arguments"):
        defined(rt.ones([2]), rt.ones([2]))
    with pytest.raises(TypeError, match="missing a required argument"):
        defined()

    with pytest.raises(TypeError):
        defined.get_concrete_function(rt.TensorSpec(shape=(3,), dtype=rt.float32))


def test_mismatched_concrete_signature_raises_error():
    # testMismatchedConcreteSignatureRaisesError (TensorFlow's message, "Binding inputs to
    # tf.function failed", names TensorFlow: the port checks the type)
    errors = []

    @ag.function
    def run_test():
        @ag.function
        def f(x):
            return x

        try:
            f.get_concrete_function(1)(rt.constant(1))
        except TypeError as e:
            errors.append(e)

        f.get_concrete_function(rt.constant(1))(1)

        try:
            f.get_concrete_function(1)(2)
        except TypeError as e:
            errors.append(e)

    run_test()
    assert len(errors) == 2


def test_input_signature_conversion_with_default_arg():
    # testInputSignatureConversionWithDefaultArg
    def foo(a, training=True):
        if training:
            return a
        else:
            return -1.0 * a

    signature = [
        rt.TensorSpec([], rt.float32),
        rt.TensorSpec([], rt.bool),
    ]
    defined = ag.function(foo, input_signature=signature)
    a = rt.constant(1.0)
    assert_all_equal(a.numpy(), defined(a))
    assert_all_equal(a.numpy(), defined(a, training=True))
    assert_all_equal(-a.numpy(), defined(a, training=False))


def test_defuning_instance_method():  # testDefuningInstanceMethod
    integer = rt.constant(2, rt.int64)

    class Foo:
        def one(self, tensor):
            return tensor

        @ag.function
        def two(self, tensor, other=integer):
            return self.one(tensor), other

    foo = Foo()
    t = rt.constant(1.0)
    one, two = foo.two(t)
    assert one.numpy() == 1.0
    assert two.numpy() == 2


def test_defuning_instance_method_with_default_argument():
    # testDefuningInstanceMethodWithDefaultArgument
    integer = rt.constant(2, rt.int64)

    class Foo:
        @ag.function
        def func(self, other=integer):
            return other

    foo = Foo()
    assert foo.func().numpy() == int(integer)


def test_python_call_with_side_effects():  # testPythonCallWithSideEffects
    state = []

    @ag.function
    def side_effecting_function():
        state.append(0)

    side_effecting_function()
    assert state == [0]

    # The second invocation should call the graph function, which shouldn't
    # trigger the list append.
    side_effecting_function()
    assert state == [0]

    # Whereas calling the python function directly should create a side-effect.
    side_effecting_function.python_function()
    assert state == [0, 0]


def test_function_with_nested_function_call_and_side_effects():
    # testFunctionWithNestedFunctionCallAndSideEffects
    v1 = rt.Variable(1.0)
    v2 = rt.Variable(1.0)

    @ag.function
    def add_one(a):
        a.assign_add(1.0)

    @ag.function
    def side_effecting_function(a, b):
        add_one(a)
        add_one(b)
        return a + b

    result = side_effecting_function(v1, v2)
    assert result.numpy() == 4.0


@pytest.mark.parametrize("reduce_retracing", [True, False])
def test_variable_retracing_on_dtype_changes(reduce_retracing):
    # testVariableRetracingOnDtypeChanges
    @ag.function(reduce_retracing=reduce_retracing)
    def defined(a, b):
        return a + b

    x1 = rt.Variable(0.0)
    x2 = rt.Variable(0.0)

    defined(x1, x2)
    assert defined.tracing_count == 1

    # Should expect retracing for new dtypes
    y1 = rt.Variable(0)
    y2 = rt.Variable(1)
    defined(y1, y2)
    assert defined.tracing_count == 2


def test_variable_retracing_dtype_shape():  # testVariableRetracingDtypeShape
    @ag.function
    def defined(a, b):
        return a + b

    x1 = rt.Variable(0.0)
    x2 = rt.Variable(0.0)

    defined(x1, x2)
    assert defined.tracing_count == 1

    y1 = rt.Variable([0.0, 1.0])
    y2 = rt.Variable([0.0, 1.0])

    defined(y1, y2)
    assert defined.tracing_count == 2

    z1 = rt.Variable([[0.0, 1.0]])
    z2 = rt.Variable([[0.0, 1.0]])
    defined(z1, z2)
    assert defined.tracing_count == 3


def test_function_modifies_input_list():  # testFunctionModifiesInputList
    # Tests on `list` methods that do in place modification, except `list.sort`
    # since it cannot even be "defunned" in the first place

    def get_list():
        return [rt.constant(0.0), rt.constant(1.0)]

    expected_msg = ".*() should not modify"

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def append(l):  # noqa: E741 (TensorFlow's names)
            l.append(rt.constant(0.0))

        append(get_list())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def extend(l):  # noqa: E741
            l.extend([rt.constant(0.0)])

        extend(get_list())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def insert(l):  # noqa: E741
            l.insert(0, rt.constant(0.0))

        insert(get_list())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def pop(l):  # noqa: E741
            l.pop()

        pop(get_list())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def reverse(l):  # noqa: E741
            l.reverse()

        reverse(get_list())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def remove(l):  # noqa: E741
            l.remove(l[0])

        remove(get_list())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def clear(l):  # noqa: E741
            l.clear()

        clear(get_list())

    # One last test for keyword arguments
    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def kwdappend(**kwargs):
            l = kwargs["l"]  # noqa: E741
            l.append(rt.constant(0.0))

        kwdappend(l=get_list())


def test_function_modifies_input_dict():  # testFunctionModifiesInputDict
    def get_dict():
        return {"t1": rt.constant(0.0), "t2": rt.constant(1.0)}

    expected_msg = ".* should not modify"

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def clear(m):
            m.clear()

        clear(get_dict())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def pop(m):
            m.pop("t1")

        pop(get_dict())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def popitem(m):
            m.popitem()

        popitem(get_dict())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def update(m):
            m.update({"t1": rt.constant(3.0)})

        update(get_dict())

    with pytest.raises(ValueError, match=expected_msg):

        @ag.function
        def setdefault(m):
            m.setdefault("t3", rt.constant(3.0))

        setdefault(get_dict())


def test_function_modifies_input_nest():  # testFunctionModifiesInputNest
    with pytest.raises(ValueError, match="modify.* should not modify"):

        @ag.function
        def modify(n):
            n[0]["t1"].append(rt.constant(1.0))

        nested_input = [
            {
                "t1": [rt.constant(0.0), rt.constant(1.0)],
            },
            rt.constant(2.0),
        ]

        modify(nested_input)

    with pytest.raises(ValueError, match="modify_same_flat.* should not modify"):
        # The flat list doesn't change whereas the true structure changes
        @ag.function
        def modify_same_flat(n):
            n[0].append(n[1].pop(0))

        nested_input = [[rt.constant(0.0)], [rt.constant(1.0), rt.constant(2.0)]]

        modify_same_flat(nested_input)


@pytest.mark.xfail(
    strict=True,
    reason="a concrete function called eagerly checks shapes against its placeholders (TensorFlow leaves that to the kernels)",
)
def test_concrete_function_shape_mismatch():  # test_concrete_function_shape_mismatch
    @ag.function
    def f(argument_name):
        return argument_name + 1.0

    f_concrete = f.get_concrete_function(rt.constant([1.0]))

    # Calling a function from eager doesn't do any shape checking above what
    # kernels do while executing.
    assert_all_equal([2.0, 3.0], f_concrete(rt.constant([1.0, 2.0])).numpy())

    @ag.function
    def g():
        f_concrete(rt.constant([1.0, 2.0]))

    with pytest.raises(TypeError):
        g()


def test_shape_inference_with_symbolic_shapes():  # test_shape_inference_with_symbolic_shapes
    @ag.function
    def _uses_symbolic_shapes(w, x, y):
        x = rt.identity(x, name="name_collision")
        x = rt.transpose(x, [1, 0, 2])
        x_batch = rt.shape(x)[0]
        y_batch = rt.shape(y)[0]
        y *= w
        n = y_batch // x_batch
        return rt.reshape(y, [n, x_batch, -1])

    conc = _uses_symbolic_shapes.get_concrete_function(
        rt.TensorSpec(None, rt.float32),
        rt.TensorSpec(None, rt.float32),
        rt.TensorSpec(None, rt.float32),
    )
    static_shapes = []

    @ag.function
    def _call_concrete():
        c = rt.constant(1.0)
        rt.identity(c, name="name_collision")
        output1 = conc(rt.ones([2]), rt.ones([5, 4, 2]), rt.ones([20, 2]))
        static_shapes.append(output1.shape)
        output2 = conc(rt.ones([3]), rt.ones([5, 4, 3]), rt.ones([40, 3]))
        static_shapes.append(output2.shape)
        return output1, output2

    output1, output2 = _call_concrete()
    assert static_shapes[0] == [5, 4, 2]
    assert static_shapes[1] == [10, 4, 3]
    assert output1.numpy().shape == (5, 4, 2)
    assert output2.numpy().shape == (10, 4, 3)


def test_concrete_function_with_nested_tensor_inputs():
    # testConcreteFunctionWithNestedTensorInputs
    @ag.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = rt.constant(1000)
    b = rt.constant(200)
    c = rt.constant(30)
    d = {"a": a, "b": b}
    e = (c, 4)

    # Test different argument signatures when constructing the concrete func.
    for cf in [
        f.get_concrete_function(d, e),
        f.get_concrete_function(d, y=e),
        f.get_concrete_function(y=e, x=d),
        f.get_concrete_function(spec_for_value(d), spec_for_value(e)),
        f.get_concrete_function(spec_for_value(d), y=spec_for_value(e)),
        f.get_concrete_function(y=spec_for_value(e), x=spec_for_value(d)),
    ]:
        # Test different calling conventions when calling the concrete func.
        for output in [
            cf(d, e),  # structured signature
            cf(d, y=e),  # structured signature w/ kwarg
            cf(y=e, x=d),  # structured signature w/ 2 kwargs
            cf(a, b, c),  # flat signature
        ]:
            assert isinstance(output, tuple)
            assert len(output) == 2
            assert_all_equal(output[0], 1200)
            assert_all_equal(output[1], 34)


def test_concrete_function_with_nested_non_tensor_inputs():
    # testConcreteFunctionWithNestedNonTensorInputs
    @ag.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": rt.constant(1000), "b": rt.constant(200)}
    b = (50, 3)

    for cf in [  # argument y is bound to non-Tensor value (50, 3).
        f.get_concrete_function(a, b),
        f.get_concrete_function(a, y=b),
        f.get_concrete_function(x=a, y=b),
    ]:
        for output in [cf(a, b), cf(x=a, y=b)]:
            assert_all_equal(output[0] + output[1], 1253)


def test_concrete_function_with_non_tensor_string_inputs():
    # testConcreteFunctionWithNonTensorStringInputs
    @ag.function
    def f(x, y):
        return rt.strings.join([x, y])

    a = rt.constant("a")
    b = "b"

    cf = f.get_concrete_function(a, b)
    for output in [cf(a), cf(x=a), cf(a, b), cf(x=a, y=b)]:
        assert_all_equal(output, b"ab")


def test_concrete_function_with_bound_nested_non_tensor_inputs():
    # testConcreteFunctionWithBoundNestedNonTensorInputs
    @ag.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": 3000, "b": 200, "c": 9000}
    b = (rt.constant(30), 4)

    for cf in [  # argument x is bound to non-tensor value `a`
        f.get_concrete_function(a, b),
        f.get_concrete_function(a, y=b),
        f.get_concrete_function(x=a, y=b),
    ]:
        for output in [cf(a, b), cf(a, y=b), cf(x=a, y=b)]:
            assert_all_equal(output[0] + output[1], 3234)


def test_concrete_function_with_all_bound_nested_non_tensor_inputs():
    # testConcreteFunctionWithAllBoundNestedNonTensorInputs
    @ag.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": 5000, "b": 500}
    b = (50, 5)

    cf = f.get_concrete_function(a, b)
    for output in [cf(), cf(a, b), cf(x=a, y=b)]:
        assert_all_equal(output[0] + output[1], 5555)


def test_concrete_function_method_with_varargs():  # testConcreteFunctionMethodWithVarargs
    float32_scalar = rt.TensorSpec(shape=(), dtype=rt.float32)

    class MyModel(rt.Module):
        @ag.function(input_signature=[float32_scalar, float32_scalar])
        def add(self, *arg):
            return rt.add(*arg)

    m = MyModel()
    cf = m.add.get_concrete_function()
    cf(-12.0, 3.0)


def test_concrete_function_structured_signature_keyword_order():
    # testConcreteFunctionStructuredSignatureKeywordOrder. TensorFlow joins the sorted
    # (key, value) pairs with string_ops.reduce_join; the project has no reduce_join, so the
    # same string is built with rt.strings.join over the same sorted items.
    @ag.function
    def g(**kwargs):
        pairs = [
            rt.strings.join([key, value], separator="=") for key, value in sorted(kwargs.items())
        ]
        return rt.strings.join(pairs, separator=", ")

    s = rt.constant("s")
    g.get_concrete_function(q=s, a=s, p=s, r=s, v=s, m=s, l=s)
    assert_all_equal(
        g(m="a", r="b", v="c", q="d", l="e", a="f", p="g"), b"a=f, l=e, m=a, p=g, q=d, r=b, v=c"
    )
    assert_all_equal(
        g(q="d", a="f", p="g", r="b", v="c", m="a", l="e"), b"a=f, l=e, m=a, p=g, q=d, r=b, v=c"
    )
    assert_all_equal(
        g(a="f", l="e", m="a", p="g", q="d", r="b", v="c"), b"a=f, l=e, m=a, p=g, q=d, r=b, v=c"
    )


def test_same_concrete_function_different_kwarg_order():
    # testSameConcreteFunctionDifferentKwargOrder
    @ag.function
    def foo(**kwargs):
        return kwargs["a"] + rt.cast(kwargs["b"], rt.float32)

    foo(a=rt.constant(1.0), b=rt.constant(1))
    foo(b=rt.constant(1), a=rt.constant(1.0))

    assert foo.tracing_count == 1


def test_empty_input_signatures():  # testEmptyInputSignatures
    class Foo:
        @ag.function(input_signature=[])
        def bar_none(self):
            return 1

        @ag.function(input_signature=[])
        def bar_one(self, x=0):
            return x

        @ag.function(input_signature=[])
        def bar_two(self, x=0, y=1):
            return x + y

    foo = Foo()
    assert foo.bar_none.input_signature == ()
    assert foo.bar_one.input_signature == ()
    assert foo.bar_two.input_signature == ()


# TensorFlow's parameters, less the three with RaggedTensors. Its "Binding inputs ... failed
# ... Can not cast" wording names TensorFlow's own types: those cases check the type only.
STRUCTURED_SIGNATURE_ERRORS = {
    "MissingArg": dict(
        conc_args=lambda: (1, rt.constant(2)),
        call_args=lambda: (1,),
        error=r"missing a required argument: 'y'",
    ),
    "MissingVararg": dict(
        conc_args=lambda: (1, 2, rt.constant(1.0)),
        call_args=lambda: (1, 2),
        error=r"missing a required argument: 'varargs_0'",
    ),
    "ExtraPositionalArg": dict(
        conc_args=lambda: (1, 2),
        call_args=lambda: (1, 2, 3),
        error=r"too many positional arguments",
    ),
    "MissingKeywordOnlyArg": dict(
        conc_args=lambda: (1, 2),
        conc_kwargs=lambda: {"c": rt.constant(1.0)},
        call_args=lambda: (1, 2),
        error=r"missing a required( keyword-only)? argument: 'c'",
    ),
    "ExtraKeywordArg": dict(
        conc_args=lambda: (1, 2),
        call_args=lambda: (1, 2),
        call_kwargs=lambda: {"c": rt.constant(1.0)},
        error=r"got an unexpected keyword argument",
    ),
    "ExpectedDictGotTensor": dict(
        conc_args=lambda: ({"a": rt.constant(1), "b": rt.constant(1)},),
        call_args=lambda: (rt.constant(1), 5),
    ),
    "ExpectedTupleGotTensor": dict(
        conc_args=lambda: ((rt.constant(1), rt.constant(2)),),
        call_args=lambda: (rt.constant(1), 5),
    ),
    "WrongDType": dict(
        conc_args=lambda: (rt.constant(1),),
        call_args=lambda: (rt.constant(1.0), 5),
        exception=(TypeError, rt.errors.InvalidArgumentError),
    ),
    "ExpectedIntGotDifferentInt": dict(
        conc_args=lambda: (5,),
        call_args=lambda: (8, 5),
    ),
    "ExpectedIntGotTensor": dict(
        conc_args=lambda: (5,),
        call_args=lambda: (rt.constant(6), 5),
    ),
    "TwoValuesForArgument": dict(
        conc_args=lambda: (1, 2),
        call_args=lambda: (1, 2),
        call_kwargs=lambda: {"x": 3},
        error=r"got an unexpected keyword argument 'x'",
    ),
}


# These raise, but not in Python's binding wording, which TensorFlow's messages use.
PYTHON_BINDING_WORDING = {
    "MissingArg",
    "MissingVararg",
    "MissingKeywordOnlyArg",
    "TwoValuesForArgument",
}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case,
            marks=pytest.mark.xfail(
                strict=True,
                reason="concrete-function calling conventions: calls bound as Python binds "
                "them ('missing a required argument', 'too many positional arguments'...)",
            ),
        )
        if case in PYTHON_BINDING_WORDING
        else case
        for case in STRUCTURED_SIGNATURE_ERRORS
    ],
)
def test_concrete_function_structured_signature_error(case):
    # testConcreteFunctionStructuredSignatureError
    params = STRUCTURED_SIGNATURE_ERRORS[case]
    conc_args = params["conc_args"]()
    conc_kwargs = params.get("conc_kwargs", dict)()
    call_args = params["call_args"]()
    call_kwargs = params.get("call_kwargs", dict)()

    @ag.function
    def func(x, y=5, *varargs, **kwargs):
        del y, varargs, kwargs
        return x

    conc = func.get_concrete_function(*conc_args, **conc_kwargs)
    with pytest.raises(params.get("exception", TypeError), match=params.get("error", ".*")):
        conc(*call_args, **call_kwargs)


def test_concrete_function_ambiguous_signature():  # testConcreteFunctionAmbiguousSignature
    # When both the flat & structured signatures are applicable, but they
    # give different results, we use the structured signature.  Note: we expect
    # this to be extremely rare.
    @ag.function
    def f(x, y):
        return x * 10 + y

    conc = f.get_concrete_function(
        x=rt.TensorSpec(None, rt.int32, name="y"), y=rt.TensorSpec(None, rt.int32, name="x")
    )

    result = conc(x=rt.constant(5), y=rt.constant(6))
    assert_all_equal(result, 56)


def test_pretty_printed_signature():  # testPrettyPrintedSignature
    # TensorFlow's text with the project's dtype names (rt.int32, as TensorSpec's repr has
    # them). str(concrete_fn) is left out: docs/function.md documents the project's own
    # printout ("ConcreteFunction name(args)", Args:, Returns:).
    @ag.function
    def func(x, kangaroo=None, octopus=7):
        del octopus, kangaroo
        return x

    scalar = rt.constant(5)
    vector = rt.constant([10, 10, 20])

    concrete_fn = func.get_concrete_function(scalar, vector)
    summary = (
        "(x: TensorSpec(shape=(), dtype=rt.int32, name=None), kangaroo:"
        " TensorSpec(shape=(3,), dtype=rt.int32, name=None), octopus:"
        " Literal[7]) -> TensorSpec(shape=(), dtype=rt.int32, name=None)"
    )
    details = (
        "Input Parameters:\n" + "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(),"
        " dtype=rt.int32, name=None)\n" + "  kangaroo (POSITIONAL_OR_KEYWORD):"
        " TensorSpec(shape=(3,), dtype=rt.int32, name=None)\n"
        + "  octopus (POSITIONAL_OR_KEYWORD): Literal[7]\n"
        + "Output Type:\n"
        + "  TensorSpec(shape=(), dtype=rt.int32, name=None)\n"
        + "Captures:\n"
        + "  None"
    )
    assert concrete_fn.pretty_printed_signature(verbose=False) == summary
    assert concrete_fn.pretty_printed_signature(verbose=True) == details


def test_pretty_printed_explicit_signature_with_keyword_arg():
    # testPrettyPrintedExplicitSignatureWithKeywordArg
    @ag.function(input_signature=[rt.TensorSpec(None)])
    def fn(a, b=1):
        return a + b

    concrete_fn = fn.get_concrete_function()
    assert concrete_fn.pretty_printed_signature(False) == (
        "(a: TensorSpec(shape=<unknown>, dtype=rt.float32, name=None), b:"
        " Literal[1]) -> TensorSpec(shape=<unknown>, dtype=rt.float32,"
        " name=None)"
    )
    assert concrete_fn.pretty_printed_signature(True) == (
        "Input Parameters:\n" + "  a (POSITIONAL_OR_KEYWORD):"
        " TensorSpec(shape=<unknown>, dtype=rt.float32, name=None)\n"
        + "  b (POSITIONAL_OR_KEYWORD): Literal[1]\n"
        + "Output Type:\n"
        + "  TensorSpec(shape=<unknown>, dtype=rt.float32, name=None)\n"
        + "Captures:\n"
        + "  None"
    )


@pytest.mark.xfail(strict=True, reason="pretty_printed_signature on a loaded signature")
def test_pretty_printed_signature_loaded_named_tuple(tmp_path):
    # testPrettyPrintedSignatureLoadedNamedTuple
    Point = collections.namedtuple("Point", ["x", "y"])

    @ag.function
    def fn(b, a):
        return 1.0

    b = Point(x=rt.constant(1.0, dtype=rt.float32), y=rt.constant(1.0, dtype=rt.float32))
    a = Point(x=rt.constant(1, dtype=rt.int32), y=rt.constant(1, dtype=rt.int32))

    mod = rt.Module()
    f = fn.get_concrete_function(b, a)
    path = str(tmp_path / "f")
    rt.saved_model.save(mod, path, signatures=f)
    loaded = rt.saved_model.load(path)

    printed = loaded.signatures["serving_default"].pretty_printed_signature()
    assert printed == (
        "Input Parameters:\n"
        + "  a (KEYWORD_ONLY): TensorSpec(shape=(), dtype=rt.int32, name='a')\n"
        + "  a_1 (KEYWORD_ONLY): TensorSpec(shape=(),"
        " dtype=rt.int32, name='a_1')\n" + "  b (KEYWORD_ONLY): TensorSpec(shape=(),"
        " dtype=rt.float32, name='b')\n" + "  b_1 (KEYWORD_ONLY):"
        " TensorSpec(shape=(), dtype=rt.float32, name='b_1')\n"
        + "Output Type:\n"
        + "  Dict[['output_0', TensorSpec(shape=(), dtype=rt.float32,"
        " name='output_0')]]\n" + "Captures:\n" + "  None"
    )


def test_indexed_slices_as_gradients_for_concrete_functions():
    # testIndexedSlicesAsGradientsForConcreteFunctions (the project's gather gradient is dense)
    @ag.function
    def summing_rnn(inputs):
        return rt.reduce_sum(inputs, axis=1)

    @ag.function
    def gradients(inputs):
        with rt.GradientTape() as tape:
            tape.watch(inputs)
            hidden = summing_rnn(inputs)
            hidden = rt.gather(hidden, rt.constant([0]))
            loss = rt.reduce_mean(hidden)
        return tape.gradient(loss, inputs)

    gradients(rt.constant([[[1.0], [2.0]]]))  # No error is raised


def test_with_extra_wrapper():  # testWithExtraWrapper
    class Foo(rt.Module):
        def __init__(self):
            super().__init__()
            self.var = None

        @ag.function
        @dummy_tf_decorator
        def add(self, x, y, z=1):
            if self.var is None:
                return x + y + z

    foo = Foo()
    assert foo.add(2, 3).numpy() == 6


@pytest.mark.parametrize(
    "decorator1, decorator2",
    [
        (ag.function, dummy_tf_decorator),
        (dummy_tf_decorator, ag.function),
        (ag.function, ag.function),
    ],
    ids=["function-wrapper", "wrapper-function", "function-function"],
)
def test_with_extra_wrapper_redundant_args(decorator1, decorator2):
    # testWithExtraWrapperRedundantArgs
    class Foo(rt.Module):
        def __init__(self):
            super().__init__()
            self.var = None

        @decorator1
        @decorator2
        def add1(self, x, y):
            if self.var is None:
                return x + y

    foo = Foo()
    with pytest.raises(TypeError, match="multiple values for argument"):
        foo.add1(2, x=3)


def test_with_extra_wrapper_missing_args():  # testWithExtraWrapperMissingArgs
    class Foo(rt.Module):
        def __init__(self):
            super().__init__()
            self.var = None

        @ag.function
        @dummy_tf_decorator
        def add1(self, x, y):
            if self.var is None:
                return x + y

        @ag.function
        @dummy_tf_decorator
        def add2(self, x, y):
            if self.var is None:
                return x + y

        @ag.function
        @ag.function
        def add3(self, x, y):
            if self.var is None:
                return x + y

    foo = Foo()
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        foo.add1(2)

    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        foo.add1(y=2)

    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        foo.add2(2)

    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        foo.add2(y=2)

    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        foo.add3(2)

    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        foo.add3(y=2)


def test_missing_args_tf_functioned_method():  # testMissingArgsTfFunctionedMethod
    class A:
        def func(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

        @ag.function
        def decorated_method(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    a_instance = A()
    tf_method_pos = ag.function(a_instance.func)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_method_pos(position_arg2="foo")

    # tf.function-decorated instance methods need to be tested because of
    # the __get__ method implementation.
    tf_func_decorated_method = ag.function(a_instance.decorated_method)
    tf_func_decorated_method(position_arg1="foo", position_arg2="bar")
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_decorated_method(position_arg2="bar")


def test_missing_args_tf_functioned_object():  # testMissingArgsTfFunctionedObject
    class A:
        def __call__(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    a_instance = A()

    # A tf.function-decorated callable object needs to be tested because of
    # the special inspect results.
    tf_func_obj = ag.function(a_instance)
    tf_func_obj(position_arg1=1, position_arg2=2)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_obj(position_arg2="bar")


def test_missing_args_tf_functioned_functions():  # testMissingArgsTfFunctionedFunctions
    def func_pos(position_arg1, position_arg2):
        return position_arg1, position_arg2

    def func_with_default(position_arg, named_arg=None):
        return position_arg, named_arg

    def func_pos_3args(position_arg1, position_arg2, position_arg3):
        return position_arg1, position_arg2, position_arg3

    tf_func_pos = ag.function(func_pos)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_pos(position_arg2="foo")

    tf_func_with_default = ag.function(func_with_default)
    tf_func_with_default(position_arg="bar")
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_with_default(named_arg="foo")

    tf_func_pos_3args = ag.function(func_pos_3args)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_pos_3args(position_arg2="foo")


def test_shape_inference_propagate_const_nested_stack():
    # testShapeInferencePropagateConstNestedStack
    @ag.function(
        input_signature=[
            rt.TensorSpec((None, None), dtype=rt.int32),
            rt.TensorSpec((), dtype=rt.int32),
        ]
    )
    def f(x, s):
        old_shape = rt.shape(x)
        new_shape = rt.stack([old_shape[0], s], axis=0)
        y = rt.ones(shape=new_shape, dtype=rt.int32)
        return y

    @ag.function(input_signature=[rt.TensorSpec(shape=(3, 6), dtype=rt.int32)])
    def g(x):
        y = f(x, s=5)
        assert y.shape.as_list() == [3, 5], y.shape.as_list()
        return y

    assert_all_equal(g(rt.zeros([3, 6], dtype=rt.int32)), rt.ones([3, 5]))


def test_shape_inference_propagate_const_nested_unstack_stack():
    # testShapeInferencePropagateConstNestedUnstackStack
    @ag.function(
        input_signature=[
            rt.TensorSpec((None, None), dtype=rt.int32),
            rt.TensorSpec((), dtype=rt.int32),
        ]
    )
    def f(x, s):
        s0, _ = rt.unstack(rt.shape(x), axis=0)
        new_shape = rt.stack([s0, s], axis=0)
        y = rt.ones(shape=new_shape, dtype=rt.int32)
        return y

    @ag.function(input_signature=[rt.TensorSpec(shape=(3, 6), dtype=rt.int32)])
    def g(x):
        y = f(x, s=5)
        assert y.shape.as_list() == [3, 5], y.shape.as_list()
        return y

    assert_all_equal(g(rt.zeros([3, 6], dtype=rt.int32)), rt.ones([3, 5]))


def test_shape_inference_propagate_const_nested_concat():
    # testShapeInferencePropagateConstNestedConcat
    @ag.function(
        input_signature=[
            rt.TensorSpec((), dtype=rt.int32),
            rt.TensorSpec((), dtype=rt.int32),
            rt.TensorSpec((), dtype=rt.int32),
        ]
    )
    def f(d1, d2, d3):
        new_shape = rt.concat([[d1], [d2], [d3]], axis=-1)
        y = rt.ones(shape=new_shape, dtype=rt.int32)
        return y

    @ag.function()
    def g():
        y = f(1, 2, 3)
        assert y.shape.as_list() == [1, 2, 3], y.shape.as_list()
        return y

    assert_all_equal(g(), rt.ones([1, 2, 3]))


def test_shape_inference_propagate_const_double_nested():
    # testShapeInferencePropagateConstDoubleNested
    @ag.function(
        input_signature=[
            rt.TensorSpec((), dtype=rt.int32),
            rt.TensorSpec((), dtype=rt.int32),
            rt.TensorSpec((), dtype=rt.int32),
        ]
    )
    def f(d1, d2, d3):
        new_shape = rt.concat([[d1], [d2], [d3]], axis=-1)
        y = rt.ones(shape=new_shape, dtype=rt.int32)
        return y

    @ag.function()
    def g():
        y = ag.function(f)(1, 2, 3)
        assert y.shape.as_list() == [1, 2, 3], y.shape.as_list()
        return y

    assert_all_equal(g(), rt.ones([1, 2, 3]))


def test_control_dependency_after_inline():  # testControlDependencyAfterInline
    v = rt.Variable(0.0)

    @ag.function
    def assign():
        return v.assign(1.0)

    @ag.function
    def assign_add():
        return v.assign_add(1.0)

    @ag.function
    def f():
        rt.debugging.assert_equal(assign(), 1.0)
        rt.debugging.assert_equal(assign_add(), 2.0)

    # We don't have a way to inspect the inlined graph in Python, so we run it
    # multiple times to have more confidence the dependency is correct.
    for _ in range(30):
        f()


def test_read_in_func_write_outside():  # testReadInFuncWriteOutside
    # Run many times since we are testing for a potential race condition.
    for _ in range(30):
        v = rt.Variable(1.0)

        @ag.function
        def add_one():
            return v + 1.0  # noqa: B023 (as TensorFlow's test)

        @ag.function
        def get_v_plus_one():
            v_plus_one = add_one()  # noqa: B023
            v.assign_add(2.0)  # noqa: B023
            return v_plus_one

        assert_all_equal(get_v_plus_one(), 2.0)


def test_op_expand_error_message():  # testOpExpandErrorMessage
    @ag.function
    def test_fn():
        if rt.constant(False):
            return rt.constant(1)
        else:
            return rt.py_function(func=lambda: rt.constant([2.0]), inp=(), Tout=rt.int32)

    with pytest.raises(rt.errors.InvalidArgumentError, match=r"(?s)Graph execution error.*test_fn"):
        test_fn()


def test_no_variables():  # testNoVariables
    @ag.function
    def fn(x):
        return 2 * x

    assert_all_equal(fn(rt.constant(4.0)), 8.0)


def test_fail_if_variables_are_created_more_than_once():
    # testFailIfVariablesAreCreatedMoreThanOnce
    @ag.function
    def fn(x):
        return rt.Variable(1.0) + x

    with pytest.raises(ValueError):
        fn(1.0)


def test_fail_if_variables_are_created_more_than_once_no_weak_ref():
    # testFailIfVariablesAreCreatedMoreThanOnceNoWeakRef
    state = []

    @ag.function
    def fn(x):
        state.append(rt.Variable(1.0))
        return state[-1] + x

    with pytest.raises(ValueError):
        fn(1.0)


def test_range():  # testRange
    @ag.function
    def f(unused_x):
        return 1.0

    assert_all_equal(f(range(5)), 1.0)


def test_correct_variable_creation():  # testCorrectVariableCreation
    state = []

    @ag.function
    def fn(x):
        if not state:
            state.append(rt.Variable(2.0))
        return state[0] * x

    assert_all_equal(fn(rt.constant(1.0)), 2.0)
    assert_all_equal(fn(rt.constant(3.0)), 6.0)


def test_function_initializer():  # testFunctionInitializer
    state = []

    @ag.function
    def fn(x):
        if not state:
            state.append(rt.Variable(lambda: 2.0))
        return state[0] * x

    assert_all_equal(fn(rt.constant(1.0)), 2.0)


def test_function_multiple_variable_initializer():  # testFunctionMultipleVariableInitializer
    state = []

    @ag.function
    def fn(x):
        if not state:
            state.append(rt.Variable(lambda: 2.0))
            state.append(rt.Variable(lambda: 5.0))
        return state[0] * x, state[1] * x

    assert_all_equal(fn(rt.constant(1.0)), [2.0, 5.0])


def test_variable_initializer_not_constant():  # testVariableInitializerNotConstant
    state = []

    @ag.function
    def fn(x):
        if not state:
            state.append(rt.Variable(2.0 * x))
        return state[0] * x

    assert_all_equal(fn(rt.constant(1.0)), 2.0)
    assert_all_equal(fn(rt.constant(3.0)), 6.0)


def test_method():  # testMethod
    class MyModel:
        def __init__(self):
            self.var = None

        @ag.function
        def apply(self, x):
            if self.var is None:
                self.var = rt.Variable(2.0)
            return self.var * x

    m0 = MyModel()
    assert_all_equal(m0.apply(3.0), 6.0)
    # Calling twice to exercise that we do not recreate variables.
    m0.var.assign(3.0)
    assert_all_equal(m0.apply(3.0), 9.0)

    m1 = MyModel()
    assert_all_equal(m1.apply(3.0), 6.0)


def test_functools_partial():  # test_functools_partial
    assert_all_close(ag.function(functools.partial(lambda x, y: x + y, 1.0))(rt.constant(2.0)), 3.0)


def test_functools_partial_new_default():  # test_functools_partial_new_default
    def f(x=3, y=7):
        return x + y

    func = ag.function(functools.partial(f, y=6))
    assert func().numpy() == 9
    assert func(y=8).numpy() == 11


def test_functools_partial_keywords():  # test_functools_partial_keywords
    def f(x, y):
        return x + y

    func = ag.function(functools.partial(f, x=rt.zeros([1]), y=rt.zeros([1])))
    assert_all_equal(func(), [0.0])


def test_functools_partial_single_positional():  # test_functools_partial_single_positional
    def f(x, y):
        return x + y

    func = ag.function(functools.partial(f, rt.constant(1)))
    assert_all_equal(func(5), 6)


def test_complicated_partial_with_defaults():  # test_complicated_partial_with_defaults
    def identity(*args):
        return args

    def dynamic_unroll(
        core_fn,
        input_sequence,
        initial_state,
        sequence_length=None,
        parallel_iterations=1,
        swap_memory=False,
    ):
        del core_fn
        assert sequence_length is None
        assert parallel_iterations == 1
        assert swap_memory
        return input_sequence, initial_state

    input_sequence = rt.random.uniform([1, 1, 1])
    initial_state = rt.random.uniform([1, 1])

    func = ag.function(functools.partial(dynamic_unroll, identity, swap_memory=True))
    func(input_sequence, initial_state)


def test_unspecified_default_argument():  # test_unspecified_default_argument
    wrapped = ag.function(lambda x, y=2: x + y, input_signature=[rt.TensorSpec((), rt.int32)])
    assert wrapped(rt.constant(1)).numpy() == 3


@pytest.mark.xfail(
    strict=True,
    reason="structured_input_signature names an unnamed input_signature spec after its argument",
)
def test_concrete_function_from_signature():  # test_concrete_function_from_signature
    @ag.function(input_signature=[rt.TensorSpec(None, rt.float32)])
    def compute(x):
        return 2.0 * x

    concrete = compute.get_concrete_function()
    assert_all_close(concrete(rt.constant(0.5)), 1.0)
    concrete = compute.get_concrete_function(rt.TensorSpec(None, rt.float32))
    assert_all_close(concrete(rt.constant(2.0)), 4.0)
    signature_args, _ = concrete.structured_input_signature
    assert signature_args == (rt.TensorSpec(None, rt.float32, name="x"),)


MISSING_TYPE_CONSTRAINT = "input_signature missing type constraint"


def test_input_signature_missing_tensor_specs_method():  # testInputSignatureMissingTensorSpecsMethod
    class MyModule(rt.Module):
        def f1(self, arg1, arg2, arg3):
            pass

        def f2(self, arg1, arg2, arg3, **kwargs):
            pass

        def f3(self, arg1, arg2, arg3, arg4=4, **kwargs):
            pass

        def f4(self, arg1, arg2, arg3, *args):
            pass

        def f5(self, arg1, arg2, arg3, *args, **kwargs):
            pass

        def f6(self, arg1, arg4=4, **kwargs):
            return arg1 + arg4

    m = MyModule()
    tf_func_dec = ag.function(input_signature=(rt.TensorSpec([], rt.int32),))
    for method in (m.f1, m.f2, m.f3, m.f4, m.f5):
        with pytest.raises(TypeError, match=MISSING_TYPE_CONSTRAINT):
            tf_func_dec(method)(1, 2, 3)

    assert tf_func_dec(m.f6)(1).numpy() == 5


def test_input_signature_missing_tensor_specs_function():
    # testInputSignatureMissingTensorSpecsFunction
    tf_func_dec = ag.function(input_signature=(rt.TensorSpec([], rt.int32),))

    def f1(arg1, arg2, arg3):
        pass

    def f2(arg1, arg2, arg3, **kwargs):
        pass

    def f3(arg1, arg2, arg3, arg4=4, **kwargs):
        pass

    def f4(arg1, arg2, arg3, *args):
        pass

    def f5(arg1, arg2, arg3, *args, **kwargs):
        pass

    for f in (f1, f2, f3, f4, f5):
        with pytest.raises(TypeError, match=MISSING_TYPE_CONSTRAINT):
            tf_func_dec(f)(1, 2, 3)

    def f6(arg1, arg4=4, **kwargs):
        return arg1 + arg4

    assert tf_func_dec(f6)(1).numpy() == 5


def test_input_signature_missing_tensor_specs_lambda_function():
    # testInputSignatureMissingTensorSpecsLambdaFunction
    tf_func_dec = ag.function(input_signature=(rt.TensorSpec([], rt.int32),))
    for f in (
        lambda ar1, arg2, arg3: None,
        lambda arg1, arg2, arg3, **kwargs: None,
        lambda arg1, arg2, arg3, arg4=4, **kwargs: None,
        lambda arg1, arg2, arg3, *args: None,
        lambda arg1, arg2, arg3, *args, **kwargs: None,
    ):
        with pytest.raises(TypeError, match=MISSING_TYPE_CONSTRAINT):
            tf_func_dec(f)(1, 2, 3)

    assert tf_func_dec(lambda arg1, arg4=4, **kwargs: arg1 + arg4)(1).numpy() == 5


@pytest.mark.parametrize("func_type", ["method", "function", "lambda_function"])
def test_input_signature_partial_func_missing_tensor_specs(func_type):
    # testInputSignaturePartialFuncMissingTensorSpecs
    if func_type == "method":

        class MyModule(rt.Module):
            def f(self, arg1, arg2, arg3, arg4=4):
                return arg1 + arg2 + arg3 + arg4

        f = MyModule().f
    elif func_type == "function":

        def f(arg1, arg2, arg3, arg4=4):
            return arg1 + arg2 + arg3 + arg4

    else:  # lambda_function
        f = lambda arg1, arg2, arg3, arg4=4: arg1 + arg2 + arg3 + arg4  # noqa: E731

    tf_func_dec = ag.function(input_signature=(rt.TensorSpec([], rt.int32),))
    with pytest.raises(TypeError, match=MISSING_TYPE_CONSTRAINT):
        tf_func_dec(functools.partial(f, 1))(2, 3)

    with pytest.raises(TypeError, match=MISSING_TYPE_CONSTRAINT):
        tf_func_dec(functools.partial(f, arg4=5))(1, 2, 3)

    with pytest.raises(TypeError, match=MISSING_TYPE_CONSTRAINT):
        tf_func_dec(functools.partial(f, 1, arg4=5))(2, 3)

    assert_all_equal(tf_func_dec(functools.partial(f, 1, 2, arg4=5))(3), rt.constant(11))


def test_variable_naming():  # test_variable_naming
    class HasVars(rt.Module):
        def __init__(self):  # (no super().__init__(), as in TensorFlow's test)
            self.x = None
            self.y = None
            self.z = None

        @ag.function
        def make_x(self):
            if self.x is None:
                self.x = rt.Variable(1.0, name="v")

        def make_y(self):
            if self.y is None:
                self.y = rt.Variable(1.0, name="v")

        def make_z(self):
            if self.z is None:
                with rt.name_scope("z_scope"):
                    self.z = rt.Variable(1.0, name="z")

    root = HasVars()
    root.make_x()
    root.make_y()
    root.make_z()
    assert root.x.name == "v:0"
    assert root.z.name == "z_scope/z:0"


@pytest.mark.xfail(
    strict=True, reason="concrete-function calling conventions: by a TensorSpec's name"
)
def test_concrete_function_keyword_arguments():  # test_concrete_function_keyword_arguments
    @ag.function
    def f(x):
        return x

    conc = f.get_concrete_function(rt.TensorSpec(None, rt.float32, "y"))
    conc(y=rt.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0].name == "y"

    # If name is not specified, the previously named one will be returned.
    conc = f.get_concrete_function(rt.TensorSpec(None, rt.float32))
    conc(x=rt.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0].name == "y"

    # New name will return updated signature.
    conc = f.get_concrete_function(rt.TensorSpec(None, rt.float32, "z"))
    conc(x=rt.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0].name == "z"

    @ag.function
    def g(x):
        return x[0]

    conc = g.get_concrete_function([rt.TensorSpec(None, rt.float32, "z"), 2])
    conc(z=rt.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0][0].name == "z"


def test_runtime_error_not_sticky():  # testRuntimeErrorNotSticky
    @ag.function
    def fail(i):
        rt.Assert(rt.equal(i, 0), ["ick"])

    fail(rt.constant(0))  # OK
    with pytest.raises(rt.errors.InvalidArgumentError):
        fail(rt.constant(1))  # InvalidArgument: "ick"
    fail(rt.constant(0))  # OK


def test_underscore_name():  # testUnderscoreName
    @ag.function
    def f(_):
        return _ + _

    assert_all_equal(2.0, f(rt.constant(1.0)))


def _assert_freed_without_collection(make_weak_ref):
    """TensorFlow's ``assert_no_garbage_created``: the object is freed by reference counting
    alone, with the cycle collector off."""
    gc.collect()
    gc.disable()
    try:
        assert make_weak_ref()() is None
    finally:
        gc.enable()


def test_function_reference_cycles():  # testFunctionReferenceCycles
    def weak_ref_after_del():
        fn = ag.function(lambda x: 2.0 * x)
        fn(rt.constant(4.0))
        weak_fn = weakref.ref(fn)
        del fn
        return weak_fn

    # Tests that the weak reference we made to the function is now dead, which
    # means the object has been deleted.
    _assert_freed_without_collection(weak_ref_after_del)


def test_method_reference_cycles():  # testMethodReferenceCycles
    def weak_ref_after_del():
        has_decorated_method = _HasDecoratedMethod()
        has_decorated_method.f(rt.constant(5.0))
        weak_fn = weakref.ref(has_decorated_method.f)
        del has_decorated_method
        return weak_fn

    _assert_freed_without_collection(weak_ref_after_del)


def test_error_message_when_graph_tensor_is_passed_to_eager():
    # testErrorMessageWhenGraphTensorIsPassedToEager
    @ag.function
    def failing_function():
        a = rt.constant(1.0)

        with rt.init_scope():
            _ = a + a

    with pytest.raises(TypeError, match=r"(?s)test_polymorphic_function.*out of scope"):
        failing_function()


def test_symbolic_tensor_illegal_capture_call_time_error():
    # testSymbolicTensorIllegalCaptureCallTimeError
    x = None

    @ag.function
    def f1(a):
        nonlocal x
        x = a
        return a

    @ag.function
    def f2(b):
        return b + x

    f1(rt.constant(1))
    with pytest.raises(TypeError, match=r"(?s)test_polymorphic_function.*out of scope"):
        f2(rt.constant(2))


@pytest.mark.xfail(
    strict=True,
    reason="a list appended to in a staged loop becomes a TensorList here (docs/autograph.md), "
    "so the loop's tensors are returned stacked, not left out of scope in the loop's body",
)
def test_symbolic_tensor_illegal_capture_trace_time_error():
    # testSymbolicTensorIllegalCaptureTraceTimeError
    @ag.function
    def f(inputs):
        num_steps, _ = inputs.shape[:2]
        outputs = []
        for t in rt.range(num_steps):
            outputs.append(inputs[t])
        return outputs

    with pytest.raises(rt.errors.InaccessibleTensorError, match="out of scope"):
        f(rt.zeros(shape=(8, 42, 3)))


@pytest.mark.xfail(
    strict=True,
    reason="concrete-function calling conventions: flat arguments and x_1, x_2 names for nested ones",
)
def test_non_unique_names_get_concrete_function():  # testNonUniqueNamesGetConcreteFunction
    @ag.function
    def non_unique_arg_names(x, **kwargs):
        a, b, c = x
        d = kwargs["d"]
        return a + b + c + d

    concrete = non_unique_arg_names.get_concrete_function(
        (
            rt.TensorSpec(None, rt.float32),
            rt.TensorSpec(None, rt.float32),
            rt.TensorSpec(None, rt.float32),
        ),
        d=rt.TensorSpec(None, rt.float32),
    )
    assert_all_close(
        concrete(
            x=rt.constant(1.0), x_1=rt.constant(2.0), x_2=rt.constant(3.0), d=rt.constant(4.0)
        ),
        10.0,
    )
    assert_all_close(
        concrete(rt.constant(1.0), rt.constant(2.0), rt.constant(3.0), rt.constant(4.0)), 10.0
    )


@pytest.mark.xfail(
    strict=True, reason="keyword names that collide once sanitised ('a_b', 'a/b') are not refused"
)
def test_duplicated_sanitized_names():  # testDuplicatedSanitizedNames
    @ag.function
    def foo(**kwargs):
        return kwargs["a_b"] + kwargs["a/b"]

    with pytest.raises(ValueError, match="Name collision after sanitization."):
        foo(**{"a_b": 1, "a/b": 2})


def test_variable_creator_scope():  # testVariableCreatorScope
    created_variables = []
    captured_variables = []

    @ag.function
    def f():
        if not created_variables:
            created_variables.append(rt.Variable(1.0))
        return created_variables[0] + 1.0

    def capture_creator(next_creator, **kwargs):
        created = next_creator(**kwargs)
        captured_variables.append(created)
        return created

    with rt.variable_creator_scope(capture_creator):
        f()
    assert created_variables == captured_variables


def test_var_already_initialized_no_clobbering():  # testVarAlreadyInitializedNoClobbering
    v_holder = []

    @ag.function
    def add_var(x):
        if not v_holder:
            v = rt.Variable([1.0, 2.0])
            v_holder.append(v)
            already_initialized = rt.Variable(3.0)
            with rt.init_scope():
                already_initialized.assign(10.0)
            v_holder.append(already_initialized)
        return v_holder[0] + v_holder[1] + x

    add_var.get_concrete_function(rt.constant(2.0))
    assert_all_close(add_var(rt.constant(2.0)), [13.0, 14.0])


def test_same_variable_twice():  # testSameVariableTwice
    v = rt.Variable(1.0)

    @ag.function
    def add(a, b):
        return a + b

    assert_all_equal(add(v, v), 2.0)


def test_same_variable_twice_with_reduced_retracing():  # testSameVariableTwiceWithReducedRetracing
    v = rt.Variable(2.0)

    @ag.function(reduce_retracing=True)
    def add(a, b):
        return a + b

    assert_all_equal(add(v, v), 4.0)


def test_variable_update():  # testVariableUpdate
    v1 = rt.Variable(1.0)
    v2 = rt.Variable(2.0)
    v3 = rt.Variable(4, dtype=rt.int32)

    trace_count = [0]

    @ag.function
    def double_variable(x):
        trace_count[0] += 1
        x.assign_add(x.read_value())

    assert trace_count[0] == 0
    double_variable(v1)
    assert trace_count[0] == 1
    assert v1.numpy() == 2.0
    double_variable(v2)
    # No retracing because v2's data type and shape are the same as v1
    assert trace_count[0] == 1
    assert v2.numpy() == 4.0
    double_variable(v3)
    # Retracing because of data type change
    assert trace_count[0] == 2
    assert v3.numpy() == 8


def test_shape_cache():  # testShapeCache
    @ag.function
    def func(x):
        return 2 * x

    func_a = func.get_concrete_function(rt.TensorSpec([None], rt.int32))
    func_b = func.get_concrete_function(rt.TensorSpec([None], rt.int32))

    assert func_a is func_b


def test_initialization_in_nested_call():  # testInitializationInNestedCall
    v_holder = []

    @ag.function
    def add_var(x):
        if not v_holder:
            v = rt.Variable([1.0, 2.0])
            v_holder.append(v)
            already_initialized = rt.Variable(3.0)
            with rt.init_scope():
                already_initialized.assign(10.0)
            v_holder.append(already_initialized)
        return v_holder[0] + v_holder[1] + x

    @ag.function
    def wrapper(x):
        return add_var(x)

    assert_all_close(wrapper(rt.constant(2.0)), [13.0, 14.0])
    v_holder[1].assign(11.0)
    assert_all_close(wrapper(rt.constant(2.0)), [14.0, 15.0])


@pytest.mark.parametrize("relax_shapes", [None, True, False])
@pytest.mark.parametrize("autograph", [True, False])
@pytest.mark.parametrize("input_signature", [None, (rt.TensorSpec([]),)])
def test_pickle(input_signature, autograph, relax_shapes):
    # test_pickle: "@function objects can be pickled and unpickled." (TensorFlow's parameters
    # less experimental_implements and autograph_options, and its private attributes.)
    func = ag.function(
        undecorated_function,
        input_signature=input_signature,
        autograph=autograph,
        reduce_retracing=relax_shapes,
    )

    cloned = pickle.loads(pickle.dumps(func))

    assert cloned.input_signature == input_signature
    x = rt.ones([])
    assert cloned(x).numpy() == func(x).numpy()


# --- retracing warnings: through logging, as TensorFlow's assertLogs(level="WARN") reads them --
# The project's own RetracingWarning (a warnings.warn) is ignored in these tests: they read the log.

retracing_log = pytest.mark.filterwarnings("ignore::autograph.RetracingWarning")


@retracing_log
def test_frequent_retracing_warning(caplog):  # test_frequent_retracing_warning
    @ag.function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING):
        f(1)
        f(2)
        f(3)
        f(4)
        assert warnings_logged(caplog) == []
        f(5)

    logged = warnings_logged(caplog)
    assert len(logged) == 1
    assert "Tracing is expensive" in logged[0]


@retracing_log
def test_frequent_retracing_warning_lambda(caplog):  # test_frequent_retracing_warning_lambda
    f = ag.function(lambda x: x)

    with caplog.at_level(logging.WARNING):
        f(1)
        f(2)
        f(3)
        f(4)
        f(5)

    logged = warnings_logged(caplog)
    assert len(logged) == 1
    assert "Tracing is expensive" in logged[0]


@retracing_log
def test_frequent_retracing_warning_method(caplog):  # test_frequent_retracing_warning_method
    class Foo:
        @ag.function
        def f(self, x):
            return x

    f = Foo().f

    with caplog.at_level(logging.WARNING):
        f(1)
        f(2)
        f(3)
        f(4)
        f(5)

    logged = warnings_logged(caplog)
    assert len(logged) == 1
    assert "Tracing is expensive" in logged[0]


@retracing_log
def test_frequent_retracing_warning_two_independent_tf_functions(caplog):
    # test_frequent_retracing_warning_two_independent_tf_functions
    @ag.function
    def f(x):
        return x

    @ag.function
    def g(x):
        return x

    with caplog.at_level(logging.WARNING):
        f(1)
        f(2)
        f(3)
        f(4)
        g(1)
        g(2)
        g(3)
        g(4)
        g(5)

    logged = warnings_logged(caplog)
    assert len(logged) == 1
    assert "Tracing is expensive" in logged[0]


@retracing_log
def test_frequent_retracing_warning_nested(caplog):  # test_frequent_retracing_warning_nested
    @ag.function
    def inner(x):
        return x + 1

    @ag.function
    def outer1(x):
        return inner(x) * 2

    @ag.function
    def outer2(x):
        return inner(x) * 3

    with caplog.at_level(logging.WARNING):
        inner(1)
        inner(2)
        inner(3)
        inner(4)

        outer1(5)
        outer1(6)
        outer1(7)
        outer1(8)

        outer2(9)
        outer2(10)
        outer2(11)
        outer2(12)

        assert warnings_logged(caplog) == []

        outer2(13)

        logged = warnings_logged(caplog)
        assert len(logged) == 1
        assert "Tracing is expensive" in logged[0]


@retracing_log
def test_frequent_retracing_warning_on_reinstantiation(caplog):
    # test_frequent_retracing_warning_on_reinstantiation
    with caplog.at_level(logging.WARNING):
        for i in range(5):

            @ag.function
            def f(x):
                return x

            f(i)

            if i < 4:
                assert warnings_logged(caplog) == []

    logged = warnings_logged(caplog)
    assert len(logged) == 1
    assert "Tracing is expensive" in logged[0]


@retracing_log
def test_restored_function_retracing_warning(caplog, tmp_path):
    # test_restored_function_retracing_warning
    class Foo(rt.train.Checkpoint):
        @ag.function
        def __call__(self, x):
            return x

    f_flexible = Foo()
    _ = f_flexible.__call__.get_concrete_function(rt.TensorSpec(shape=[None], dtype=rt.int32))
    rt.saved_model.save(f_flexible, str(tmp_path))
    restored_f_flexible = rt.saved_model.load(str(tmp_path))

    f_fixed_shape = Foo()

    with caplog.at_level(logging.WARNING):
        restored_f_flexible(rt.constant([1], rt.int32))
        restored_f_flexible(rt.constant([1, 2], rt.int32))
        restored_f_flexible(rt.constant([1, 2, 3], rt.int32))
        restored_f_flexible(rt.constant([1, 2, 3, 4], rt.int32))
        restored_f_flexible(rt.constant([1, 2, 3, 4, 5], rt.int32))
        assert warnings_logged(caplog) == []

        f_fixed_shape(rt.constant([1], rt.int32))
        f_fixed_shape(rt.constant([1, 2], rt.int32))
        f_fixed_shape(rt.constant([1, 2, 3], rt.int32))
        f_fixed_shape(rt.constant([1, 2, 3, 4], rt.int32))
        f_fixed_shape(rt.constant([1, 2, 3, 4, 5], rt.int32))
        logged = warnings_logged(caplog)
        assert len(logged) == 1
        assert "Tracing is expensive" in logged[0]


@retracing_log
def test_retracing_warning_limits(caplog):  # test_retracing_warning_limits
    @ag.function
    def my_func(x):
        return x

    with caplog.at_level(logging.WARNING):
        for i in range(10):
            my_func(i)

        assert len(warnings_logged(caplog)) == 2


def test_experimental_get_tracing_count_function():
    # test_experimental_get_tracing_count_function
    @ag.function
    def double(a):
        return a + a

    double(rt.constant(1))
    double(rt.constant(2))
    assert double.experimental_get_tracing_count() == 1
    double(rt.constant("a"))
    assert double.experimental_get_tracing_count() == 2


def test_experimental_get_tracing_count_method():  # test_experimental_get_tracing_count_method
    class TestClass:
        @ag.function
        def testDouble(self, a):  # noqa: N802 (TensorFlow's name)
            return a + a

    obj1 = TestClass()
    obj1.testDouble(rt.constant(1))
    obj1.testDouble(rt.constant(2))
    obj1.testDouble(rt.constant(1.1))
    assert obj1.testDouble.experimental_get_tracing_count() == 2
    obj2 = TestClass()
    obj2.testDouble(rt.constant(1))
    obj2.testDouble(rt.constant(1.1))
    obj2.testDouble(rt.constant("a"))
    assert obj2.testDouble.experimental_get_tracing_count() == 3
    assert obj1.testDouble.experimental_get_tracing_count() == 2


def test_clear_cache():  # test_clear_cache
    @ag.function
    def double(a):
        return a + a

    assert_all_equal(double(rt.constant(1)), 2)
    assert_all_equal(double(rt.constant("a")), b"aa")
    assert double.experimental_get_tracing_count() == 2
    double.clear_cache()
    assert double.experimental_get_tracing_count() == 0
    assert_all_equal(double(rt.constant(1)), 2)
    assert double.experimental_get_tracing_count() == 1


def test_clear_cache_with_variable():  # test_clear_cache_with_variable
    v = None

    @ag.function
    def f(x):
        nonlocal v
        if v is None:
            v = rt.Variable(1.0)
        return v * x

    assert_all_equal(f(rt.constant(2.0)), 2.0)
    assert f.experimental_get_tracing_count() == 2
    f.clear_cache()
    # Reset outer variable to trigger variable re-creation in the function
    v = None
    assert f.experimental_get_tracing_count() == 0
    assert_all_equal(f(rt.constant(3.0)), 3.0)
    assert f.experimental_get_tracing_count() == 2


def test_clear_cache_method_descriptor():  # test_clear_cache_method_descriptor
    class Model:
        @ag.function
        def call(self, x):
            return x + 1

    m1 = Model()
    assert_all_equal(m1.call(rt.constant(1)), 2)
    assert m1.call.experimental_get_tracing_count() == 1

    # Calling clear_cache on class method descriptor
    Model.call.clear_cache()

    assert m1.call.experimental_get_tracing_count() == 0
    assert_all_equal(m1.call(rt.constant(1)), 2)
    assert m1.call.experimental_get_tracing_count() == 1


def test_tensor_shape_casted_to_specific():  # test_tensor_shape_casted_to_specific
    shapes = []

    @ag.function(input_signature=[rt.TensorSpec([1])])
    def specific(x):
        shapes.append(x.shape)
        return x

    @ag.function(input_signature=[rt.TensorSpec(None)])
    def general(x):
        return specific(x)

    assert general(rt.constant([1.0])).numpy() == 1.0
    assert shapes and all(shape == [1] for shape in shapes)


def test_recursive_tf_function():  # test_recursive_tf_function
    @ag.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        return 1

    assert recursive_fn(5).numpy() == 1


def test_recursive_tf_function_with_gradients():  # test_recursive_tf_function_with_gradients
    @ag.function
    def recursive_fn(n, x):
        if n > 0:
            return n * recursive_fn(n - 1, x)
        else:
            return x

    x = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        g = recursive_fn(5, x)

    dg_dx = tape.gradient(g, x)
    assert dg_dx.numpy() == 120


def test_recursive_python_function():  # test_recursive_python_function
    def recursive_py_fn(n):
        if n > 0:
            return recursive_py_fn(n - 1)
        return 1

    @ag.function
    def recursive_fn(n):
        return recursive_py_fn(n)

    assert recursive_fn(5).numpy() == 1


def test_recursive_python_function_with_gradients():
    # test_recursive_python_function_with_gradients
    def recursive_py_fn(n, x):
        if n > 0:
            return n * recursive_py_fn(n - 1, x)
        return x

    @ag.function
    def recursive_fn(n, x):
        return recursive_py_fn(n, x)

    x = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        g = recursive_fn(5, x)

    dg_dx = tape.gradient(g, x)
    assert dg_dx.numpy() == 120


def test_recursive_tf_function_call_each_other():  # test_recursive_tf_function_call_each_other
    @ag.function
    def recursive_fn1(n):
        if n <= 1:
            return 1
        return recursive_fn2(n - 1)

    @ag.function
    def recursive_fn2(n):
        if n <= 1:
            return 2
        return recursive_fn1(n - 1)

    assert recursive_fn1(5).numpy() == 1
    assert recursive_fn1(6).numpy() == 2
    assert recursive_fn2(5).numpy() == 2
    assert recursive_fn2(6).numpy() == 1


def test_recursive_tf_function_call_each_other_with_gradients():
    # test_recursive_tf_function_call_each_other_with_gradients
    @ag.function
    def recursive_fn1(n, x):
        if n <= 1:
            return x
        return n * recursive_fn2(n - 1, x)

    @ag.function
    def recursive_fn2(n, x):
        if n <= 1:
            return 2 * x
        return n * recursive_fn1(n - 1, x)

    x = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        g1 = recursive_fn1(5, x)

    dg1_dx = tape.gradient(g1, x)
    assert dg1_dx.numpy() == 120

    with rt.GradientTape() as tape:
        g2 = recursive_fn2(5, x)

    dg2_dx = tape.gradient(g2, x)
    assert dg2_dx.numpy() == 240


def test_recursive_tf_function_with_cond():  # test_recursive_tf_function_with_cond
    @ag.function(autograph=False)
    def recursive_fn(n):
        return rt.cond(n > 0, recursive_fn(n - 1), 1)

    with pytest.raises(RecursionError):
        recursive_fn(rt.constant(5))


# --- MultiDeviceTest -------------------------------------------------------------------------


def test_nested_call_watched_variables():  # testNestedCallWatchedVariables
    v = rt.Variable(4.0)

    @ag.function
    def f():
        return v**2.0

    with rt.GradientTape() as tape:
        f()

    assert tape.watched_variables() == (v,)

    @ag.function
    def g():
        return f()

    with rt.GradientTape() as tape:
        g()

    assert tape.watched_variables() == (v,)

    # f() can rely on the variable being read during its trace. g() checks that
    # variables from a function which knows about them are recorded on the
    # tape. h() tests that functions forward knowledge of variables to callers.

    @ag.function
    def h():
        return g()

    with rt.GradientTape() as tape:
        h()

    assert tape.watched_variables() == (v,)


@pytest.mark.xfail(
    strict=True, reason="TensorFlow's custom nest protocol (__tf_flatten__/__tf_unflatten__)"
)
def test_input_and_output_dataclass():  # testInputAndOutputDataclass
    @ag.function
    def f(x):
        return x

    mt = MaskedTensor(mask=True, value=rt.constant([1.0]))
    result = f(mt)
    assert result.mask == mt.mask
    assert_all_equal(result.value, mt.value)


@pytest.mark.xfail(
    strict=True, reason="TensorFlow's custom nest protocol (__tf_flatten__/__tf_unflatten__)"
)
def test_input_and_output_nested_dataclass():  # testInputAndOutputNestedDataclass
    @ag.function
    def f(x):
        return x

    mt = MaskedTensor(mask=True, value=rt.constant([1.0]))
    mt2 = MaskedTensor(mask=False, value=rt.constant([2.0]))
    mtp = MaskedTensorPair(masks=[True, False], value1=mt, value2=mt2)
    result = f(mtp)
    assert result.masks == mtp.masks
    assert result.value1.mask == mt.mask
    assert_all_equal(result.value1.value, mt.value)
    assert result.value2.mask == mt2.mask
    assert_all_equal(result.value2.value, mt2.value)


@pytest.mark.xfail(
    strict=True, reason="TensorFlow's custom nest protocol (__tf_flatten__/__tf_unflatten__)"
)
def test_input_and_creat_new_dataclass():  # testInputAndCreatNewDataclass
    @ag.function
    def f(x, y):
        return MaskedTensor(mask=x.mask, value=y.value)

    mt = MaskedTensor(mask=False, value=rt.constant([1.0]))
    mt2 = MaskedTensor(mask=True, value=rt.constant([2.0]))
    result = f(mt, mt2)
    assert result.mask == mt.mask
    assert_all_equal(result.value, mt2.value)


@pytest.mark.xfail(
    strict=True, reason="TensorFlow's custom nest protocol (__tf_flatten__/__tf_unflatten__)"
)
def test_dataclass_with_unhashable_metadata():  # testDataclassWithUnhashableMetadata
    @ag.function
    def f(x, y):
        return MaskedTensorPair(masks=x.masks + y.masks, value1=x.value1, value2=y.value2)

    mt = MaskedTensor(mask=False, value=rt.constant([1.0]))
    mt2 = MaskedTensor(mask=True, value=rt.constant([2.0]))
    mtp = MaskedTensorPair(masks=[True, True], value1=mt, value2=mt2)
    mt3 = MaskedTensor(mask=False, value=rt.constant([3.0]))
    mt4 = MaskedTensor(mask=True, value=rt.constant([4.0]))
    mtp2 = MaskedTensorPair(masks=[False, False], value1=mt3, value2=mt4)
    result = f(mtp, mtp2)
    assert result.masks == mtp.masks + mtp2.masks
    assert result.value1.mask == mt.mask
    assert_all_equal(result.value1.value, mt.value)
    assert result.value2.mask == mt4.mask
    assert_all_equal(result.value2.value, mt4.value)


@pytest.mark.xfail(
    strict=True, reason="TensorFlow's custom nest protocol (__tf_flatten__/__tf_unflatten__)"
)
def test_data_class_with_sub_trace_type():  # testDataClassWithSubTraceType
    @ag.function
    def f(x):
        return x

    mt = MaskedTensor(mask=True, value=rt.constant([1.0]))
    mt2 = MaskedTensor(mask=True, value=rt.constant([2.0]))
    f1 = f.get_concrete_function(mt)
    f2 = f.get_concrete_function(mt2)
    # mt2's TraceType is the same as mt1, so it doesn't need retrace
    assert f1 is f2

    mt3 = MaskedTensor(mask=False, value=rt.TensorSpec(shape=[None, None], dtype=rt.int32))
    f3 = f.get_concrete_function(mt3)
    assert f1 is not f3

    mt4 = MaskedTensor(mask=False, value=rt.constant([[1], [2]], shape=[2, 1], dtype=rt.int32))
    f4 = f.get_concrete_function(mt4)
    # mt4's TraceType can be matched by mt3's spec, so it doesn't need retrace
    assert f3 is f4
