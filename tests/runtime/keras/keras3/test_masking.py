"""Keras masks flowing from layer to layer.

Ported from Keras 3's keras/src/layers/core/masking_test.py and the masking cases of
keras/src/layers/layer_test.py (the same programs and expected values, on ``rt.keras``), then
this library's own checks: a masked sequence gives what the shorter sequence gives (eagerly,
in ``ag.function``, in the functional API, in a staged ``fit``), and compile's loss and metrics
leave the masked entries out."""

import os
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.keras import backend, layers, models
from tests.extras import import_extra
from tests.runtime.keras.keras3 import layer_testing as testing


@pytest.fixture(autouse=True)
def _fresh_names():
    backend.clear_session()


# --- keras/src/layers/core/masking_test.py ------------------------------------------------


class TestMasking(testing.TestCase):
    def test_masking_basics(self):
        self.run_layer_test(
            layers.Masking,
            init_kwargs={"mask_value": 0.0},
            input_shape=(2, 3, 2),
            expected_output_shape=(2, 3, 2),
            expected_num_trainable_weights=0,
            expected_num_non_trainable_weights=0,
            expected_num_seed_generators=0,
            expected_num_losses=0,
            supports_masking=True,
            assert_built_after_instantiation=True,
        )
        assert layers.Masking().built

    def test_masking_correctness(self):
        x = np.array(
            [
                [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]],
                [[2.0, 2.0], [0.0, 0.0], [2.0, 1.0]],
            ]
        )
        expected_mask = [[False, True, False], [True, False, True]]

        layer = layers.Masking(mask_value=0.0)
        self.assertAllClose(layer.compute_mask(x), expected_mask)

        seen = []

        class TestLayer(layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.supports_masking = True

            def compute_output_shape(self, input_shape):
                return input_shape

            def call(self, inputs, mask=None):
                assert mask is not None
                seen.append(mask)
                return inputs

        model = models.Sequential([layers.Masking(mask_value=0.0), TestLayer()])
        model(x)
        self.assertAllClose(seen[-1], expected_mask)

    def test_masking_with_tensor(self, tmp_path):
        import_extra("h5py")
        model = models.Sequential([layers.Masking(mask_value=0.0), layers.LSTM(1)])
        x = np.array(
            [
                [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]],
                [[2.0, 2.0], [2.0, 1.0], [0.0, 0.0]],
            ]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Keras 3's LSTM does not pass the mask on
            before = model(x).numpy()
            path = os.path.join(tmp_path, "model.keras")
            model.save(path)
            reloaded = rt.keras.models.load_model(path)
            np.testing.assert_allclose(reloaded(x).numpy(), before, rtol=1e-6)


# --- keras/src/layers/layer_test.py: the masking cases ----------------------------------


def test_keras_mask_with_autocast():
    seen = []

    class CustomLayer(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, x, mask=None):
            assert mask is not None
            seen.append(x.dtype.name)
            return x

    x = rt.zeros((1, 2), dtype="float32")
    mask = rt.constant([True, False])
    backend.set_keras_mask(x, mask)
    y = CustomLayer(dtype="float16")(x)
    assert seen == ["float16"]  # cast to the layer's dtype, its mask kept
    np.testing.assert_array_equal(backend.get_keras_mask(y).numpy(), [True, False])


def test_end_to_end_masking():
    # The mask survives compilation: the masked steps' targets do not count.
    model = models.Sequential(
        [layers.Embedding(2, 2, mask_zero=True, embeddings_initializer="ones")]
    )
    model.compile(loss="mse")
    targets = np.array([[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [1.0, 1.0]]])
    loss = model.evaluate(np.array([[1, 0, 0, 1]]), targets, verbose=0)
    np.testing.assert_allclose(loss, 0.0, atol=1e-7)


def _masked_ones(shape, mask_shape):
    x = rt.ones(shape)
    backend.set_keras_mask(x, rt.ones(mask_shape))
    return x


def test_masking_layer_cases():
    class BasicMaskedLayer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

        def call(self, x, mask=None):
            assert mask is not None
            return x

    layer = BasicMaskedLayer()
    layer(_masked_ones((4, 4), (4,)))
    layer(rt.ones((4, 4)), mask=rt.ones((4,)))

    class NestedInputMaskedLayer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

        def call(self, x, mask=None):
            assert isinstance(x, list) and len(x) == 2
            assert isinstance(mask, list) and len(mask) == 2
            return x

    layer = NestedInputMaskedLayer()
    x1, x2 = _masked_ones((4, 4), (4,)), _masked_ones((4, 4), (4,))
    layer([x1, x2])
    layer([rt.ones((4, 4)), rt.ones((4, 4))], mask=[rt.ones((4,)), rt.ones((4,))])

    class PositionalInputsMaskedLayer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

        def call(self, x1, x2, x1_mask=None, x2_mask=None):
            assert x1_mask is not None and x2_mask is not None
            return x1 + x2

    PositionalInputsMaskedLayer()(x1, x2)

    class PositionalNestedInputsMaskedLayer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

        def call(self, x1, x2, x1_mask=None, x2_mask=None):
            assert isinstance(x1, tuple)
            assert x1_mask is not None and x2_mask is not None
            assert isinstance(x1_mask, tuple)
            return x1[0] + x1[1] + x2

    x1_1, x1_2 = _masked_ones((4, 4), (4,)), _masked_ones((4, 4), (4,))
    PositionalNestedInputsMaskedLayer()((x1_1, x1_2), _masked_ones((4, 4), (4,)))

    class MaskUnsetDuringCallLayer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

        def call(self, x, mask=None):
            assert mask is not None
            backend.set_keras_mask(x, None)  # unset: the mask taken before the call stays
            return x

    x = rt.ones((4, 4))
    mask = rt.ones((4,))
    backend.set_keras_mask(x, mask)
    y = MaskUnsetDuringCallLayer()(x)
    np.testing.assert_allclose(backend.get_keras_mask(y).numpy(), mask.numpy())


@pytest.mark.xfail(
    strict=True, reason="a layer's inputs are given by position here (Keras also by keyword)"
)
def test_masking_inputs_given_by_keyword():
    class PositionalInputsMaskedLayer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

        def call(self, x1, x2, x1_mask=None, x2_mask=None):
            assert x1_mask is not None and x2_mask is not None
            return x1 + x2

    PositionalInputsMaskedLayer()(x1=_masked_ones((4, 4), (4,)), x2=_masked_ones((4, 4), (4,)))


def test_masking_with_explicit_kwarg_propagation():
    class PassthroughMaskLayer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

        def call(self, x, mask=None):
            self.used_mask = mask is not None
            return x

    layer = PassthroughMaskLayer()
    x = rt.ones((4, 4))
    assert backend.get_keras_mask(x) is None
    explicit_mask = rt.constant([True, True, False, False])
    y = layer(x, mask=explicit_mask)
    assert layer.used_mask
    np.testing.assert_array_equal(backend.get_keras_mask(y).numpy(), explicit_mask.numpy())


# --- beyond the port ------------------------------------------------------------------------

IDS = np.array([[1, 2, 3, 0, 0, 0], [4, 5, 6, 7, 8, 9]])


def _quiet(function, *args):
    """Keras 3 warns that an LSTM drops the mask it is given (its supports_masking is False)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args)


@pytest.mark.parametrize("recurrent", [layers.LSTM, layers.GRU, layers.SimpleRNN])
def test_padded_sequence_as_the_short_one_in_sequential(recurrent):
    embedding = layers.Embedding(10, 4, mask_zero=True)
    rnn = recurrent(3)
    model = models.Sequential([layers.Input((6,), dtype="int32"), embedding, rnn])
    short = _quiet(lambda: rnn(embedding(IDS[:1, :3])).numpy())
    np.testing.assert_allclose(_quiet(model, IDS).numpy()[:1], short, atol=1e-6)
    staged = ag.function(lambda x: model(x))
    np.testing.assert_allclose(_quiet(staged, rt.constant(IDS)).numpy()[:1], short, atol=1e-6)


def test_padded_sequence_in_the_functional_api_and_bidirectional():
    inputs = layers.Input((6,), dtype="int32")
    embedding = layers.Embedding(10, 4, mask_zero=True)
    wrapped = layers.Bidirectional(layers.GRU(3))
    model = models.Model(inputs, _quiet(lambda: wrapped(embedding(inputs))))
    short = _quiet(lambda: wrapped(embedding(IDS[:1, :3])).numpy())
    np.testing.assert_allclose(_quiet(model, IDS).numpy()[:1], short, atol=1e-6)


def test_keras_tensors_carry_masks():
    inputs = layers.Input((6,), dtype="int32")
    embedded = layers.Embedding(10, 4, mask_zero=True)(inputs)
    mask = backend.get_keras_mask(embedded)
    assert mask.shape == (None, 6) and mask.dtype == "bool"
    dense = layers.Dense(2)(embedded)  # supports masking: passes it on
    assert backend.get_keras_mask(dense).shape == (None, 6)
    assert backend.get_keras_mask(layers.Flatten()(inputs)) is None
    model = models.Model(inputs, [dense, backend.get_keras_mask(dense)])
    _, mask_value = model(IDS)
    np.testing.assert_array_equal(mask_value.numpy(), IDS != 0)


def test_masked_loss_and_metrics_in_fit():
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    y = np.arange(8, dtype="float32").reshape(2, 4, 1)
    keep = ids != 0
    for run_eagerly in (True, False):
        backend.clear_session()
        inputs = layers.Input((4,), dtype="int32")
        embedded = layers.Embedding(5, 2, mask_zero=True)(inputs)
        model = models.Model(inputs, layers.Dense(1)(embedded))
        model.compile("sgd", "mse", metrics=["mae"], run_eagerly=run_eagerly)
        error = (model(ids).numpy() - y)[..., 0]
        logs = model.evaluate(ids, y, verbose=0, return_dict=True)
        # The mean over the steps the mask keeps: 3 of them.
        np.testing.assert_allclose(logs["loss"], np.mean(error[keep] ** 2), rtol=1e-5)
        np.testing.assert_allclose(logs["mae"], np.mean(np.abs(error[keep])), rtol=1e-5)
        history = model.fit(ids, y, epochs=1, verbose=0, batch_size=2)
        np.testing.assert_allclose(history.history["loss"][0], logs["loss"], rtol=1e-5)


def test_loss_reads_the_mask_of_the_predictions():
    # One sequence of 3 steps, 1 feature: the losses are per step, as the mask.
    y_true = rt.constant([[[1.0], [2.0], [3.0]]])
    y_pred = rt.constant([[[2.0], [2.0], [7.0]]])
    backend.set_keras_mask(y_pred, rt.constant([[True, True, False]]))
    # Keras 3: the mean over the kept steps, (1 + 0) / 2; the last step's 4 left out.
    np.testing.assert_allclose(rt.keras.losses.MeanAbsoluteError()(y_true, y_pred), 0.5)
    np.testing.assert_allclose(rt.keras.losses.MeanSquaredError()(y_true, y_pred), 0.5)
    # A new tensor made from it has no mask: every step counts, (1 + 0 + 16) / 3.
    np.testing.assert_allclose(rt.keras.losses.MeanSquaredError()(y_true, y_pred * 1), 17 / 3)


def test_global_average_pooling_and_softmax_read_the_mask():
    x = np.array([[[1.0, 2.0], [3.0, 4.0], [0.0, 0.0]]])
    masked = layers.Masking()(x)
    pooled = layers.GlobalAveragePooling1D()(masked)
    np.testing.assert_allclose(pooled.numpy(), [[2.0, 3.0]])  # the mean of the 2 kept steps
    assert backend.get_keras_mask(pooled) is None

    scores = rt.constant([[1.0, 2.0, 5.0]])
    backend.set_keras_mask(scores, rt.constant([[True, True, False]]))
    probabilities = layers.Softmax()(scores).numpy()
    expected = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    np.testing.assert_allclose(probabilities, [[*expected, 0.0]], rtol=1e-6)


def test_lambda_mask_and_a_layer_that_drops_the_mask():
    x = rt.ones((2, 3))
    masked = layers.Lambda(lambda t: t * 2, mask=lambda t, m: t[:, 0] > 0)(x)
    np.testing.assert_array_equal(backend.get_keras_mask(masked).numpy(), [True, True])
    assert not layers.Lambda(lambda t: t).supports_masking
    with pytest.warns(UserWarning, match="does not support masking"):
        flat = layers.Flatten()(masked)
    assert backend.get_keras_mask(flat) is None


def test_a_model_given_a_mask():
    seen = []

    class Reads(layers.Layer):
        supports_masking = True

        def call(self, x, mask=None):
            seen.append(None if mask is None else np.asarray(mask))
            return x

    inputs = layers.Input((3,))
    functional = models.Model(inputs, Reads()(inputs))
    functional(np.ones((1, 3)), mask=np.array([[True, False, True]]))
    sequential = models.Sequential([Reads()])
    sequential(np.ones((1, 3)), mask=np.array([[False, True, True]]))
    np.testing.assert_array_equal(seen[-2], [[True, False, True]])
    np.testing.assert_array_equal(seen[-1], [[False, True, True]])


def test_arithmetic_on_keras_tensors_neither_masks_nor_warns():
    inputs = layers.Input((3,), dtype="int32")
    embedded = layers.Embedding(5, 2, mask_zero=True)(inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Keras 3's ops on KerasTensors do not warn
        doubled = embedded * 2
        model = models.Model(inputs, doubled)
        model(np.array([[1, 0, 2]]))
    assert backend.get_keras_mask(doubled) is None
