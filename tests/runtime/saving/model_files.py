"""Helpers for tests that edit saved models: read a description, and write it back signed.

Signing (the checksums a save writes) lets a test's edit reach the loader's
checks behind the checksum, as an attacker's edit would.
"""

import hashlib
import json
import os

import numpy as np

import autograph as ag
import runtime as rt
from runtime.saving.format import checksum, describe


def description(path):
    with open(os.path.join(path, "saved_model.json")) as f:
        return json.load(f)


def arrays_path(path):
    return os.path.join(path, description(path)["arrays"]["file"])


def write_signed(path, document, arrays=None):
    """Writes ``document`` as ``path``'s description, with the checksums of a real save.

    ``arrays``: new bytes for the arrays file, whose size and SHA-256 are signed too.
    """
    document = dict(document)
    if arrays is not None and isinstance(document.get("arrays"), dict):
        with open(os.path.join(path, document["arrays"]["file"]), "wb") as f:
            f.write(arrays)
        document["arrays"] = dict(
            document["arrays"], bytes=len(arrays), sha256=hashlib.sha256(arrays).hexdigest()
        )
    document.pop("checksum", None)
    document["checksum"] = checksum(document)
    with open(os.path.join(path, "saved_model.json"), "w") as f:
        f.write(describe(document))


def files_of(path):
    """Every file of the directory with its bytes."""
    out = {}
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            with open(full, "rb") as f:
                out[name] = f.read()
    return out


# --- graphs written by hand -------------------------------------------------------------------


def op_json(name, op_type, inputs=(), attrs=None, outputs=(("float32", None),)):
    """One op of a description's graph; ``outputs`` as (dtype, shape list or None) pairs."""
    return {
        "name": name,
        "type": op_type,
        "inputs": list(inputs),
        "control_inputs": [],
        "attrs": attrs or {},
        "outputs": [{"dtype": dtype, "shape": shape} for dtype, shape in outputs],
    }


def const_json(arrays, name, value):
    """A Const op holding ``value``, stored in ``arrays`` (an ArraysWriter)."""
    reference = arrays.add(np.asarray(value))
    kind = "scalar" if np.ndim(value) == 0 else "array"
    return op_json(
        name,
        "Const",
        attrs={"value": {kind: reference}, "dtype": {"dtype": reference["dtype"]}},
        outputs=[(reference["dtype"], list(np.shape(value)))],
    )


def write_function(path, ops, outputs, arrays):
    """Saves a model whose one signature is ``f(x)`` (float32 [None]) made of ``ops``.

    ``x:0`` is its input; ``outputs`` names the tensors it returns; ``arrays``
    (an ArraysWriter) holds the constants of ``ops``. Signed, as a save signs.
    """

    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], autograph=False)
    def f(x):
        return x * 2.0

    rt.saved_model.save(rt.Module(), path, signatures=f)
    document = description(path)
    x = op_json(
        "x",
        "Placeholder",
        attrs={"dtype": {"dtype": "float32"}, "shape": {"shape": [None]}},
        outputs=[("float32", [None])],
    )
    function = document["functions"]["serving_default"]
    function["graph"] = {"ops": [x, *ops], "inputs": ["x:0"], "outputs": list(outputs)}
    function["outputs"] = {"tuple": [{"output": i} for i in range(len(outputs))]}
    write_signed(path, document, arrays=arrays.to_bytes())
