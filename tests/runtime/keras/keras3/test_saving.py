"""Ported from Keras 3's keras/src/saving/{object_registration,serialization_lib,saving_api,
saving_lib}_test.py: the same programs and expected values, with rt.keras's names (public API
only). Cases rt.keras does not pass are marked xfail (strict) with the reason."""

import json
import os
import threading

import numpy as np
import pytest

import runtime as rt
from tests.extras import import_extra

h5py = import_extra("h5py")
keras = rt.keras
saving = rt.keras.saving


# --- object_registration_test -------------------------------------------------------------------


@pytest.mark.xfail(
    strict=True, reason="activations.get and regularizers.get do not read custom_object_scope"
)
def test_custom_object_scope():
    def custom_fn():
        pass

    class CustomClass:
        pass

    def check_get_in_thread():
        with saving.custom_object_scope({"CustomClass": CustomClass, "custom_fn": custom_fn}):
            assert keras.activations.get("custom_fn") is custom_fn
            assert keras.regularizers.get("CustomClass").__class__ is CustomClass

    with saving.custom_object_scope({"CustomClass": CustomClass, "custom_fn": custom_fn}):
        assert keras.activations.get("custom_fn") is custom_fn
        assert keras.regularizers.get("CustomClass").__class__ is CustomClass
        thread = threading.Thread(target=check_get_in_thread)
        thread.start()
        thread.join()


def test_serialize_custom_class_with_default_name():
    @saving.register_keras_serializable()
    class TestClass:
        def __init__(self, value):
            self._value = value

        def get_config(self):
            return {"value": self._value}

        @classmethod
        def from_config(cls, config):
            return cls(**config)

    inst = TestClass(value=10)
    assert saving.get_registered_name(TestClass) == "Custom>TestClass"
    config = saving.serialize_keras_object(inst)
    assert config["class_name"] == "TestClass"
    new_inst = saving.deserialize_keras_object(config)
    assert new_inst is not inst and isinstance(new_inst, TestClass)
    assert new_inst._value == 10


def test_serialize_custom_class_with_custom_name():
    @saving.register_keras_serializable("TestPackage", "CustomName")
    class OtherTestClass:
        def __init__(self, val):
            self._val = val

        def get_config(self):
            return {"val": self._val}

        @classmethod
        def from_config(cls, config):
            return cls(**config)

    inst = OtherTestClass(val=5)
    class_name = saving.get_registered_name(OtherTestClass)
    assert class_name == "TestPackage>CustomName"
    assert saving.get_registered_object(class_name) is OtherTestClass
    config = saving.serialize_keras_object(inst)
    assert config["class_name"] == "OtherTestClass"
    new_inst = saving.deserialize_keras_object(config)
    assert new_inst is not inst and isinstance(new_inst, OtherTestClass)
    assert new_inst._val == 5


def test_serialize_custom_function():
    @saving.register_keras_serializable()
    def my_fn():
        return 42

    assert saving.get_registered_name(my_fn) == "Custom>my_fn"
    config = saving.serialize_keras_object(my_fn)
    assert saving.deserialize_keras_object(config)() == 42
    assert saving.get_registered_object("Custom>my_fn")() == 42


def test_serialize_custom_class_without_get_config_fails():
    with pytest.raises(ValueError, match="Cannot register a class that does not have a get_config"):

        @saving.register_keras_serializable("TestPackage", "TestClass")
        class TestClass:
            def __init__(self, value):
                self._value = value


# --- serialization_lib_test ---------------------------------------------------------------------


def custom_fn(x):
    return x**2


class CustomLayer(keras.layers.Layer):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {"factor": self.factor}


class NestedCustomLayer(keras.layers.Layer):
    def __init__(self, factor, dense=None, activation=None):
        super().__init__()
        self.factor = factor
        if dense is None:
            self.dense = keras.layers.Dense(1, activation=custom_fn)
        else:
            self.dense = saving.deserialize_keras_object(dense)
        self.activation = saving.deserialize_keras_object(activation)

    def call(self, x):
        return self.dense(x * self.factor)

    def get_config(self):
        return {"factor": self.factor, "dense": self.dense, "activation": self.activation}


def roundtrip(obj, custom_objects=None, safe_mode=True):
    serialized = saving.serialize_keras_object(obj)
    json_data = json.loads(json.dumps(serialized))
    deserialized = saving.deserialize_keras_object(
        json_data, custom_objects=custom_objects, safe_mode=safe_mode
    )
    return serialized, deserialized, saving.serialize_keras_object(deserialized)


@pytest.mark.parametrize(
    "obj",
    [
        "hello",
        b"hello",
        np.array([0, 1]),
        np.array([0.0, 1.0]),
        np.float32(1.0),
        ["hello", 0, "world", 1.0, True],
        {"1": "hello", "2": 0, "3": True},
        {"1": "hello", "2": [True, False]},
        slice(None, 20, 1),
        slice(None, np.array([0, 1]), 1),
    ],
)
def test_simple_objects(obj):
    serialized, _, reserialized = roundtrip(obj)
    assert serialized == reserialized


def test_builtin_layers():
    layer = keras.layers.Dense(3, name="foo", trainable=False, dtype="float16")
    serialized, restored, reserialized = roundtrip(layer)
    assert serialized == reserialized
    assert (restored.name, restored.trainable) == (layer.name, layer.trainable)
    x = np.ones((1, 2), np.float16)
    assert restored(x).dtype == layer(x).dtype == rt.float16


def test_serialize_ellipsis():
    _, deserialized, _ = roundtrip(Ellipsis)
    assert deserialized is Ellipsis


def test_tensors_and_shapes():
    x = rt.random.normal((2, 2), dtype=rt.float64)
    _, new_obj, _ = roundtrip({"x": x})
    np.testing.assert_allclose(new_obj["x"], x.numpy(), atol=1e-5)
    _, new_obj, _ = roundtrip({"x.shape": x.shape})
    assert tuple(new_obj["x.shape"]) == tuple(x.shape)


def test_custom_fn():
    serialized, _, reserialized = roundtrip(
        {"activation": custom_fn}, custom_objects={"custom_fn": custom_fn}
    )
    assert serialized == reserialized
    dense = keras.layers.Dense(1, activation=custom_fn)
    dense.build((None, 2))
    _, new_dense, _ = roundtrip(dense, custom_objects={"custom_fn": custom_fn})
    x = rt.random.normal((2, 2))
    y1 = dense(x)
    new_dense(x)
    new_dense.set_weights(dense.get_weights())
    np.testing.assert_allclose(new_dense(x).numpy(), y1.numpy(), atol=1e-5)


def test_custom_layer():
    layer = CustomLayer(factor=2)
    x = rt.random.normal((2, 2))
    _, new_layer, _ = roundtrip(layer, custom_objects={"CustomLayer": CustomLayer})
    np.testing.assert_allclose(new_layer(x).numpy(), layer(x).numpy(), atol=1e-5)

    layer = NestedCustomLayer(factor=2)
    y1 = layer(x)
    _, new_layer, _ = roundtrip(
        layer, custom_objects={"NestedCustomLayer": NestedCustomLayer, "custom_fn": custom_fn}
    )
    new_layer(x)
    new_layer.set_weights(layer.get_weights())
    np.testing.assert_allclose(new_layer(x).numpy(), y1.numpy(), atol=1e-5)


def test_lambda_fn():
    obj = {"activation": lambda x: x**2}
    with pytest.raises(ValueError, match="arbitrary code execution"):
        roundtrip(obj, safe_mode=True)
    _, new_obj, _ = roundtrip(obj, safe_mode=False)
    assert obj["activation"](3) == new_obj["activation"](3)


def test_lambda_layer():
    lmbda = keras.layers.Lambda(lambda x: x**2)
    with pytest.raises(ValueError, match="arbitrary code execution"):
        roundtrip(lmbda, safe_mode=True)
    _, new_lmbda, _ = roundtrip(lmbda, safe_mode=False)
    x = rt.random.normal((2, 2))
    np.testing.assert_allclose(new_lmbda(x).numpy(), lmbda(x).numpy(), atol=1e-5)


def test_deserialize_invalid_type_config():
    with pytest.raises(TypeError, match="Expected 'config' to be a dict"):
        saving.deserialize_keras_object({"class_name": "Dense", "config": [1, 2, 3]})


def test_deserialize_invalid_function_config():
    with pytest.raises(TypeError, match="Expected 'config' to be a non-null str"):
        saving.deserialize_keras_object(
            {"class_name": "function", "config": ["not", "a", "string"]}
        )


# --- saving_api_test ----------------------------------------------------------------------------


def get_model(dtype=None):
    return keras.Sequential(
        [keras.layers.Dense(5, input_shape=(3,), dtype=dtype), keras.layers.Softmax()]
    )


def test_basic_saving(tmp_path):
    model = get_model()
    filepath = os.path.join(tmp_path, "test_model.keras")
    saving.save_model(model, filepath)
    loaded_model = saving.load_model(filepath)
    x = np.random.uniform(size=(10, 3))
    assert np.allclose(model.predict(x), loaded_model.predict(x))


def test_unsupported_arguments(tmp_path):
    model = keras.Sequential([keras.layers.Dense(5, input_shape=(3,))])
    with pytest.raises(ValueError, match=r"The following argument\(s\) are not supported"):
        saving.save_model(model, os.path.join(tmp_path, "test_model.keras"), random_arg=True)


def test_save_unsupported_extension():
    model = keras.Sequential([keras.layers.Dense(5, input_shape=(3,))])
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        saving.save_model(model, "model.png")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_basic_load(tmp_path, dtype):
    model = get_model(dtype)
    filepath = os.path.join(tmp_path, "test_model.keras")
    saving.save_model(model, filepath)
    loaded_model = saving.load_model(filepath)
    x = np.random.uniform(size=(10, 3))
    assert loaded_model.weights[0].dtype.name == dtype
    assert np.allclose(model.predict(x), loaded_model.predict(x))


def test_load_unsupported_format():
    with pytest.raises(ValueError, match="File format not supported"):
        saving.load_model("model.pkl")


def test_load_keras_not_zip():
    with pytest.raises(ValueError, match="File not found"):
        saving.load_model("not_a_zip.keras")


def test_load_model_with_custom_objects(tmp_path):
    class CustomLayer(keras.layers.Layer):
        def call(self, inputs):
            return inputs

    model = keras.Sequential([CustomLayer(input_shape=(3,))])
    filepath = os.path.join(tmp_path, "custom_model.keras")
    model.save(filepath)
    loaded_model = saving.load_model(filepath, custom_objects={"CustomLayer": CustomLayer})
    assert isinstance(loaded_model.layers[0], CustomLayer)


@pytest.mark.parametrize("save_format", ["keras", "weights.h5"])
def test_load_weights(tmp_path, save_format):
    model = keras.Sequential([keras.layers.Dense(5, input_shape=(3,))])
    filepath = os.path.join(tmp_path, f"test_weights.{save_format}")
    if save_format == "keras":
        model.save(filepath)
    else:
        model.save_weights(filepath)
    new_model = keras.Sequential([keras.layers.Dense(5, input_shape=(3,))])
    new_model.load_weights(filepath)
    for a, b in zip(model.get_weights(), new_model.get_weights()):
        np.testing.assert_allclose(b, a)


def test_save_weights_needs_the_weights_h5_extension(tmp_path):
    model = keras.Sequential([keras.layers.Dense(5, input_shape=(3,))])
    with pytest.raises(ValueError, match=r"The filename must end in `\.weights\.h5`"):
        model.save_weights(os.path.join(tmp_path, "weights.h5x"))


# --- saving_lib_test (the cases on public names) ----------------------------------------------


@saving.register_keras_serializable(package="my_custom_package")
class MyDense(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.additional_weights = [
            self.add_weight(shape=(), name="my_additional_weight", initializer="ones")
        ]
        self.weights_in_dict = {
            "my_weight": self.add_weight(shape=(), name="my_dict_weight", initializer="ones")
        }
        self.nested_layer = keras.layers.Dense(self.units, name="dense")

    def call(self, inputs):
        return self.nested_layer(inputs)


@saving.register_keras_serializable(package="my_custom_package")
class CustomModelX(keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.dense1 = MyDense(1, name="my_dense_1")
        self.dense2 = MyDense(1, name="my_dense_2")

    def call(self, inputs):
        return self.dense2(self.dense1(inputs))

    def one(self):
        return 1


def _train(model):
    model.compile(optimizer="adam", loss="mse")
    x, y = np.random.random((4, 32)), np.random.random((4, 1))
    model.fit(x, y, verbose=0)
    return x


def test_saving_after_fit_subclassed_model(tmp_path):
    model = CustomModelX()
    x = _train(model)
    temp_filepath = os.path.join(tmp_path, "my_model.keras")
    model.save(temp_filepath)
    loaded = saving.load_model(temp_filepath)
    assert model._is_compiled and loaded._is_compiled
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(b, a)
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    assert loaded.one() == 1


def test_saving_preserve_unbuilt_state(tmp_path):
    temp_filepath = os.path.join(tmp_path, "my_model.keras")
    subclassed_model = CustomModelX()
    subclassed_model.save(temp_filepath)
    loaded = saving.load_model(temp_filepath)
    assert subclassed_model.built is False and loaded.built is False


def test_saved_model_has_the_metadata(tmp_path):
    import zipfile

    model = CustomModelX()
    _train(model)
    temp_filepath = os.path.join(tmp_path, "my_model.keras")
    model.save(temp_filepath)
    with zipfile.ZipFile(temp_filepath) as archive:
        metadata = json.loads(archive.read("metadata.json"))
        config = json.loads(archive.read("config.json"))
    assert "keras_version" in metadata and "date_saved" in metadata
    assert config["registered_name"] == "my_custom_package>CustomModelX"
    assert config["compile_config"]["loss"] == "mse"


def test_a_lambda_keeps_its_defaults_and_closure_when_safe_mode_is_off():
    """Not in Keras's tests: Keras's lambda form carries defaults and closure values."""
    offset = 3
    fn = lambda x, scale=2: x * scale + offset  # noqa: E731
    _, new_fn, _ = roundtrip(fn, safe_mode=False)
    assert new_fn(5) == fn(5) == 13
