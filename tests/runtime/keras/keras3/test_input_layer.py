"""Keras 3's keras/src/layers/core/input_layer_test.py, ported to ``rt.keras``."""

import numpy as np
import pytest

import runtime as rt

InputLayer = rt.keras.layers.InputLayer
KerasTensor = rt.keras.KerasTensor


@pytest.mark.parametrize("sparse, ragged", [(False, False), (True, False), (False, True)])
def test_input_basic(sparse, ragged):
    input_shape = (2, 3)
    batch_size = 4
    dtype = "float32"
    ndim = len((batch_size, *input_shape))
    init_kwargs = {
        "shape": input_shape,
        "batch_size": batch_size,
        "dtype": dtype,
        "sparse": sparse,
        "ragged": ragged,
    }
    # Like the JAX and NumPy backends, no sparse or ragged tensors here.
    if sparse:
        with pytest.raises(ValueError, match="`sparse=True` is not supported"):
            InputLayer(**init_kwargs)
        return
    if ragged:
        with pytest.raises(ValueError, match="`ragged=True` is not supported"):
            InputLayer(**init_kwargs)
        return
    values = InputLayer(**init_kwargs)
    assert values.dtype == dtype
    assert values.batch_shape[0] == batch_size
    assert values.batch_shape[1:] == input_shape
    assert values.sparse == sparse
    assert values.ragged == ragged
    assert values.trainable is True
    assert isinstance(values.output, KerasTensor)
    assert values.output.ndim == ndim
    assert values.output.dtype == dtype
    assert values.output.sparse == sparse
    assert values.output.ragged == ragged


def test_input_error1():
    input_shape = (2, 3)
    with pytest.raises(ValueError, match="cannot pass both `shape` and `batch_shape`"):
        InputLayer(shape=input_shape, batch_shape=input_shape)


def test_input_error2():
    with pytest.raises(ValueError, match="cannot pass both `batch_size` and `batch_shape`"):
        InputLayer(batch_size=4, batch_shape=(2, 3))


def test_input_error3():
    with pytest.raises(ValueError, match="pass a `shape` argument."):
        InputLayer(shape=None, batch_shape=None)


def test_input_tensor_error():
    with pytest.raises(ValueError, match="Argument `input_tensor` must be a KerasTensor"):
        InputLayer(shape=(2, 3), batch_size=4, input_tensor=np.zeros((2, 3)))


def test_input_tensor():
    input_tensor = KerasTensor(shape=(2, 3), dtype="float32")
    layer = InputLayer(input_tensor=input_tensor)
    assert layer.dtype == "float32"
    assert layer.batch_shape == (2, 3)
    assert layer.trainable is True
    assert isinstance(layer.output, KerasTensor)
    assert layer.output is input_tensor
    assert layer.output.ndim == input_tensor.ndim
    assert layer.output.dtype == "float32"


def test_input_shape_deprecated():
    with pytest.warns(UserWarning, match="Argument `input_shape` is deprecated. Use `shape`"):
        layer = InputLayer(input_shape=(2, 3), batch_size=4, dtype="float32")
    assert layer.batch_shape[0] == 4
    assert layer.batch_shape[1:] == (2, 3)
    assert layer.dtype == "float32"
    assert isinstance(layer.output, KerasTensor)


def test_call_method():
    layer = InputLayer(shape=(32,))
    assert layer.call() is None


def test_numpy_shape():
    # Non-Python int sizes are fine.
    assert InputLayer(shape=(np.int64(32),)).batch_shape == (None, 32)


def test_invalid_arg_combinations():
    input_tensor = KerasTensor(shape=(2, 3), dtype="float32")
    with pytest.raises(ValueError, match="cannot provide an incompatible `shape`"):
        InputLayer(shape=(2, 4), input_tensor=input_tensor)
    with pytest.raises(ValueError, match="cannot provide an incompatible `batch_shape`"):
        InputLayer(batch_shape=(2, 4), input_tensor=input_tensor)
    with pytest.raises(ValueError, match="cannot provide an incompatible `batch_size`"):
        InputLayer(batch_size=5, input_tensor=input_tensor)
    with pytest.raises(ValueError, match="cannot provide an incompatible `dtype`"):
        InputLayer(dtype="float16", input_tensor=input_tensor)
    with pytest.raises(ValueError, match="cannot provide an incompatible `sparse`"):
        InputLayer(sparse=True, input_tensor=input_tensor)
    # This works.
    InputLayer(shape=(3,), batch_size=2, sparse=False, dtype="float32", input_tensor=input_tensor)


# --- beyond the port: Input, its config -----------------------------------------------------


def test_input_function_and_config_round_trip():
    rt.keras.backend.clear_session()
    x = rt.keras.Input(shape=(3, None), batch_size=5, dtype="int32", name="ids")
    assert (x.shape, x.dtype, x.name) == ((5, 3, None), "int32", "ids")
    layer = x._keras_history.operation
    config = layer.get_config()
    assert config == {
        "batch_shape": (5, 3, None),
        "dtype": "int32",
        "sparse": False,
        "ragged": False,
        "name": "ids",
        "optional": False,
    }
    again = InputLayer.from_config(config)
    assert (again.batch_shape, again.dtype, again.name) == ((5, 3, None), "int32", "ids")


def test_keras_tensor_has_no_value():
    x = rt.keras.Input(shape=(2,))
    with pytest.raises(ValueError, match="doesn't have any actual numerical value"):
        x.numpy()
    with pytest.raises(NotImplementedError, match="Iterating over a symbolic KerasTensor"):
        iter(x)
