"""Every row of the op table survives a save and a load: its attributes' schema is complete.

One module uses every op; its saved graphs must hold every type of ``OPS``, and
the loaded functions must compute what the originals do. A new op joins the
table with its ``attrs=`` schema and a use here, or this test names it.
"""

import json
import os

import numpy as np

import autograph as ag
import runtime as rt
from runtime.core.op_def import OPS
from runtime.execution.tracing import trace
from runtime.functions.graph_function import GraphFunction
from runtime.ops import array_ops, broadcast_ops, list_gradient_ops, math_ops
from tests.runtime.ops.op_info_rows import rows_of_registered_ops

# A traced function called as one op (PartitionedCall): saved with its graph.
_CUBE = GraphFunction(trace(lambda x: x * x * x, [rt.TensorSpec([3], rt.float32)], "cube"))

# A function whose gradient its author wrote (CustomGradient): its gradient sub-graph is saved.
_HALVED_GRADIENT = rt.custom_gradient(lambda x: (x * 1.0, lambda dy: dy * 0.5))

# Rows a saved model cannot hold, and the test that checks the save is refused.
NOT_SAVED = {"EagerPyFunc": "tests/runtime/ops/test_py_function.py (rt.py_function)"}


def _conv_and_pool_gradients(x):
    """A convolution's and the poolings' gradients, and the max pooling's second one."""
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            image = rt.nn.conv2d(rt.reshape(x, [1, 2, 3, 1]), rt.reshape(x[0, :2], [2, 1, 1, 1]), 1, "SAME")  # fmt: skip
            pooled = rt.nn.max_pool2d(image, 2, 1, "SAME") + rt.nn.avg_pool2d(image, 2, 1, "SAME")
            loss = rt.reduce_sum(pooled * pooled)
        first = inner.gradient(loss, x)
        size = rt.reduce_sum(first * first)
    return outer.gradient(size, x)


class EveryOp(rt.Module):
    def __init__(self):
        super().__init__()
        self.weights = rt.Variable([1.0, 2.0, 3.0])
        self.count = rt.Variable(0)
        self.words = rt.Variable(np.array([b"tea", b"", b"\xff\x00bytes"], dtype=object))

    @ag.function(
        input_signature=[
            rt.TensorSpec([2, 3], rt.float32),
            rt.TensorSpec([], rt.int32),
            rt.TensorSpec([], rt.bool),
        ],
        autograph=False,
    )
    def numbers(self, x, n, flag):
        positive = rt.abs(x) + 1.0
        unary = [
            -x,
            rt.sign(x),
            rt.sqrt(positive),
            rt.square(x),
            rt.exp(x),
            rt.log(positive),
            rt.sin(x),
            rt.cos(x),
            rt.tanh(x),
            rt.sigmoid(x),
            rt.nn.relu(x),
            rt.nn.softmax(x),
            rt.nn.sparse_softmax_cross_entropy_with_logits(rt.zeros_like(x, rt.int32)[..., 0], x),
        ]
        binary = [
            x - 1.0,
            x * 2.0,
            x / positive,
            rt.floordiv(x, positive),
            rt.mod(x, positive),
            rt.pow(positive, 2.0),
            rt.maximum(x, 0.0),
            rt.minimum(x, 0.0),
        ]
        compared = [x < 0.0, x <= 0.0, x > 0.0, x >= 0.0, rt.equal(x, 0.0), rt.not_equal(x, 0.0)]
        logic = [
            rt.logical_and(compared[0], flag),
            rt.logical_or(compared[0], flag),
            rt.logical_xor(compared[0], flag),
            rt.logical_not(compared[0]),
        ]
        reduced = [
            rt.reduce_sum(x, axis=0),
            rt.reduce_mean(x),
            rt.reduce_max(x, axis=1, keepdims=True),
            rt.reduce_min(x),
            rt.reduce_prod(positive, axis=[0, 1]),
            rt.reduce_all(compared[2]),
            rt.reduce_any(compared[2], axis=1),
            rt.argmax(x, axis=1),
            rt.argmin(x, axis=0),
        ]
        row = x[0]
        shaped = [
            rt.matmul(x, x, transpose_b=True),
            rt.transpose(x),
            rt.concat([x, x], 1),
            rt.stack([row, row], axis=1),
            rt.unstack(x)[1],
            rt.squeeze(rt.expand_dims(x, 0), axis=[0]),
            rt.reshape(x, [3, -1]),
            rt.shape(x),
            rt.size(x),
            rt.rank(x),
            rt.fill([2], n),
            rt.zeros_like(x),
            rt.ones_like(x, dtype=rt.int32),
            rt.where(compared[0], x, -x),
            rt.where(compared[0]),
            rt.identity(x),
            rt.gather(row, [2, 0]),
            x[1, 1:],
            x[..., None, ::2],
            row[n],
            rt.range(n),
            rt.cast(x, rt.int32),
        ]
        return unary + binary + compared + logic + reduced + shaped

    @ag.function(
        input_signature=[rt.TensorSpec([2, 3], rt.float32), rt.TensorSpec([], rt.int32)],
        autograph=False,
    )
    def more_arrays(self, x, n):
        return [
            rt.eye(n, 3, batch_shape=[2]),
            rt.einsum("ij,kj->ik", x, x),
            rt.pad(x, [[1, 0], [0, 2]], constant_values=-1.0),
            rt.pad(x, [[1, 1], [2, 0]], mode="REFLECT"),
            rt.tile(x, [2, n]),
            rt.one_hot([0, 2, n], 3, axis=0),
            rt.cumsum(x, axis=1, exclusive=True, reverse=True),
            rt.clip_by_value(x, -0.5, 0.5),
        ]

    @ag.function(
        input_signature=[rt.TensorSpec([2, 3], rt.float32), rt.TensorSpec([None], rt.int32)],
        autograph=False,
    )
    def gradients(self, x, ids):
        """Gradients through every kind of op they are made of, loops and branches included."""
        with rt.GradientTape() as tape:
            tape.watch(x)
            row = x[0]
            parts = array_ops.split(x, [1, 1], 0)
            wide = broadcast_ops.broadcast_to(parts[0], [2, 3])
            looped = rt.while_loop(
                lambda i, v: i < 3, lambda i, v: (i + 1, rt.sin(v) * v), (0, row)
            )[1]
            chosen = rt.cond(rt.reduce_sum(row) > 0.0, lambda: row * row, lambda: rt.exp(row))
            array = rt.TensorArray(rt.float32, size=2).unstack(x)
            array = array.write(1, array.read(0) * array.read(1))
            terms = [
                rt.gather(row, ids),
                x[1:, ::2] * rt.stop_gradient(x[1:, ::2]),
                rt.nn.relu(x) * wide,
                looped * chosen,
                array.stack(),
                _CUBE([row])[0],
                _HALVED_GRADIENT(row),
            ]
            loss = math_ops.add_n([rt.reduce_sum(t) for t in terms])
        first = tape.gradient(loss, x)
        items = list_gradient_ops.grad_list_add(
            list_gradient_ops.grad_list_empty(), list_gradient_ops.grad_list_from_tensor(first)
        )
        return (
            first,
            list_gradient_ops.grad_list_get(items, 1, [3], rt.float32),
            _conv_and_pool_gradients(x),
        )

    @ag.function(
        input_signature=[rt.TensorSpec([None], rt.string), rt.TensorSpec([], rt.float32)],
        autograph=False,
    )
    def strings(self, words, number):
        joined = rt.strings.join([words, self.words.read_value()[: rt.size(words)]], separator="/")
        return {
            "joined": joined,
            "added": words + joined,
            "lengths": rt.strings.length(words, unit="UTF8_CHAR"),
            "text": rt.strings.as_string(number, precision=2),
        }

    @ag.function(input_signature=[rt.TensorSpec([], rt.int32)], autograph=False)
    def state(self, n):
        rt.print("n is", n, {"twice": n * 2})
        checked = rt.Assert(n >= 0, ["n is negative:", n])
        with rt.control_dependencies([checked]):
            self.count.assign_add(n)
            self.count.assign_sub(1)
        grouped = rt.group(self.weights.assign(self.weights * 2.0))
        with rt.control_dependencies([grouped]):
            total = rt.reduce_sum(self.weights.read_value())
        picked = rt.cond(n > 2, lambda: total * 2.0, lambda: total)

        def body(i, acc, ta):
            return i + 1, acc + i, ta.write(i, i * i)

        _, acc, squares = rt.while_loop(
            lambda i, acc, ta: i < n,
            body,
            (0, 0, rt.TensorArray(rt.int32, size=0, dynamic_size=True)),
            maximum_iterations=10,
        )
        rows = rt.TensorArray(rt.int32, size=2).unstack(rt.stack([n, acc]))
        return {
            "picked": picked,
            "acc": acc,
            "squares": squares.stack(),
            "first": squares.read(0),
            "length": squares.size(),
            "rows": rows.stack(),
            "count": self.count.read_value(),
            "normal": rt.random.normal([2], seed=1),
            "uniform": rt.random.uniform([3], minval=1, maxval=4, dtype=rt.int32, seed=2),
        }


def _op_types(graph):
    types = set()
    for op in graph["ops"]:
        types.add(op["type"])
        for value in op["attrs"].values():
            if "graph" in value:
                types |= _op_types(value["graph"])
    return types


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == object:
        assert a.tolist() == b.tolist()
    else:
        np.testing.assert_array_equal(a, b)


def test_every_op_of_the_table_saves_and_loads_with_the_same_results(tmp_path, capsys):
    module = EveryOp()
    path = str(tmp_path / "every_op")
    rt.saved_model.save(module, path)
    with open(os.path.join(path, "saved_model.json")) as f:
        description = json.load(f)
    saved = set().union(*(_op_types(fn["graph"]) for fn in description["functions"].values()))
    # test_op_infos.py saves and loads each op registered with op_info.
    registered = {row.type for row in rows_of_registered_ops()}
    assert set(OPS) - saved - registered - set(NOT_SAVED) == set(), "add a use of these ops"
    loaded = rt.saved_model.load(path)
    assert [v.numpy().tolist() for v in loaded.variables] == [
        v.numpy().tolist() for v in module.variables
    ]

    x = np.array([[1.5, -2.0, 0.0], [3.0, 0.25, -1.0]], np.float32)
    for original, copy in zip(module.numbers(x, 2, True), loaded.numbers(x, 2, True)):
        _same(original.numpy(), copy.numpy())
    ids = np.array([2, 0, 2], np.int32)
    for original, copy in zip(module.gradients(x, ids), loaded.gradients(x, ids)):
        _same(original.numpy(), copy.numpy())
    words = np.array([b"a", b"\xc3\xa9t\xc3\xa9"], dtype=object)
    original, copy = module.strings(words, 2.5), loaded.strings(words, 2.5)
    assert original.keys() == copy.keys()
    for key in original:
        _same(original[key].numpy(), copy[key].numpy())

    capsys.readouterr()
    original = module.state(4)
    printed = capsys.readouterr().out
    copy = loaded.state(4)
    assert capsys.readouterr().out == printed == "n is 4 {'twice': 8}\n"
    for key in original:
        if key in ("normal", "uniform"):  # random: the same dtype and shape, not the same draws
            assert original[key].dtype is copy[key].dtype
            assert original[key].shape == copy[key].shape
        else:
            _same(original[key].numpy(), copy[key].numpy())
    assert loaded.count.numpy() == module.count.numpy() == 3
    np.testing.assert_array_equal(loaded.weights.numpy(), [2.0, 4.0, 6.0])
