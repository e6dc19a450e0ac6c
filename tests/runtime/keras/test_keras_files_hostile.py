"""Hostile ``.keras`` files are refused with a clear error and run nothing: each payload would
create a marker file if any of its code ran, and the marker must not appear."""

import base64
import bz2
import io
import json
import lzma
import marshal
import struct
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.keras.saving import archive
from tests.extras import import_extra

h5py = import_extra("h5py")


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "ran"
    yield str(path)
    assert not path.exists(), "code from the file ran"


def _weights_bytes(build=None):
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as h5file:
        h5file.create_group("vars").attrs["name"] = "m"
        if build:
            build(h5file)
    return buffer.getvalue()


def _keras_file(path, config, weights=None, extra=(), compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        zf.writestr("metadata.json", json.dumps({"keras_version": "3.15.1"}))
        if config is not None:
            zf.writestr("config.json", json.dumps(config))
        if weights is not False:
            zf.writestr("model.weights.h5", weights if weights is not None else _weights_bytes())
        for name, data in extra:
            zf.writestr(name, data)
    return path


def _sequential(*layers):
    return {
        "module": "keras",
        "class_name": "Sequential",
        "config": {"name": "m", "layers": list(layers)},
        "registered_name": None,
    }


def _dense(activation):
    return {
        "module": "keras.layers",
        "class_name": "Dense",
        "config": {"units": 1, "activation": activation},
        "registered_name": None,
    }


def _lambda_code(marker):
    def touch(x, path=marker):
        open(path, "w").close()
        return x

    code = base64.b64encode(marshal.dumps(touch.__code__)).decode("ascii")
    return {"class_name": "__lambda__", "config": {"value": [code, [marker], None]}}


def test_a_lambda_in_a_config_is_refused_in_safe_mode(tmp_path, marker):
    path = _keras_file(tmp_path / "m.keras", _sequential(_dense(_lambda_code(marker))))
    with pytest.raises(ValueError, match="deserialization of a Python lambda"):
        rt.keras.models.load_model(path)


def test_a_lambda_layer_with_code_is_refused(tmp_path, marker):
    layer = {
        "module": "keras.layers",
        "class_name": "Lambda",
        "config": {"name": "lambda", "function": _lambda_code(marker), "arguments": {}},
        "registered_name": None,
    }
    path = _keras_file(tmp_path / "m.keras", _sequential(layer))
    # A Lambda layer's code is refused as a lambda; without a Lambda class, as unknown.
    with pytest.raises((ValueError, TypeError), match="lambda|Could not locate class 'Lambda'"):
        rt.keras.models.load_model(path)


def test_a_lambda_loads_only_when_the_user_opts_out_of_safe_mode():
    code = base64.b64encode(marshal.dumps((lambda x: x + 1).__code__)).decode("ascii")
    config = {"class_name": "__lambda__", "config": {"value": [code, None, None]}}
    fn = rt.keras.saving.deserialize_keras_object(config, safe_mode=False)
    assert fn(1) == 2


@pytest.mark.parametrize(
    "config",
    [
        {"module": "os", "class_name": "system", "config": {"command": "touch {m}"}},
        {"class_name": "os.system", "config": {"command": "touch {m}"}},
        {"module": "builtins", "class_name": "eval", "config": {"source": "open('{m}','w')"}},
        {"module": "subprocess", "class_name": "Popen", "config": {"args": ["touch", "{m}"]}},
        {"class_name": "subprocess.Popen", "config": {"args": ["touch", "{m}"]}},
    ],
    ids=["os.system", "os.system-no-module", "builtins.eval", "subprocess.Popen", "Popen-dotted"],
)
def test_a_class_name_outside_keras_is_refused_and_nothing_is_imported(tmp_path, marker, config):
    config = json.loads(json.dumps(config).replace("{m}", marker))
    path = _keras_file(tmp_path / "m.keras", config)
    name = config["class_name"]
    with pytest.raises(TypeError, match=f"Could not locate class '{name}'"):
        rt.keras.models.load_model(path)
    with pytest.raises(TypeError, match="Could not locate class"):  # nested in a model too
        rt.keras.models.load_model(_keras_file(tmp_path / "n.keras", _sequential(config)))


@pytest.mark.parametrize("function", ["eval", "exec", "system", "__import__"])
def test_a_function_name_outside_keras_is_refused(tmp_path, marker, function):
    activation = {"module": "builtins", "class_name": "function", "config": function,
                  "registered_name": "function"}  # fmt: skip
    path = _keras_file(tmp_path / "m.keras", _sequential(_dense(activation)))
    with pytest.raises(TypeError, match=f"Could not locate function '{function}'"):
        rt.keras.models.load_model(path)


def test_a_member_path_that_leaves_the_archive_refuses_the_file(tmp_path):
    target = tmp_path / "outside"
    path = _keras_file(tmp_path / "m.keras", _sequential(), extra=[("../outside", b"x")])
    with pytest.raises(ValueError, match=r"'\.\./outside' has a path that leaves the archive"):
        rt.keras.models.load_model(path)
    assert not target.exists()


def test_a_decompression_bomb_is_refused_before_it_is_inflated(tmp_path, monkeypatch):
    bomb = b"\0" * (8 << 20)  # 8 MiB that deflate to a few KiB
    path = _keras_file(tmp_path / "m.keras", _sequential(), weights=bomb,
                       compression=zipfile.ZIP_DEFLATED)  # fmt: skip
    read, real = [], archive.read_limited
    monkeypatch.setattr(
        archive,
        "read_limited",
        lambda file, limit, p, what: read.append(what) or real(file, limit, p, what),
    )
    with pytest.raises(ValueError, match="model.weights.h5 would expand .* a decompression bomb"):
        rt.keras.models.load_model(path)
    assert read == ["config.json"]  # the bomb was never read


def test_a_config_over_its_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(archive, "MAX_CONFIG_BYTES", 1000)
    path = _keras_file(tmp_path / "m.keras", _sequential(*[_dense("relu")] * 50))
    with pytest.raises(ValueError, match=r"config.json declares \d+ bytes, over the limit of 1000"):
        rt.keras.models.load_model(path)


def test_a_file_that_is_not_a_zip_is_refused(tmp_path):
    path = tmp_path / "m.keras"
    path.write_bytes(b"import os; os.system('x')")
    with pytest.raises(ValueError, match=r"not a \.keras file \(a zip archive\)"):
        rt.keras.models.load_model(path)


@pytest.mark.parametrize("missing", ["config.json", "model.weights.h5"])
def test_a_missing_member_is_refused_by_name(tmp_path, missing):
    config = None if missing == "config.json" else _sequential()
    path = _keras_file(
        tmp_path / "m.keras", config, weights=False if missing != "config.json" else None
    )
    with pytest.raises(ValueError, match=f"it has no {missing}"):
        rt.keras.models.load_model(path)


def test_a_weights_group_linking_outside_the_file_is_refused(tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as h5file:
        h5file.create_dataset("secret", data=np.ones((2, 1), np.float32))

    def link(h5file):
        h5file["layers/dense/vars"] = h5py.ExternalLink(str(other), "/")

    config = _sequential(_dense("relu"))
    config["config"]["build_input_shape"] = [None, 2]
    path = _keras_file(tmp_path / "m.keras", config, weights=_weights_bytes(link))
    with pytest.raises(ValueError, match="links outside the file"):
        rt.keras.models.load_model(path)


def test_a_deeply_nested_config_is_refused_cleanly(tmp_path):
    path = tmp_path / "m.keras"
    _keras_file(path, None, extra=[("config.json", "[" * 100000 + "]" * 100000)])
    with pytest.raises(ValueError, match="config.json"):
        rt.keras.models.load_model(path)


def test_a_module_named_in_the_file_is_never_imported(tmp_path, marker, monkeypatch):
    (tmp_path / "hostile_module.py").write_text(
        f"open({marker!r}, 'w').close()\nclass Evil:\n    @classmethod\n"
        "    def from_config(cls, config):\n        return cls()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    config = {"module": "hostile_module", "class_name": "Evil", "config": {}}
    with pytest.raises(TypeError, match="Could not locate class 'Evil'"):
        rt.keras.models.load_model(_keras_file(tmp_path / "m.keras", _sequential(config)))
    assert "hostile_module" not in sys.modules


# Files zipfile would never write: each member as (name, data, method, declared size, flags).
def _raw_zip(path, members, declared_entries=None):
    local, directory = [], []
    offset = 0
    for name, data, method, declared, flags in members:
        encoded = name.encode()
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, method, 0, 0, 0,
                             len(data), declared, len(encoded), 0)  # fmt: skip
        directory.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, flags, method,
                                     0, 0, 0, len(data), declared, len(encoded), 0, 0, 0, 0, 0,
                                     offset) + encoded)  # fmt: skip
        local.append(header + encoded + data)
        offset += len(local[-1])
    entries = len(members) if declared_entries is None else declared_entries
    directory_bytes = b"".join(directory)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, len(directory_bytes),
                      offset, 0)  # fmt: skip
    path.write_bytes(b"".join(local) + directory_bytes + end)
    return path


def _peak_bytes(fn):
    """The most memory Python held at once while ``fn`` ran (numpy's arrays included)."""
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def _load_refused(path, match):
    def load():
        with pytest.raises(ValueError, match=match):
            rt.keras.models.load_model(path)

    return _peak_bytes(load)


_BUILT_DENSE = _sequential(_dense("linear"))
_BUILT_DENSE["config"]["build_input_shape"] = [None, 2]


@pytest.mark.parametrize(
    "method, compress",
    [(zipfile.ZIP_BZIP2, bz2.compress), (zipfile.ZIP_LZMA, lzma.compress)],
    ids=["bzip2", "lzma"],
)
def test_a_bzip2_or_lzma_member_is_refused_before_it_is_inflated(tmp_path, method, compress):
    # The member declares 100 bytes; bzip2 and lzma inflate a whole block of 16 MiB at once.
    bomb = compress(b"\0" * (16 << 20))
    path = _raw_zip(tmp_path / "m.keras", [
        ("metadata.json", b"{}", zipfile.ZIP_STORED, 2, 0),
        ("config.json", bomb, method, 100, 0),
        ("model.weights.h5", b"", zipfile.ZIP_STORED, 0, 0),
    ])  # fmt: skip
    name = "bzip2" if method == zipfile.ZIP_BZIP2 else "lzma"
    match = f"{path}: .*member 'config.json' is compressed with {name}"
    assert _load_refused(path, match) < 2 << 20


def test_an_encrypted_member_is_refused(tmp_path):
    config = json.dumps(_BUILT_DENSE).encode()
    path = _raw_zip(tmp_path / "m.keras", [
        ("config.json", config, zipfile.ZIP_STORED, len(config), 0x1),
        ("model.weights.h5", b"", zipfile.ZIP_STORED, 0, 0),
    ])  # fmt: skip
    with pytest.raises(ValueError, match=f"{path}: .*member 'config.json' is encrypted"):
        rt.keras.models.load_model(path)


def test_two_members_of_one_name_are_refused(tmp_path):
    other = _sequential(_dense("relu"))
    with pytest.warns(UserWarning, match="Duplicate name"):  # zipfile's own, writing it
        path = _keras_file(tmp_path / "m.keras", _BUILT_DENSE,
                           extra=[("config.json", json.dumps(other))])  # fmt: skip
    with pytest.raises(ValueError, match="it holds two members named 'config.json'"):
        rt.keras.models.load_model(path)


@pytest.mark.parametrize(
    "declared, match",
    [(None, "it declares 20000 members, over the limit of 64"),
     (3, r"its directory declares \d+ bytes, over the limit of 65536")],
    ids=["entries", "directory-size"],
)  # fmt: skip
def test_a_huge_zip_directory_is_refused_before_it_is_parsed(tmp_path, declared, match):
    members = [(f"m{i}", b"", zipfile.ZIP_STORED, 0, 0) for i in range(20000)]
    path = _raw_zip(tmp_path / "m.keras", members, declared_entries=declared)
    # zipfile would make 20000 ZipInfo objects (megabytes) before any count is checked.
    assert _load_refused(path, match) < 1 << 20


def test_a_serialized_array_of_strings_is_refused_before_it_is_allocated(tmp_path):
    huge = {"class_name": "__numpy__", "config": {"value": ["a"], "dtype": "S100000000"}}
    config = dict(_BUILT_DENSE, compile_config={"optimizer": "sgd", "loss": "mse",
                                                "loss_weights": huge})  # fmt: skip
    path = _keras_file(tmp_path / "m.keras", config)
    assert _load_refused(path, "Refused to deserialize an array of dtype '|S100000000'") < 4 << 20
    for dtype in ("object", "U3", "complex256", "V8"):
        with pytest.raises(ValueError, match="only boolean, integer and floating arrays"):
            rt.keras.saving.deserialize_keras_object(
                {"class_name": "__numpy__", "config": {"value": [1], "dtype": dtype}}
            )
    array = {"class_name": "__numpy__", "config": {"value": [[1, 2]], "dtype": "float16"}}
    value = rt.keras.saving.deserialize_keras_object(array)
    assert value.dtype == np.float16
    np.testing.assert_array_equal(value, [[1, 2]])


def test_a_huge_layer_in_a_small_file_is_refused_before_its_weights_are_made(tmp_path):
    config = _sequential(dict(_dense("linear"), config={"units": 4096}))
    config["config"]["build_input_shape"] = [None, 4096]  # a 64 MiB kernel, from a few KB
    path = _keras_file(tmp_path / "m.keras", config)
    match = r"its config declares weights of at least 67108864 bytes .*'dense\w*/kernel'"
    assert _load_refused(path, match) < 16 << 20


def test_a_model_over_the_small_model_bound_still_loads(tmp_path):
    rt.keras.backend.clear_session()
    model = rt.keras.Sequential([rt.keras.layers.Dense(2100, input_shape=(2048,))])  # 17 MB
    model.save(tmp_path / "m.keras")
    loaded = rt.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())


def _link_at_layers(kind, tmp_path):
    """Weights whose ``/layers`` is a link: to ``/elsewhere`` or to another file."""
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as h5file:
        h5file.create_dataset("dense/vars/0", data=np.full((2, 1), 42.0, np.float32))
        h5file.create_dataset("dense/vars/1", data=np.full((1,), 7.0, np.float32))

    def link(h5file):
        h5file.create_dataset("elsewhere/dense/vars/0", data=np.full((2, 1), 3.0, np.float32))
        h5file.create_dataset("elsewhere/dense/vars/1", data=np.zeros(1, np.float32))
        if kind == "soft":
            h5file["layers"] = h5py.SoftLink("/elsewhere")
        else:
            h5file["layers"] = h5py.ExternalLink(str(other), "/")

    return _weights_bytes(link)


@pytest.mark.parametrize(
    "kind, match",
    [("soft", "'/layers' is a SoftLink"), ("external", "'/layers' links outside the file")],
)
def test_a_link_anywhere_on_a_weights_path_is_refused(tmp_path, kind, match):
    weights = _link_at_layers(kind, tmp_path)
    path = _keras_file(tmp_path / "m.keras", _BUILT_DENSE, weights=weights)
    with pytest.raises(ValueError, match=f"{path}: {match}"):
        rt.keras.models.load_model(path)
    (tmp_path / "w.weights.h5").write_bytes(weights)
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(ValueError, match=match):
        model.load_weights(tmp_path / "w.weights.h5")


def test_weights_saved_without_an_optimizer_load_into_a_compiled_model(tmp_path):
    rt.keras.backend.clear_session()
    saved = rt.keras.Sequential([rt.keras.layers.Dense(2, input_shape=(3,))])
    saved.save_weights(tmp_path / "w.weights.h5")
    model = rt.keras.Sequential([rt.keras.layers.Dense(2, input_shape=(3,))])
    model.compile(optimizer="adam", loss="mse")
    name = model.optimizer.name
    # Keras 3's words (BaseOptimizer.load_own_variables); the layers load.
    with pytest.warns(
        UserWarning,
        match=f"Skipping variable loading for optimizer '{name}', "
        "because it has 6 variables whereas the saved optimizer has 0 variables",
    ):
        model.load_weights(tmp_path / "w.weights.h5")  # fmt: skip
    np.testing.assert_array_equal(model.layers[0].kernel.numpy(), saved.layers[0].kernel.numpy())
    np.testing.assert_array_equal(model.layers[0].bias.numpy(), saved.layers[0].bias.numpy())


_FUNCTIONAL_WITHOUT_LAYER_NAME = {
    "module": "keras",
    "class_name": "Functional",
    "config": {"name": "f", "layers": [{"class_name": "Dense", "config": {"units": 1}}],
               "input_layers": [], "output_layers": []},
}  # fmt: skip


@pytest.mark.parametrize(
    "config",
    [
        {"module": "keras", "class_name": ["Sequential"], "config": {}},
        _sequential({"class_name": "__numpy__", "config": {}}),
        _FUNCTIONAL_WITHOUT_LAYER_NAME,
        dict(_BUILT_DENSE, compile_config=[1, 2]),
        dict(_sequential(_dense("linear")), build_config="x"),
        {"class_name": "__numpy__", "config": {"value": [1], "dtype": "float32"}},
    ],
    ids=["list-class-name", "numpy-without-value", "functional-layer-without-name",
         "compile-config-list", "build-config-string", "not-a-model"],
)  # fmt: skip
def test_a_malformed_config_is_refused_naming_the_file(tmp_path, config):
    path = _keras_file(tmp_path / "m.keras", config)
    with pytest.raises(archive.KerasFileError, match=f"{path}: config.json: "):
        rt.keras.models.load_model(path)


def _fail_writing(name):
    real = zipfile.ZipFile.writestr

    def writestr(self, member, data, *args, **kwargs):
        if member == name:
            raise OSError(28, "No space left on device")
        return real(self, member, data, *args, **kwargs)

    return writestr


def test_a_save_that_fails_leaves_the_old_file_whole(tmp_path, monkeypatch):
    rt.keras.backend.clear_session()
    model = rt.keras.Sequential([rt.keras.layers.Dense(2, input_shape=(3,))])
    path = tmp_path / "best.keras"
    model.save(path)  # as ModelCheckpoint rewrites best.keras at each better epoch
    before = model.layers[0].kernel.numpy()
    model.layers[0].kernel.assign(np.ones((3, 2), np.float32))
    monkeypatch.setattr(zipfile.ZipFile, "writestr", _fail_writing("model.weights.h5"))
    with pytest.raises(OSError, match="No space left"):
        model.save(path)
    monkeypatch.undo()
    loaded = rt.keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.layers[0].kernel.numpy(), before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.keras"]  # no temporary left


def test_a_weights_save_that_fails_leaves_the_old_file_whole(tmp_path, monkeypatch):
    from runtime.keras.saving import weights

    rt.keras.backend.clear_session()
    model = rt.keras.Sequential([rt.keras.layers.Dense(2, input_shape=(3,))])
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    before = model.layers[0].kernel.numpy()

    def fail(model, h5file):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(weights, "save_weights", fail)
    with pytest.raises(OSError, match="No space left"):
        model.save_weights(path)
    monkeypatch.undo()
    model.layers[0].kernel.assign(np.ones((3, 2), np.float32))
    model.load_weights(path)
    np.testing.assert_array_equal(model.layers[0].kernel.numpy(), before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.weights.h5"]
