"""The attribute table: every tag round-trips, and the reader refuses what no writer writes."""

import io
import json

import numpy as np
import pytest

import runtime as rt
from runtime.core.graph import FuncGraph
from runtime.execution.tracing import trace
from runtime.functions.graph_function import GraphFunction
from runtime.ops.random_ops import RandomState
from runtime.saving.arrays import ArraysReader, ArraysWriter
from runtime.saving.attributes import ATTRIBUTE_TAGS, decode_attr, encode_attr
from runtime.saving.format import Damage, SavedModelError


class _Tables:
    """What attribute values refer to (arrays, graphs, variables), kept in memory: the writer."""

    def __init__(self):
        self.arrays = ArraysWriter()
        self.graphs, self.variables = [], []

    def attr(self, value):
        return encode_attr(value, self)

    def array(self, value):
        return self.arrays.add(value)

    def graph(self, graph):
        self.graphs.append(graph)
        return len(self.graphs) - 1

    def variable(self, variable):
        self.variables.append(variable)
        return f"v{len(self.variables) - 1}"


class _Reading:
    """The reader's side of the same tables."""

    def __init__(self, tables):
        self.tables = tables
        data = tables.arrays.to_bytes()
        self.arrays = ArraysReader(io.BytesIO(data), "arrays", len(data), max_members=1000)

    def attr(self, data, depth):
        return decode_attr(data, self, depth)

    def array(self, reference):
        return self.arrays.read(reference)

    def graph(self, index, depth):
        return self.tables.graphs[index]

    def function(self, index, depth):
        return GraphFunction(self.graph(index, depth))

    def variable(self, key):
        return self.tables.variables[int(key[1:])]


def _round_trip(value):
    tables = _Tables()
    data = json.loads(json.dumps(encode_attr(value, tables)))  # through JSON text, as saved
    return data, decode_attr(data, _Reading(tables), 0)


SAMPLES = {
    "value": [None, True, -3, 2.5, float("inf"), "text\n'\"{}"],
    "dtype": [rt.float32, rt.string, rt.bool],
    "shape": [rt.TensorShape(None), rt.TensorShape([]), rt.TensorShape([None, 3])],
    "graph": [FuncGraph("branch")],
    "function": [GraphFunction(trace(lambda x: x * 2.0, [rt.TensorSpec([], rt.float32)], "twice"))],
    "variable": [rt.Variable(1.0)],
    "random": [RandomState(None), RandomState(7)],
    "array": [
        np.arange(6, dtype=np.int64).reshape(2, 3),
        np.array(True),
        np.zeros((0, 2), np.float16),
        np.array([b"", b"\xff", "é".encode()], dtype=object),
    ],
    "scalar": [np.float32(1.5), np.int8(-2), np.bool_(False)],
    "bytes": [b"", b"\x00\xff sep"],
    "slice": [slice(1, None, -1), slice(("t", 0), 5, None)],
    "ellipsis": [Ellipsis],
    "tuple": [(), (1, (None, Ellipsis), b"x")],
    "list": [[], [1, [2.0, "three"]]],
}


def test_every_tag_has_samples():
    assert [row.tag for row in ATTRIBUTE_TAGS] == [*SAMPLES, "stream"]


@pytest.mark.parametrize(
    "tag, value", [(tag, v) for tag, values in SAMPLES.items() for v in values], ids=repr
)
def test_every_tag_round_trips(tag, value):
    data, back = _round_trip(value)
    assert list(data) == [tag]
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape
        assert back.tolist() == value.tolist()
    elif isinstance(value, (FuncGraph, rt.Variable)):
        assert back is value
    elif isinstance(value, GraphFunction):  # a new function, compiled from the graph read
        assert back.graph is value.graph and back([rt.constant(1.5)])[0].numpy() == 3.0
    elif isinstance(value, RandomState):
        assert back.seed == value.seed
    else:
        assert back == value


def test_a_stream_is_saved_as_standard_output():
    data, back = _round_trip(io.StringIO())
    assert data == {"stream": None} and back is None


def test_a_value_no_row_stores_is_refused_when_saving():
    with pytest.raises(SavedModelError, match="Cannot save an attribute of type object"):
        encode_attr(object(), _Tables())


@pytest.mark.parametrize(
    "data",
    [
        {"value": {"nested": 1}},
        {"value": [1]},
        {"dtype": "no_such_type"},
        {"shape": [-1]},
        {"shape": [1.5]},
        {"random": -1},
        {"bytes": "not base64!"},
        {"slice": [{"value": 1}]},
        {"ellipsis": False},
        {"tuple": {"value": 1}},
        {"unknown": 1},
        {"value": 1, "dtype": "int32"},
        [],
        {"tuple": [{"tuple": [{"tuple": []}]}]},
    ],
    ids=repr,
)
def test_the_reader_refuses_what_no_writer_writes(data):
    reading = _Reading(_Tables())
    if data == {"tuple": [{"tuple": [{"tuple": []}]}]}:
        with pytest.raises(Damage, match="nested too deeply"):
            decode_attr(data, reading, 62)
        return
    with pytest.raises(Damage):
        decode_attr(data, reading, 0)
