"""Directives and special functions: ``ag.experimental.set_loop_options`` (its options reach the
staged loop), ``ag.set_element_type`` and ``ag.stack``, ``ag.trace``, and
``ag.experimental_run_functions_eagerly``.

Programs modelled on TensorFlow's loop_with_variable_type and basic_list tests run as plain
Python (the reference), converted, and traced (``_harness_builtins``).
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.conformance._harness_builtins import (
    assert_agree,
    assert_same_value,
    python,
    traced,
)

# --- shape_invariants: loop variables whose shape changes ----------------------------------------


def while_growing_vector(n):
    v = rt.constant([0, 0])
    i = 0
    while i < n:
        ag.experimental.set_loop_options(shape_invariants=[(v, rt.TensorShape([None]))])
        v = rt.concat((v, rt.reshape(i, [1])), 0)
        i += 1
    return v


def for_growing_vector(n):
    v = rt.constant([0, 0])
    for i in range(n):
        ag.experimental.set_loop_options(shape_invariants=[(v, rt.TensorShape([None]))])
        v = rt.concat((v, [i]), 0)
    return v


def while_growing_matrix_rows(n):
    m = rt.constant([[0]])
    i = 0
    while i < n:
        ag.experimental.set_loop_options(shape_invariants=[(m, rt.TensorShape([None, 1]))])
        m = rt.concat((m, rt.reshape(i, [1, 1])), 0)
        i += 1
    return m


def while_growing_matrix_cols(n):
    m = rt.constant([[0, 0]])
    i = 0
    while i < n:
        ag.experimental.set_loop_options(shape_invariants=[(m, rt.TensorShape([1, None]))])
        m = rt.concat((m, rt.reshape(i, [1, 1])), 1)
        i += 1
    return m


def while_growing_matrix_pad(n):
    m = rt.constant([[0, 0], [0, 0]])
    i = 0
    while i < n:
        ag.experimental.set_loop_options(shape_invariants=[(m, rt.TensorShape(None))])
        m = rt.pad(m, [[1, 1], [1, 1]], constant_values=i)
        i += 1
    return m


def while_growing_vector_inside_if(n):
    v = rt.constant([0, 0])
    i = 0
    if n > 1:
        while i < n:
            ag.experimental.set_loop_options(shape_invariants=[(v, rt.TensorShape([None]))])
            v = rt.concat((v, rt.reshape(i, [1])), 0)
            i += 1
    else:
        v = rt.constant([1, 2, 3])
    return v


def for_growing_vector_with_break(n):
    v = rt.constant([0, 0])
    if n > 1:
        for i in range(n):
            ag.experimental.set_loop_options(shape_invariants=[(v, rt.TensorShape([None]))])
            v = rt.concat((v, rt.reshape(i, [1])), 0)
            i += 1
            if i > 3:
                break
    else:
        v = rt.constant([1, 2, 3])
    return v


def growing_pair_of_vectors(n):
    pair = (rt.constant([0]), rt.constant([[1, 1]]))
    for i in rt.range(n):
        ag.experimental.set_loop_options(
            shape_invariants=[(pair, (rt.TensorShape([None]), rt.TensorShape([None, 2])))]
        )
        pair = (rt.concat([pair[0], [i]], 0), rt.concat([pair[1], [[i, i]]], 0))
    return pair


GROWING = [
    while_growing_vector,
    for_growing_vector,
    while_growing_matrix_rows,
    while_growing_matrix_cols,
    while_growing_matrix_pad,
    while_growing_vector_inside_if,
    for_growing_vector_with_break,
    growing_pair_of_vectors,
]


@pytest.mark.parametrize("fn", GROWING, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_shape_invariants_let_a_loop_variable_change_shape(fn, n):
    assert_agree(fn, n)


def test_without_the_invariant_the_staged_loop_refuses_the_new_shape():
    def grows(n):
        v = rt.constant([0])
        for i in rt.range(n):
            v = rt.concat((v, [i]), 0)
        return v

    assert python(grows, 2).error is None
    error = traced(grows, 2).error
    assert isinstance(error, ValueError)
    assert "'v' has shape (1,) before the loop, but shape (2,) after one iteration" in str(error)
    assert "set_loop_options" in str(error)


def test_the_invariant_is_the_static_shape_of_the_result():
    fn = ag.function(while_growing_matrix_rows)
    graph = fn.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    assert graph.outputs[0].shape.as_list() == [None, 1]


def test_an_invariant_the_value_does_not_fit_is_an_error_naming_it():
    def bad(n):
        t = rt.constant([1, 2])
        for _ in rt.range(n):
            ag.experimental.set_loop_options(shape_invariants=[(t, rt.TensorShape([3]))])
            t = t + 1
        return t

    error = traced(bad, 2).error
    assert isinstance(error, ValueError), error
    assert (
        "'t' has shape (2,) before the loop, which does not conform with the shape invariant (3,)"
        in str(error)
    )


def test_a_value_that_leaves_its_invariant_is_an_error_naming_it():
    def bad(values):
        t = rt.constant([1])
        for x in values:
            ag.experimental.set_loop_options(shape_invariants=((t, rt.TensorShape([1])),))
            t = rt.range(rt.maximum(x, 2))
        return t

    error = traced(bad, [1, 2, 3]).error
    assert isinstance(error, ValueError), error
    assert (
        "'t' has shape (None,) after one iteration, which does not conform with the shape invariant (1,)"
        in str(error)
    )


# --- maximum_iterations, parallel_iterations, swap_memory --------------------------------------


def capped_while(n):
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=3)
        i += 1
    return i


def capped_for(n):
    s = 0
    for i in rt.range(n):
        ag.experimental.set_loop_options(maximum_iterations=2)
        s += i + 1
    return s


def test_maximum_iterations_caps_the_staged_loop_only():
    # As in TensorFlow: a staged loop stops after maximum_iterations; a Python loop ignores it.
    assert python(capped_while, 10).value == 10
    assert traced(capped_while, 10, runs=2).value.numpy() == 3
    assert traced(capped_while, 2).value.numpy() == 2
    assert traced(capped_for, 5).value.numpy() == 1 + 2
    assert traced(capped_for, 1).value.numpy() == 1


def test_maximum_iterations_may_be_a_tensor():
    @ag.function
    def capped(n, cap):
        i = 0
        while i < n:
            ag.experimental.set_loop_options(maximum_iterations=cap)
            i += 1
        return i

    assert capped(rt.constant(10), rt.constant(4)).numpy() == 4


def parallel_iterations_and_swap_memory(n):
    s = 0
    for i in range(n):
        ag.experimental.set_loop_options(parallel_iterations=1, swap_memory=True)
        s += i
    return s


@pytest.mark.parametrize("n", [0, 4])
def test_parallel_iterations_and_swap_memory_are_accepted(n):
    assert_agree(parallel_iterations_and_swap_memory, n)


def test_the_converted_call_carries_the_options():
    code = ag.to_code(capped_while)
    assert "options={'maximum_iterations': 3}" in code
    assert code.count("set_loop_options") == 1  # the call itself stays, first in the body


def test_set_loop_options_checks_its_arguments():
    with pytest.raises(ValueError, match="parallel_iterations"):
        ag.experimental.set_loop_options(parallel_iterations=0)
    with pytest.raises(ValueError, match="pairs"):
        ag.experimental.set_loop_options(shape_invariants=[rt.TensorShape([None])])


def test_set_loop_options_must_begin_the_loop_body():
    def misplaced(n):
        i = 0
        while i < n:
            i += 1
            ag.experimental.set_loop_options(maximum_iterations=3)
        return i

    with pytest.raises(ValueError, match="first statement"):
        ag.to_graph(misplaced)


# --- set_element_type and stack (basic_list) --------------------------------------------------


def element_type_then_index():
    l = []  # noqa: E741
    l.append(1)
    l.append(2)
    l.append(3)
    ag.set_element_type(l, rt.int32)
    return 2 * l[1]


def element_type_then_item_update():
    l = []  # noqa: E741
    l.append(1)
    l.append(2)
    l.append(3)
    ag.set_element_type(l, rt.int32)
    l[1] = 5
    return ag.stack(l)


def element_type_fill_in_loop(n):
    l = []  # noqa: E741
    ag.set_element_type(l, rt.int32)
    for i in range(n):
        l.append(i)
    return ag.stack(l)


def element_type_nested_fill(m, n):
    mat = []
    ag.set_element_type(mat, rt.int32)
    for _ in range(m):
        row = []
        ag.set_element_type(row, rt.int32)
        for j in range(n):
            row.append(j)
        mat.append(ag.stack(row))
    return ag.stack(mat)


def test_set_element_type_and_stack_of_lists():
    assert_agree(element_type_then_index)
    assert_agree(element_type_then_item_update)
    for n in (1, 5):
        assert_agree(element_type_fill_in_loop, n)
    for m, n in ((5, 3), (1, 1)):
        assert_agree(element_type_nested_fill, m, n)


def empty_typed_list(n):
    l = []  # noqa: E741
    ag.set_element_type(l, rt.float32, [2])
    for i in range(n):
        l.append(rt.fill([2], rt.cast(i, rt.float32)))
    return ag.stack(l)


def test_stack_of_an_empty_list_takes_its_declared_element_type():
    # plain Python cannot know what an empty list holds; converted code reads set_element_type
    converted = ag.to_graph(empty_typed_list)
    out = converted(0)
    assert out.dtype is rt.float32 and out.shape == (0, 2)
    staged = traced(empty_typed_list, 0).value
    assert staged.dtype is rt.float32 and staged.shape == (0, 2)
    assert_same_value(traced(empty_typed_list, 2).value, [[0.0, 0.0], [1.0, 1.0]])
    assert "element_dtype=rt.float32" in ag.to_code(empty_typed_list)


def test_stack_of_an_empty_list_without_element_type_says_what_to_do():
    with pytest.raises(ValueError, match="set_element_type"):
        ag.stack([])


def test_stack_of_an_empty_list_of_unknown_element_shape_is_an_error():
    """TensorFlow's basic_list simple_fill(0): the shape was not declared, so it is unknown."""
    for run in (ag.to_graph(element_type_fill_in_loop), ag.function(element_type_fill_in_loop)):
        with pytest.raises(ValueError, match="unknown shape"):
            run(0)
    assert ag.stack([], rt.int32, ()).shape == (0,)


def test_stack_of_lists_tensor_arrays_and_tensors():
    assert_same_value(ag.stack([1, 2, 3]), [1, 2, 3])
    assert ag.stack([1, 2], element_dtype=rt.float32).dtype is rt.float32
    t = rt.constant([[1, 2]])
    assert ag.stack(t) is t
    array = rt.TensorArray(rt.int32, size=2).write(0, 4).write(1, 5)
    assert_same_value(ag.stack(array), [4, 5])
    with pytest.raises(TypeError, match="list or a tensor"):
        ag.stack({"a": 1})


def test_set_element_type_checks_the_dtype():
    with pytest.raises(TypeError, match="no dtype has that name"):
        ag.set_element_type([], "not a dtype")


# --- trace, experimental_run_functions_eagerly ----------------------------------------------


def test_trace_prints_while_tracing_not_when_the_graph_runs():
    def traced_fn(x):
        ag.trace("x is", x)
        return x + 1

    out = traced(traced_fn, 1, runs=3)
    assert out.value.numpy() == 2
    assert out.stdout.count("x is") == 1  # once, while tracing
    # As tf.autograph.trace prints a symbolic tensor: its str, TensorFlow's Tensor("x:0", ...).
    assert 'Tensor("x:0", shape=(), dtype=int32)' in out.stdout
    assert python(traced_fn, 4).stdout == "x is 4\n"


def test_experimental_run_functions_eagerly_is_run_functions_eagerly():
    calls = []

    @ag.function
    def f(x):
        calls.append(rt.executing_eagerly())
        return x

    ag.experimental_run_functions_eagerly(True)
    try:
        assert ag.functions_run_eagerly()
        f(rt.constant(1))
        f(rt.constant(2))
    finally:
        ag.experimental_run_functions_eagerly(False)
    assert not ag.functions_run_eagerly()
    assert calls == [True, True]


def test_the_directives_leave_plain_python_alone():
    assert python(while_growing_vector, 3).value.numpy().tolist() == [0, 0, 0, 1, 2]
    assert_same_value(python(element_type_fill_in_loop, 3).value, np.arange(3))
