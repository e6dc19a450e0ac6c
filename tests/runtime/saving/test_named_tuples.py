"""Named tuples rebuilt from a saved model's text: no code made from it, names as Python reads
them, and a bounded number of classes kept."""

import pytest

from runtime.saving import named_tuples


def test_fields_that_python_reads_as_one_name_are_damage():
    # "\ufb01" (the ligature fi) and "fi" are one identifier to Python (NFKC)
    with pytest.raises(ValueError, match="damaged"):
        named_tuples.rebuild("P", ["\ufb01", "fi"], [1, 2])


def test_a_rebuilt_named_tuple_behaves_as_one():
    point = named_tuples.rebuild("Point", ["y", "x"], [1, 2])
    assert (point.y, point.x, tuple(point), point._fields) == (1, 2, (1, 2), ("y", "x"))
    assert repr(point) == "Point(y=1, x=2)" and point._asdict() == {"y": 1, "x": 2}
    assert type(named_tuples.rebuild("Point", ["y", "x"], [3, 4])) is type(point)


def test_only_the_newest_classes_are_kept():
    for i in range(named_tuples.MAX_CLASSES + 50):
        named_tuples.rebuild(f"T{i}", ["a"], [i])
    assert len(named_tuples._CLASSES) == named_tuples.MAX_CLASSES
