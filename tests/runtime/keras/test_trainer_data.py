"""The data ``fit``, ``evaluate`` and ``predict`` take, as Keras 3 takes it: weights, nested
structures, generators, validation, steps; one-batch methods, ``jit_compile``, ``model.losses``.

The model is linear with known weights and a zero learning rate where the loss is checked, so
every expected value is a numpy formula of the data (Keras' "sum_over_batch_size": the weighted
losses summed over the batch, divided by its size; batches averaged by their sizes).
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
RNG = np.random.default_rng(7)
X = RNG.normal(size=(20, 3))  # float64, as users pass it: Keras casts to float32
Y = RNG.normal(size=(20, 1))
W = RNG.uniform(size=20)
KERNEL = np.array([[0.5], [-1.0], [2.0]])


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def linear(learning_rate=0.0, run_eagerly=False, loss="mse"):
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate), loss=loss, run_eagerly=run_eagerly)
    model.set_weights([KERNEL, np.zeros(1)])  # float64 arrays: set_weights casts
    return model


def squared_errors(x=X, y=Y):
    return ((x @ KERNEL - y) ** 2)[:, 0]


def batch_mean(values, batch_size):
    """The mean of per-batch means weighted by batch size, as the loop averages them."""
    means = [values[i : i + batch_size].mean() for i in range(0, len(values), batch_size)]
    sizes = [len(values[i : i + batch_size]) for i in range(0, len(values), batch_size)]
    return np.average(means, weights=sizes)


# --- set_weights ---------------------------------------------------------------------------------


def test_set_weights_casts_float64_arrays_and_checks_shapes():
    model = linear()
    np.testing.assert_allclose(model.get_weights()[0], KERNEL)
    assert model.get_weights()[0].dtype == np.float32
    with pytest.raises(ValueError, match=r"weight shape \(3, 1\) is not compatible .* \(1, 3\)"):
        model.set_weights([KERNEL.T, np.zeros(1)])


# --- sample and class weights --------------------------------------------------------------------


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
def test_sample_weight_weighs_each_example_loss(run_eagerly):
    model = linear(run_eagerly=run_eagerly)
    loss = model.evaluate(X, Y, sample_weight=W, batch_size=8, verbose=0)
    np.testing.assert_allclose(loss, batch_mean(W * squared_errors(), 8), rtol=1e-5)
    history = model.fit(X, Y, sample_weight=W, batch_size=8, shuffle=False, verbose=0)
    np.testing.assert_allclose(
        history.history["loss"][0], batch_mean(W * squared_errors(), 8), rtol=1e-5
    )


def test_sample_weight_moves_the_gradient_as_weighted_examples_do():
    weighted = linear(0.1)
    weights = np.array([2.0, 1.0])
    weighted.fit(X[:2], Y[:2], sample_weight=weights, batch_size=2, verbose=0, shuffle=False)
    # Weight 2 on the first example: its loss counted twice, over a batch of size 2.
    grad = 2 * X[:2].T @ (weights[:, None] * (X[:2] @ KERNEL - Y[:2])) / 2
    np.testing.assert_allclose(weighted.get_weights()[0], KERNEL - 0.1 * grad, rtol=1e-5)


def test_class_weight_is_the_weight_of_each_example_class():
    labels = (Y[:, 0] > 0).astype(np.int64)[:, None]
    model = linear()
    history = model.fit(X, labels, class_weight={0: 0.5, 1: 3.0}, batch_size=20, verbose=0)
    weights = np.where(labels[:, 0] == 1, 3.0, 0.5)
    np.testing.assert_allclose(
        history.history["loss"][0], np.mean(weights * squared_errors(y=labels)), rtol=1e-5
    )


def test_class_weight_of_one_hot_targets_uses_their_argmax_and_missing_classes_weigh_one():
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(3,))])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="categorical_crossentropy")
    one_hot = np.eye(3)[RNG.integers(0, 3, size=20)]
    plain = model.evaluate(X, one_hot, batch_size=20, verbose=0, return_dict=True)["loss"]
    per_example = keras.losses.CategoricalCrossentropy(reduction=None)(
        one_hot, model.predict(X)
    ).numpy()
    weights = np.array([1.0, 4.0, 1.0])[one_hot.argmax(1)]  # class 2 is not in class_weight
    np.testing.assert_allclose(plain, per_example.mean(), rtol=1e-5)
    logs = model.train_on_batch(X, one_hot, class_weight={1: 4.0, 0: 1.0}, return_dict=True)
    np.testing.assert_allclose(logs["loss"], np.mean(weights * per_example), rtol=1e-5)


def test_class_weight_mistakes_have_keras_errors():
    model = linear()
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight`"):
        model.fit(X, Y, sample_weight=W, class_weight={0: 1.0}, verbose=0)
    with pytest.raises(ValueError, match="dictionary with integer keys"):
        model.fit(X, Y, class_weight={"a": 1.0}, verbose=0)
    with pytest.raises(ValueError, match="dict-like mapping"):
        model.fit(X, Y, class_weight=[1.0, 2.0], verbose=0)
    with pytest.raises(ValueError, match="cannot be specified at the same time"):
        model.train_on_batch(X, Y, sample_weight=W, class_weight={0: 1.0})


# --- validation ----------------------------------------------------------------------------------


def test_validation_split_validates_on_the_last_examples_before_shuffling():
    model = linear()
    history = model.fit(X, Y, validation_split=0.25, epochs=1, verbose=0)
    np.testing.assert_allclose(
        history.history["val_loss"][0], squared_errors()[15:].mean(), rtol=1e-5
    )
    np.testing.assert_allclose(history.history["loss"][0], squared_errors()[:15].mean(), rtol=1e-5)
    with pytest.raises(ValueError, match="not sufficient to split it"):
        model.fit(X[:1], Y[:1], validation_split=0.5, verbose=0)


def test_validation_data_with_weights_and_from_a_generator():
    model = linear()
    history = model.fit(X, Y, validation_data=(X, Y, W), batch_size=20, verbose=0)
    np.testing.assert_allclose(
        history.history["val_loss"][0], np.mean(W * squared_errors()), rtol=1e-5
    )

    def batches():
        while True:
            yield X[:10], Y[:10]

    history = model.fit(X, Y, validation_data=batches(), validation_steps=2, verbose=0, epochs=2)
    np.testing.assert_allclose(
        history.history["val_loss"], [squared_errors()[:10].mean()] * 2, rtol=1e-5
    )


def test_validation_freq_validates_only_on_those_epochs():
    model = linear()
    history = model.fit(X, Y, validation_data=(X, Y), validation_freq=2, epochs=4, verbose=0)
    assert len(history.history["val_loss"]) == 2 and len(history.history["loss"]) == 4
    history = model.fit(X, Y, validation_data=(X, Y), validation_freq=[1, 4], epochs=4, verbose=0)
    assert len(history.history["val_loss"]) == 2
    with pytest.raises(ValueError, match="Expected `validation_freq` to be a list or int"):
        model.fit(X, Y, validation_data=(X, Y), validation_freq="2", verbose=0)


# --- generators and iterables --------------------------------------------------------------------


def batches_of(size, with_weights=False):
    for start in range(0, len(X), size):
        part = slice(start, start + size)
        yield (X[part], Y[part], W[part]) if with_weights else (X[part], Y[part])


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
def test_fit_and_evaluate_on_a_generator_run_until_it_is_exhausted(run_eagerly):
    model = linear(run_eagerly=run_eagerly)
    np.testing.assert_allclose(
        model.evaluate(batches_of(6), verbose=0), batch_mean(squared_errors(), 6), rtol=1e-5
    )
    history = model.fit(batches_of(6, with_weights=True), verbose=0)
    np.testing.assert_allclose(
        history.history["loss"][0], batch_mean(W * squared_errors(), 6), rtol=1e-5
    )


def test_a_generator_with_steps_per_epoch_goes_on_where_the_last_epoch_stopped():
    model = linear()
    seen = []

    class Count(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(batch)

    history = model.fit(batches_of(5), steps_per_epoch=2, epochs=2, verbose=0, callbacks=[Count()])
    errors = squared_errors()
    expected = [errors[:10].mean(), errors[10:20].mean()]  # epoch 2 takes batches 3 and 4
    np.testing.assert_allclose(history.history["loss"], expected, rtol=1e-5)
    assert seen == [0, 1, 0, 1]


def test_a_generator_that_runs_out_warns_and_an_empty_epoch_is_an_error():
    model = linear()
    with pytest.warns(UserWarning, match="Your input ran out of data"):
        history = model.fit(batches_of(10), steps_per_epoch=3, epochs=1, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], squared_errors().mean(), rtol=1e-5)
    with pytest.raises(ValueError, match="Empty logs"):
        model.fit(iter(()), verbose=0)


def test_any_iterable_of_batches_is_read_again_each_epoch():
    class Batches:
        def __iter__(self):
            return batches_of(10)

    history = linear().fit(Batches(), epochs=2, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [squared_errors().mean()] * 2, rtol=1e-5)


def test_generator_arguments_keras_refuses():
    model = linear()
    with pytest.raises(ValueError, match="`validation_split` is only supported for tensors"):
        model.fit(batches_of(5), validation_split=0.2, verbose=0)
    with pytest.raises(ValueError, match="`y` should not be passed"):
        model.fit(batches_of(5), Y, verbose=0)
    with pytest.raises(ValueError, match="`class_weight` is not supported for Python generator"):
        model.fit(batches_of(5), class_weight={0: 1.0}, verbose=0)


def test_predict_on_a_generator_of_inputs_or_of_tuples():
    model = linear()
    expected = X.astype(np.float32) @ KERNEL.astype(np.float32)
    np.testing.assert_allclose(
        model.predict(X[i : i + 6] for i in range(0, 20, 6)), expected, rtol=1e-5
    )
    np.testing.assert_allclose(model.predict(batches_of(6)), expected, rtol=1e-5)
    np.testing.assert_allclose(model.predict(X[:7], steps=1, batch_size=4), expected[:4], rtol=1e-5)


# --- nested structures ---------------------------------------------------------------------------


class TwoInTwoOut(keras.Model):
    """Inputs {"u": (n, 3), "v": (n, 2)}; outputs {"p": u @ Ku, "q": v @ Kv}."""

    def __init__(self):
        super().__init__()
        self.p = keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")
        self.q = keras.layers.Dense(2, use_bias=False, kernel_initializer="ones")

    def call(self, inputs):
        return {"p": self.p(inputs["u"]), "q": self.q(inputs["v"])}


class Pair(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")

    def call(self, inputs):
        u, v = inputs
        return [self.dense(u), v * 2.0]


def test_dict_inputs_and_dict_targets_train_each_output_with_the_loss_summed():
    model = TwoInTwoOut()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    inputs = {"u": X, "v": X[:, :2]}
    targets = {"p": Y, "q": np.zeros((20, 2))}
    history = model.fit(inputs, targets, batch_size=20, verbose=0)
    p = X.sum(1, keepdims=True)
    q = np.repeat(X[:, :2].sum(1, keepdims=True), 2, axis=1)
    expected = np.mean((p - Y) ** 2) + np.mean(q**2)
    np.testing.assert_allclose(history.history["loss"][0], expected, rtol=1e-5)
    outputs = model.predict(inputs, batch_size=7)
    np.testing.assert_allclose(outputs["p"], p, rtol=1e-5)
    np.testing.assert_allclose(outputs["q"], q, rtol=1e-5)


def test_predict_on_a_tuple_or_list_of_inputs_returns_each_output():
    model = Pair()
    for inputs in ((X, Y), [X, Y]):
        u, v = model.predict(inputs, batch_size=8)
        np.testing.assert_allclose(u, X.sum(1, keepdims=True), rtol=1e-5)
        np.testing.assert_allclose(v, 2 * Y, rtol=1e-5)


def test_one_sample_weight_array_serves_every_output_and_a_mismatch_is_an_error():
    model = TwoInTwoOut()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    inputs = {"u": X, "v": X[:, :2]}
    targets = {"p": Y, "q": np.zeros((20, 2))}
    # Keras 3 reports the total, then each output's loss.
    losses = model.evaluate(inputs, targets, sample_weight=W, batch_size=20, verbose=0)
    p = X.sum(1, keepdims=True)
    q = np.repeat(X[:, :2].sum(1, keepdims=True), 2, axis=1)
    p_loss, q_loss = np.mean(W * (p - Y)[:, 0] ** 2), np.mean(W * (q**2).mean(1))
    np.testing.assert_allclose(losses, [p_loss + q_loss, p_loss, q_loss], rtol=1e-5)
    with pytest.raises(ValueError, match="one scalar score per sample"):
        model.evaluate(inputs, targets, sample_weight=np.ones((20, 2)), verbose=0)
    with pytest.raises(ValueError, match="one `sample_weight` array per output"):
        model.evaluate(inputs, targets, sample_weight=[W], verbose=0)


def test_arrays_of_different_lengths_are_ambiguous():
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        linear().fit(X, Y[:10], verbose=0)


# --- steps, epochs, verbose ----------------------------------------------------------------------


def test_steps_per_epoch_on_arrays_takes_that_many_batches_then_goes_on():
    model = linear()
    history = model.fit(X, Y, batch_size=5, steps_per_epoch=2, epochs=2, shuffle=False, verbose=0)
    errors = squared_errors()
    np.testing.assert_allclose(
        history.history["loss"], [errors[:10].mean(), errors[10:].mean()], rtol=1e-5
    )


def test_initial_epoch_numbers_the_epochs_from_there():
    history = linear().fit(X, Y, initial_epoch=2, epochs=4, verbose=0)
    assert history.epoch == [2, 3]


def test_verbose_auto_is_one(capsys):
    model = linear()
    model.fit(X, Y, epochs=1)
    model.evaluate(X, Y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/1" and lines[1].startswith("1/1 [") and lines[2].startswith("1/1 [")


# --- one batch -----------------------------------------------------------------------------------


def test_train_test_and_predict_on_batch():
    model = linear(0.1)
    errors = squared_errors()
    np.testing.assert_allclose(model.test_on_batch(X, Y), errors.mean(), rtol=1e-5)
    np.testing.assert_allclose(
        model.test_on_batch(X, Y, sample_weight=W), np.mean(W * errors), rtol=1e-5
    )
    logs = model.train_on_batch(X, Y, return_dict=True)
    np.testing.assert_allclose(logs["loss"], errors.mean(), rtol=1e-5)
    grad = 2 * X.T @ (X @ KERNEL - Y) / 20
    np.testing.assert_allclose(model.get_weights()[0], KERNEL - 0.1 * grad, rtol=1e-4)
    np.testing.assert_allclose(
        model.predict_on_batch(X), X @ model.get_weights()[0] + model.get_weights()[1], rtol=1e-5
    )


def test_train_on_batch_returns_loss_then_metrics_in_order():
    model = linear()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    loss, mae = model.train_on_batch(X, Y)
    np.testing.assert_allclose(
        [loss, mae], [squared_errors().mean(), np.abs(X @ KERNEL - Y).mean()], rtol=1e-5
    )


# --- jit_compile, model.losses, stop_training ----------------------------------------------------


def test_jit_compile_trains_through_xla_to_the_same_weights():
    pytest.importorskip("jax")
    plain, compiled = linear(0.1), linear(0.1)
    compiled.jit_compile = True  # what compile(jit_compile=True) sets
    for model in (plain, compiled):
        model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert compiled.train_function.jit_compile and not plain.train_function.jit_compile
    for ours, reference in zip(compiled.get_weights(), plain.get_weights()):
        np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)


def test_model_losses_are_added_to_the_training_loss():
    class Penalised(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1, use_bias=False)

        def call(self, x):
            return self.dense(x)

        @property
        def losses(self):
            return [0.5 * rt.reduce_sum(self.dense.kernel**2)] if self.dense.built else []

    model = Penalised()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model(X[:1].astype(np.float32))
    model.set_weights([KERNEL])
    history = model.fit(X, Y, batch_size=20, verbose=0)
    penalty = 0.5 * np.sum(KERNEL**2)
    np.testing.assert_allclose(
        history.history["loss"][0], squared_errors().mean() + penalty, rtol=1e-5
    )
    grad = 2 * X.T @ (X @ KERNEL - Y) / 20 + KERNEL  # the penalty's gradient is the kernel
    np.testing.assert_allclose(model.get_weights()[0], KERNEL - 0.1 * grad, rtol=1e-4)


def test_stop_training_ends_the_epoch_at_that_batch():
    class StopAtSecond(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            self.model.stop_training = batch == 1

    model = linear()
    history = model.fit(
        X, Y, batch_size=5, epochs=3, shuffle=False, verbose=0, callbacks=[StopAtSecond()]
    )
    assert history.epoch == [0]
    np.testing.assert_allclose(history.history["loss"][0], squared_errors()[:10].mean(), rtol=1e-5)


def test_no_warning_for_a_plain_fit():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linear().fit(X, Y, epochs=2, verbose=0)


# --- the step contract: steps that return running logs -------------------------------------------


def test_a_step_returning_running_logs_is_reported_as_its_last_batch_and_reset_each_epoch():
    """Stateful metrics (the metrics' side of the contract) make a step return a dict of running
    values; the loop reports the last batch's and calls ``model.reset_metrics()`` at each epoch's
    start and before evaluating. Here the running value counts the batches of the epoch."""

    class Counting(keras.Sequential):
        resets = 0

        def reset_metrics(self):
            Counting.resets += 1
            self.seen.assign(0.0)

        def train_step(self, data):
            self.seen.assign_add(1.0)
            return {"loss": self.seen.read_value(), "weighted": rt.constant(7.0)}

        test_step = train_step

    model = Counting([keras.layers.Dense(1, input_shape=(3,))])
    model.seen = rt.Variable(0.0, trainable=False)
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)

    history = model.fit(X, Y, batch_size=8, epochs=2, validation_data=(X[:5], Y[:5]), verbose=0)
    # 3 batches per epoch, 1 of validation; resets: each epoch's start and each validation
    assert history.history == {"loss": [3.0, 3.0], "weighted": [7.0, 7.0],
                               "val_loss": [1.0, 1.0], "val_weighted": [7.0, 7.0]}  # fmt: skip
    assert Counting.resets == 4


JIT_WITHOUT_AUTOGRAPH = """
import sys
import numpy as np
import runtime as rt
model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(3,), kernel_initializer="ones")])
model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
model.jit_compile = True
x = np.ones((4, 3), np.float32); y = np.zeros((4, 1), np.float32)
model.fit(x, y, batch_size=4, verbose=0)
print("autograph" in sys.modules, type(model.train_function).__name__, model.train_function.jit_compile)
print(*model.get_weights()[0].ravel())
"""


def test_jit_compile_without_autograph_compiles_the_traced_step_by_xla():
    pytest.importorskip("jax")
    result = subprocess.run(
        [sys.executable, "-c", JIT_WITHOUT_AUTOGRAPH], capture_output=True, text=True, check=True
    )
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["False", "TracedFunction", "True"]
    # one SGD step on mse: prediction 3, gradient 2 * 3 * 1 for every kernel entry
    np.testing.assert_allclose([float(v) for v in lines[1].split()], [1 - 0.1 * 6] * 3, rtol=1e-6)
