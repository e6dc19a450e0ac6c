"""TensorArray elements in one preallocated array (``runtime.ops.tensor_array_buffer``).

The array is written in place, so what must hold is that no tensor ever sees a
write made after it: a stacked tensor, an unstacked one, an element read.
Growth, element kinds that cannot share an array (strings, shapes that differ)
and numpy types a memoryview cannot write (float16, complex) are checked
against plain Python lists, eagerly and in graphs.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.ops.tensor_array_buffer import ElementBuffer


def test_a_stacked_tensor_never_sees_a_later_write():
    ta = rt.TensorArray(rt.int32, size=3)
    for i in range(3):
        ta = ta.write(i, i + 10)
    first = ta.stack()
    later = ta.write(0, 99)
    assert first.numpy().tolist() == [10, 11, 12]
    assert later.stack().numpy().tolist() == [99, 11, 12]
    assert first.numpy().tolist() == [10, 11, 12]


def test_an_unstacked_tensor_never_sees_a_write():
    rows = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    ta = rt.TensorArray(rt.float32, size=2).unstack(rows)
    ta = ta.write(1, rt.constant([7.0, 8.0]))
    assert rows.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ta.stack().numpy().tolist() == [[1.0, 2.0], [7.0, 8.0]]


def test_an_element_read_never_sees_a_later_write():
    ta = rt.TensorArray(rt.float32, size=2, element_shape=[2])
    ta = ta.write(0, rt.constant([1.0, 2.0]))
    element = ta.read(0)
    ta = ta.write(0, rt.constant([5.0, 6.0]))
    assert element.numpy().tolist() == [1.0, 2.0]
    assert ta.read(0).numpy().tolist() == [5.0, 6.0]


@pytest.mark.parametrize("n", [1, 15, 16, 17, 100])
def test_a_growing_array_holds_every_element_appended(n):
    ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
    for i in range(n):
        ta = ta.write(i, i * i)
    assert int(ta.size()) == n
    assert ta.stack().numpy().tolist() == [i * i for i in range(n)]


def test_a_growing_array_written_past_its_end_fills_the_gap_with_zeros():
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).write(40, 1.5)
    assert int(ta.size()) == 41
    assert ta.stack().numpy().tolist() == [0.0] * 40 + [1.5]


def test_writes_outside_a_fixed_array_are_errors():
    ta = rt.TensorArray(rt.int32, size=2).write(0, 1)
    with pytest.raises(rt.errors.InvalidArgumentError, match="not resizeable and size is: 2"):
        ta.write(2, 5)
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative index -1"):
        ta.write(-1, 5)
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of range"):
        ta.read(2)
    assert ta.stack().numpy().tolist() == [1, 0]  # the failed writes changed nothing


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        (rt.float16, [1.5, -2.0, 3.25]),
        (rt.bool, [True, False, True]),
        (rt.int8, [-3, 7, 100]),
        (rt.float64, [1e300, -0.0, 2.5]),
        (rt.uint8, [0, 255, 7]),
    ],
)
def test_every_numeric_dtype_stacks_what_was_written(dtype, values):
    ta = rt.TensorArray(dtype, size=len(values))
    for i, v in enumerate(values):
        ta = ta.write(i, v)
    stacked = ta.stack().numpy()
    assert stacked.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(stacked, np.array(values, dtype.as_numpy_dtype))
    assert ta.read(1).numpy() == np.array(values, dtype.as_numpy_dtype)[1]


def test_elements_of_different_shapes_are_kept_but_cannot_be_stacked():
    buffer = ElementBuffer(2)
    buffer.write(np.int32(0), np.ones(2, np.float32))
    buffer.write(np.int32(1), np.ones(3, np.float32))  # another shape: the list takes over
    assert buffer.read(np.int32(1), rt.float32, None).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(rt.errors.InvalidArgumentError, match="cannot stack elements of shapes"):
        buffer.stack(rt.float32, None)


def test_strings_are_kept_in_a_list_and_stacked_once():
    ta = rt.TensorArray(rt.string, size=3)
    for i, word in enumerate(["a", "bc", "def"]):
        ta = ta.write(i, word)
    assert ta.stack().numpy().tolist() == [b"a", b"bc", b"def"]
    assert ta.read(2).numpy() == b"def"


def test_an_element_never_written_reads_as_zeros_of_the_element_shape():
    ta = rt.TensorArray(rt.float32, size=3)
    ta = ta.write(2, rt.constant([1.0, 2.0]))
    assert ta.read(0).numpy().tolist() == [0.0, 0.0]
    assert ta.stack().numpy().tolist() == [[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]
    nothing = rt.TensorArray(rt.float32, size=2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="never written"):
        nothing.read(0)


def test_a_graph_loop_writes_in_place_and_each_run_starts_afresh():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        ta = rt.TensorArray(rt.float32, size=n)

        def body(i, ta):
            return i + 1, ta.write(i, rt.cast(i, rt.float32) * 0.5)

        _, ta = rt.while_loop(lambda i, ta: i < n, body, (0, ta))
        stacked = ta.stack()
    with rt.Session(g) as sess:
        first = sess.run(stacked, {n: 4})
        second = sess.run(stacked, {n: 2})
    assert first.tolist() == [0.0, 0.5, 1.0, 1.5] and second.tolist() == [0.0, 0.5]


def test_a_program_s_stacked_result_is_not_changed_by_its_next_run():
    import autograph as ag

    @ag.function
    def squares(n):
        ta = rt.TensorArray(rt.int32, size=n)
        for i in rt.range(n):
            ta = ta.write(i, i * i)
        return ta.stack()

    results = [squares(rt.constant(4)) for _ in range(3)]
    assert all(r.numpy().tolist() == [0, 1, 4, 9] for r in results)
