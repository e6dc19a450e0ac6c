"""Tests for dtypes, TensorShape, TensorSpec and the eager/symbolic Tensor protocol."""

import numpy as np
import pytest

import runtime as rt


def _graph_with(fn):
    """Builds a fresh graph, calls ``fn()`` inside it and returns (graph, result)."""
    g = rt.Graph()
    with g.as_default():
        out = fn()
    return g, out


def _run(graph, fetches, feed_dict=None):
    with rt.Session(graph=graph) as sess:
        return sess.run(fetches, feed_dict)


# --- dtypes -------------------------------------------------------------------------------------

ALL_DTYPES = [
    ("bool", rt.bool, np.bool_),
    ("int8", rt.int8, np.int8),
    ("int16", rt.int16, np.int16),
    ("int32", rt.int32, np.int32),
    ("int64", rt.int64, np.int64),
    ("uint8", rt.uint8, np.uint8),
    ("float16", rt.float16, np.float16),
    ("float32", rt.float32, np.float32),
    ("float64", rt.float64, np.float64),
]


@pytest.mark.parametrize(("name", "dtype", "np_type"), ALL_DTYPES)
def test_dtype_name_and_numpy_type(name, dtype, np_type):
    assert dtype.name == name
    assert dtype.as_numpy_dtype is np_type


@pytest.mark.parametrize(("name", "dtype", "np_type"), ALL_DTYPES)
def test_as_dtype_from_name_numpy_type_and_numpy_dtype(name, dtype, np_type):
    assert rt.as_dtype(name) is dtype
    assert rt.as_dtype(np_type) is dtype
    assert rt.as_dtype(np.dtype(np_type)) is dtype
    assert rt.as_dtype(dtype) is dtype


def test_string_dtype():
    assert rt.string.name == "string"
    assert rt.as_dtype("string") is rt.string
    assert rt.as_dtype(np.dtype("S3")) is rt.string
    assert rt.as_dtype(np.str_) is rt.string


def test_as_dtype_tensorflow_aliases():
    assert rt.as_dtype("double") is rt.float64
    assert rt.as_dtype("float") is rt.float32
    assert rt.as_dtype("half") is rt.float16


def test_dtypes_are_distinct_and_compare_by_identity():
    dtypes = [d for _, d, _ in ALL_DTYPES] + [rt.string]
    assert len({id(d) for d in dtypes}) == len(dtypes)
    assert rt.float32 == rt.as_dtype("float32")
    assert rt.float32 != rt.float64
    assert {rt.int32: "i"}[rt.as_dtype(np.int32)] == "i"


def test_dtype_repr():
    assert repr(rt.float32) == "rt.float32"
    assert repr(rt.string) == "rt.string"


@pytest.mark.parametrize("bad", ["not_a_dtype", "Float32x", np.complex64, 3, None])
def test_as_dtype_rejects_unknown(bad):
    with pytest.raises(TypeError):
        rt.as_dtype(bad)


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (1, rt.int32),
        (-7, rt.int32),
        (2**40, rt.int64),
        (1.5, rt.float32),
        (True, rt.bool),
        ("text", rt.string),
        (b"bytes", rt.string),
        ([1, 2, 3], rt.int32),
        ([1, 2.5], rt.float32),
        ([True, False], rt.bool),
        (["a", "bc"], rt.string),
        (np.float64(1.0), rt.float64),
        (np.arange(3, dtype=np.int64), rt.int64),
        (np.zeros(2, dtype=np.float16), rt.float16),
    ],
)
def test_constant_default_dtypes(value, dtype):
    assert rt.constant(value).dtype is dtype


def test_constant_explicit_dtype_and_shape():
    t = rt.constant(1, dtype=rt.float64, shape=[2, 2])
    assert t.dtype is rt.float64
    np.testing.assert_array_equal(t.numpy(), np.ones((2, 2)))
    assert t.numpy().dtype == np.float64


# --- TensorShape ---------------------------------------------------------------------------------


def test_shape_known_dims():
    s = rt.TensorShape([2, 3])
    assert s.rank == 2
    assert s.as_list() == [2, 3]
    assert s.is_fully_defined()
    assert s.num_elements() == 6
    assert s[0] == 2
    assert s[-1] == 3
    assert len(s) == 2
    assert list(s) == [2, 3]


def test_shape_equals_tuples_lists_and_shapes():
    s = rt.TensorShape([2, 3])
    assert s == (2, 3)
    assert s == [2, 3]
    assert s == rt.TensorShape((2, 3))
    assert (2, 3) == s  # noqa: SIM300 (the reflected comparison is the point)
    assert [2, 3] == s  # noqa: SIM300
    assert (s != (2, 3)) is False
    assert s != (2, 4)
    assert s != [2, 3, 1]
    assert s != (2,)
    assert s != "ab"


def test_shape_with_unknown_dims():
    s = rt.TensorShape([None, 3])
    assert s.rank == 2
    assert s.as_list() == [None, 3]
    assert s == (None, 3)
    assert s == [None, 3]
    assert s != (5, 3)
    assert s[0] is None
    assert not s.is_fully_defined()
    assert s.num_elements() is None
    assert s.is_compatible_with([5, 3])
    assert s.is_compatible_with((None, 3))
    assert not s.is_compatible_with([5, 4])
    assert not s.is_compatible_with([5])


def test_shape_unknown_rank():
    s = rt.TensorShape(None)
    assert s.rank is None
    assert s.dims is None
    assert not s.is_fully_defined()
    assert s.num_elements() is None
    assert s == rt.TensorShape(None)
    assert s != rt.TensorShape([])
    assert s != (None,)
    with pytest.raises(ValueError):
        s.as_list()
    assert s.is_compatible_with([1, 2, 3])
    assert s.is_compatible_with([])


def test_scalar_shape():
    s = rt.TensorShape([])
    assert s.rank == 0
    assert s.as_list() == []
    assert s == ()
    assert s.is_fully_defined()
    assert s.num_elements() == 1


def test_shape_slicing_gives_shape():
    s = rt.TensorShape([2, None, 4])
    assert isinstance(s[1:], rt.TensorShape)
    assert s[1:] == (None, 4)
    assert s[:1] == [2]


def test_shape_merge_with():
    merged = rt.TensorShape([2, None]).merge_with([None, 4])
    assert merged == (2, 4)
    with pytest.raises(ValueError):
        rt.TensorShape([2, None]).merge_with([3, 4])


def test_shape_accepts_numpy_ints():
    s = rt.TensorShape([np.int64(2), np.int32(3)])
    assert s == (2, 3)
    assert all(type(d) is int for d in s.as_list())


def test_shape_rejects_non_integer_dims():
    with pytest.raises(TypeError):
        rt.TensorShape([2.0])


@pytest.mark.parametrize(
    ("dims", "text"),
    [
        ([], "()"),
        ([3], "(3,)"),
        ([None], "(None,)"),
        ([2, None, 4], "(2, None, 4)"),
        (None, "<unknown>"),
    ],
)
def test_shape_str(dims, text):
    assert str(rt.TensorShape(dims)) == text


def test_shape_repr():
    assert repr(rt.TensorShape([None, 3])) == "TensorShape([None, 3])"
    assert repr(rt.TensorShape(None)) == "TensorShape(None)"


def test_shape_hash_consistent_with_equality():
    assert hash(rt.TensorShape([1, None])) == hash(rt.TensorShape((1, None)))
    assert len({rt.TensorShape([1, 2]), rt.TensorShape((1, 2))}) == 1


def test_tensor_shape_property():
    t = rt.constant([[1, 2, 3]])
    assert isinstance(t.shape, rt.TensorShape)
    assert t.shape == (1, 3)
    assert t.shape.as_list() == [1, 3]
    assert t.shape.rank == 2
    assert rt.constant(5).shape == ()


# --- TensorSpec ----------------------------------------------------------------------------------


def test_tensor_spec_defaults():
    spec = rt.TensorSpec([None, 2])
    assert spec.dtype is rt.float32
    assert spec.shape == (None, 2)
    assert isinstance(spec.shape, rt.TensorShape)
    assert spec.name is None


def test_tensor_spec_arguments():
    spec = rt.TensorSpec((3,), rt.int64, name="ids")
    assert spec.dtype is rt.int64
    assert spec.shape == [3]
    assert spec.name == "ids"
    assert rt.TensorSpec([2], "int32").dtype is rt.int32
    assert rt.TensorSpec([2], np.float64).dtype is rt.float64


def test_tensor_spec_none_dims_match_any_size():
    spec = rt.TensorSpec([None, 2], rt.float32)
    assert spec.is_compatible_with(rt.zeros([5, 2]))
    assert spec.is_compatible_with(rt.zeros([0, 2]))
    assert not spec.is_compatible_with(rt.zeros([5, 3]))
    assert not spec.is_compatible_with(rt.zeros([2]))
    assert not spec.is_compatible_with(rt.zeros([5, 2], dtype=rt.int32))


def test_tensor_spec_unknown_rank_matches_any_shape():
    spec = rt.TensorSpec(None, rt.int32)
    assert spec.shape.rank is None
    assert spec.is_compatible_with(rt.constant(1))
    assert spec.is_compatible_with(rt.constant([[1, 2]]))
    assert not spec.is_compatible_with(rt.constant(1.0))


def test_tensor_spec_compatible_with_symbolic_tensor():
    _, x = _graph_with(lambda: rt.placeholder(rt.float32, [None, 2]))
    assert rt.TensorSpec([None, 2]).is_compatible_with(x)
    assert not rt.TensorSpec([3, 3]).is_compatible_with(x)


def test_tensor_spec_equality_and_hash():
    a = rt.TensorSpec([2], rt.float32, "a")
    assert a == rt.TensorSpec((2,), rt.float32, "a")
    assert hash(a) == hash(rt.TensorSpec((2,), rt.float32, "a"))
    assert a != rt.TensorSpec((2,), rt.float32, "b")
    assert a != rt.TensorSpec((3,), rt.float32, "a")
    assert a != rt.TensorSpec((2,), rt.float64, "a")


def test_tensor_spec_repr():
    spec = rt.TensorSpec([None, 2], rt.float32)
    assert repr(spec) == "TensorSpec(shape=(None, 2), dtype=rt.float32, name=None)"


# --- eager tensors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tensor", "text"),
    [
        (lambda: rt.constant(3), "<rt.Tensor: shape=(), dtype=int32, numpy=3>"),
        (lambda: rt.constant(1.5), "<rt.Tensor: shape=(), dtype=float32, numpy=1.5>"),
        (lambda: rt.constant(True), "<rt.Tensor: shape=(), dtype=bool, numpy=True>"),
        (lambda: rt.constant("hi"), "<rt.Tensor: shape=(), dtype=string, numpy=b'hi'>"),
        (lambda: rt.constant(2**40), "<rt.Tensor: shape=(), dtype=int64, numpy=1099511627776>"),
        (
            lambda: rt.constant([1, 2]),
            "<rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>",
        ),
        (
            lambda: rt.constant([[1.0, 2.0], [3.0, 4.0]]),
            # Like TensorFlow: a multi-line value starts on its own line.
            "<rt.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 2.],\n"
            "       [3., 4.]], dtype=float32)>",
        ),
        (
            lambda: rt.constant(["a", "bc"]),
            "<rt.Tensor: shape=(2,), dtype=string, numpy=array([b'a', b'bc'], dtype=object)>",
        ),
    ],
)
def test_eager_repr(tensor, text):
    assert repr(tensor()) == text


@pytest.mark.parametrize(
    ("tensor", "text"),
    [
        (lambda: rt.constant(3), "rt.Tensor(3, shape=(), dtype=int32)"),
        (lambda: rt.constant([1, 2]), "rt.Tensor([1 2], shape=(2,), dtype=int32)"),
        (lambda: rt.constant("hi"), "rt.Tensor(b'hi', shape=(), dtype=string)"),
        (lambda: rt.constant([True, False]), "rt.Tensor([ True False], shape=(2,), dtype=bool)"),
        (
            lambda: rt.constant([[1, 2], [3, 4]]),
            # As TensorFlow prints it (the guides' "tf.Tensor(\n[[1 2]\n [3 4]], ..."): a
            # value of several lines starts on its own line.
            "rt.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)",
        ),
    ],
)
def test_eager_str(tensor, text):
    assert str(tensor()) == text


def test_symbolic_str_is_tensorflows():
    """What print shows of an argument while tracing, as in TensorFlow's guides
    ('Tracing with Tensor("a:0", shape=(), dtype=int32)'); no shape when the rank is unknown."""
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, shape=[], name="a")
        x = rt.placeholder(rt.float32, shape=[None, 3], name="x")
        s = rt.placeholder(rt.string, name="s")
    assert str(a) == 'Tensor("a:0", shape=(), dtype=int32)'
    assert str(x) == 'Tensor("x:0", shape=(None, 3), dtype=float32)'
    assert str(s) == 'Tensor("s:0", dtype=string)'
    assert f"{a}" == str(a)
    assert repr(a) == "<rt.Tensor 'a:0' shape=() dtype=int32>"


def test_numpy_scalar_values():
    v = rt.constant(3).numpy()
    assert v == 3
    assert v.dtype == np.int32
    f = rt.constant(0.25).numpy()
    assert f == 0.25
    assert f.dtype == np.float32
    assert rt.constant(False).numpy() == np.False_


def test_numpy_array_values():
    v = rt.constant([[1, 2], [3, 4]]).numpy()
    assert isinstance(v, np.ndarray)
    assert v.dtype == np.int32
    np.testing.assert_array_equal(v, np.array([[1, 2], [3, 4]]))


def test_numpy_of_string_scalar_is_bytes():
    assert type(rt.constant("hello").numpy()) is bytes
    assert rt.constant("hello").numpy() == b"hello"
    assert rt.constant(b"raw").numpy() == b"raw"
    assert rt.constant("héllo").numpy() == "héllo".encode()


def test_numpy_of_string_array_holds_bytes():
    v = rt.constant(["a", "bc"]).numpy()
    assert v.shape == (2,)
    assert [type(x) for x in v] == [bytes, bytes]
    assert list(v) == [b"a", b"bc"]


def test_array_protocol():
    t = rt.constant([[1, 2], [3, 4]])
    arr = np.asarray(t)
    assert arr.dtype == np.int32
    np.testing.assert_array_equal(arr, [[1, 2], [3, 4]])
    as_float = np.array(t, dtype=np.float64)
    assert as_float.dtype == np.float64
    np.testing.assert_array_equal(as_float, [[1.0, 2.0], [3.0, 4.0]])
    assert np.sum(t) == 10


def test_eager_has_no_graph_attributes():
    t = rt.constant(1)
    for attr in ("name", "graph", "op"):
        with pytest.raises(AttributeError):
            getattr(t, attr)


def test_eager_len_and_iter():
    t = rt.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3
    for row, expected in zip(rows, [[1, 2], [3, 4], [5, 6]]):
        assert isinstance(row, rt.Tensor)
        assert row.dtype is rt.int32
        assert row.shape == (2,)
        np.testing.assert_array_equal(row.numpy(), expected)


def test_eager_iter_of_strings_gives_string_tensors():
    items = list(rt.constant(["x", "yz"]))
    assert [i.dtype for i in items] == [rt.string, rt.string]
    assert [i.numpy() for i in items] == [b"x", b"yz"]


def test_eager_scalar_has_no_len_or_iter():
    t = rt.constant(3)
    with pytest.raises(TypeError):
        len(t)
    with pytest.raises(TypeError):
        iter(t)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), (0, False), (3, True), (0.0, False), (-1.5, True), ([7], True)],
)
def test_eager_bool_gives_value(value, expected):
    assert bool(rt.constant(value)) is expected


def test_eager_bool_in_python_control_flow():
    hits = []
    if rt.constant(2) > 1:
        hits.append("gt")
    if not rt.constant(False):
        hits.append("not")
    assert hits == ["gt", "not"]


def test_eager_bool_of_many_elements_is_ambiguous():
    with pytest.raises(ValueError):
        bool(rt.constant([1, 2]))


def test_eager_tensor_is_unhashable():
    t = rt.constant(1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    with pytest.raises(TypeError):
        {t: 1}  # noqa: B018
    with pytest.raises(TypeError):
        {t}  # noqa: B018


def test_eager_ref_is_hashable_by_identity():
    a, b = rt.constant(1), rt.constant(1)
    d = {a.ref(): "a", b.ref(): "b"}
    assert d[a.ref()] == "a"
    assert d[b.ref()] == "b"
    assert a.ref().deref() is a


# --- symbolic tensors ----------------------------------------------------------------------------


def test_symbolic_repr():
    def build():
        x = rt.placeholder(rt.int32, shape=[], name="x")
        return x + 1

    _, y = _graph_with(build)
    assert repr(y) == "<rt.Tensor 'add:0' shape=() dtype=int32>"


def test_symbolic_repr_with_unknown_dims_and_rank():
    def build():
        return (
            rt.placeholder(rt.float32, shape=[None, 3], name="p"),
            rt.placeholder(rt.string, name="q"),
        )

    _, (p, q) = _graph_with(build)
    assert repr(p) == "<rt.Tensor 'p:0' shape=(None, 3) dtype=float32>"
    assert repr(q) == "<rt.Tensor 'q:0' shape=<unknown> dtype=string>"
    assert p.shape == (None, 3)
    assert q.shape.rank is None


def test_symbolic_str_names_the_tensor():
    def build():
        x = rt.placeholder(rt.int32, shape=[2], name="x")
        return x * 2

    _, y = _graph_with(build)
    text = str(y)
    assert "mul:0" in text
    assert "int32" in text


def test_symbolic_attributes():
    def build():
        x = rt.placeholder(rt.int32, [], name="x")
        return x, x + 1

    g, (x, y) = _graph_with(build)
    assert y.name == "add:0"
    assert y.graph is g
    assert y.op.name == "add"
    assert y.op.type == "Add"
    assert y.op.outputs[0] is y
    assert y.op.inputs[0] is x
    assert y.dtype is rt.int32


def test_symbolic_has_no_numpy_value():
    _, y = _graph_with(lambda: rt.placeholder(rt.int32, [2], name="x") + 1)
    with pytest.raises(NotImplementedError, match="only available on eager tensors"):
        y.numpy()
    with pytest.raises(NotImplementedError):
        np.asarray(y)


def test_symbolic_bool_raises_operator_not_allowed():
    _, y = _graph_with(lambda: rt.placeholder(rt.int32, [], name="x") > 0)
    assert issubclass(rt.errors.OperatorNotAllowedInGraphError, TypeError)
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        bool(y)
    message = str(info.value)
    assert "ag.function" in message
    assert "rt.cond" in message


def test_symbolic_in_python_if_raises_type_error():
    _, y = _graph_with(lambda: rt.placeholder(rt.bool, [], name="flag"))
    with pytest.raises(TypeError):
        if y:
            pass
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
        not y  # noqa: B018


def test_symbolic_len_and_iter_with_known_first_dim():
    def build():
        x = rt.placeholder(rt.int32, [3, 2], name="x")
        return x, list(x)

    g, (x, rows) = _graph_with(build)
    assert len(x) == 3
    assert len(rows) == 3
    assert all(r.shape == (2,) and r.dtype is rt.int32 for r in rows)
    value = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32)
    results = _run(g, rows, {x: value})
    for got, expected in zip(results, value):
        np.testing.assert_array_equal(got, expected)


def test_symbolic_len_and_iter_with_unknown_first_dim():
    _, x = _graph_with(lambda: rt.placeholder(rt.int32, [None, 2], name="x"))
    with pytest.raises(TypeError):
        len(x)
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
        iter(x)


def test_symbolic_len_and_iter_with_unknown_rank():
    _, x = _graph_with(lambda: rt.placeholder(rt.int32, name="x"))
    with pytest.raises(TypeError):
        len(x)
    with pytest.raises(TypeError):
        iter(x)


def test_symbolic_scalar_has_no_len_or_iter():
    _, x = _graph_with(lambda: rt.placeholder(rt.int32, [], name="x"))
    with pytest.raises(TypeError):
        len(x)
    with pytest.raises(TypeError):
        iter(x)


def test_symbolic_tensors_are_dict_keys():
    def build():
        x = rt.placeholder(rt.int32, [], name="x")
        return x, x + 1

    _, (x, y) = _graph_with(build)
    d = {x: "x", y: "y"}
    assert d[x] == "x"
    assert d[y] == "y"
    assert x in d
    assert len({x, y, x}) == 2
    assert hash(x) == hash(x)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "ag.function"])
def test_a_numpy_operand_takes_the_tensors_dtype_in_both_modes(staged):
    # TensorFlow converts a numpy operand to the tensor's dtype (convert_to_tensor's eager
    # cast between compatible kinds; make_tensor_proto's astype in a graph).
    import autograph as ag

    def products(x):
        return x * np.array([2.0, 3.0]), np.array([2, 3]) * x, rt.add(x, np.array([0.5, 0.5]))

    fn = ag.function(products) if staged else products
    x = np.array([1.0, 2.0], np.float32)
    results = fn(rt.constant(x))
    assert [r.dtype for r in results] == [rt.float32] * 3
    for got, want in zip(results, [x * [2.0, 3.0], x * [2, 3], x + 0.5]):
        np.testing.assert_allclose(got.numpy(), want)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "ag.function"])
def test_a_float_numpy_operand_does_not_become_int_in_either_mode(staged):
    import autograph as ag

    def product(x):
        return x * np.array([1.5, 2.5])

    fn = ag.function(product) if staged else product
    with pytest.raises(TypeError, match="numpy array of dtype float64 to a tensor of dtype int32"):
        fn(rt.constant([1, 2]))
