"""``rt.data.Dataset``: the elements of each pipeline against plain Python over the same data."""

import numpy as np
import pytest

import runtime as rt


def values(ds):
    return [rt.nest.map_structure(lambda t: t.numpy().tolist(), e) for e in ds]


def test_from_tensor_slices_slices_each_component_along_its_first_axis():
    x, y = np.arange(12).reshape(4, 3), np.array([1.5, 2.5, 3.5, 4.5])
    ds = rt.data.Dataset.from_tensor_slices((x, y))
    assert values(ds) == [(x[i].tolist(), y[i]) for i in range(4)]
    assert ds.cardinality() == len(ds) == 4
    assert ds.element_spec == (rt.TensorSpec((3,), rt.int64), rt.TensorSpec((), rt.float64))


def test_python_lists_are_one_tensor_and_python_numbers_take_rt_constant_dtypes():
    ds = rt.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [0.5, 1.5]})
    assert ds.element_spec == {"a": rt.TensorSpec((), rt.int32), "b": rt.TensorSpec((), rt.float32)}
    assert values(ds) == [{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}]


def test_components_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="first axis"):
        rt.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))


@pytest.mark.parametrize("drop_remainder", [False, True])
def test_batch_stacks_consecutive_elements(drop_remainder):
    ds = rt.data.Dataset.range(7).batch(3, drop_remainder=drop_remainder)
    expected = [list(range(7))[i : i + 3] for i in range(0, 7, 3)]
    if drop_remainder:
        expected = [b for b in expected if len(b) == 3]
    assert values(ds) == expected
    assert ds.cardinality() == len(expected)
    assert ds.element_spec.shape.as_list() == [3 if drop_remainder else None]


@pytest.mark.parametrize("buffer_size", [1, 3, 100])
def test_shuffle_is_a_permutation_and_a_small_buffer_keeps_elements_near(buffer_size):
    rt.random.set_seed(5)
    order = [int(v) for v in rt.data.Dataset.range(50).shuffle(buffer_size)]
    assert sorted(order) == list(range(50))
    # An element leaves the buffer at the earliest when the buffer is full of later ones.
    assert all(position >= value - buffer_size + 1 for position, value in enumerate(order))
    if buffer_size == 1:
        assert order == list(range(50))


def test_shuffle_reshuffles_each_iteration_unless_asked_not_to():
    ds = rt.data.Dataset.range(30).shuffle(30, seed=3)
    assert values(ds) != values(ds)
    fixed = rt.data.Dataset.range(30).shuffle(30, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)


def test_seeded_shuffles_repeat_from_run_to_run():
    def orders():
        rt.random.set_seed(11)
        ds = rt.data.Dataset.range(20).shuffle(20)
        return values(ds), values(ds)

    assert orders() == orders()


def test_map_repeat_take_skip_zip_as_python():
    ds = rt.data.Dataset.range(5).map(lambda x: x * x).repeat(2).skip(3).take(4)
    squares = [i * i for i in range(5)] * 2
    assert values(ds) == squares[3:7]
    zipped = rt.data.Dataset.zip((rt.data.Dataset.range(3), rt.data.Dataset.range(10, 20)))
    assert values(zipped) == [(0, 10), (1, 11), (2, 12)]
    assert rt.data.Dataset.range(3).repeat().cardinality() == rt.data.INFINITE_CARDINALITY


def test_map_of_a_tuple_element_passes_its_parts_as_arguments():
    ds = rt.data.Dataset.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: a + b)
    assert values(ds) == [11, 22]


def test_linspace_matches_numpy_including_its_axis():
    start, stop = np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([[4.0, 5.0], [6.0, 9.0]])
    for axis in (0, 1, 2, -1):
        np.testing.assert_allclose(
            rt.linspace(start, stop, 4, axis=axis).numpy(), np.linspace(start, stop, 4, axis=axis)
        )
    integers = rt.linspace(-2, 2, 201)
    assert integers.dtype == rt.float64  # as TensorFlow: integers are spaced in float64
    np.testing.assert_allclose(integers.numpy(), np.linspace(-2, 2, 201))
