"""Keras 3's keras/src/layers/merging/merging_test.py, ported to ``rt.keras``.

Left out: ``test_sparse`` (no sparse tensors here; Keras skips it on such backends too).
"""

import numpy as np
import pytest

import autograph as ag
import runtime as rt

layers = rt.keras.layers
models = rt.keras.models


def np_dot(a, b, axes):
    if isinstance(axes, int):
        axes = (axes, axes)
    axes = [axis if axis < 0 else axis - 1 for axis in axes]
    res = np.stack([np.tensordot(a[i], b[i], axes) for i in range(a.shape[0])])
    if len(res.shape) == 1:
        res = np.expand_dims(res, axis=1)
    return res


CASES = {
    "add": dict(layer_class=layers.Add, np_op=np.add),
    "subtract": dict(layer_class=layers.Subtract, np_op=np.subtract),
    "minimum": dict(layer_class=layers.Minimum, np_op=np.minimum),
    "maximum": dict(layer_class=layers.Maximum, np_op=np.maximum),
    "multiply": dict(layer_class=layers.Multiply, np_op=np.multiply),
    "average": dict(layer_class=layers.Average, np_op=lambda a, b: np.multiply(np.add(a, b), 0.5)),
    "concat": dict(
        layer_class=layers.Concatenate,
        np_op=lambda a, b, **kwargs: np.concatenate((a, b), **kwargs),
        init_kwargs={"axis": -1},
        expected_output_shape=(2, 4, 10),
    ),
    "dot_2d": dict(
        layer_class=layers.Dot,
        np_op=np_dot,
        init_kwargs={"axes": -1},
        input_shape=(2, 4),
        expected_output_shape=(2, 1),
        skip_mask_test=True,
    ),
    "dot_3d": dict(
        layer_class=layers.Dot,
        np_op=np_dot,
        init_kwargs={"axes": -1},
        expected_output_shape=(2, 4, 4),
        skip_mask_test=True,
    ),
}


def case(name):
    params = {
        "init_kwargs": {},
        "input_shape": (2, 4, 5),
        "expected_output_shape": (2, 4, 5),
        "skip_mask_test": False,
    }
    params.update(CASES[name])
    return params


@pytest.mark.parametrize("name", CASES)
def test_basic(name):
    # Keras' run_layer_test, by hand: the output shape eagerly and symbolically, no weights,
    # the config makes the same layer, training through it works.
    p = case(name)
    shape = p["input_shape"]
    layer = p["layer_class"](**p["init_kwargs"])
    x1, x2 = np.random.rand(*shape), np.random.rand(*shape)
    assert tuple(layer([x1, x2]).shape) == p["expected_output_shape"]
    assert layer.supports_masking
    assert layer.trainable_weights == [] and layer.non_trainable_weights == []
    symbolic = p["layer_class"](**p["init_kwargs"])(
        [layers.Input(batch_shape=shape), layers.Input(batch_shape=shape)]
    )
    assert symbolic.shape == p["expected_output_shape"]
    config = layer.get_config()
    again = (
        p["layer_class"].from_config(config)
        if hasattr(p["layer_class"], "from_config")
        else (p["layer_class"](**config))
    )
    assert again.get_config() == config
    # Training through it: a Dense on each input, a mean squared error, gradients flow.
    a = layers.Input(shape=shape[1:])
    b = layers.Input(shape=shape[1:])
    out = p["layer_class"](**p["init_kwargs"])(
        [layers.Dense(shape[-1])(a), layers.Dense(shape[-1])(b)]
    )
    model = models.Model([a, b], out)
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(model([x1, x2], training=True) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    assert len(grads) == 4 and all(g is not None for g in grads)


def _model_result(p, batch_size):
    shape = p["input_shape"][1:]
    x1 = np.random.rand(*p["input_shape"])
    x2 = np.random.rand(*p["input_shape"])
    x3 = p["np_op"](x1, x2, **p["init_kwargs"])
    input_1 = layers.Input(shape=shape, batch_size=batch_size)
    input_2 = layers.Input(shape=shape, batch_size=batch_size)
    layer = p["layer_class"](**p["init_kwargs"])
    out = layer([input_1, input_2])
    model = models.Model([input_1, input_2], out)
    res = model([x1, x2])
    assert tuple(res.shape) == p["expected_output_shape"]
    np.testing.assert_allclose(res.numpy(), x3, atol=1e-4, rtol=1e-6)
    assert layer.compute_mask([input_1, input_2], [None, None]) is None
    return layer, (input_1, input_2), (x1, x2)


@pytest.mark.parametrize("name", CASES)
def test_correctness_static(name):
    p = case(name)
    layer, _, (x1, x2) = _model_result(p, batch_size=p["input_shape"][0])
    assert layer.compute_mask([x1, x2], [None, None]) is None
    if not p["skip_mask_test"]:
        mask1 = np.ones(p["input_shape"][:-1], dtype=np.bool_)
        mask2 = np.ones(p["input_shape"][:-1], dtype=np.bool_)
        assert np.all(rt.convert_to_tensor(layer.compute_mask([x1, x2], [mask1, mask2])).numpy())


CONCAT_MASK_OF_KERAS_TENSORS = pytest.mark.xfail(
    strict=True, reason="Concatenate.compute_mask needs the inputs' values: not of KerasTensors"
)


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=CONCAT_MASK_OF_KERAS_TENSORS) if n == "concat" else n for n in CASES],
)
def test_correctness_dynamic(name):
    p = case(name)
    layer, inputs, (x1, x2) = _model_result(p, batch_size=None)
    if not p["skip_mask_test"]:
        masks = [rt.Variable(x1 > 0.5), rt.Variable(x2 > 0.5)]  # Keras: float variables
        merged = layer.compute_mask(list(inputs), masks)
        np.testing.assert_array_equal(merged.numpy(), (x1 > 0.5) | (x2 > 0.5))


@pytest.mark.parametrize("name", CASES)
def test_errors(name):
    p = case(name)
    if p["skip_mask_test"]:
        pytest.skip("Masking not supported")
    batch_size, *shape = p["input_shape"]
    x1 = np.random.rand(batch_size, *shape)
    input_1 = layers.Input(shape=shape, batch_size=batch_size)
    input_2 = layers.Input(shape=shape, batch_size=batch_size)
    layer = p["layer_class"](**p["init_kwargs"])
    with pytest.raises(ValueError, match="`mask` should be a list."):
        layer.compute_mask([input_1, input_2], x1)
    with pytest.raises(ValueError, match="`inputs` should be a list."):
        layer.compute_mask(input_1, [None, None])
    with pytest.raises(ValueError, match=" should have the same length."):
        layer.compute_mask([input_1, input_2], [None])


def test_subtract_layer_inputs_length_errors():
    shape = (4, 5)
    input_1 = layers.Input(shape=shape)
    input_2 = layers.Input(shape=shape)
    input_3 = layers.Input(shape=shape)
    with pytest.raises(ValueError, match="layer should be called on exactly 2 inputs"):
        layers.Subtract()([input_1, input_2, input_3])
    with pytest.raises(ValueError, match="layer should be called on exactly 2 inputs"):
        layers.Subtract()([input_1])


def test_dot_higher_dim():
    a_shape = (1, 3, 2)
    b_shape = (1, 1, 2, 3)
    a = layers.Input(batch_shape=a_shape)
    b = layers.Input(batch_shape=b_shape)
    c = layers.Dot(axes=(-2, -1))([a, b])
    assert c.shape == (1, 2, 1, 2)
    a = np.random.random(a_shape)
    b = np.random.random(b_shape)
    c = layers.Dot(axes=(-2, -1))([a, b])
    assert tuple(c.shape) == (1, 2, 1, 2)
    # The values, by numpy: a's axis 1 against b's last axis, per sample.
    expected = np.einsum("bkx,bpyk->bxpy", a, b)
    np.testing.assert_allclose(c.numpy(), expected, rtol=1e-5)


# Keras' expected outputs and masks of x1 (masked where all zero) merged with x2, unmasked and
# then masked too: (merge, output, output with both masked).
MASKED_MERGES = [
    ("Add", [[[0, 0], [1, 2], [1, 2], [6, 8]]], [[[0, 0], [1, 2], [1, 2], [6, 8]]]),
    ("Subtract", [[[0, 0], [1, 2], [-1, -2], [0, 0]]], [[[0, 0], [1, 2], [-1, -2], [0, 0]]]),
    ("Average", [[[0, 0], [0.5, 1], [0.5, 1], [3, 4]]], [[[0, 0], [0.5, 1], [0.5, 1], [3, 4]]]),
    ("Multiply", [[[0, 0], [0, 0], [1, 2], [9, 16]]], [[[0, 0], [1, 2], [1, 2], [9, 16]]]),
    ("Minimum", [[[0, 0], [0, 0], [1, 2], [3, 4]]], [[[0, 0], [1, 2], [1, 2], [3, 4]]]),
]


@pytest.mark.parametrize("merge, unmasked, masked", MASKED_MERGES)
def test_merge_with_mask(merge, unmasked, masked):
    mask = layers.Masking()
    x1 = mask(rt.convert_to_tensor([[[0, 0], [1, 2], [0, 0], [3, 4]]]))
    x2 = rt.convert_to_tensor([[[0, 0], [0, 0], [1, 2], [3, 4]]])
    output = getattr(layers, merge)()([x1, x2])
    np.testing.assert_allclose(output.numpy(), unmasked)
    assert rt.keras.backend.get_keras_mask(output) is None
    x2 = mask(x2)
    output = getattr(layers, merge)()([x1, x2])
    np.testing.assert_allclose(output.numpy(), masked)
    np.testing.assert_allclose(rt.keras.backend.get_keras_mask(output).numpy(), [[0, 1, 1, 1]])


def test_maximum_with_mask():
    mask = layers.Masking()
    x1 = mask(rt.convert_to_tensor([[[0, 0], [-1, -2], [0, 0], [-3, -4]]]))
    x2 = rt.convert_to_tensor([[[0, 0], [0, 0], [-1, -2], [-3, -4]]])
    output = layers.Maximum()([x1, x2])
    np.testing.assert_allclose(output.numpy(), [[[0, 0], [0, 0], [-1, -2], [-3, -4]]])
    assert rt.keras.backend.get_keras_mask(output) is None
    x2 = mask(x2)
    output = layers.Maximum()([x1, x2])
    np.testing.assert_allclose(output.numpy(), [[[0, 0], [-1, -2], [-1, -2], [-3, -4]]])
    np.testing.assert_allclose(rt.keras.backend.get_keras_mask(output).numpy(), [[0, 1, 1, 1]])


def test_concatenate_with_mask():
    mask = layers.Masking()
    x1 = mask(rt.convert_to_tensor([[[0, 0], [1, 2], [0, 0], [3, 4]]]))
    x2 = rt.convert_to_tensor([[[0, 0], [0, 0], [1, 2], [3, 4]]])
    output = layers.Concatenate(axis=1)([x1, x2])
    np.testing.assert_allclose(
        output.numpy(), [[[0, 0], [1, 2], [0, 0], [3, 4], [0, 0], [0, 0], [1, 2], [3, 4]]]
    )
    np.testing.assert_allclose(
        rt.keras.backend.get_keras_mask(output).numpy(), [[0, 1, 0, 1, 1, 1, 1, 1]]
    )
    output = layers.Concatenate(axis=2)([x1, x2])
    np.testing.assert_allclose(
        output.numpy(), [[[0, 0, 0, 0], [1, 2, 0, 0], [0, 0, 1, 2], [3, 4, 3, 4]]]
    )
    np.testing.assert_allclose(rt.keras.backend.get_keras_mask(output).numpy(), [[1, 1, 1, 1]])


def test_concatenate_with_mask_symbolic():
    input1 = layers.Input((4, 2))
    input2 = layers.Input((4, 2))
    mask = layers.Masking()
    output = layers.Concatenate(axis=1)([mask(input1), input2])
    model = models.Model(inputs=[input1, input2], outputs=rt.keras.backend.get_keras_mask(output))
    x1 = rt.convert_to_tensor([[[0, 0], [1, 2], [0, 0], [3, 4]]])
    x2 = rt.convert_to_tensor([[[0, 0], [0, 0], [1, 2], [3, 4]]])
    np.testing.assert_allclose(model([x1, x2]).numpy(), [[0, 1, 0, 1, 1, 1, 1, 1]])


def test_concatenate_errors():
    x1 = np.ones((1, 1, 1, 1, 5))
    x2 = np.ones((1, 1, 1, 1, 4))
    out = layers.Concatenate(axis=-1)([x1, x2])
    assert tuple(out.shape) == (1, 1, 1, 1, 9)
    x1 = np.ones((1, 2, 1, 1, 5))
    x2 = np.ones((1, 1, 1, 1, 4))
    with pytest.raises(
        ValueError, match="requires inputs with matching shapes except for the concatenation axis"
    ):
        layers.Concatenate(axis=-1)([x1, x2])
    x1 = np.ones((1, 2, 1, 2, 1))
    x2 = np.ones((1, 1, 1, 3, 1))
    with pytest.raises(
        ValueError, match="requires inputs with matching shapes except for the concatenation axis"
    ):
        layers.Concatenate(axis=1)([x1, x2])


# --- beyond the port ------------------------------------------------------------------------


def test_function_forms_match_numpy():
    a, b = np.random.rand(3, 4), np.random.rand(3, 4)
    checks = [
        (layers.add, a + b),
        (layers.subtract, a - b),
        (layers.multiply, a * b),
        (layers.average, (a + b) / 2),
        (layers.maximum, np.maximum(a, b)),
        (layers.minimum, np.minimum(a, b)),
        (layers.concatenate, np.concatenate([a, b], axis=-1)),
        (lambda xs: layers.dot(xs, axes=1), np.sum(a * b, axis=1, keepdims=True)),
    ]
    for function, expected in checks:
        np.testing.assert_allclose(function([a, b]).numpy(), expected, rtol=1e-5)


def test_broadcasting_as_keras():
    # Sizes 1 broadcast; a lower rank gets size-1 dimensions after the batch dimension.
    a, b = np.random.rand(2, 3, 4), np.random.rand(2, 1, 4)
    np.testing.assert_allclose(layers.Add()([a, b]).numpy(), a + b, rtol=1e-6)
    c = np.random.rand(2, 4)
    np.testing.assert_allclose(layers.Add()([a, c]).numpy(), a + c[:, None, :], rtol=1e-6)
    with pytest.raises(ValueError, match="Inputs have incompatible shapes"):
        layers.Add()([np.ones((2, 3)), np.ones((2, 4))])
    with pytest.raises(ValueError, match="Cannot merge tensors with different batch sizes"):
        layers.Add()([np.ones((2, 3)), np.ones((5, 3))])
    with pytest.raises(ValueError, match="should be called on a list of inputs"):
        layers.Add()(np.ones((2, 3)))


def test_dot_normalize_is_cosine_similarity():
    a, b = np.random.rand(3, 5), np.random.rand(3, 5)
    cosine = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    out = layers.Dot(axes=1, normalize=True)([a, b])
    np.testing.assert_allclose(out.numpy(), cosine[:, None], rtol=1e-5)
    assert layers.Dot(axes=(1, 2), normalize=True).get_config()["axes"] == (1, 2)
    with pytest.raises(TypeError, match="Invalid type for argument `axes`"):
        layers.Dot(axes="1")
    with pytest.raises(ValueError, match="should contain two elements"):
        layers.Dot(axes=(1, 2, 3))
    with pytest.raises(ValueError, match="Incompatible input shapes"):
        layers.Dot(axes=1)([np.ones((2, 3)), np.ones((2, 4))])


def test_merging_in_a_staged_function():
    rt.keras.backend.clear_session()
    a, b = layers.Input(shape=(3,)), layers.Input(shape=(3,))
    model = models.Model([a, b], layers.Dense(1)(layers.concatenate([a, layers.multiply([a, b])])))
    x1, x2 = np.random.rand(8, 3).astype("float32"), np.random.rand(8, 3).astype("float32")
    staged = ag.function(lambda u, v: model([u, v]))
    np.testing.assert_allclose(staged(x1, x2).numpy(), model([x1, x2]).numpy(), rtol=1e-6)
    kernel, bias = (w.numpy() for w in model.weights)
    expected = np.concatenate([x1, x1 * x2], axis=1) @ kernel + bias
    np.testing.assert_allclose(model([x1, x2]).numpy(), expected, rtol=1e-5)
