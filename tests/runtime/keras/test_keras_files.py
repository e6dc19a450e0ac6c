"""``.keras`` files: those real Keras 3 wrote (tests/runtime/keras/fixtures, made by
make_fixtures.py) load here and predict what Keras predicted; those written here have
Keras's layout (members, config keys and values but names, h5 paths and shapes: checked
against the fixture of each layer kind, so the rule holds without real Keras) and load back.

Checked by hand in real Keras (3.15.1, ``KERAS_BACKEND=jax``, h5py 3.16): a file saved here
for each fixture's model (keras_file_models.py: dense, dense_compiled with its Adam state,
dropout_flatten_activation, functional_merge, embedding, conv1d, conv2d_pooling,
batch_normalization, layer_normalization, simple_rnn, lstm, gru, reshape, activation_layers),
and each fixture loaded here and saved again, load with ``keras.saving.load_model`` and
predict what they predict here (rtol 1e-5); the compiled one brings ``iterations == 2``.
"""

import io
import json
import pathlib
import zipfile

import numpy as np
import pytest

import runtime as rt
from tests.extras import import_extra
from tests.runtime.keras import keras_file_models

h5py = import_extra("h5py")

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
ALL = sorted(path.stem for path in FIXTURES.glob("*.keras"))


def test_the_fixtures_cover_every_layer_kind_the_issue_lists():
    assert len(ALL) == 14 and "dense" in ALL and "lstm" in ALL


@pytest.mark.parametrize("name", ALL)
def test_a_file_real_keras_wrote_loads_and_predicts_what_keras_predicted(name):
    rt.keras.backend.clear_session()
    model = rt.keras.models.load_model(FIXTURES / f"{name}.keras")
    data = np.load(FIXTURES / f"{name}.npz")
    inputs = [data[k] for k in sorted(data.files) if k.startswith("x")]
    predicted = model.predict(inputs[0] if len(inputs) == 1 else inputs)
    np.testing.assert_allclose(predicted, data["y"], rtol=1e-5, atol=1e-5)


def test_a_compiled_keras_file_brings_its_optimizer_and_its_state():
    model = rt.keras.models.load_model(FIXTURES / "dense_compiled.keras")
    assert type(model.optimizer).__name__ == "Adam"
    assert int(model.optimizer.iterations.numpy()) == 2  # two epochs of one batch, in Keras


def _members(path):
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
        metadata = json.loads(archive.read("metadata.json"))
        weights = archive.read("model.weights.h5")
    return config, metadata, weights


def _h5_layout(weights_bytes):
    """``{path: shape or "group"}`` and the ``name`` attributes of the ``vars`` groups."""
    layout = {}
    with h5py.File(io.BytesIO(weights_bytes), "r") as h5file:

        def visit(name, obj):
            layout[name] = obj.shape if isinstance(obj, h5py.Dataset) else dict(obj.attrs)

        h5file.visititems(visit)
    return layout


def _layer_keys(config):
    return [(c["class_name"], sorted(c["config"])) for c in config["config"]["layers"]]


def _same_model_here(tmp_path):
    """dense_compiled.keras's model, made and saved here."""
    rt.keras.backend.clear_session()
    model = rt.keras.Sequential(
        [rt.keras.layers.Dense(3, activation="tanh", input_shape=(4,)), rt.keras.layers.Dense(1)]
    )
    model.compile(optimizer=rt.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    model.fit(np.ones((3, 4)), np.ones((3, 1)), epochs=2, verbose=0)
    path = tmp_path / "here.keras"
    model.save(path)
    return model, path


# Where a config names objects by their names (which differ from one session to the next).
_NAMING_KEYS = {"name", "keras_history", "input_layers", "output_layers"}


def _structure(value, key=None):
    """A config with what differs from one session to the next left out: the objects' names
    (``dense`` here is ``dense_5`` in the session that wrote the fixture), Keras's
    ``shared_object_id``, ``jit_compile``, which Keras writes as its backend resolved
    ``"auto"`` (True under JAX; here it stays ``"auto"``), and a built LayerNormalization's
    axis, which Keras 3.15 (the fixtures) writes as given (``[-1]``) and Keras 3.16 sorted and
    non-negative (``[2]``), as here."""
    if isinstance(value, dict) and value.get("class_name") == "LayerNormalization":
        value = {**value, "config": {**value["config"], "axis": "<varies>"}}
    if isinstance(value, dict):
        return {k: _structure(v, k) for k, v in value.items() if k != "shared_object_id"}
    if isinstance(value, list):
        return [_structure(item, key if key in _NAMING_KEYS else None) for item in value]
    if key == "jit_compile" or (key in _NAMING_KEYS and isinstance(value, str)):
        return "<varies>"
    return value


@pytest.mark.parametrize("name", ALL)
def test_a_file_written_here_is_laid_out_as_the_one_real_keras_wrote(name, tmp_path):
    """The same model made and saved here: the archive's members, the config (every key and
    value but names) and the weights' h5 layout (paths, shapes, attributes) are Keras's."""
    model, _ = keras_file_models.make(name)
    model.save(tmp_path / "here.keras")
    config, metadata, weights = _members(tmp_path / "here.keras")
    keras_config, keras_metadata, keras_weights = _members(FIXTURES / f"{name}.keras")
    names = [
        zipfile.ZipFile(p).namelist() for p in (tmp_path / "here.keras", FIXTURES / f"{name}.keras")
    ]
    assert names[0] == names[1]
    assert sorted(metadata) == sorted(keras_metadata) == ["date_saved", "keras_version"]
    assert _structure(config) == _structure(keras_config)
    ours, theirs = _h5_layout(weights), _h5_layout(keras_weights)
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():  # datasets' shapes; the groups' attributes (names differ)
        assert (
            ours[key] == value if isinstance(value, tuple) else sorted(ours[key]) == sorted(value)
        )


@pytest.mark.parametrize("name", ALL)
def test_a_file_written_here_loads_back_and_predicts_the_same(name, tmp_path):
    model, x = keras_file_models.make(name)
    model.save(tmp_path / "here.keras")
    expected = model.predict(x, verbose=0)
    rt.keras.backend.clear_session()
    loaded = rt.keras.models.load_model(tmp_path / "here.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), expected, rtol=1e-6, atol=1e-6)


def test_a_file_written_here_loads_back_with_its_weights_and_optimizer_state(tmp_path):
    model, path = _same_model_here(tmp_path)
    loaded = rt.keras.models.load_model(path)
    x = np.random.default_rng(0).normal(size=(5, 4)).astype("float32")
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    assert int(loaded.optimizer.iterations.numpy()) == 2
    for mine, theirs in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_allclose(theirs.numpy(), mine.numpy())
    uncompiled = rt.keras.models.load_model(path, compile=False)
    assert uncompiled.optimizer is None


def test_save_weights_and_load_weights_use_the_same_layout(tmp_path):
    model, _ = _same_model_here(tmp_path)
    model.save_weights(tmp_path / "w.weights.h5")
    rt.keras.backend.clear_session()
    other = rt.keras.Sequential(
        [rt.keras.layers.Dense(3, activation="tanh", input_shape=(4,)), rt.keras.layers.Dense(1)]
    )
    other.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)
    with open(tmp_path / "w.weights.h5", "rb") as file:
        layout = _h5_layout(file.read())
    assert layout["layers/dense/vars/0"] == (4, 3) and layout["vars"] == {"name": "sequential"}


def test_a_weight_of_the_wrong_shape_is_refused_and_nothing_is_assigned(tmp_path):
    model, _ = _same_model_here(tmp_path)
    model.save_weights(tmp_path / "w.weights.h5")
    other = rt.keras.Sequential(
        [rt.keras.layers.Dense(3, input_shape=(4,)), rt.keras.layers.Dense(2)]
    )
    before = other.get_weights()
    with pytest.raises(ValueError, match=r"has shape \(3, 2\).*holds shape \(3, 1\)"):
        other.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(before, other.get_weights()):
        np.testing.assert_array_equal(a, b)  # the first layer's weights matched: not assigned


def test_a_subclassed_model_and_layer_registered_round_trip(tmp_path):
    @rt.keras.saving.register_keras_serializable(package="Test")
    class Scale(rt.keras.layers.Layer):
        def __init__(self, factor=1.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w * self.factor

    rt.keras.backend.clear_session()
    model = rt.keras.Sequential([Scale(3.0, input_shape=(2,)), rt.keras.layers.Dense(1)])
    model.layers[0].w.assign([2.0, -1.0])
    model.save(tmp_path / "s.keras")
    loaded = rt.keras.models.load_model(tmp_path / "s.keras")
    assert type(loaded.layers[0]) is Scale and loaded.layers[0].factor == 3.0
    x = np.array([[1.0, 2.0]], np.float32)
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)


def test_model_save_without_an_extension_still_writes_a_saved_model(tmp_path):
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(2,))])
    model.save(str(tmp_path / "m"))
    assert (tmp_path / "m" / "saved_model.json").exists()


def test_skip_mismatch_skips_the_layer_that_does_not_fit_and_loads_the_others(tmp_path):
    model, _ = _same_model_here(tmp_path)
    model.save_weights(tmp_path / "w.weights.h5")
    other = rt.keras.Sequential(
        [rt.keras.layers.Dense(3, input_shape=(4,)), rt.keras.layers.Dense(2)]
    )
    second = other.layers[1].get_weights()
    with pytest.warns(UserWarning, match="Skipping loading weights for '/layers/dense_1'"):
        other.load_weights(tmp_path / "w.weights.h5", skip_mismatch=True)
    np.testing.assert_array_equal(
        other.layers[0].get_weights()[0], model.layers[0].get_weights()[0]
    )
    np.testing.assert_array_equal(other.layers[1].get_weights()[0], second[0])


def test_save_to_a_directory_refuses_keras_only_arguments(tmp_path):
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(TypeError, match="zipped"):
        model.save(str(tmp_path / "m"), zipped=False)


@pytest.mark.parametrize("name", ALL)
def test_a_loaded_model_writes_the_config_keras_wrote(name):
    rt.keras.backend.clear_session()
    model = rt.keras.models.load_model(FIXTURES / f"{name}.keras", compile=False)
    keras_config, _, _ = _members(FIXTURES / f"{name}.keras")
    config = rt.keras.saving.serialize_keras_object(model)
    assert _layer_keys(config) == _layer_keys(keras_config)
    for ours, theirs in zip(config["config"]["layers"], keras_config["config"]["layers"]):
        assert ours["module"] == theirs["module"]
        assert ours.get("build_config") == theirs.get("build_config")


def test_a_functional_config_is_handed_to_model_from_config(monkeypatch):
    calls = []
    monkeypatch.setattr(
        rt.keras.Model, "from_config", classmethod(lambda cls, config: calls.append(config))
    )
    for class_name in ("Functional", "Model"):
        config = {"module": "keras", "class_name": class_name, "config": {"layers": []}}
        rt.keras.saving.deserialize_keras_object(config)
    assert calls == [{"layers": []}, {"layers": []}]
