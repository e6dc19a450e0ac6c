"""Strings end to end: text given as Python ``str`` is UTF-8 bytes in tensors, as in TensorFlow,
so it joins, measures, saves and loads like any string tensor.

The reference is Python's own ``str.encode`` and ``len``.
"""

import numpy as np
import pytest

import autograph as ag
import runtime as rt

WORDS = ["tea", "é", "", "日本"]


def _object_array(items):
    return np.array(items, dtype=object)


@pytest.mark.parametrize(
    "make",
    [
        lambda: rt.constant(_object_array(WORDS)),
        lambda: rt.convert_to_tensor(_object_array(WORDS)),
        lambda: rt.constant(_object_array(WORDS), dtype=rt.string),
        lambda: rt.Variable(_object_array(WORDS)).read_value(),
        lambda: rt.constant(np.array(WORDS)),  # a numpy unicode array
    ],
    ids=["constant", "convert", "constant-dtype", "variable", "unicode-array"],
)
def test_str_elements_become_utf8_bytes(make):
    tensor = make()
    assert tensor.dtype is rt.string
    assert tensor.numpy().tolist() == [w.encode() for w in WORDS]
    assert rt.strings.length(tensor).numpy().tolist() == [len(w.encode()) for w in WORDS]
    chars = rt.strings.length(tensor, unit="UTF8_CHAR").numpy().tolist()
    assert chars == [len(w) for w in WORDS]


def test_an_object_array_of_other_values_is_not_a_string_tensor():
    with pytest.raises(TypeError, match="Cannot convert 1 to a string tensor element"):
        rt.constant(np.array([1, "a"], dtype=object))


class Labels(rt.Module):
    def __init__(self):
        super().__init__()
        self.prefix = rt.Variable(_object_array(["ü", "tea"]))
        self.suffix = rt.constant(_object_array(["日本", ""]))

    @ag.function(input_signature=[rt.TensorSpec([2], rt.string)], autograph=False)
    def label(self, middle):
        joined = rt.strings.join([self.prefix, middle, self.suffix], separator="-")
        return joined, rt.strings.length(joined, unit="UTF8_CHAR")


def test_string_constants_and_variables_of_str_save_and_load(tmp_path):
    module, path = Labels(), str(tmp_path / "labels")
    middle = _object_array(["a", "ß"])
    expected = [f"{p}-{m}-{s}" for p, m, s in zip(["ü", "tea"], ["a", "ß"], ["日本", ""])]
    joined, chars = module.label(middle)
    assert joined.numpy().tolist() == [e.encode() for e in expected]
    rt.saved_model.save(module, path)
    loaded = rt.saved_model.load(path)
    assert loaded.prefix.numpy().tolist() == ["ü".encode(), b"tea"]
    joined, chars = loaded.label(middle)
    assert joined.numpy().tolist() == [e.encode() for e in expected]
    assert chars.numpy().tolist() == [len(e) for e in expected]
