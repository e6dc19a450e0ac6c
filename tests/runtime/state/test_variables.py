"""rt.Variable: values, names, repr, arithmetic, assignment, and use from graphs."""

import numpy as np
import pytest

import runtime as rt

# --- eager ------------------------------------------------------------------------------------


def test_repr_exact():
    assert repr(rt.Variable(1.0)) == "<rt.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"


def test_repr_follows_assignment():
    v = rt.Variable(1.0)
    v.assign(2.5)
    assert repr(v) == "<rt.Variable 'Variable:0' shape=() dtype=float32, numpy=2.5>"


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (1, None, rt.int32),
        (1.0, None, rt.float32),
        (True, None, rt.bool),
        ("abc", None, rt.string),
        (1, rt.float64, rt.float64),
        (np.arange(3, dtype=np.int64), None, rt.int64),
    ],
)
def test_dtype(value, dtype, expected):
    assert rt.Variable(value, dtype=dtype).dtype == expected


def test_shape_and_numpy():
    v = rt.Variable([[1, 2, 3], [4, 5, 6]])
    assert v.shape == (2, 3)
    assert v.shape.as_list() == [2, 3]
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3], [4, 5, 6]])
    assert isinstance(v.numpy(), np.ndarray)


def test_initial_value_is_copied():
    arr = np.array([1.0, 2.0], dtype=np.float32)
    v = rt.Variable(arr)
    arr[0] = 99.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_callable_initial_value():
    v = rt.Variable(lambda: rt.ones([2]) * 3.0)
    np.testing.assert_allclose(v.numpy(), [3.0, 3.0])


def test_names_eager_and_name_scope():
    assert rt.Variable(1.0).name == "Variable:0"
    assert rt.Variable(1.0, name="weights").name == "weights:0"
    with rt.name_scope("scope"):
        assert rt.Variable(1.0).name == "scope/Variable:0"
        with rt.name_scope("inner"):
            assert rt.Variable(1.0, name="b").name == "scope/inner/b:0"
    assert rt.Variable(1.0).name == "Variable:0"


def test_trainable():
    assert rt.Variable(1.0).trainable is True
    assert rt.Variable(1.0, trainable=False).trainable is False


def test_assign_family_eager():
    v = rt.Variable(10)
    v.assign(3)
    assert v.numpy() == 3
    v.assign_add(4)
    assert v.numpy() == 7
    v.assign_sub(10)
    assert v.numpy() == -3
    assert v.dtype == rt.int32


def test_assign_returns_something_holding_the_new_value():
    v = rt.Variable([1.0, 2.0])
    np.testing.assert_allclose(np.asarray(v.assign_add([1.0, 1.0])), [2.0, 3.0])
    np.testing.assert_allclose(np.asarray(v.assign([5.0, 6.0])), [5.0, 6.0])


def test_read_value_is_a_snapshot():
    v = rt.Variable([1, 2])
    before = v.read_value()
    assert isinstance(before, rt.Tensor)
    v.assign([7, 8])
    np.testing.assert_array_equal(before.numpy(), [1, 2])
    np.testing.assert_array_equal(v.read_value().numpy(), [7, 8])


def test_arithmetic_with_tensors():
    v = rt.Variable(2.0)
    t = rt.constant(3.0)
    assert float(v + t) == 5.0
    assert float(t - v) == 1.0
    assert float(v * 4) == 8.0
    assert float(v / t) == pytest.approx(2.0 / 3.0)
    assert float(-v) == -2.0
    assert float(v**2) == 4.0
    assert bool(v > 1.5) is True
    assert (v + t).dtype == rt.float32


def test_matmul_and_indexing():
    m = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    x = rt.constant([[1.0], [1.0]])
    np.testing.assert_allclose((m @ x).numpy(), [[3.0], [7.0]])
    np.testing.assert_allclose(rt.matmul(m, x).numpy(), [[3.0], [7.0]])
    np.testing.assert_allclose(m[1].numpy(), [3.0, 4.0])
    assert float(rt.reduce_sum(m)) == 10.0


def test_arithmetic_dtype_mismatch_is_type_error():
    v = rt.Variable(1.0)
    with pytest.raises(TypeError):
        v + rt.constant(1)


def test_assign_wrong_shape_raises_value_error():
    v = rt.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"Cannot assign a value of shape \(3,\) to variable"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"Cannot add a value of shape \(2, 2\) to variable"):
        v.assign_add(rt.ones([2, 2]))
    with pytest.raises(
        ValueError, match=r"Cannot subtract a value of shape \(1, 2\) from variable"
    ):
        v.assign_sub(rt.ones([1, 2]))  # an optimizer's update of the wrong shape
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_assign_wrong_dtype_raises():
    v = rt.Variable(1.0)
    with pytest.raises(TypeError, match="requested dtype float32 for a tensor of dtype int32"):
        v.assign(rt.constant(1))
    with pytest.raises(TypeError, match="Cannot convert 'text' to a tensor of dtype float32"):
        v.assign("text")
    assert v.numpy() == 1.0


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "ag.function"])
def test_numpy_values_take_the_variables_dtype_as_tensorflow_converts_them(staged):
    # TensorFlow: tf.Variable(1.0).assign(np.float64(2.5)) works, and a float64 (or int64)
    # numpy array sets a float32 variable; only a tensor of another dtype is refused.
    import autograph as ag

    v = rt.Variable(np.zeros(2, np.float32))

    def update():
        v.assign(np.array([1.5, 2.5]))
        v.assign_add(np.array([1, 2]))
        v.assign_sub(np.array([0.25, 0.5]))
        return v.read_value()

    result = ag.function(update)() if staged else update()
    assert (v.dtype, result.dtype) == (rt.float32, rt.float32)
    np.testing.assert_allclose(v.numpy(), [1.5 + 1 - 0.25, 2.5 + 2 - 0.5])
    assert v.numpy().dtype == np.float32


def test_a_float_array_does_not_silently_become_an_int_variable():
    v = rt.Variable([1, 2])
    with pytest.raises(TypeError, match="numpy array of dtype float64 to a tensor of dtype int32"):
        v.assign(np.array([1.5, 2.5]))
    with pytest.raises(TypeError, match="requested dtype float32 for a tensor of dtype float64"):
        rt.Variable(1.0).assign(rt.constant(2.5, rt.float64))
    np.testing.assert_array_equal(v.numpy(), [1, 2])


def test_a_float64_array_initialises_a_float32_variable():
    v = rt.Variable(np.array([0.5, 1.5]), dtype=rt.float32)
    assert v.dtype == rt.float32 and v.numpy().dtype == np.float32
    np.testing.assert_array_equal(v.numpy(), [0.5, 1.5])


def test_numpy_arrays_defer_to_a_variables_operators():
    # TensorFlow's variables set __array_priority__: np_array * v is v's dtype, a tensor.
    product = np.array([2.0, 3.0]) * rt.Variable([1.0, 2.0])
    assert isinstance(product, rt.Tensor) and product.dtype == rt.float32
    np.testing.assert_allclose(product.numpy(), [2.0, 6.0])


# --- graphs -----------------------------------------------------------------------------------


def test_each_session_run_reads_and_writes_current_value():
    v = rt.Variable(10)
    g = rt.Graph()
    with g.as_default():
        step = v.assign_add(1)
        read = v.read_value()
    sess = rt.Session(g)  # not entered: inside `with`, v.assign would add an op to g (as in TF1)
    assert [int(sess.run(step)) for _ in range(3)] == [11, 12, 13]
    assert v.numpy() == 13
    v.assign(100)  # an eager write is seen by the next run
    assert sess.run(read) == 100
    assert sess.run(step) == 101
    assert v.numpy() == 101


def test_variable_in_graph_arithmetic_reads_at_run_time():
    v = rt.Variable(2.0)
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        y = v * x + 1.0
    sess = rt.Session(g)  # not entered, so that v.assign below runs eagerly
    assert sess.run(y, {x: 3.0}) == pytest.approx(7.0)
    v.assign(5.0)
    assert sess.run(y, {x: 3.0}) == pytest.approx(16.0)


def test_variable_created_in_graph_and_fetched():
    g = rt.Graph()
    with g.as_default():
        v = rt.Variable([1, 2, 3])
        double = v.assign(v * 2)
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(v), [1, 2, 3])
        np.testing.assert_array_equal(sess.run(double), [2, 4, 6])
        np.testing.assert_array_equal(sess.run(double), [4, 8, 12])
        np.testing.assert_array_equal(sess.run(v), [4, 8, 12])
    np.testing.assert_array_equal(v.numpy(), [4, 8, 12])


def test_assign_under_control_dependencies_then_read():
    v = rt.Variable(1.0)
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        upd = v.assign_sub(x)
        with rt.control_dependencies([upd]):
            after = v.read_value() * 1.0
    with rt.Session(g) as sess:
        assert sess.run(after, {x: 0.5}) == pytest.approx(0.5)
        assert sess.run(after, {x: 0.5}) == pytest.approx(0.0)


def test_graph_assign_not_fetched_does_not_run():
    v = rt.Variable(0)
    g = rt.Graph()
    with g.as_default():
        v.assign_add(5)
        read = v.read_value()
    with rt.Session(g) as sess:
        assert sess.run(read) == 0
    assert v.numpy() == 0


def test_unique_names_in_a_graph():
    g = rt.Graph()
    with g.as_default():
        a = rt.Variable(0)
        b = rt.Variable(0)
        c = rt.Variable(0, name="w")
        d = rt.Variable(0, name="w")
        with rt.name_scope("scope"):
            e = rt.Variable(0)
    names = [v.name for v in (a, b, c, d, e)]
    assert names[:2] == ["Variable:0", "Variable_1:0"]
    assert names[2:4] == ["w:0", "w_1:0"]
    assert names[4] == "scope/Variable:0"
    assert len(set(names)) == len(names)


def test_graph_assign_wrong_static_shape_is_value_error():
    v = rt.Variable([1, 2])
    g = rt.Graph()
    with g.as_default(), pytest.raises(ValueError):
        v.assign(rt.constant([1, 2, 3]))


def test_graph_assign_wrong_fed_shape_fails_at_run():
    v = rt.Variable([1, 2])
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None])
        upd = v.assign(x)
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(upd, {x: [5, 6]}), [5, 6])
        with pytest.raises(rt.errors.InvalidArgumentError):
            sess.run(upd, {x: [1, 2, 3]})
    np.testing.assert_array_equal(v.numpy(), [5, 6])


def test_graph_assign_wrong_dtype_raises():
    v = rt.Variable(1.0)
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        with pytest.raises(TypeError, match="requested dtype float32 for a tensor of dtype int32"):
            v.assign(x)


# --- ref(), synchronization and aggregation (TensorFlow's Variable docs) -------------------------


def test_ref_is_a_hashable_stand_in_for_the_variable():
    x, y, z = rt.Variable(5), rt.Variable(10), rt.Variable(10)
    variable_set = {x.ref(), y.ref(), z.ref()}
    assert x.ref() in variable_set
    assert len(variable_set) == 3  # equal values, different variables
    variable_dict = {x.ref(): "five", y.ref(): "ten", z.ref(): "ten"}
    assert variable_dict[y.ref()] == "ten"
    assert x.ref().deref() is x
    assert x.ref() == x.ref() and x.ref() != y.ref()
    x.assign(7)  # the reference follows the variable, not its value
    assert x.ref() in variable_set
    assert repr(x.ref()) == f"<Reference wrapping {x!r}>"


def test_tensor_and_variable_refs_are_never_equal():
    v = rt.Variable(1.0)
    t = v.read_value()
    assert v.ref() != t.ref()
    assert {v.ref(), t.ref()} == {t.ref(), v.ref()}


def test_synchronization_and_aggregation_are_tensorflows_enums():
    assert [(m.name, m.value) for m in rt.VariableSynchronization] == [
        ("AUTO", 0),
        ("NONE", 1),
        ("ON_WRITE", 2),
        ("ON_READ", 3),
    ]
    assert [(m.name, m.value) for m in rt.VariableAggregation] == [
        ("NONE", 0),
        ("SUM", 1),
        ("MEAN", 2),
        ("ONLY_FIRST_REPLICA", 3),
    ]


def test_a_variable_records_its_synchronization_and_aggregation():
    v = rt.Variable(1.0)
    assert v.synchronization is rt.VariableSynchronization.AUTO
    assert v.aggregation is rt.VariableAggregation.NONE
    assert v.trainable
    w = rt.Variable(
        [1.0, 2.0],
        synchronization=rt.VariableSynchronization.ON_WRITE,
        aggregation=rt.VariableAggregation.MEAN,
    )
    assert w.synchronization is rt.VariableSynchronization.ON_WRITE
    assert w.aggregation is rt.VariableAggregation.MEAN
    w.assign_add([1.0, 1.0])  # one device: the update is the one given
    np.testing.assert_array_equal(w.numpy(), [2.0, 3.0])


def test_on_read_variables_are_not_trainable_unless_asked():
    # TensorFlow: trainable defaults to synchronization != ON_READ.
    on_read = rt.VariableSynchronization.ON_READ
    assert not rt.Variable(0, synchronization=on_read).trainable
    assert rt.Variable(0, synchronization=on_read, trainable=True).trainable
    assert not rt.Variable(0, trainable=False).trainable


def test_invalid_modes_are_refused_with_tensorflows_message():
    with pytest.raises(
        ValueError, match="Invalid variable aggregation mode: invalid for variable: v"
    ):
        rt.Variable(1.0, aggregation="invalid", name="v")
    with pytest.raises(
        ValueError, match="Invalid variable synchronization mode: 7 for variable: w"
    ):
        rt.Variable(1.0, synchronization=7, name="w")
    assert rt.Variable(1.0, aggregation=1).aggregation is rt.VariableAggregation.SUM
