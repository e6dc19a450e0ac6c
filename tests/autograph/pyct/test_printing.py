"""Converted source prints every expression form correctly (slices, f-strings, attribute of a literal)."""

import autograph as ag
import runtime as rt


def slicing_and_formatting(x, name):
    first_column = x[:, 0]
    rest = x[..., 1:]
    two = (1).real + 1
    label = f"{name}: {two!r:>3} {'q'}"
    if first_column[0] > 0:
        first_column = first_column * two
    return first_column, rest, label


def test_slices_f_strings_and_literal_attributes_convert_and_run():
    x = rt.constant([[1, 2], [3, 4]])
    expected = slicing_and_formatting(x, "n")
    got = ag.to_graph(slicing_and_formatting)(x, "n")
    assert got[0].numpy().tolist() == expected[0].numpy().tolist() == [2, 6]
    assert got[1].numpy().tolist() == expected[1].numpy().tolist() == [[2], [4]]
    assert got[2] == expected[2] == "n:   2 q"


def test_the_printed_source_keeps_them_valid_python():
    code = ag.to_code(slicing_and_formatting)
    compile(code, "converted", "exec")
    assert "x[:, 0]" in code and "x[..., 1:]" in code
    assert "f\"{name}: {two!r:>3} {'q'}\"" in code


def test_a_graph_function_with_a_slice():
    @ag.function(input_signature=[rt.TensorSpec([None, 2], rt.int32)])
    def first_column_sum(x):
        return rt.reduce_sum(x[:, 0])

    assert first_column_sum(rt.constant([[1, 2], [3, 4]])).numpy() == 4
