"""The exception types TensorFlow's tutorials catch: eager shape mismatches are
``InvalidArgumentError`` (and still ``ValueError``), ``.numpy()`` on a symbolic tensor is an
``AttributeError``, and a tensor leaked out of a trace is a ``TypeError`` that says where."""

import inspect
import re

import pytest

import autograph as ag
import runtime as rt


def _line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if marker in line)


# --- eager shape mismatches ----------------------------------------------------------------


def test_an_eager_matmul_shape_mismatch_is_tensorflows_invalid_argument_error():
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        rt.matmul(rt.ones([2, 3]), rt.ones([2, 3]))
    # TensorFlow 2's words (its kernel's message, then the op).
    assert str(info.value) == "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]"
    assert isinstance(info.value, ValueError)  # what this project raised, and a graph raises
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_a_matmul_mismatch_names_the_shapes_before_transposing():
    a, b = rt.ones([2, 3]), rt.ones([3, 2])
    assert rt.matmul(a, b, transpose_a=True, transpose_b=True).shape == (3, 3)
    with pytest.raises(ValueError, match=re.escape("In[0]: [2,3], In[1]: [3,2] [Op:MatMul]")):
        rt.matmul(a, b, transpose_a=True)
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.ones([2, 3]) @ rt.ones([2, 3])


@pytest.mark.parametrize(
    "op, op_type",
    [(lambda x, y: x + y, "Add"), (lambda x, y: x * y, "Mul"), (rt.maximum, "Maximum")],
    ids=["add", "multiply", "maximum"],
)
def test_an_eager_broadcast_mismatch_is_tensorflows_invalid_argument_error(op, op_type):
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        op(rt.ones([2]), rt.ones([3]))
    assert str(info.value) == f"Incompatible shapes: [2] vs. [3] [Op:{op_type}]"
    assert isinstance(info.value, ValueError)


def test_the_same_mismatch_while_building_a_graph_is_a_value_error_only():
    # TensorFlow's graph construction raises ValueError, never InvalidArgumentError.
    with rt.Graph().as_default():
        x = rt.placeholder(rt.float32, [2, 3])
        with pytest.raises(ValueError, match=re.escape("In[0]: [2,3], In[1]: [2,3]")) as info:
            rt.matmul(x, x)
    assert not isinstance(info.value, rt.errors.InvalidArgumentError)


def test_tensors_of_shapes_that_cannot_broadcast_are_not_equal():
    assert (rt.constant([1, 2]) == rt.constant([1, 2, 3])) is False


# --- .numpy() on a symbolic tensor -----------------------------------------------------------


def test_numpy_of_a_symbolic_tensor_is_an_attribute_error():
    with rt.Graph().as_default():
        y = rt.placeholder(rt.float32, [2], name="x") + 1
    assert not hasattr(y, "numpy")  # as in TensorFlow: `if hasattr(t, "numpy")` works
    with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
        y.numpy()
    with pytest.raises(NotImplementedError, match="'add:0' is symbolic"):
        y.numpy()


def numpy_inside(x):
    y = x + 1
    return y.numpy()  # MARK


def test_numpy_inside_a_function_is_an_attribute_error_at_the_users_line():
    with pytest.raises(AttributeError) as info:
        ag.function(numpy_inside)(rt.constant(1.0))
    message = str(info.value)
    # The message is TensorFlow's; what to do instead is a note, which the traceback shows.
    assert "return the tensor and call .numpy() on the result" in info.value.__notes__[0]
    assert f"line {_line_of(numpy_inside, '# MARK')}, in numpy_inside" in message


# --- a graph tensor leaked out of its trace --------------------------------------------------

_leaked = []


def leaks(x):
    y = x * 2  # MADE
    _leaked.append(y)
    return y


def test_a_tensor_leaked_from_a_trace_is_a_type_error_saying_return_it():
    ag.function(leaks)(rt.constant(1.0))
    with pytest.raises(TypeError) as info:
        _leaked.pop() + 1  # USED
    message = str(info.value)
    assert message.startswith(
        'An op outside of the function building code is being passed a "Graph" tensor'
    )
    assert "return the value from the function" in message
    assert "with graph.as_default()" not in message
    here = inspect.getsourcefile(test_a_tensor_leaked_from_a_trace_is_a_type_error_saying_return_it)
    used = _line_of(test_a_tensor_leaked_from_a_trace_is_a_type_error_saying_return_it, "# USED")
    assert f'File "{here}", line {used}' in message, message
    assert f"line {_line_of(leaks, '# MADE')}, in leaks" in message
    assert isinstance(info.value, ValueError)  # what this project raised before
