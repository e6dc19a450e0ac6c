"""TensorList, the list a staged loop makes of a Python list, against the same operations on a
Python list; and the contents of containers that staged ifs stage."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph.operators.data_structures import (
    TensorList,
    contents,
    same_contents,
    set_contents,
)


def _run(build):
    """``build()`` in a graph, then its tensors' values (a list stands for its stacked items)."""
    g = rt.Graph()
    with g.as_default():
        out = build()
        fetches = [o.stack() if isinstance(o, TensorList) else o for o in out]
    return [np.asarray(v).tolist() for v in rt.Session(g).run(fetches)]


def test_list_methods_change_it_in_place_as_python_lists_do():
    def changes(items, read):
        items.append(5)
        items[0] = 10
        items[-1] = items[-1] * 2
        items.extend([7, 8])
        last = items.pop()
        return [items, read(items[1]), read(items[-1]), read(last)]

    expected = changes([1, 2, 3], lambda v: v)
    assert _run(lambda: changes(TensorList.from_list([1, 2, 3]), lambda v: v)) == expected


def test_a_tensor_index_reads_and_writes():
    def build():
        items = TensorList.from_list([4, 5, 6])
        i = rt.constant(1)
        items[i] = items[i] + 100
        return [items, items[i + 1]]

    assert _run(build) == [[4, 105, 6], 6]


def test_sums_with_python_lists_give_new_lists():
    def build():
        items = TensorList.from_list([1, 2])
        longer = items + [3]
        front = [0] + items
        return [items, longer, front, items[1:]]

    assert _run(build) == [[1, 2], [1, 2, 3], [0, 1, 2], [2]]


def test_an_empty_list_learns_its_dtype_from_its_first_item():
    def build():
        items = TensorList.from_list([])
        items.append(rt.constant(2.5))
        return [items]

    assert _run(build) == [[2.5]]


def test_only_the_last_item_can_be_popped():
    with rt.Graph().as_default(), pytest.raises(NotImplementedError, match="last item"):
        TensorList.from_list([1, 2]).pop(0)


@pytest.mark.parametrize(
    "use, words",
    [(len, "len\\(lst\\)"), (iter, "iterate"), (bool, "len\\(lst\\) > 0")],
)
def test_what_needs_the_length_in_python_says_how_to_get_it(use, words):
    with rt.Graph().as_default(), pytest.raises(TypeError, match=words):
        use(TensorList.from_list([1]))


def test_a_function_that_returns_one_returns_a_python_list():
    @ag.function
    def squares(n):
        found = []
        for i in rt.range(n):
            found.append(i * i)
        return found, len(found)

    found, count = squares(rt.constant(4))
    assert [t.numpy() for t in found] == [0, 1, 4, 9] and count.numpy() == 4
    found, count = squares(rt.constant(0))
    assert found == [] and count.numpy() == 0


@pytest.mark.parametrize("container", [[1, 2], {"a": 1}])
def test_contents_are_copies_that_can_be_put_back(container):
    held = contents(container)
    assert same_contents(held, contents(container))
    if isinstance(container, list):
        container.append(3)
    else:
        container["b"] = 2
    assert not same_contents(held, contents(container))
    set_contents(container, held)
    assert container == ([1, 2] if isinstance(container, list) else {"a": 1})
