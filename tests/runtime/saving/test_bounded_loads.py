"""Loading a hostile saved model costs time and memory bounded by the size of its files.

Each model here is a few kilobytes, signed as a save signs it, and built so
that a loader without bounds would spend days (a chain of Packs whose static
value is recomputed along every path), or make shapes of millions of
dimensions (a shape tensor of ones, an index of many ``None``s). Those loads run
in a fresh process whose own clock times the load, and a hang is killed; the
limits' edges load in this one.
"""

import json
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.core.op_def import OPS
from runtime.saved_model import SavedModelError
from runtime.saving.arrays import ArraysWriter
from tests.runtime.saving.model_files import const_json, op_json, write_function

_SECONDS = 1.0  # the bound; a load takes ~0.05 s (unbounded: days)
_HANG = 120  # a load still running after this long is killed: the test fails, not hangs

_TIMED_LOAD = textwrap.dedent(
    """
    import json, sys, time
    import runtime as rt
    start = time.perf_counter()
    try:
        rt.saved_model.load(sys.argv[1])
        error = None
    except rt.saved_model.SavedModelError as e:
        error = str(e)
    print(json.dumps({"seconds": time.perf_counter() - start, "error": error}))
    """
)


def _timed_load(path):
    """``(seconds, error)`` of loading ``path`` in a fresh process; error None when it loads."""
    done = subprocess.run(
        [sys.executable, "-c", _TIMED_LOAD, path],
        capture_output=True,
        text=True,
        timeout=_HANG,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    return result["seconds"], result["error"]


def _pack_chain(path, depth, consumer="Fill"):
    """p1 = [c, c], p2 = [p1, p1], ...: ``depth`` Packs, the last given to ``consumer``,
    which asks for its value (2 ** depth elements)."""
    arrays = ArraysWriter()
    ops = [const_json(arrays, "c", np.int32(1)), const_json(arrays, "one", np.float32(1))]
    previous = "c:0"
    for k in range(1, depth + 1):
        pack = op_json(
            f"p{k}", "Pack", [previous, previous], {"axis": {"value": 0}}, [("int32", None)]
        )
        ops.append(pack)
        previous = f"p{k}:0"
    if consumer == "Fill":
        ops.append(op_json("out", "Fill", [previous, "one:0"]))
    else:  # rows of an UnsortedSegmentSum
        ops.append(const_json(arrays, "ids", np.zeros(1, np.int32)))
        ops.append(op_json("out", "UnsortedSegmentSum", ["x:0", "ids:0", previous]))
    write_function(path, ops, ["out:0"], arrays)


@pytest.mark.parametrize("consumer", ["Fill", "UnsortedSegmentSum"])
def test_a_chain_of_packs_each_taking_the_last_twice_loads_at_once(tmp_path, consumer):
    path = str(tmp_path / "model")
    _pack_chain(path, 34, consumer)  # 2 ** 34 paths: days when each is walked
    seconds, error = _timed_load(path)
    assert seconds < _SECONDS, (seconds, error)


def test_each_static_value_of_a_pack_chain_is_computed_once(tmp_path, monkeypatch):
    depth = 14  # values of up to 2 ** 14 elements: small enough to be computed
    path = str(tmp_path / "model")
    _pack_chain(path, depth)
    pack = OPS["Pack"]
    counted = []
    original = pack.static_value
    monkeypatch.setattr(pack, "static_value", lambda op: counted.append(op) or original(op))
    # Fill is given a shape of 2 ** 14 dimensions: refused, once every value is known.
    with pytest.raises(SavedModelError, match="16384 dimensions: too many dimensions in tensor"):
        rt.saved_model.load(path)
    assert len(counted) == depth  # not 2 ** depth - 1, once per path


def _reshapes(path, sizes):
    """``x`` reshaped to shapes of ones, one Reshape per size in ``sizes``."""
    arrays = ArraysWriter()
    ops = []
    for i, size in enumerate(sizes):
        ops.append(const_json(arrays, f"shape{i}", np.ones(size, np.int32)))
        ops.append(op_json(f"r{i}", "Reshape", ["x:0", f"shape{i}:0"]))
    write_function(path, ops, [f"r{i}:0" for i in range(len(sizes))], arrays)


def test_a_shape_of_254_ones_loads_and_one_more_is_refused(tmp_path):
    path = str(tmp_path / "model")
    _reshapes(path, [254])
    loaded = rt.saved_model.load(path).signatures["serving_default"]
    assert loaded.graph.outputs[0].shape.as_list() == [1] * 254  # TensorFlow's most: 254
    _reshapes(path, [255])
    with pytest.raises(SavedModelError, match="255 dimensions: too many dimensions in tensor"):
        rt.saved_model.load(path)


def _index_of_nones(path, count):
    spec = {"tuple": [{"value": None}] * count}
    ops = [op_json("s", "StridedSlice", ["x:0"], {"spec": spec})]
    write_function(path, ops, ["s:0"], ArraysWriter())


@pytest.mark.parametrize(
    "build, message",
    [
        (  # 4 MB each: shapes of rank 1,000,000
            lambda path: _reshapes(path, [1_000_000] * 3),
            "(Reshape): it does not fit its inputs: ValueError: a shape given as a tensor would "
            "have 1000000 dimensions: too many dimensions in tensor (at most 254)",
        ),
        (
            lambda path: _index_of_nones(path, 30_000),
            "(StridedSlice): it does not fit its inputs: ValueError: the index's result would "
            "have 30000 dimensions: too many dimensions in tensor (at most 254)",
        ),
    ],
    ids=["a shape of a million ones", "an index of many Nones"],
)
def test_a_shape_of_too_many_dimensions_is_refused_at_once(tmp_path, build, message):
    path = str(tmp_path / "model")
    build(path)
    seconds, error = _timed_load(path)
    assert error is not None and error.endswith(message)
    assert seconds < _SECONDS


def test_an_index_adding_up_to_254_dimensions_loads_and_one_more_is_refused(tmp_path):
    path = str(tmp_path / "model")
    _index_of_nones(path, 253)  # x has one dimension: 253 more make 254
    loaded = rt.saved_model.load(path).signatures["serving_default"]
    assert loaded.graph.outputs[0].shape.as_list() == [1] * 253 + [None]
    _index_of_nones(path, 254)
    with pytest.raises(SavedModelError, match="255 dimensions: too many dimensions in tensor"):
        rt.saved_model.load(path)


def test_autograph_show_of_a_pack_chain_answers_at_once(tmp_path):
    path = str(tmp_path / "model")
    _pack_chain(path, 34)
    done = subprocess.run(
        [sys.executable, "-m", "autograph", "show", path],
        capture_output=True,
        text=True,
        timeout=_HANG,
    )
    assert done.returncode == 0, done.stderr
    assert "    output_0: float32 shape unknown\n" in done.stdout


class _Weights(rt.Module):
    def __init__(self, value):
        super().__init__()
        self.w = rt.Variable(value)

    @ag.function(input_signature=[])
    def read(self):
        return self.w * 1.0


def test_loading_a_large_variable_holds_the_arrays_file_and_the_value_at_most(tmp_path):
    # The arrays file is held while it is parsed (the bytes hashed are the bytes parsed); the
    # variable's value is read into its own array and kept without a copy, so no third copy
    # of it (the member's bytes, a copy made by the Variable) is held at any time.
    value = np.arange(10_000_000, dtype=np.float32)  # 40 MB: more than anything else a load holds
    path = str(tmp_path / "model")
    rt.saved_model.save(_Weights(value), path)
    tracemalloc.start()
    try:
        loaded = rt.saved_model.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(loaded.w.numpy(), value)
    assert peak < 2.5 * value.nbytes, f"{peak / value.nbytes:.2f} times the variable's size"
