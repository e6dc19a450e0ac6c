"""``rt.onnx.export``: what it accepts, the model's inputs and outputs, names, and its errors."""

from __future__ import annotations

import inspect
import os
import sys

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.extras import DISTRIBUTION
from tests.runtime.export.onnx_harness import onnx, session, spec


def double(x):
    return x * 2.0


# --- what it accepts ----------------------------------------------------------------------------


def test_a_function_with_an_input_signature_a_concrete_function_or_a_signature_given(tmp_path):
    with_signature = ag.function(double, input_signature=[spec([None])])
    plain = ag.function(double)
    exports = {  # how it is given, and an input that fits
        "signature": (lambda p: rt.onnx.export(with_signature, p), [3]),
        "concrete": (lambda p: rt.onnx.export(plain.get_concrete_function(spec([3])), p), [3]),
        "given": (lambda p: rt.onnx.export(plain, p, input_signature=[spec([None, 2])]), [4, 2]),
    }
    for label, (export, shape) in exports.items():
        path = tmp_path / f"{label}.onnx"
        model = export(path)
        assert isinstance(model, onnx.ModelProto)
        assert onnx.load(str(path)) == model
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        (got,) = session(path).run(None, {"x": x})
        np.testing.assert_array_equal(got, x * 2)


def test_a_function_without_an_input_signature_asks_for_one(tmp_path):
    with pytest.raises(TypeError, match="input_signature"):
        rt.onnx.export(ag.function(double), tmp_path / "m.onnx")
    with pytest.raises(TypeError, match="ConcreteFunction"):
        rt.onnx.export(double, tmp_path / "m.onnx")
    concrete = ag.function(double).get_concrete_function(spec([]))
    with pytest.raises(TypeError, match="already fixed"):
        rt.onnx.export(concrete, tmp_path / "m.onnx", input_signature=[spec([])])
    assert not os.listdir(tmp_path)


def test_inputs_are_the_arguments_and_outputs_the_flattened_results(tmp_path):
    @ag.function(input_signature=[spec([None, 3]), spec([], rt.int32), spec([2], rt.bool)])
    def f(images, count, flags):
        return {"total": rt.reduce_sum(images, axis=1), "both": (count + 1, ~flags)}

    model = rt.onnx.export(f, tmp_path / "m.onnx")
    inputs = [(i.name, i.type.tensor_type.elem_type) for i in model.graph.input]
    assert inputs == [("images", 1), ("count", 6), ("flags", 9)]
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert (dims[0].dim_param, dims[1].dim_value) == ("images_dim0", 3)
    assert [o.name for o in model.graph.output] == ["output_0", "output_1", "output_2"]
    got = session(tmp_path / "m.onnx").run(
        None,
        {
            "images": np.ones([4, 3], np.float32),
            "count": np.array(7, np.int32),
            "flags": np.array([True, False]),
        },
    )
    expected = rt.nest.flatten(f(rt.ones([4, 3]), rt.constant(7), rt.constant([True, False])))
    for g, e in zip(got, expected):  # nest.flatten order: "both" (count + 1, ~flags), "total"
        np.testing.assert_array_equal(g, e.numpy())


def test_arguments_named_like_the_outputs_keep_their_names_and_the_outputs_move_aside(tmp_path):
    @ag.function(input_signature=[spec([2]), spec([2])])
    def f(output_0, output_1):
        return output_0 + output_1, output_0 * output_1

    model = rt.onnx.export(f, tmp_path / "m.onnx")
    inputs = [i.name for i in model.graph.input]
    outputs = [o.name for o in model.graph.output]
    assert inputs == ["output_0", "output_1"]
    assert len(set(inputs + outputs)) == 4
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 5.0], np.float32)
    total, product = session(tmp_path / "m.onnx").run(outputs, {"output_0": a, "output_1": b})
    np.testing.assert_array_equal(total, a + b)
    np.testing.assert_array_equal(product, a * b)


def test_the_model_declares_its_opset_and_passes_the_full_check(tmp_path):
    model = rt.onnx.export(ag.function(double, input_signature=[spec([])]), tmp_path / "m.onnx")
    assert [(o.domain, o.version) for o in model.opset_import] == [("", rt.onnx.OPSET)]
    assert model.producer_name == "autograph"
    onnx.checker.check_model(onnx.load(str(tmp_path / "m.onnx")), full_check=True)


def test_node_names_keep_name_scopes(tmp_path):
    @ag.function(input_signature=[spec([])])
    def f(x):
        with rt.name_scope("block"):
            y = x * 3.0
            return rt.cond(y > 0, lambda: y + 1.0, lambda: y - 1.0)

    model = rt.onnx.export(f, tmp_path / "m.onnx")
    names = [n.name for n in model.graph.node]
    assert "block/mul" in names and "block/cond" in names
    (if_node,) = [n for n in model.graph.node if n.op_type == "If"]
    branch_names = [n.name for n in if_node.attribute[0].g.node]
    assert any(name.startswith("block/cond/") for name in branch_names), branch_names


def test_unknown_ranks_are_refused_with_the_argument_named(tmp_path):
    with pytest.raises(ValueError, match="'x' has an unknown shape"):
        rt.onnx.export(ag.function(double), tmp_path / "m.onnx", input_signature=[spec(None)])


def test_random_ops_draw_from_the_same_distributions(tmp_path):
    @ag.function(input_signature=[spec([], rt.int32)])
    def f(n):
        return (
            rt.random.normal([n], mean=2.0, stddev=3.0, seed=1),
            rt.random.uniform([n], minval=-1.0, maxval=1.0),
            rt.random.uniform([n], minval=5, maxval=8, dtype=rt.int32),
        )

    rt.onnx.export(f, tmp_path / "m.onnx")
    normal, uniform, ints = session(tmp_path / "m.onnx").run(None, {"n": np.array(20000, np.int32)})
    assert normal.shape == (20000,) and normal.dtype == np.float32
    assert abs(normal.mean() - 2.0) < 0.1 and abs(normal.std() - 3.0) < 0.1
    assert uniform.min() >= -1.0 and uniform.max() < 1.0 and abs(uniform.mean()) < 0.05
    assert ints.dtype == np.int32 and set(np.unique(ints)) == {5, 6, 7}


# --- errors -------------------------------------------------------------------------------------


def test_an_op_without_an_onnx_form_is_named_with_the_users_line(tmp_path):
    def lengths(words):
        n = rt.strings.length(words)  # the line the error names
        return n * 2

    line = inspect.getsourcelines(lengths)[1] + 1
    path = tmp_path / "m.onnx"
    with pytest.raises(rt.errors.UnimplementedError) as raised:
        rt.onnx.export(ag.function(lengths), path, input_signature=[spec([None], rt.string)])
    message = str(raised.value)
    assert "'StringLength'" in message and "(StringLength)" in message
    assert f'File "{__file__}", line {line}, in lengths' in message
    assert raised.value.op.type == "StringLength"
    assert not path.exists() and not os.listdir(tmp_path)


def test_a_failed_export_leaves_the_previous_model_and_no_temporary_file(tmp_path):
    path = tmp_path / "m.onnx"
    rt.onnx.export(ag.function(double, input_signature=[spec([])]), path)
    before = path.read_bytes()

    def formats(x):
        return rt.strings.as_string(x)

    with pytest.raises(rt.errors.UnimplementedError, match="AsString"):
        rt.onnx.export(ag.function(formats), path, input_signature=[spec([])])
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["m.onnx"]


def test_without_the_onnx_package_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    with pytest.raises(ImportError) as raised:
        rt.onnx.export(ag.function(double, input_signature=[spec([])]), tmp_path / "m.onnx")
    assert f'pip install "{DISTRIBUTION}[onnx]"' in str(raised.value)
    assert not os.listdir(tmp_path)


def test_a_variable_argument_is_refused_with_the_argument_named(tmp_path):
    @ag.function
    def scale(a, x):
        return a.read_value() * x

    concrete = scale.get_concrete_function(rt.Variable([1.0, 2.0]), spec([2]))
    with pytest.raises(rt.errors.UnimplementedError, match="argument 'a' of 'scale' is a variable"):
        rt.onnx.export(concrete, str(tmp_path / "m.onnx"))


def test_the_model_graph_is_named_after_the_function(tmp_path):
    @ag.function
    def double(x):
        return 2.0 * x

    path = str(tmp_path / "m.onnx")
    rt.onnx.export(double.get_concrete_function(spec([2])), path)
    assert onnx.load(path).graph.name == "double"
