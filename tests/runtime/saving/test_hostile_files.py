"""Hostile and damaged saved models: loading refuses them with SavedModelError, runs nothing.

Each edit is signed as a real save signs its files, so it must be caught by the
loader's checks behind the checksums, as an attacker's would. A payload that
would create a canary file is put into every attribute, every name and every
reference; truncations and byte flips of every file are refused.
"""

import base64
import contextlib
import io
import json
import os
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
import runtime as rt
from runtime.saved_model import SavedModelError
from runtime.saving.format import (
    MAX_DESCRIPTION_BYTES,
    MAX_DESCRIPTION_VALUES,
    describe,
    json_values_bound,
)
from tests.runtime.saving.model_files import arrays_path, description, files_of, write_signed


class Small(rt.Module):
    def __init__(self):
        super().__init__()
        self.scale = rt.Variable(2.0)
        self.label = rt.Variable("tag")

    @ag.function(
        input_signature=[rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.string)],
        autograph=False,
    )
    def run(self, x, s):
        rt.print("x:", x, sep="|")
        total = rt.reduce_sum(x[1:], axis=0)
        y = rt.cond(total > 0, lambda: total * self.scale, lambda: -total)
        (i,) = rt.while_loop(lambda i: i < 3, lambda i: [i + 1], [0])
        return {"y": y, "i": i, "s": rt.strings.join([s, self.label], separator="-")}


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("small") / "model")
    rt.saved_model.save(Small(), path)
    return files_of(path)


@pytest.fixture
def model(tmp_path, model_files):
    """A fresh copy of the saved model, and the canary no payload may create."""
    path = tmp_path / "model"
    path.mkdir()
    for name, data in model_files.items():
        (path / name).write_bytes(data)
    canary = tmp_path / "canary"
    yield str(path), str(canary)
    assert not canary.exists(), "a payload ran"


def _payloads(canary):
    code = f"open({canary!r}, 'w').close()"
    return [
        f"k\n{code}\ndef _z():\n    #",
        f"'); {code}; ('",
        "{0.__class__}" + f"0]; {code}; x = x[0",
    ]


def _load_and_run(path):
    """Loads; a model that loads is called (it may fail at run time, but runs no payload)."""
    try:
        loaded = rt.saved_model.load(path)
    except SavedModelError as e:
        assert str(e).startswith(path), f"the error names no file: {e}"
        return False
    with contextlib.suppress(Exception):
        loaded.run(rt.constant([1.0, 2.0, 3.0]), rt.constant("s"))
    return True


def _ops(graph):
    """Every op of a graph's JSON and of its sub-graphs."""
    for op in graph["ops"]:
        yield op
        for value in op["attrs"].values():
            if "graph" in value:
                yield from _ops(value["graph"])


def _encodings(payload):
    return [
        {"value": payload},
        {"bytes": base64.b64encode(payload.encode()).decode()},
        {"tuple": [{"value": payload}]},
        {"slice": [{"value": payload}, {"value": None}, {"value": None}]},
        {"dtype": payload},
        {"shape": [payload]},
        {"graph": {"ops": [], "inputs": [payload], "outputs": []}},
        {"variable": payload},
        {payload: 1},
    ]


def test_a_payload_in_every_attribute_runs_nothing(model):
    path, canary = model
    original = description(path)
    positions = [
        (i, key)
        for i, op in enumerate(_ops(original["functions"]["run"]["graph"]))
        for key in op["attrs"]
    ]
    assert len(positions) > 30
    payloads = _payloads(canary)
    for n, (i, key) in enumerate(positions):
        for encoded in _encodings(payloads[n % len(payloads)]):
            document = description(path)
            op = list(_ops(document["functions"]["run"]["graph"]))[i]
            op["attrs"][key] = encoded
            write_signed(path, document)
            _load_and_run(path)
        write_signed(path, original)


def test_a_payload_as_an_attribute_key_is_refused_naming_it(model):
    path, canary = model
    for payload in _payloads(canary):
        document = description(path)
        ops = list(_ops(document["functions"]["run"]["graph"]))
        total = next(op for op in ops if op["type"] == "Sum")
        total["attrs"][payload] = {"value": 1}
        write_signed(path, document)
        with pytest.raises(SavedModelError, match="Sum.*unknown attribute") as error:
            rt.saved_model.load(path)
        assert "saved_model.json" in str(error.value)


def _rename(document, old, new):
    """``document`` with every string ``old`` (and ``old:i`` tensor names) made ``new``."""
    if isinstance(document, dict):
        return {_rename(k, old, new): _rename(v, old, new) for k, v in document.items()}
    if isinstance(document, list):
        return [_rename(v, old, new) for v in document]
    if isinstance(document, str):
        if document == old:
            return new
        if document.startswith(old + ":"):
            return new + document[len(old) :]
    return document


def test_a_payload_as_any_name_runs_nothing(model):
    path, canary = model
    original = description(path)
    names = {op["name"] for op in _ops(original["functions"]["run"]["graph"])}
    names |= {"run", "scale", "label", "v0", "a0", original["arrays"]["file"]}
    names |= {v["name"] for v in original["variables"]}
    for n, name in enumerate(sorted(names)):
        payload = _payloads(canary)[n % 3]
        write_signed(path, _rename(original, name, payload))
        assert not _load_and_run(path)
    for payload in ["../../etc/passwd", "/etc/passwd", "arrays-0000000000000000.npz/.."]:
        document = dict(original, arrays=dict(original["arrays"], file=payload))
        write_signed(path, document)
        assert not _load_and_run(path)


def test_every_truncation_and_byte_flip_of_every_file_is_refused(model):
    path, _ = model
    originals = files_of(path)
    assert len(originals) == 2
    for name, data in originals.items():
        cuts = sorted({0, 1, len(data) // 3, len(data) // 2, len(data) - 1})
        flips = sorted({*range(0, len(data), max(1, len(data) // 150)), len(data) - 1})
        damaged = [data[:cut] for cut in cuts]
        for position in flips:
            for mask in (0x01, 0x20, 0xFF):
                flipped = bytearray(data)
                flipped[position] ^= mask
                damaged.append(bytes(flipped))
        for content in damaged:
            with open(os.path.join(path, name), "wb") as f:
                f.write(content)
            with pytest.raises(SavedModelError) as error:
                rt.saved_model.load(path)
            assert name in str(error.value) or "saved_model.json" in str(error.value)
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    assert rt.saved_model.load(path).scale.numpy() == 2.0


def test_a_huge_description_is_refused_before_it_is_read(model):
    path, _ = model
    with open(os.path.join(path, "saved_model.json"), "r+b") as f:
        f.truncate(3 << 29)  # 1.5 GiB, sparse: reading it would take a while
    with pytest.raises(SavedModelError, match=f"over the limit of {MAX_DESCRIPTION_BYTES} bytes"):
        rt.saved_model.load(path)


@pytest.mark.parametrize("item", ["[]", "{}", '"ab"', "1.5"])
def test_a_description_of_many_small_values_is_refused_before_it_is_parsed(model, item):
    """Parsed, 64 MiB of ``[],`` would take 1.4 GiB; the values are counted first."""
    path, _ = model
    count = MAX_DESCRIPTION_VALUES + 1  # one comma each
    text = '{"format": "autograph-saved-model", "version": 1, "x": [' + ",".join([item] * count)
    with open(os.path.join(path, "saved_model.json"), "w") as f:
        f.write(text + "]}")
    with pytest.raises(SavedModelError) as error:
        rt.saved_model.load(path)
    assert str(error.value).startswith(os.path.join(path, "saved_model.json"))
    assert f"over the limit of {MAX_DESCRIPTION_VALUES} values" in str(error.value)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        ),
        max_leaves=30,
    )
)
def test_the_counted_values_bound_the_values_and_keys_that_json_parses(value):
    def values_and_keys(v):
        if isinstance(v, list):
            return 1 + sum(values_and_keys(item) for item in v)
        if isinstance(v, dict):
            return 1 + sum(1 + values_and_keys(item) for item in v.values())
        return 1

    text = describe(value).encode()
    assert values_and_keys(json.loads(text)) <= json_values_bound(text)


def test_a_fifo_in_place_of_a_file_is_refused_without_waiting(model):
    path, _ = model
    os.remove(os.path.join(path, "saved_model.json"))
    os.mkfifo(os.path.join(path, "saved_model.json"))
    with pytest.raises(SavedModelError, match="not a regular file"):
        rt.saved_model.load(path)


def _set_declared_size(archive_bytes, member, size):
    """The zip with ``member``'s uncompressed size rewritten (a lie, as a zip bomb tells)."""
    data = bytearray(archive_bytes)
    name = member.encode()
    for signature, offset, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            if data[start + name_at : start + name_at + len(name)] == name:
                struct.pack_into("<I", data, start + offset, size)
            start += 4
    return bytes(data)


def test_npz_members_are_named_by_the_description_and_store_what_they_declare(model):
    path, _ = model
    document = description(path)
    with open(arrays_path(path), "rb") as f:
        original = f.read()
    bomb = 3 << 29  # 1.5 GiB declared

    # An extra member, never named: refused, without reading it (reading would fail on the lie).
    buffer = io.BytesIO(original)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr("bomb.npy", b"x" * 100)
    write_signed(path, document, arrays=_set_declared_size(buffer.getvalue(), "bomb.npy", bomb))
    with pytest.raises(SavedModelError, match="'bomb.npy' declares 1610612736 bytes but stores"):
        rt.saved_model.load(path)
    write_signed(path, document, arrays=buffer.getvalue())
    with pytest.raises(SavedModelError, match="'bomb.npy' is not named by the description"):
        rt.saved_model.load(path)

    # A named member declaring more than its dtype and shape allow: refused, naming the limit.
    scale = next(v for v in document["variables"] if v["value"]["dtype"] == "float32")
    key = scale["value"]["key"] + ".npy"
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(buffer, "w") as archive:
        for info in source.infolist():
            data = source.read(info)
            archive.writestr(info, data + b"\0" * 8192 if info.filename == key else data)
    write_signed(path, document, arrays=buffer.getvalue())
    with pytest.raises(SavedModelError, match=f"'{key}' declares 8324 bytes, over the limit"):
        rt.saved_model.load(path)


def _graph_of(document):
    return document["functions"]["run"]["graph"]


def _sub_graph_edits():
    def drop_else_output(op):
        op["attrs"]["else_graph"]["graph"]["outputs"] = []

    def retype_then_output(op):
        then = op["attrs"]["then_graph"]["graph"]
        producer = next(o for o in then["ops"] if f"{o['name']}:0" == then["outputs"][0])
        producer["outputs"][0]["dtype"] = "int32"

    def body_returns_nothing(op):
        op["attrs"]["body_graph"]["graph"]["outputs"] = []

    def cond_returns_a_float(op):
        cond = op["attrs"]["cond_graph"]["graph"]
        cond["outputs"] = [cond["inputs"][0]]

    def too_many_loop_vars(op):
        op["attrs"]["num_loop_vars"] = {"value": 5}

    def sub_graph_reads_an_outer_tensor(op):
        body = op["attrs"]["body_graph"]["graph"]
        assert not any(o["name"] == "x" for o in body["ops"])
        body["outputs"] = ["x:0"]  # the function's input: not the body's

    return {
        "If": [drop_else_output, retype_then_output],
        "While": [body_returns_nothing, cond_returns_a_float, too_many_loop_vars],
        "While ": [sub_graph_reads_an_outer_tensor],
    }


@pytest.mark.parametrize(
    "op_type, edit",
    [(t.strip(), e) for t, edits in _sub_graph_edits().items() for e in edits],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_malformed_sub_graphs_of_if_and_while_are_refused(model, op_type, edit):
    path, _ = model
    document = description(path)
    edit(next(op for op in _graph_of(document)["ops"] if op["type"] == op_type))
    write_signed(path, document)
    with pytest.raises(SavedModelError, match=op_type):
        rt.saved_model.load(path)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[" * 100_000, "not valid JSON"),
        ('{"format": "autograph-saved-model", "version": ' + "9" * 5000 + "}", "not valid JSON"),
        ("\udcff".encode("utf-8", "surrogatepass").decode("latin-1"), "not valid JSON"),
        ('{"format": "autograph-saved-model", "version": 3}', "version 3 is not supported"),
        ('{"format": "autograph-saved-model", "version": 2}', "without checksums"),
        ("[]", "must be an object"),
    ],
)
def test_malformed_json_is_refused_naming_the_file(model, text, problem):
    path, _ = model
    with open(os.path.join(path, "saved_model.json"), "w", encoding="latin-1") as f:
        f.write(text)
    with pytest.raises(SavedModelError, match=problem) as error:
        rt.saved_model.load(path)
    assert "saved_model.json" in str(error.value)


def test_an_op_whose_outputs_do_not_fit_its_inputs_is_refused(model):
    path, _ = model
    document = description(path)
    op = next(op for op in _graph_of(document)["ops"] if op["type"] == "Sum")
    op["outputs"][0]["dtype"] = "int64"
    write_signed(path, document)
    with pytest.raises(SavedModelError, match="Sum.*outputs are not what its inputs"):
        rt.saved_model.load(path)


def test_a_constant_of_another_dtype_than_its_value_is_refused(model):
    path, _ = model
    document = description(path)
    const = next(op for op in _ops(_graph_of(document)) if op["type"] == "Const")
    const["attrs"]["dtype"] = {"dtype": "int64"}
    const["outputs"][0]["dtype"] = "int64"
    write_signed(path, document)
    with pytest.raises(SavedModelError, match="Const.*does not fit"):
        rt.saved_model.load(path)


def test_an_unsigned_edit_is_refused_as_damage(model):
    path, _ = model
    document = description(path)
    document["variables"][0]["trainable"] = False
    with open(os.path.join(path, "saved_model.json"), "w") as f:
        json.dump(document, f, indent=1)
    with pytest.raises(SavedModelError, match="checksum does not match"):
        rt.saved_model.load(path)


def test_string_and_number_arrays_load_exactly(model):
    path, _ = model
    loaded = rt.saved_model.load(path)
    assert loaded.label.numpy() == b"tag"
    result = loaded.run(rt.constant([1.0, 2.0, 3.0]), rt.constant("s"))
    assert result["y"].numpy() == np.float32(10.0)
    assert result["s"].numpy() == b"s-tag"


@pytest.mark.parametrize(
    "mode, value, problem",
    [
        ("synchronization", "NEVER", "'synchronization' must name a VariableSynchronization"),
        ("aggregation", 2, "'aggregation' must name a VariableAggregation"),
        ("aggregation", "__class__", "'aggregation' must name a VariableAggregation"),
    ],
)
def test_a_variable_with_an_unknown_distribution_mode_is_refused(model, mode, value, problem):
    path, _ = model
    document = description(path)
    document["variables"][0][mode] = value
    write_signed(path, document)
    with pytest.raises(SavedModelError, match=problem):
        rt.saved_model.load(path)
