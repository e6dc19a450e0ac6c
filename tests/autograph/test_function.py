"""``ag.function``: tracing and retracing rules, variables, side effects, concrete functions."""

import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def c(value, dtype=None):
    return rt.constant(value, dtype=dtype)


def values(x):
    return np.asarray(x.numpy()).tolist()


@pytest.fixture
def eager_mode():
    ag.run_functions_eagerly(True)
    try:
        yield
    finally:
        ag.run_functions_eagerly(False)


# --- tracing: tensors by dtype and shape ------------------------------------------------------


def test_same_dtype_and_shape_does_not_retrace():
    @ag.function
    def double(x):
        return x * 2

    assert double.tracing_count == 0
    assert values(double(c(1))) == 2
    assert values(double(c(21))) == 42
    assert values(double(c(-4))) == -8
    assert double.tracing_count == 1


@pytest.mark.filterwarnings("ignore::autograph.RetracingWarning")
def test_new_dtype_or_shape_retraces():
    @ag.function
    def double(x):
        return x + x

    double(c(1))
    assert double.tracing_count == 1
    assert values(double(c(1.5))) == 3.0  # float32: new dtype
    assert double.tracing_count == 2
    assert values(double(c([1, 2]))) == [2, 4]  # shape (2,)
    assert double.tracing_count == 3
    assert values(double(c([5, 6]))) == [10, 12]  # same shape again
    assert double.tracing_count == 3
    assert values(double(c([1, 2, 3]))) == [2, 4, 6]  # shape (3,)
    assert double.tracing_count == 4
    assert values(double(c([[1, 2]]))) == [[2, 4]]  # shape (1, 2)
    assert double.tracing_count == 5
    assert values(double(c(7))) == 14  # back to the first signature
    assert double.tracing_count == 5


def test_each_traced_graph_keeps_its_own_dtype():
    @ag.function
    def half(x):
        return x / 2

    assert half(c(3.0)).dtype == rt.float32
    assert half(c(3.0, rt.float64)).dtype == rt.float64
    assert half(c(5.0)).dtype == rt.float32
    assert half.tracing_count == 2


def test_numpy_arrays_are_traced_by_dtype_and_shape():
    @ag.function
    def total(x):
        return rt.reduce_sum(x)

    assert values(total(np.array([1.0, 2.0], np.float32))) == 3.0
    assert values(total(np.array([5.0, 6.0], np.float32))) == 11.0
    assert total.tracing_count == 1


# --- tracing: Python values by value ------------------------------------------------------------


def test_python_values_retrace_per_value():
    @ag.function
    def scale(x, factor):
        return x * factor

    x = c(2.0)
    assert values(scale(x, 3.0)) == 6.0
    assert values(scale(c(5.0), 3.0)) == 15.0
    assert scale.tracing_count == 1
    assert values(scale(x, 4.0)) == 8.0
    assert scale.tracing_count == 2
    assert values(scale(x, 3.0)) == 6.0  # seen before: reused
    assert scale.tracing_count == 2


def test_python_ints_and_strings_retrace_per_value():
    @ag.function
    def pick(n, mode):
        if mode == "double":
            return rt.constant(n * 2)
        return rt.constant(n + 100)

    results = [values(pick(n, m)) for n, m in [(1, "double"), (1, "double"), (2, "double")]]
    results += [values(pick(1, "other")), values(pick(2, "double"))]
    assert results == [2, 2, 4, 101, 4]
    assert pick.tracing_count == 3


def test_equal_python_values_of_different_types_trace_separately():
    # 1 == 1.0 == True, but each traces its own graph, as in TensorFlow: a graph traced for
    # True would return a bool for 1.
    @ag.function
    def echo(v):
        return rt.constant(v)

    results = [echo(v) for v in (True, 1, 1.0, True, 1)]
    assert [(r.dtype, r.numpy().item()) for r in results] == [
        (rt.bool, True),
        (rt.int32, 1),
        (rt.float32, 1.0),
        (rt.bool, True),
        (rt.int32, 1),
    ]
    assert echo.tracing_count == 3


def test_numpy_scalars_are_tensors_of_their_dtype():
    @ag.function
    def double(v):
        return v * 2

    assert double(np.int32(3)).numpy() == 6
    assert double(np.int32(4)).numpy() == 8
    assert double.tracing_count == 1  # a numpy scalar is a tensor: its value does not retrace
    assert double(np.float64(1.5)).dtype == rt.float64
    assert double(1).dtype == rt.int32 and double.tracing_count == 3


def test_keyword_positional_and_default_calls_share_a_trace():
    @ag.function
    def scale(x, factor=2):
        return x * factor

    assert values(scale(c(3))) == 6
    assert values(scale(c(4), 2)) == 8
    assert values(scale(c(5), factor=2)) == 10
    assert values(scale(x=c(6), factor=2)) == 12
    assert scale.tracing_count == 1
    assert values(scale(x=c(6), factor=3)) == 18
    assert scale.tracing_count == 2


# --- tracing: nested structures element by element ----------------------------------------------


def test_lists_are_compared_element_by_element():
    @ag.function
    def weighted(pair):
        x, w = pair
        return x * w

    assert values(weighted([c(2.0), 3.0])) == 6.0
    assert values(weighted([c(5.0), 3.0])) == 15.0  # same spec, same Python value
    assert weighted.tracing_count == 1
    assert values(weighted([c(5.0), 4.0])) == 20.0  # new Python value inside the list
    assert weighted.tracing_count == 2
    assert values(weighted([c([1.0, 2.0]), 4.0])) == [4.0, 8.0]  # new shape inside the list
    assert weighted.tracing_count == 3
    assert values(weighted((c(5.0), 4.0))) == 20.0  # a tuple is not a list
    assert weighted.tracing_count == 4
    assert values(weighted((c(6.0), 4.0))) == 24.0
    assert weighted.tracing_count == 4


def test_list_length_change_retraces():
    @ag.function
    def total(xs):
        result = xs[0]
        for x in xs[1:]:
            result = result + x
        return result

    assert values(total([c(1), c(2)])) == 3
    assert values(total([c(10), c(20)])) == 30
    assert total.tracing_count == 1
    assert values(total([c(1), c(2), c(3)])) == 6
    assert total.tracing_count == 2


def test_dicts_are_compared_element_by_element():
    @ag.function
    def combine(d):
        return d["x"] * d["k"]

    assert values(combine({"x": c(2), "k": 3})) == 6
    assert values(combine({"x": c(4), "k": 3})) == 12
    assert values(combine({"k": 3, "x": c(5)})) == 15  # key order does not matter
    assert combine.tracing_count == 1
    assert values(combine({"x": c(4), "k": 5})) == 20  # new Python value
    assert combine.tracing_count == 2
    assert values(combine({"x": c([1, 2]), "k": 5})) == [5, 10]  # new shape
    assert combine.tracing_count == 3
    assert values(combine({"x": c(1.5), "k": 2})) == 3.0  # new dtype and value
    assert combine.tracing_count == 4


# --- tracing: other objects by identity -----------------------------------------------------------


class Config:
    def __init__(self, k):
        self.k = k


def test_other_objects_are_compared_by_identity():
    @ag.function
    def apply(x, config):
        return x * config.k

    first = Config(2)
    assert values(apply(c(5), first)) == 10
    assert values(apply(c(6), first)) == 12
    assert apply.tracing_count == 1
    same_content = Config(2)
    assert values(apply(c(5), same_content)) == 10
    assert apply.tracing_count == 2
    # TensorFlow's documented pitfall: mutating a traced object does not retrace, so the
    # graph keeps the value it saw while tracing.
    first.k = 100
    assert values(apply(c(5), first)) == 10
    assert apply.tracing_count == 2
    assert values(apply(c(5), Config(7))) == 35
    assert apply.tracing_count == 3


# --- methods: one cache per instance ------------------------------------------------------------


class Scaler:
    def __init__(self, factor):
        self.factor = factor
        self.traces = 0

    @ag.function
    def apply(self, x):
        self.traces += 1
        return x * self.factor


def test_methods_of_two_instances_trace_separately():
    a, b = Scaler(2.0), Scaler(3.0)
    assert values(a.apply(c(1.0))) == 2.0
    assert values(a.apply(c(5.0))) == 10.0
    assert values(b.apply(c(1.0))) == 3.0  # not a's graph with a's factor
    assert values(b.apply(c(4.0))) == 12.0
    assert values(a.apply(c(4.0))) == 8.0
    assert a.apply.tracing_count == 1
    assert b.apply.tracing_count == 1
    assert (a.traces, b.traces) == (1, 1)
    assert a.apply.python_function(c(3.0)).numpy() == 6.0


# --- input_signature ----------------------------------------------------------------------------


@ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def sum_squares(scores):
    return rt.reduce_sum(scores * scores)


def test_input_signature_traces_once_for_every_fitting_call():
    assert values(sum_squares(c([1.0, 2.0]))) == 5.0
    assert values(sum_squares(c([3.0]))) == 9.0
    assert values(sum_squares(c([1.0, 1.0, 1.0, 2.0]))) == 7.0
    assert values(sum_squares(c(np.zeros([0], np.float32)))) == 0.0
    assert values(sum_squares([2.0, 2.0])) == 8.0  # Python lists are converted
    assert sum_squares.tracing_count == 1


def test_input_signature_python_scalars_are_converted_not_retraced():
    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def plus_one(x):
        return x + 1

    results = [plus_one(v) for v in (1.0, 2.5, 7.0)]
    assert [values(r) for r in results] == [2.0, 3.5, 8.0]
    assert all(r.dtype == rt.float32 for r in results)
    assert plus_one.tracing_count == 1


def test_input_signature_wrong_dtype_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match="scores"):
        sum_squares(c([1, 2]))  # int32
    with pytest.raises(TypeError, match="scores"):
        sum_squares(c([1.0, 2.0], rt.float64))


def test_input_signature_wrong_shape_is_a_value_error_naming_the_argument():
    @ag.function(input_signature=[rt.TensorSpec([2, None], rt.int32)])
    def first_row(matrix):
        return matrix[0]

    assert values(first_row(c([[1, 2, 3], [4, 5, 6]]))) == [1, 2, 3]
    with pytest.raises(ValueError, match="matrix"):
        first_row(c([[1, 2, 3]]))  # first dim 1, not 2
    with pytest.raises(ValueError, match="matrix"):
        first_row(c([1, 2]))  # wrong rank
    assert first_row.tracing_count == 1


def test_input_signature_wrong_structure_is_a_type_error():
    spec = rt.TensorSpec([], rt.int32)

    @ag.function(input_signature=[(spec, spec)])
    def add_pair(pair):
        return pair[0] + pair[1]

    assert values(add_pair((c(2), c(3)))) == 5
    assert values(add_pair([c(4), c(5)])) == 9
    with pytest.raises(TypeError):
        add_pair(c(2))
    with pytest.raises(TypeError):
        add_pair((c(1), c(2), c(3)))
    with pytest.raises(TypeError):
        add_pair((c(1), c(2)), c(3))  # more arguments than the signature


def test_input_signature_does_not_count_self():
    class Model:
        def __init__(self, bias):
            self.bias = bias

        @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
        def forward(self, x):
            return x + self.bias

    m = Model(10.0)
    assert values(m.forward(c([1.0, 2.0]))) == [11.0, 12.0]
    assert values(m.forward(c([3.0]))) == [13.0]
    assert m.forward.tracing_count == 1
    with pytest.raises(TypeError, match="x"):
        m.forward(c([1, 2]))
    assert values(Model(-1.0).forward(c([1.0]))) == [0.0]


# --- get_concrete_function ----------------------------------------------------------------------


def test_get_concrete_function_with_tensors_is_reused_by_matching_calls():
    @ag.function
    def affine(x, k):
        return x * k + 1

    cf = affine.get_concrete_function(c([1.0, 2.0]), 3)
    assert isinstance(cf, ag.ConcreteFunction)
    assert affine.tracing_count == 1
    assert values(affine(c([5.0, 6.0]), 3)) == [16.0, 19.0]
    assert affine.tracing_count == 1
    assert affine.get_concrete_function(rt.TensorSpec([2], rt.float32), 3) is cf
    assert affine.get_concrete_function(c([0.0, 0.0]), 3) is cf
    assert affine.tracing_count == 1
    assert values(cf(c([1.0, 1.0]))) == [4.0, 4.0]
    assert affine.get_concrete_function(c([1.0, 2.0]), 4) is not cf
    assert affine.tracing_count == 2


def test_get_concrete_function_with_tensor_specs():
    @ag.function
    def norm1(x):
        return rt.reduce_sum(rt.abs(x))

    cf = norm1.get_concrete_function(rt.TensorSpec([3], rt.int32))
    assert norm1.tracing_count == 1
    assert values(norm1(c([1, -2, 3]))) == 6
    assert norm1.tracing_count == 1
    assert norm1.get_concrete_function(c([0, 0, 0])) is cf


def test_get_concrete_function_with_unknown_dims_serves_any_size():
    # A ConcreteFunction traced for a TensorSpec with None dims is the one that later calls
    # with any size use (TensorFlow dispatches to the traced supertype).
    @ag.function
    def norm1(x):
        return rt.reduce_sum(rt.abs(x))

    cf = norm1.get_concrete_function(rt.TensorSpec([None], rt.int32))
    assert values(cf(c([1, -2]))) == 3
    assert values(norm1(c([1, -2, 3]))) == 6
    assert values(norm1(c([-5]))) == 5
    assert norm1.tracing_count == 1


def test_get_concrete_function_of_an_input_signature_function():
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def mean(v):
        return rt.reduce_mean(v)

    cf = mean.get_concrete_function()
    assert cf.inputs[0].shape.as_list() == [None]
    assert mean.get_concrete_function() is cf
    # With an input_signature every fitting argument gets the signature's graph.
    assert mean.get_concrete_function(c([1.0, 2.0, 3.0])) is cf
    assert mean.get_concrete_function(rt.TensorSpec([None], rt.float32)) is cf
    assert values(mean(c([1.0, 2.0, 6.0]))) == 3.0
    assert mean.tracing_count == 1


# --- reduce_retracing ---------------------------------------------------------------------------


def test_reduce_retracing_relaxes_shapes_to_none():
    @ag.function(reduce_retracing=True)
    def total(x):
        return rt.reduce_sum(x * 2)

    assert values(total(c([1, 2]))) == 6
    assert total.tracing_count == 1
    assert values(total(c([1, 2, 3]))) == 12
    assert total.tracing_count == 2
    assert values(total(c([1, 2, 3, 4]))) == 20
    assert values(total(c([5]))) == 10
    assert values(total(c(list(range(10))))) == 90
    assert total.tracing_count == 2
    assert values(total(c([1.0, 2.0]))) == 6.0  # a new dtype still retraces
    assert total.tracing_count == 3


def test_without_reduce_retracing_each_length_traces():
    @ag.function
    def total(x):
        return rt.reduce_sum(x)

    for n in range(1, 4):
        assert values(total(c(list(range(n))))) == sum(range(n))
    assert total.tracing_count == 3


# --- the retracing warning ----------------------------------------------------------------------


def test_frequent_retracing_warns_naming_the_changed_argument():
    @ag.function
    def step(x, step_count):
        return x + step_count

    with pytest.warns(ag.RetracingWarning) as record:
        for i in range(10):
            assert values(step(c(1), i)) == 1 + i
    messages = [str(w.message) for w in record if issubclass(w.category, ag.RetracingWarning)]
    assert messages
    assert any("step_count" in m for m in messages), messages


def test_frequent_shape_retracing_warns_naming_the_argument():
    @ag.function
    def total(batch, scale):
        return rt.reduce_sum(batch) * scale

    with pytest.warns(ag.RetracingWarning) as record:
        for n in range(1, 10):
            assert values(total(rt.ones([n]), 2.0)) == 2.0 * n
    messages = [str(w.message) for w in record if issubclass(w.category, ag.RetracingWarning)]
    assert any("batch" in m for m in messages), messages


def test_no_warning_without_retracing():
    @ag.function
    def square(x):
        return x * x

    with warnings.catch_warnings():
        warnings.simplefilter("error", ag.RetracingWarning)
        for i in range(20):
            assert values(square(c(i))) == i * i
    assert square.tracing_count == 1


# --- variables ----------------------------------------------------------------------------------


def test_outside_variable_is_captured_and_updated_in_place():
    v = rt.Variable(1.0)

    @ag.function
    def bump():
        v.assign_add(3.0)
        return v.read_value()

    assert values(bump()) == 4.0
    assert values(bump()) == 7.0
    assert v.numpy() == 7.0
    assert bump.tracing_count == 1
    v.assign(0.5)  # changed outside: the graph reads the current value
    assert values(bump()) == 3.5


def test_variable_updates_are_seen_by_later_reads_in_the_same_call():
    v = rt.Variable(0)

    @ag.function
    def set_and_double(x):
        v.assign(x)
        return v * 2

    assert values(set_and_double(c(5))) == 10
    assert values(set_and_double(c(-3))) == -6
    assert v.numpy() == -3


def test_variables_passed_as_arguments_are_updated_separately():
    @ag.function
    def add_to(var, amount):
        var.assign_add(amount)
        return var.read_value()

    v1, v2 = rt.Variable(10), rt.Variable(100)
    assert values(add_to(v1, c(1))) == 11
    assert values(add_to(v1, c(2))) == 13
    assert values(add_to(v2, c(5))) == 105
    assert (v1.numpy(), v2.numpy()) == (13, 105)


def test_creating_a_variable_on_every_call_raises_value_error():
    @ag.function
    def make():
        w = rt.Variable(1.0)
        return w + 1

    with pytest.raises(ValueError, match="singleton"):
        make()


def test_creating_a_variable_on_a_later_trace_raises_value_error():
    made = {}

    @ag.function
    def lookup(key):
        if key not in made:
            made[key] = rt.Variable(float(key))
        return made[key].read_value()

    assert values(lookup(1)) == 1.0
    assert values(lookup(1)) == 1.0
    with pytest.raises(ValueError, match="singleton"):
        lookup(2)


class Counter:
    def __init__(self):
        self.v = None

    @ag.function
    def add(self, x):
        if self.v is None:
            self.v = rt.Variable(0.0)
        self.v.assign_add(x)
        return self.v.read_value()


def test_variable_created_once_is_kept():
    counter = Counter()
    assert values(counter.add(c(1.0))) == 1.0
    created = counter.v
    assert isinstance(created, rt.Variable)
    assert values(counter.add(c(2.0))) == 3.0
    assert values(counter.add(5.0)) == 8.0  # a retrace for a Python value: no new variable
    assert counter.v is created
    assert counter.v.numpy() == 8.0
    other = Counter()
    assert values(other.add(c(10.0))) == 10.0
    assert other.v is not created
    assert created.numpy() == 8.0


# --- side effects -------------------------------------------------------------------------------


def test_python_print_happens_only_while_tracing(capsys):
    @ag.function
    def noisy(x):
        print("tracing noisy")
        return x + 1

    for i in range(3):
        assert values(noisy(c(i))) == i + 1
    assert capsys.readouterr().out == "tracing noisy\n"
    noisy(c(1.0))  # a new signature traces again
    assert capsys.readouterr().out == "tracing noisy\n"


def test_appending_to_a_python_list_happens_once_and_holds_a_symbolic_tensor():
    seen = []

    @ag.function
    def remember(x):
        y = x * 2
        seen.append(y)
        return y

    assert values(remember(c(1.0))) == 2.0
    assert values(remember(c(2.0))) == 4.0
    assert len(seen) == 1
    kept = seen[0]
    assert isinstance(kept, rt.Tensor)
    assert kept.dtype == rt.float32
    assert repr(kept).startswith("<rt.Tensor '")
    assert "numpy=" not in repr(kept)
    assert kept.graph is remember.get_concrete_function(c(0.0)).graph
    assert remember.tracing_count == 1


def test_runtime_ops_run_every_call_in_program_order(capsys):
    v = rt.Variable(0)

    @ag.function
    def step(x):
        print("trace")
        rt.print("first", x)
        v.assign_add(x)  # result discarded: still runs
        rt.print("second", v)

    assert step(c(1)) is None
    assert capsys.readouterr().out == "trace\nfirst 1\nsecond 1\n"
    assert step(c(2)) is None
    assert capsys.readouterr().out == "first 2\nsecond 3\n"
    assert v.numpy() == 3
    assert step.tracing_count == 1


def test_rt_print_inside_a_tensor_if_runs_only_in_the_taken_branch(capsys):
    @ag.function
    def report(x):
        if x > 0:
            rt.print("positive", x)
        else:
            rt.print("not positive", x)
        return x

    for value in (3, -2, 0, 7):
        assert values(report(c(value))) == value
    assert capsys.readouterr().out == "positive 3\nnot positive -2\nnot positive 0\npositive 7\n"
    assert report.tracing_count == 1


def test_assign_inside_a_tensor_if_runs_only_in_the_taken_branch():
    v = rt.Variable(0)

    @ag.function
    def update(x):
        if x > 0:
            v.assign_add(100)
        else:
            v.assign_add(1)

    update(c(5))
    assert v.numpy() == 100
    update(c(-5))
    update(c(0))
    assert v.numpy() == 102
    assert update.tracing_count == 1


def test_rt_print_inside_a_tensor_loop_runs_every_iteration(capsys):
    @ag.function
    def count_up(n):
        for i in rt.range(n):
            rt.print("i =", i)
        return n

    count_up(c(3))
    count_up(c(1))
    assert capsys.readouterr().out == "i = 0\ni = 1\ni = 2\ni = 0\n"


def test_random_ops_draw_new_numbers_every_call():
    @ag.function
    def draw():
        return rt.random.uniform([8])

    a, b = draw().numpy(), draw().numpy()
    assert a.shape == b.shape == (8,)
    assert not np.array_equal(a, b)
    assert ((a >= 0) & (a < 1)).all() and ((b >= 0) & (b < 1)).all()
    assert draw.tracing_count == 1


def test_python_counter_is_incremented_once():
    calls = {"n": 0}

    @ag.function
    def f(x):
        calls["n"] += 1
        return x - 1

    for i in range(4):
        f(c(i))
    assert calls["n"] == 1


# --- nested functions ---------------------------------------------------------------------------


@ag.function
def inner_double(x):
    return x * 2


@ag.function
def outer_plus_one(x):
    return inner_double(x) + 1


def test_function_calling_a_function():
    assert values(outer_plus_one(c(3.0))) == 7.0
    assert values(outer_plus_one(c(4.0))) == 9.0
    assert outer_plus_one.tracing_count == 1
    assert inner_double.tracing_count in (0, 1)
    count = inner_double.tracing_count
    outer_plus_one(c(5.0))
    assert inner_double.tracing_count == count
    assert values(inner_double(c(5.0))) == 10.0  # still usable on its own


def plain_abs(x):
    if x > 0:
        y = x
    else:
        y = -x
    return y


def plain_count_halvings(n):
    steps = 0
    while n > 1:
        n = n // 2
        steps += 1
    return steps


@ag.function
def uses_helpers(x):
    return plain_abs(x) * 10 + plain_count_halvings(plain_abs(x))


def test_plain_helpers_called_from_a_function_are_converted():
    for v in (3, -3, 16, -17, 0):
        expected = abs(v) * 10 + plain_count_halvings(abs(v))
        assert values(uses_helpers(c(v))) == expected
    assert uses_helpers.tracing_count == 1


# --- concrete functions -------------------------------------------------------------------------


@ag.function
def row_sums(x, bias):
    return rt.reduce_sum(x, axis=1) + bias


def row_sums_cf():
    return row_sums.get_concrete_function(
        rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([], rt.float32)
    )


def test_printing_a_concrete_function_shows_arguments_and_results():
    # TensorFlow's layout of a concrete function's signature, written out by hand.
    assert str(row_sums_cf()) == (
        "ConcreteFunction row_sums(x, bias)\n"
        "  Args:\n"
        "    x: float32 Tensor, shape=(None, 3)\n"
        "    bias: float32 Tensor, shape=()\n"
        "  Returns:\n"
        "    float32 Tensor, shape=(None,)"
    )


def test_concrete_function_graph_can_be_walked():
    cf = row_sums_cf()
    assert isinstance(cf.graph, rt.Graph)
    # reduce_sum(x, axis=1) + bias: two placeholders, a Sum of x, an Add of the sum and bias.
    x, bias, total, add = cf.graph.get_operations()
    assert [(op.type, op.name) for op in (x, bias, total, add)] == [
        ("Placeholder", "x"),
        ("Placeholder", "bias"),
        ("Sum", "Sum"),
        ("Add", "add"),
    ]
    assert total.attrs["axis"] == (1,)
    assert [t.op for t in cf.inputs] == [x, bias]
    assert [t.op for t in cf.outputs] == [add]
    assert [t.op for t in add.inputs] == [total, bias]
    assert [t.op for t in total.inputs] == [x]
    assert not x.inputs and not bias.inputs
    assert all(t.graph is cf.graph for t in cf.inputs + cf.outputs)


def test_concrete_function_inputs_outputs_and_signature():
    cf = row_sums_cf()
    assert [t.dtype for t in cf.inputs] == [rt.float32, rt.float32]
    assert cf.inputs[0].shape.as_list() == [None, 3]
    assert cf.inputs[1].shape.as_list() == []
    assert len(cf.outputs) == 1
    assert cf.outputs[0].dtype == rt.float32
    assert cf.outputs[0].shape.as_list() == [None]
    args, kwargs = cf.structured_input_signature
    assert kwargs == {}
    assert [(s.dtype, s.shape.as_list()) for s in args] == [
        (rt.float32, [None, 3]),
        (rt.float32, []),
    ]


def test_calling_a_concrete_function():
    cf = row_sums_cf()
    result = cf(c([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), c(0.5))
    assert values(result) == [6.5, 15.5]
    with pytest.raises(TypeError):
        cf(c([[1, 2, 3]]), c(0.5))  # int32 where float32 is required
    with pytest.raises(TypeError):
        cf(c([[1.0, 2.0, 3.0]]), c(1, rt.int32))


def test_arguments_named_with_underscores_trace_and_compute_as_python():
    twice = lambda _: _ + _  # noqa: E731 (the reported spelling)

    def weighted(_, __scale, x_1):
        return _ * __scale + x_1

    assert values(ag.function(twice)(c(2.0))) == twice(2.0)
    assert values(ag.function(weighted)(c(2.0), c(3.0), c(1.0))) == weighted(2.0, 3.0, 1.0)


def test_placeholders_of_underscore_arguments_are_named_as_tensorflow_names_them():
    def weighted(_, __scale, x_1):
        return _ * __scale + x_1

    cf = ag.function(weighted).get_concrete_function(c(2.0), c(3.0), c(1.0))
    # TensorFlow: a name not starting with a letter gets "arg_" before it; valid ones stay.
    assert [t.op.name for t in cf.inputs] == ["arg__", "arg___scale", "x_1"]


# --- run_functions_eagerly ----------------------------------------------------------------------


def test_functions_run_eagerly_is_off_by_default():
    assert ag.functions_run_eagerly() is False


def test_run_functions_eagerly_calls_the_python_function(eager_mode, capsys):
    modes = []

    @ag.function
    def f(x):
        print("python body")
        modes.append(rt.executing_eagerly())
        return x * 3

    assert ag.functions_run_eagerly() is True
    assert values(f(c(2))) == 6
    assert values(f(c(3))) == 9
    assert capsys.readouterr().out == "python body\npython body\n"
    assert modes == [True, True]
    assert f.tracing_count == 0


def test_run_functions_eagerly_can_be_turned_off_again(capsys):
    @ag.function
    def f(x):
        print("body")
        return x + 1

    ag.run_functions_eagerly(True)
    try:
        f(c(1))
        f(c(1))
    finally:
        ag.run_functions_eagerly(False)
    assert ag.functions_run_eagerly() is False
    f(c(1))
    f(c(1))
    assert capsys.readouterr().out == "body\n" * 3
    assert f.tracing_count == 1


# --- Python control flow on tensors ---------------------------------------------------------------


def collatz_steps_py(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@ag.function
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_while_and_if_on_tensors_match_python():
    for n in (1, 2, 6, 7, 27):
        assert values(collatz_steps(c(n))) == collatz_steps_py(n)
    assert collatz_steps.tracing_count == 1


@ag.function
def odd_square_sum(n):
    total = 0
    for i in rt.range(n):
        if i % 2 == 1:
            total += i * i
    return total


def test_for_over_rt_range_matches_python():
    for n in (0, 1, 5, 10):
        expected = sum(i * i for i in range(n) if i % 2 == 1)
        assert values(odd_square_sum(c(n))) == expected
    assert odd_square_sum.tracing_count == 1


@pytest.mark.parametrize("step", [1, 2, 3, -1, -2])
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_for_over_rt_range_with_any_start_and_step_matches_python(step, dtype):
    @ag.function
    def items(start, limit):
        out = rt.TensorArray(dtype, size=0, dynamic_size=True)
        for i in rt.range(start, limit, step):
            out = out.write(out.size(), i)
        return out.stack()

    @ag.function
    def items_from_zero(limit):
        total = rt.constant(0, dtype)
        for i in rt.range(0, limit, step):
            total = total * 3 + i  # order-sensitive, so every item must come in turn
        return total

    for start, limit in [(0, 7), (2, 9), (-3, 4), (5, -4), (0, -6), (4, 4)]:
        expected = list(range(start, limit, step))
        got = items(rt.constant(start, dtype), rt.constant(limit, dtype))
        assert got.dtype is dtype and values(got) == expected
        total = 0
        for i in range(0, limit, step):
            total = total * 3 + i
        assert values(items_from_zero(rt.constant(limit, dtype))) == total


@ag.function
def first_index_over(limit, n):
    total = 0
    found = -1
    for i in rt.range(n):
        total += i
        if total > limit:
            found = i
            break
    return found, total


def first_index_over_py(limit, n):
    total = 0
    found = -1
    for i in range(n):
        total += i
        if total > limit:
            found = i
            break
    return found, total


def test_break_in_a_tensor_loop_matches_python():
    for limit, n in [(5, 10), (100, 10), (0, 3), (3, 0)]:
        found, total = first_index_over(c(limit), c(n))
        assert (values(found), values(total)) == first_index_over_py(limit, n)
    assert first_index_over.tracing_count == 1


@ag.function
def classify(x):
    if x > 10:
        r = 2
    elif x > 0:
        r = 1
    else:
        r = -1
    return r * x


def test_if_elif_else_on_tensors_matches_python():
    for x in (-5, 0, 3, 10, 11, 50):
        expected = (2 if x > 10 else 1 if x > 0 else -1) * x
        assert values(classify(c(x))) == expected
    assert classify.tracing_count == 1


@ag.function(input_signature=[rt.TensorSpec([None], rt.int32)])
def running_max(xs):
    best = xs[0]
    for x in xs:
        if x > best:
            best = x
    return best


def test_for_over_a_tensor_matches_python():
    for xs in ([3], [1, 5, 2], [-4, -9, -1, -7], [2, 2, 8, 8, 1]):
        assert values(running_max(c(xs))) == max(xs)
    assert running_max.tracing_count == 1


# --- return structures ----------------------------------------------------------------------------


def test_returning_a_tuple():
    @ag.function
    def split(x):
        return x + 1, x * 2

    result = split(c(3))
    assert isinstance(result, tuple) and len(result) == 2
    assert [values(t) for t in result] == [4, 6]


def test_returning_a_dict():
    @ag.function
    def stats(x):
        return {"sum": rt.reduce_sum(x), "max": rt.reduce_max(x)}

    result = stats(c([1, 7, 3]))
    assert isinstance(result, dict)
    assert sorted(result) == ["max", "sum"]
    assert (values(result["sum"]), values(result["max"])) == (11, 7)


def test_returning_none():
    @ag.function
    def nothing(x):
        x + 1  # noqa: B018

    assert nothing(c(1)) is None

    @ag.function
    def explicit_none(x):
        return None

    assert explicit_none(c(1)) is None


def test_python_numbers_returned_become_tensors():
    @ag.function
    def numbers(x):
        return 3, 2.5

    i, f = numbers(c(0))
    assert isinstance(i, rt.Tensor) and isinstance(f, rt.Tensor)
    assert (i.dtype, values(i)) == (rt.int32, 3)
    assert (f.dtype, values(f)) == (rt.float32, 2.5)


def test_nested_return_structures_and_inputs_returned_as_is():
    captured = c(100)

    @ag.function
    def nested(x, y):
        return {"pair": (x, y), "more": [x + captured, 1]}, x

    out, again = nested(c(1), c(2))
    assert isinstance(out["pair"], tuple) and isinstance(out["more"], list)
    assert [values(t) for t in out["pair"]] == [1, 2]
    assert [values(t) for t in out["more"]] == [101, 1]
    assert values(again) == 1


def test_concrete_functions_bind_arguments_by_name():
    def sub(y, x):
        return y - x

    cf = ag.function(sub).get_concrete_function(
        rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)
    )
    assert cf(y=rt.constant(10), x=rt.constant(3)).numpy() == 7
    assert cf(x=rt.constant(3), y=rt.constant(10)).numpy() == 7
    assert cf(rt.constant(10), rt.constant(3)).numpy() == 7


def test_concrete_functions_refuse_a_python_value_other_than_the_traced_one():
    def scale(x, n):
        return x * n

    cf = ag.function(scale).get_concrete_function(rt.TensorSpec([], rt.int32), 3)
    assert cf(rt.constant(2), 3).numpy() == 6
    assert cf(rt.constant(2)).numpy() == 6  # an omitted Python argument is the traced one
    with pytest.raises(TypeError, match="'n' was traced as 3, not 100"):
        cf(rt.constant(2), 100)


def test_input_signature_is_checked_when_called_inside_another_function():
    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def half(a):
        return a / 2.0

    @ag.function
    def outer(x):
        return half(x)

    assert outer(rt.constant(3.0)).numpy() == 1.5
    with pytest.raises(TypeError, match="'a' has dtype int32"):
        outer(rt.constant(3))


def test_a_callable_object_can_be_a_function():
    class Doubler:
        def __call__(self, x):
            return x * 2

    f = ag.function(Doubler())
    assert f.__name__ == "Doubler"
    assert f(rt.constant(4)).numpy() == 8


def test_a_nan_python_argument_reuses_its_graph():
    @ag.function
    def add(x, v):
        return x + v

    for _ in range(3):
        add(rt.constant(1.0), float("nan"))
    assert add.tracing_count == 1
    add(rt.constant(1.0), 0.0)
    add(rt.constant(1.0), -0.0)  # a different float: a different graph, as for any value
    assert add.tracing_count == 3


def test_repeated_calls_with_eager_tensors_reuse_the_graph_chosen_first():
    @ag.function(reduce_retracing=True)
    def f(x):
        return rt.reduce_sum(x) * 2

    for n in (3, 4, 3, 5, 4):  # (3,), then (None,) for every later length
        assert f(rt.constant(np.arange(n, dtype=np.int32))).numpy() == 2 * sum(range(n))
    assert f.tracing_count == 2
    assert f(rt.constant([1.5, 2.5])).numpy() == 8.0  # a new dtype still traces
    assert f.tracing_count == 3


_TEN = rt.constant(10)


def test_a_tensor_default_is_read_on_every_call():
    offset = rt.Variable(1)

    @ag.function
    def f(x, y=_TEN):
        return x + y + offset

    assert f(rt.constant(1)).numpy() == 12
    offset.assign(5)
    assert f(rt.constant(1)).numpy() == 16
    assert f(rt.constant(1), rt.constant(100)).numpy() == 106
    assert f.tracing_count == 1  # y=10 and y=100 are both int32 scalars
