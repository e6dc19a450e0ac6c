"""The seeds' models, exported and run in onnxruntime with the runtime's results.

Seed 000's ``DemoModule`` and ``add_print`` (a module's variable, saved for
"cross-platform deployment": saved, loaded without its code, and exported
from the loaded function), seed 001's functions (``matmul`` + bias, a branch
on ``reduce_sum``), and seed 002's ``myadd`` (strings, a loop that prints).
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.export.onnx_harness import check_export, run_model, session, spec


class DemoModule(rt.Module):  # seed 000
    def __init__(self, init_value=rt.constant(0.0), name=None):  # noqa: B008 (as in the seed)
        super().__init__(name=name)
        with self.name_scope:
            self.x = rt.Variable(init_value, dtype=rt.float32, trainable=True)

    @ag.function(input_signature=[rt.TensorSpec(shape=[], dtype=rt.float32)])
    def add_print(self, a):
        with self.name_scope:
            self.x.assign_add(a)
            rt.print(self.x)
            return self.x


@pytest.mark.parametrize("a", [5.0, -1.5, 0.0])
def test_demo_module_exports_with_its_variable_and_name_scope(a, tmp_path, capsys):
    demo = DemoModule(init_value=rt.constant(1.0))
    path = tmp_path / "demo.onnx"
    model = rt.onnx.export(demo.add_print, path)
    (got,) = session(path).run(None, {"a": np.array(a, np.float32)})
    assert got == demo.add_print(rt.constant(a)).numpy() == 1.0 + a
    assert [i.name for i in model.graph.initializer] == ["demo_module/Variable:0"]
    assert any(n.name.startswith("demo_module/") for n in model.graph.node)


def test_a_loaded_saved_model_exports_without_its_code(tmp_path):
    demo = DemoModule(init_value=rt.constant(1.0))
    demo.add_print(rt.constant(5.0))  # x is 6 when saved
    rt.saved_model.save(
        demo, str(tmp_path / "saved"), signatures={"serving_default": demo.add_print}
    )
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    for fn, name in ((loaded.add_print, "method"), (loaded.signatures["serving_default"], "sig")):
        path = tmp_path / f"{name}.onnx"
        rt.onnx.export(fn, path)
        (got,) = session(path).run(None, {"a": np.array(5.0, np.float32)})
        assert got == 11.0  # the seed's loaded add_print(5.0) prints 11


def test_seed_add_print_with_a_global_variable(tmp_path):
    x = rt.Variable(1.0, dtype=rt.float32)

    @ag.function(input_signature=[rt.TensorSpec(shape=[], dtype=rt.float32)])
    def add_print(a):
        x.assign_add(a)
        rt.print(x)
        return x

    path = tmp_path / "add_print.onnx"
    rt.onnx.export(add_print, path)
    (got,) = session(path).run(None, {"a": np.array(3.0, np.float32)})
    assert got == add_print(rt.constant(3.0)).numpy() == 4.0


def function_to_get_faster(x, y, b):  # seed 001
    x = rt.matmul(x, y)
    x = x + b
    return x


def inner_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


def outer_function(x):
    y = rt.constant([[2.0], [3.0]])
    b = rt.constant(4.0)
    return inner_function(x, y, b)


def my_function(x):
    if rt.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


def test_seed_001_functions(tmp_path):
    x1, y1, b1 = [[1.0, 2.0]], [[2.0], [3.0]], 4.0
    signature = [spec([None, 2]), spec([2, None]), spec([])]
    calls = [(x1, y1, b1), ([[0.5, -1.0], [3.0, 3.0]], [[1.0, 0.0], [0.0, 1.0]], -2.0)]
    check_export(function_to_get_faster, signature, calls, tmp_path / "a")
    check_export(outer_function, [spec([1, 2])], [(x1,), ([[-1.0, 0.0]],)], tmp_path / "b")
    # "First branch" and "Second branch", as the seed calls it, for scalars and vectors.
    check_export(my_function, [spec([])], [(1.0,), (0.5,), (5.0,)], tmp_path / "c")
    check_export(my_function, [spec([None])], [([5.0, 5.0],), ([0.25, 0.5],)], tmp_path / "d")


def test_seed_002_myadd_strings_and_a_printing_loop(tmp_path):
    @ag.function(autograph=True)
    def myadd(a, b):
        for i in rt.range(3):
            rt.print(i)
        c = a + b
        return c

    signature = [spec([], rt.string), spec([], rt.string)]
    model = check_export(myadd, signature, [("hello", "world"), ("", "x")], tmp_path / "m")
    assert [o.name for o in model.graph.output] == ["output_0"]


def test_a_keras_model_exports_when_keras_is_there(tmp_path):
    keras = getattr(rt, "keras", None)
    if keras is None:
        pytest.skip("rt.keras is not in this build")
    model = keras.Sequential(
        [keras.layers.Dense(8, activation="relu", input_shape=(4,)), keras.layers.Dense(3)]
    )
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    call = ag.function(model, input_signature=[spec([None, 4])])
    path = tmp_path / "keras.onnx"
    rt.onnx.export(call, path)
    (got,) = run_model(session(path), [x], [spec([None, 4])])
    np.testing.assert_allclose(got, model.predict(x), rtol=1e-5)
