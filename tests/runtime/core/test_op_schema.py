"""Every row of the op table declares its attributes; graphs hold ops to their declaration."""

import numpy as np
import pytest

import runtime as rt
from runtime.core import attr_kinds
from runtime.core.attr_kinds import INT, AttrKind
from runtime.core.op_def import OPS, OpDef


def test_every_row_declares_its_attributes_as_kinds_with_identifier_names():
    for opdef in OPS.values():
        for name, kind in opdef.attrs.items():
            assert name.isidentifier() and name.isascii(), (opdef, name)
            assert isinstance(kind, AttrKind), (opdef, name)


@pytest.mark.parametrize(
    "attrs, error",
    [({"not a name": INT}, "cannot name an attribute"), ({"axis": int}, "needs an AttrKind")],
)
def test_a_row_with_a_bad_schema_is_refused_when_defined(attrs, error):
    with pytest.raises((ValueError, TypeError), match=error):
        OpDef("NeverAdded", lambda x, **a: x, lambda i, a: [], attrs=attrs)
    assert "NeverAdded" not in OPS


def test_a_graph_refuses_an_op_with_attributes_its_row_does_not_declare():
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [3], name="x")
    with pytest.raises(ValueError, match=r"declares \['axis', 'keepdims'\]"):
        graph.create_op(OPS["Sum"], [x], {"axis": None}, "sum", [(rt.float32, x.shape)])
    with pytest.raises(ValueError, match=r"declares \[\]"):
        graph.create_op(OPS["Neg"], [x], {"note": 1}, "neg", [(rt.float32, x.shape)])
    assert [op.type for op in graph.get_operations()] == ["Placeholder"]


@pytest.mark.parametrize(
    "kind, good, bad",
    [
        ("AXES", [None, (), (0, -1)], [[0], (True,), (1.0,), 0, (2**63,)]),
        ("INT", [0, -(2**63), 2**63 - 1], [True, 1.0, 2**63, "1"]),
        ("DIMS", [None, (), (None, 3)], [(-1,), [3], (True,)]),
        (
            "TENSOR_VALUE",
            [np.float32(1), np.zeros([2]), np.array([b"a"], dtype=object)],
            [1, [1], "x", np.array(["a"]), np.array([b"a", 1], dtype=object), np.array(1j)],
        ),
    ],
)
def test_kinds_accept_exactly_their_values(kind, good, bad):
    kind = getattr(attr_kinds, kind)
    assert all(kind.accepts(v) for v in good)
    assert not any(kind.accepts(v) for v in bad)
