"""Every op registered with ``runtime.ops.op_info``, on each of its samples, every way ops run.

For each sample: eagerly against the op's reference (plain Python or numpy, not its
kernel); traced and compiled as ``ag.function`` does, and in a TensorFlow 1 Session,
against eager; differentiated three ways against central differences (samples with
float64 arguments); lowered to XLA against the default executor; exported to ONNX and
run by onnxruntime; saved and loaded. A new op's tests are its ``@op_info`` line.

An op may have several tensor arguments and several outputs (``unstack``); each output
is compared. A sample known to fail (one way or every way) is listed in
``EXPECTED_FAILURES`` with the reason, and asserted to still fail (a strict xfail), so a
fix shows.
"""

from __future__ import annotations

import zlib

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

_WAYS = ("eager", "graph", "forms", "gradient", "xla", "onnx", "saved")
EXPECTED_FAILURES = {
    # (op name, sample index, way; None: every way): why it fails
}


def _expected_failure(name, i, way):
    return EXPECTED_FAILURES.get((name, i, way)) or EXPECTED_FAILURES.get((name, i, None))


def _label(name, i, sample):
    first = sample.args[0]
    shape = "x".join(str(d) for d in np.shape(first)) or "scalar"
    return f"{name}-{first.dtype}-{shape}-{i}"


def _cases(way, where=lambda sample: True):
    for name in sorted(OP_INFOS):
        info = OP_INFOS[name]
        # Each op's own generator: registering an op leaves the other ops' samples as they were.
        rng = np.random.default_rng([20261129, zlib.crc32(name.encode())])
        for i, sample in enumerate(info.samples(rng)):
            reason = _expected_failure(name, i, way)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            if where(sample):
                yield pytest.param(info, sample, id=_label(name, i, sample), marks=marks)


def _has_float64(sample):
    return any(np.asarray(a).dtype == np.float64 for a in sample.args)


_NAMES = ("x", "y", "z")  # the parameters of _call's functions: an input_signature names each


def _call(info, sample):
    """The op as a function of the sample's tensor arguments, its keyword arguments fixed."""
    run, kwargs = info.run, sample.kwargs

    def unary(x):
        return run(x, **kwargs)

    def binary(x, y):
        return run(x, y, **kwargs)

    def ternary(x, y, z):
        return run(x, y, z, **kwargs)

    return (unary, binary, ternary)[len(sample.args) - 1]


def _flat(result):
    """An op's outputs as numpy values, in order."""
    return [
        np.asarray(t.numpy() if isinstance(t, rt.Tensor) else t) for t in rt.nest.flatten(result)
    ]


def _expected_dtype(sample, expected):
    """A float reference may be computed in float64: the op's result is then in the float
    dtype of the sample's first float argument. Other results: the reference's own dtype."""
    floats = [a.dtype for a in sample.args if np.asarray(a).dtype.kind == "f"]
    if expected.dtype.kind == "f" and floats:
        return floats[0]
    return expected.dtype


def _assert_close(actual, expected, where="", floor=0.0):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (where, actual.shape, expected.shape)
    if actual.dtype.kind != "f":
        np.testing.assert_array_equal(actual, expected, err_msg=where)
        return
    tol = RTOL[actual.dtype]
    # Relative to the sample's largest value: a sample of tiny values is held to tiny errors.
    finite = np.abs(np.asarray(expected, np.float64)[np.isfinite(expected)])
    scale = max(finite.max() if finite.size else 0.0, floor)
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale, err_msg=where)


def _floor(info, sample):
    """The least scale errors are measured against: an op whose formula cancels (gelu's
    ``1 + erf(x)`` in its tail) errs relative to its inputs, not to its tiny results."""
    if not info.cancels:
        return 0.0
    return max(float(np.max(np.abs(a))) for a in sample.args if np.size(a))


def _assert_same(actual, expected, where="", floor=0.0):
    """Two ways of running the op agree: the same number of outputs, dtypes and values."""
    assert len(actual) == len(expected), (where, len(actual), len(expected))
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert np.asarray(a).dtype == np.asarray(e).dtype, (where, i, a, e)
        _assert_close(a, e, f"{where} output {i}", floor)


def _specs(sample):
    return [rt.TensorSpec(np.shape(a), rt.as_dtype(a.dtype)) for a in sample.args]


def test_every_op_has_samples():
    assert OP_INFOS, "no op is registered"
    for name, info in OP_INFOS.items():
        assert info.samples(np.random.default_rng(0)), f"{name} has no samples"


def test_every_expected_failure_names_a_sample_and_a_way():
    for name, i, way in EXPECTED_FAILURES:
        assert name in OP_INFOS and way in (None, *_WAYS), (name, way)
        assert i < len(OP_INFOS[name].samples(np.random.default_rng(0))), (name, i)


@pytest.mark.parametrize("info, sample", list(_cases("eager")))
def test_eager_result_matches_the_reference(info, sample):
    if info.reference is None:
        pytest.skip("no reference: the other ways are compared with eager")
    results = _flat(_call(info, sample)(*[rt.constant(a) for a in sample.args]))
    expected = _flat(info.reference(*sample.args, **sample.kwargs))
    assert len(results) == len(expected), (len(results), len(expected))
    for i, (result, value) in enumerate(zip(results, expected)):
        assert result.dtype == _expected_dtype(sample, value), (i, result.dtype, value.dtype)
        _assert_close(result, value, f"{info.name} output {i}", _floor(info, sample))


@pytest.mark.parametrize("info, sample", list(_cases("graph")))
def test_graph_and_session_agree_with_eager(info, sample):
    fn = _call(info, sample)
    eager = _flat(fn(*[rt.constant(a) for a in sample.args]))
    compiled = _flat(ag.function(fn)(*[rt.constant(a) for a in sample.args]))
    _assert_same(compiled, eager, "ag.function", _floor(info, sample))
    graph = rt.Graph()
    with graph.as_default():
        inputs = [rt.placeholder(s.dtype, s.shape) for s in _specs(sample)]
        outs = rt.nest.flatten(fn(*inputs))
    _assert_same(
        _flat(rt.Session(graph).run(outs, dict(zip(inputs, sample.args)))),
        eager,
        "Session",
        _floor(info, sample),
    )


@pytest.mark.parametrize("info, sample", list(_cases("forms")))
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


@pytest.mark.parametrize("info, sample", list(_cases("gradient", _has_float64)))
def test_gradient_matches_central_differences(info, sample):
    if not info.differentiable:
        pytest.skip("no gradient flows through it")
    check_gradient(_call(info, sample), list(sample.args), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("info, sample", list(_cases("xla")))
def test_xla_agrees_with_the_default_executor(info, sample):
    import_extra("jax")
    from tests.runtime.xla.xla_harness import results_both_ways

    default, xla = results_both_ways(_call(info, sample), *sample.args)
    _assert_same(xla, default, "jit_compile=True", _floor(info, sample))


_NO_FLOAT64_IN_ONNXRUNTIME = {"Erf", "Conv2D", "AvgPool", "Conv2DBackpropInput"}


@pytest.mark.parametrize("info, sample", list(_cases("onnx")))
def test_onnx_export_agrees(info, sample, tmp_path):
    import_extra("onnx")
    from tests.runtime.export.onnx_harness import run_model, session

    concrete = ag.function(_call(info, sample)).get_concrete_function(*_specs(sample))
    # onnxruntime has no float64 Erf, Conv, ConvTranspose, AveragePool: such a model is refused, not
    # computed in float32.
    refused = _has_float64(sample) and any(
        op.type in _NO_FLOAT64_IN_ONNXRUNTIME for op in concrete.graph.get_operations()
    )
    if refused:
        with pytest.raises(rt.errors.UnimplementedError, match="of float64"):
            rt.onnx.export(concrete, tmp_path / "op.onnx")
        return
    rt.onnx.export(concrete, tmp_path / "op.onnx")
    got = run_model(session(tmp_path / "op.onnx"), sample.args, _specs(sample))
    _assert_same(got, _flat(concrete(*sample.args)), "onnxruntime", _floor(info, sample))


@pytest.mark.parametrize("info, sample", list(_cases("saved")))
def test_saved_and_loaded_agree(info, sample, tmp_path):
    function = ag.function(_call(info, sample), input_signature=_specs(sample))
    path = str(tmp_path / "saved")
    rt.saved_model.save(function, path, signatures=function)
    loaded = rt.saved_model.load(path).signatures["serving_default"]
    names = _NAMES[: len(sample.args)]  # _call's parameters
    got = loaded(**{n: rt.constant(a) for n, a in zip(names, sample.args)})
    _assert_same(
        _flat(list(got.values())), _flat(function(*sample.args)), "loaded", _floor(info, sample)
    )
