"""Converted source prints every expression form correctly (slices, f-strings, attribute of a literal)."""

import ast
import inspect
import textwrap

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
    # The f-string as the interpreter parses it, whatever quotes it prints it with (Python
    # 3.12 keeps the quotes of a nested string as written; earlier ones must alternate them).
    assert _assigned_value(code, "label") == _assigned_value(
        textwrap.dedent(inspect.getsource(slicing_and_formatting)), "label"
    )


def _assigned_value(source, name):
    """The parsed expression assigned to ``name`` in ``source``, as ``ast.dump`` writes it."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]:
            return ast.dump(node.value)
    raise AssertionError(f"{name} is not assigned in:\n{source}")


def test_a_graph_function_with_a_slice():
    @ag.function(input_signature=[rt.TensorSpec([None, 2], rt.int32)])
    def first_column_sum(x):
        return rt.reduce_sum(x[:, 0])

    assert first_column_sum(rt.constant([[1, 2], [3, 4]])).numpy() == 4
