"""Every op registered with ``runtime.ops.op_info``, on each of its samples, every way ops run.

For each sample: eagerly against the op's reference (plain Python or numpy, not its
kernel); traced and compiled as ``ag.function`` does, and in a TensorFlow 1 Session,
against eager; differentiated three ways against central differences (float64
samples); lowered to XLA against the default executor; exported to ONNX and run by
onnxruntime; saved and loaded. A new op's tests are its ``@op_info`` line.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.execution.compile import compile_graph
from runtime.ops.op_info import OP_INFOS
from tests.extras import import_extra
from tests.runtime.gradients.grad_harness import check_gradient

# Composites compute through several ops, each rounding: a few ulps apart.
RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def _cases():
    rng = np.random.default_rng(20261129)
    for name in sorted(OP_INFOS):
        info = OP_INFOS[name]
        for i, sample in enumerate(info.samples(rng)):
            shapes = "x".join(str(d) for d in np.shape(sample.args[0])) or "scalar"
            label = f"{name}-{sample.args[0].dtype}-{shapes}-{i}"
            yield pytest.param(info, sample, id=label)


CASES = list(_cases())


def _call(info, sample):
    """The op as a function of its tensor arguments (named: an input_signature names each),
    its keyword arguments fixed."""
    kwargs = sample.kwargs
    arity = len(sample.args)
    if arity == 1:
        return lambda x: info.fn(x, **kwargs)
    assert arity == 2, "samples of more tensor arguments: add their function here"
    return lambda x, y: info.fn(x, y, **kwargs)


def _assert_close(actual, expected, where=""):
    actual = np.asarray(actual)
    assert actual.shape == np.shape(expected), (where, actual.shape, np.shape(expected))
    tol = RTOL[actual.dtype]
    # Relative to the sample's largest value: a sample of tiny values is held to tiny errors.
    finite = np.abs(np.asarray(expected, np.float64)[np.isfinite(expected)])
    scale = finite.max() if finite.size else 0.0
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale, err_msg=where)


def _specs(sample):
    return [rt.TensorSpec(np.shape(a), rt.as_dtype(a.dtype)) for a in sample.args]


def test_every_op_has_samples():
    assert CASES, "no op is registered"
    for name, info in OP_INFOS.items():
        assert info.samples(np.random.default_rng(0)), f"{name} has no samples"


@pytest.mark.parametrize("info, sample", CASES)
def test_eager_result_matches_the_reference(info, sample):
    if info.reference is None:
        pytest.skip("no reference: the other ways are compared with eager")
    result = _call(info, sample)(*[rt.constant(a) for a in sample.args])
    assert result.dtype.as_numpy_dtype == sample.args[0].dtype
    expected = info.reference(*sample.args, **sample.kwargs)
    _assert_close(result.numpy(), expected, info.name)


@pytest.mark.parametrize("info, sample", CASES)
def test_graph_and_session_agree_with_eager(info, sample):
    fn = _call(info, sample)
    eager = fn(*[rt.constant(a) for a in sample.args]).numpy()
    compiled = ag.function(fn)(*[rt.constant(a) for a in sample.args]).numpy()
    _assert_close(compiled, eager, "ag.function")
    graph = rt.Graph()
    with graph.as_default():
        inputs = [rt.placeholder(s.dtype, s.shape) for s in _specs(sample)]
        out = fn(*inputs)
    _assert_close(rt.Session(graph).run(out, dict(zip(inputs, sample.args))), eager, "Session")


@pytest.mark.parametrize("info, sample", CASES)
def test_python_forms_compute_what_the_kernels_compute(info, sample):
    # The compiler writes a row with a python_form as an expression (np.log1p(x, out=...))
    # rather than a kernel call: with forms and without, the same values.
    graph = rt.Graph()
    with graph.as_default():
        inputs = [rt.placeholder(s.dtype, s.shape) for s in _specs(sample)]
        outputs = rt.nest.flatten(_call(info, sample)(*inputs))
    programs = [compile_graph(graph, inputs, outputs, specialize=s) for s in (True, False)]
    with_forms, kernels_only = (program(*sample.args) for program in programs)
    for a, b in zip(with_forms, kernels_only):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("info, sample", [c for c in CASES if c.values[1].args[0].dtype == "f8"])
def test_gradient_matches_central_differences(info, sample):
    if not info.differentiable:
        pytest.skip("no gradient flows through it")
    check_gradient(_call(info, sample), list(sample.args), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("info, sample", CASES)
def test_xla_agrees_with_the_default_executor(info, sample):
    import_extra("jax")
    from tests.runtime.xla.xla_harness import results_both_ways

    (default,), (xla,) = results_both_ways(_call(info, sample), *sample.args)
    assert xla.dtype == default.dtype
    _assert_close(xla, default, "jit_compile=True")


@pytest.mark.parametrize("info, sample", CASES)
def test_onnx_export_agrees(info, sample, tmp_path):
    import_extra("onnx")
    from tests.runtime.export.onnx_harness import run_model, session

    concrete = ag.function(_call(info, sample)).get_concrete_function(*_specs(sample))
    # onnxruntime has no float64 Erf: such a model is refused, not computed in float32.
    refused = sample.args[0].dtype == np.float64 and any(
        op.type == "Erf" for op in concrete.graph.get_operations()
    )
    if refused:
        with pytest.raises(rt.errors.UnimplementedError, match="Erf of float64"):
            rt.onnx.export(concrete, tmp_path / "op.onnx")
        return
    rt.onnx.export(concrete, tmp_path / "op.onnx")
    (got,) = run_model(session(tmp_path / "op.onnx"), sample.args, _specs(sample))
    assert got.dtype == sample.args[0].dtype
    _assert_close(got, concrete(*sample.args).numpy(), "onnxruntime")


@pytest.mark.parametrize("info, sample", CASES)
def test_saved_and_loaded_agree(info, sample, tmp_path):
    function = ag.function(_call(info, sample), input_signature=_specs(sample))
    path = str(tmp_path / "saved")
    rt.saved_model.save(function, path, signatures=function)
    loaded = rt.saved_model.load(path).signatures["serving_default"]
    names = ("x", "y")[: len(sample.args)]  # _call's parameters
    (got,) = loaded(**{n: rt.constant(a) for n, a in zip(names, sample.args)}).values()
    _assert_close(got.numpy(), function(*sample.args).numpy(), "loaded")
