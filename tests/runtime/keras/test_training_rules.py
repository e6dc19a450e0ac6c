"""Training as Keras 3 defines it, case by case: loss scaling, models trained by their added
losses alone, the errors before ``compile``, ``floatx``, the EMA of every variable and the
validation split's limits."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

keras = rt.keras


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()
    yield
    keras.config.set_floatx("float32")


def one_weight_model(optimizer):
    model = keras.Sequential([keras.layers.Dense(1, kernel_initializer="zeros", use_bias=False)])
    model.build((None, 1))
    model.compile(optimizer, "mse")
    return model


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
def test_loss_scale_factor_does_not_change_the_update(run_eagerly):
    # Keras 3's train_step scales the loss (optimizer.scale_loss) before the gradients and the
    # optimizer divides them back: one SGD step on mse((w - 3)^2) at w=0 is 0.1 * 6 either way.
    x = np.ones((4, 1), np.float32)
    model = one_weight_model(keras.optimizers.SGD(0.1, loss_scale_factor=128.0))
    model.compile(model.optimizer, "mse", run_eagerly=run_eagerly)
    history = model.fit(x, 3 * x, batch_size=4, epochs=1, verbose=0)
    np.testing.assert_allclose(model.get_weights()[0], [[0.6]], rtol=1e-6)
    np.testing.assert_allclose(history.history["loss"], [9.0], rtol=1e-6)  # unscaled


class AutoEncoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3, kernel_initializer="zeros")

    def call(self, x, training=None):
        out = self.dense(x)
        self.add_loss(rt.reduce_mean((out - x) ** 2))
        return out


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
def test_a_model_trains_on_its_added_loss_alone(run_eagerly):
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    model = AutoEncoder()
    model.compile(keras.optimizers.SGD(0.1), run_eagerly=run_eagerly)
    history = model.fit(x, batch_size=8, epochs=3, verbose=0)
    # The first epoch's loss is that of the zero weights: mean(x ** 2).
    np.testing.assert_allclose(history.history["loss"][0], np.mean(x**2), rtol=1e-5)
    assert history.history["loss"][2] < history.history["loss"][0]
    np.testing.assert_allclose(model.evaluate(x, verbose=0), np.mean((model.predict(x) - x) ** 2),
                               rtol=1e-5)  # fmt: skip


def test_no_loss_at_all_is_keras_3s_error():
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("sgd")
    with pytest.raises(ValueError, match=r"No loss to compute. Provide a `loss` argument"):
        model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x, y: m.fit(x, y, verbose=0),
        lambda m, x, y: m.evaluate(x, y, verbose=0),
        lambda m, x, y: m.train_on_batch(x, y),
        lambda m, x, y: m.test_on_batch(x, y),
    ],
    ids=["fit", "evaluate", "train_on_batch", "test_on_batch"],
)
def test_training_before_compile_is_keras_3s_value_error(call):
    model = keras.Sequential([keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=r"^You must call `compile\(\)` before using the model.$"):
        call(model, np.ones((4, 2), np.float32), np.ones((4, 1), np.float32))


def test_fit_feeds_float64_under_floatx_float64():
    keras.config.set_floatx("float64")
    x = np.random.default_rng(0).normal(size=(8, 3))
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, x.sum(1, keepdims=True), verbose=0)
    kernel, bias = model.get_weights()
    # A difference float32 would round away: the data stays float64 on the way in.
    near = np.array([[1.0 + 1e-12, 0.0, 0.0]])
    got = (
        model.predict(near, verbose=0)[0, 0]
        - model.predict(near - [[1e-12, 0, 0]], verbose=0)[0, 0]
    )
    np.testing.assert_allclose(got, kernel[0, 0] * 1e-12, rtol=1e-3)
    assert model.predict(x, verbose=0).dtype == np.float64


def test_ema_averages_the_variables_without_a_gradient_too():
    # Keras' apply averages all the optimizer's variables each step: `b` gets no gradient in
    # the second step yet its average moves towards its (unchanged) value.
    a, b = rt.Variable([1.0]), rt.Variable([2.0])
    opt = keras.optimizers.SGD(0.5, use_ema=True, ema_momentum=0.9)
    opt.apply_gradients([(rt.constant([1.0]), a), (rt.constant([1.0]), b)])  # a=0.5, b=1.5
    b.assign([3.0])  # changed outside the optimizer
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        opt.apply_gradients([(rt.constant([1.0]), a), (None, b)])  # a=0.0
    opt.finalize_variable_values([a, b])
    # step 1 momentum 0: averages (0.5, 1.5); step 2: 0.9 * avg + 0.1 * value.
    np.testing.assert_allclose(a.numpy(), [0.9 * 0.5 + 0.1 * 0.0])
    np.testing.assert_allclose(b.numpy(), [0.9 * 1.5 + 0.1 * 3.0])


def test_validation_split_of_one_is_keras_message():
    model = one_weight_model("sgd")
    x = np.ones((10, 1), np.float32)
    with pytest.raises(ValueError, match=r"Training data contains 10 samples, which is not "
                       r"sufficient to split it into a validation and training set as specified "
                       r"by `validation_split=1.0`"):  # fmt: skip
        model.fit(x, x, validation_split=1.0, verbose=0)


class CountingResults(keras.Sequential):
    """Counts the reads of the metrics' results (the logs)."""

    reads = 0

    def get_metrics_result(self):
        CountingResults.reads += 1
        return super().get_metrics_result()


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
def test_the_logs_are_read_only_when_wanted(run_eagerly):
    # Per-batch cost: with Keras' own steps the metrics' results are read at the end of each
    # epoch (and of evaluate), and per batch only for a callback with a batch hook.
    CountingResults.reads = 0
    model = CountingResults([keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"], run_eagerly=run_eagerly)
    x = np.ones((40, 2), np.float32)
    history = model.fit(x, x[:, :1], batch_size=4, epochs=2, verbose=0)
    assert CountingResults.reads == 2
    model.evaluate(x, x[:, :1], batch_size=4, verbose=0)
    assert CountingResults.reads == 3
    batch_logs = []
    hook = keras.callbacks.LambdaCallback(on_batch_end=lambda batch, logs: batch_logs.append(logs))
    model.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0, callbacks=[hook])
    assert CountingResults.reads == 3 + 10 + 1 and len(batch_logs) == 10
    assert sorted(batch_logs[-1]) == ["loss", "mae"]
    assert history.history["loss"][0] > history.history["loss"][1]
