"""Stateful metrics and ``compile``'s losses and metrics, against numpy: metrics accumulate
eagerly and inside an ``ag.function``, ``fit`` resets them each epoch and reports their running
values, and models with several outputs take a loss, weight and metrics per output."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

keras = rt.keras
RNG = np.random.default_rng(27)


def test_a_metric_updated_inside_a_function_accumulates_as_eagerly():
    batches = [RNG.normal(size=(5, 3)).astype(np.float32) for _ in range(3)]
    weights = [RNG.uniform(size=5).astype(np.float32) for _ in range(3)]
    staged, eager = keras.metrics.Mean(), keras.metrics.Mean()

    @ag.function
    def update(values, sample_weight):
        staged.update_state(values, sample_weight=sample_weight)
        return staged.result()

    for values, w in zip(batches, weights):
        update(values, w)
        eager.update_state(values, sample_weight=w)
    per_example = np.concatenate([b.mean(axis=1) for b in batches])
    w = np.concatenate(weights)
    expected = (per_example * w).sum() / w.sum()  # Keras' weighted mean of each example's mean
    np.testing.assert_allclose(staged.result().numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(eager.result().numpy(), expected, rtol=1e-5)
    staged.reset_state()
    assert float(staged.result()) == 0.0


def test_auc_is_the_trapezoid_area_under_the_roc_points_at_its_thresholds():
    labels = RNG.integers(0, 2, size=200)
    scores = np.clip(labels * 0.3 + RNG.uniform(size=200) * 0.7, 0, 1).astype(np.float32)
    thresholds = np.array([-1e-7, *[(i + 1) / 9 for i in range(8)], 1 + 1e-7])
    predicted = scores[None, :] > thresholds[:, None]
    tp = (predicted & (labels == 1)).sum(1)
    fp = (predicted & (labels == 0)).sum(1)
    tpr, fpr = tp / (labels == 1).sum(), fp / (labels == 0).sum()
    expected = ((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2).sum()
    metric = keras.metrics.AUC(num_thresholds=10)
    metric.update_state(labels[:120], scores[:120])
    metric.update_state(labels[120:], scores[120:])
    np.testing.assert_allclose(metric.result().numpy(), expected, rtol=1e-6)


class Counting(keras.Model):
    """A linear model that counts the examples its loss sees, in a ``Sum`` it holds."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="zeros")
        self.seen = keras.metrics.Sum(name="seen")

    def call(self, x):
        return self.dense(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        self.seen.update_state(rt.ones_like(y_pred[:, 0]))
        return super().compute_loss(x, y, y_pred, sample_weight, training)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_resets_the_metrics_each_epoch_and_reports_their_running_values(run_eagerly):
    x = RNG.normal(size=(50, 2)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0]], np.float32)) + 0.5
    model = Counting()
    model.compile(
        optimizer=keras.optimizers.SGD(0.0), loss="mse", metrics=["mae"], run_eagerly=run_eagerly
    )
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0).history
    assert history["seen"] == [50.0, 50.0]  # reset each epoch, not 100 at the second
    # With a zero learning rate every epoch sees the same predictions, 0: the loss is the mean
    # of y squared over the 50 examples (the last batch of 2 weighs 2), as Keras reports it.
    np.testing.assert_allclose(history["loss"], [np.mean(y**2)] * 2, rtol=1e-5)
    np.testing.assert_allclose(history["mae"], [np.mean(np.abs(y))] * 2, rtol=1e-5)
    logs = model.evaluate(x[:30], y[:30], batch_size=7, return_dict=True, verbose=0)
    assert logs["seen"] == 30.0
    assert model.metrics_names == ["loss", "compile_metrics", "seen"]
    assert list(logs) == ["loss", "mae", "seen"]
    model.reset_metrics()
    assert float(model.seen.result()) == 0.0


def test_a_batch_callback_sees_the_running_means_of_the_epoch():
    x = RNG.normal(size=(12, 2)).astype(np.float32)
    y = RNG.normal(size=(12, 1)).astype(np.float32)
    seen = []
    model = keras.Sequential([keras.layers.Dense(1, kernel_initializer="zeros", input_shape=(2,))])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    callback = _BatchLosses(seen)
    model.fit(x, y, batch_size=5, epochs=1, verbose=0, callbacks=[callback], shuffle=False)
    running = [np.mean(y[:n] ** 2) for n in (5, 10, 12)]
    np.testing.assert_allclose(seen, running, rtol=1e-5)


class _BatchLosses(keras.callbacks.Callback):
    def __init__(self, seen):
        super().__init__()
        self.seen = seen

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(logs["loss"])


class TwoOutputs(keras.Model):
    """Outputs ``x @ a`` and ``x @ b`` (a list, or a dict by name with ``as_dict``)."""

    def __init__(self, as_dict=False):
        super().__init__()
        self.as_dict = as_dict
        self.a = keras.layers.Dense(2, use_bias=False, kernel_initializer="ones")
        self.b = keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros")

    def call(self, x):
        a, b = self.a(x), self.b(x)
        return {"first": a, "second": b} if self.as_dict else [a, b]


X = RNG.normal(size=(6, 3)).astype(np.float32)
Y_A = RNG.normal(size=(6, 2)).astype(np.float32)
Y_B = RNG.normal(size=(6, 1)).astype(np.float32)
W = np.array([1.0, 0.0, 2.0, 1.0, 0.5, 1.0], np.float32)


def _expected_losses(sample_weight=None):
    """Each output's mse as Keras reduces it: the weighted sum over the batch size."""
    pred_a, pred_b = X @ np.ones((3, 2), np.float32), np.zeros((6, 1), np.float32)
    w = np.ones(6) if sample_weight is None else sample_weight
    mse_a = (((pred_a - Y_A) ** 2).mean(axis=1) * w).sum() / 6
    mae_b = ((np.abs(pred_b - Y_B)).mean(axis=1) * w).sum() / 6
    return mse_a, mae_b


@pytest.mark.parametrize("as_dict", [False, True])
def test_per_output_losses_weights_and_metrics(as_dict):
    model = TwoOutputs(as_dict)
    if as_dict:
        model.compile(
            optimizer="sgd",
            loss={"first": "mse", "second": "mae"},
            loss_weights={"first": 0.5, "second": 2.0},
            metrics={"first": ["mae"], "second": ["mse"]},
        )
        y = {"first": Y_A, "second": Y_B}
    else:
        model.compile(
            optimizer="sgd", loss=["mse", "mae"], loss_weights=[0.5, 2.0], metrics=["mae", "mse"]
        )
        y = [Y_A, Y_B]
    y_pred = model(X)
    loss = model.compute_loss(X, y, y_pred, sample_weight=W)
    mse_a, mae_b = _expected_losses(W)
    np.testing.assert_allclose(loss.numpy(), 0.5 * mse_a + 2.0 * mae_b, rtol=1e-5)
    logs = {k: float(v) for k, v in model.compute_metrics(X, y, y_pred, W).items()}
    pred_a = X @ np.ones((3, 2), np.float32)
    mae_a = np.abs(pred_a - Y_A).mean()  # compiled metrics are unweighted
    mse_b = (Y_B**2).mean()
    if as_dict:
        expected = {"first_mae": mae_a, "second_mse": mse_b}
        tracker_names = ["first_loss", "second_loss"]
    else:
        expected = {"mae": mae_a, "mse": mse_b}
        tracker_names = ["mse_loss", "mae_loss"]  # Keras names them after the loss's name
    for name, value in expected.items():
        np.testing.assert_allclose(logs[name], value, rtol=1e-5)
    assert [m.name for m in model._compile_loss.metrics] == tracker_names
    np.testing.assert_allclose(logs[tracker_names[0]], mse_a, rtol=1e-5)  # unweighted, per output


def test_weighted_metrics_take_the_sample_weights_and_metrics_do_not():
    model = TwoOutputs()
    model.compile(optimizer="sgd", loss=["mse", None], metrics=[["mse"], None],
                  weighted_metrics=[["mse"], None])  # fmt: skip
    y_pred = model(X)
    logs = model.compute_metrics(X, [Y_A, Y_B], y_pred, sample_weight=W)
    per_example = ((X @ np.ones((3, 2)) - Y_A) ** 2).mean(axis=1)
    np.testing.assert_allclose(float(logs["mse"]), per_example.mean(), rtol=1e-5)
    np.testing.assert_allclose(
        float(logs["weighted_mse"]), (per_example * W).sum() / W.sum(), rtol=1e-5
    )


def test_a_staged_custom_step_accumulates_the_compiled_metrics():
    model = TwoOutputs()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss=["mse", "mae"], metrics=["mae", None])

    @ag.function
    def step(x, y_a, y_b):
        y_pred = model(x)
        model._loss_tracker.update_state(model.compute_loss(x, [y_a, y_b], y_pred))
        return model.compute_metrics(x, [y_a, y_b], y_pred)

    for start in (0, 3):
        logs = step(X[start : start + 3], Y_A[start : start + 3], Y_B[start : start + 3])
    pred_a = X @ np.ones((3, 2), np.float32)
    np.testing.assert_allclose(float(logs["mae"]), np.abs(pred_a - Y_A).mean(), rtol=1e-5)
    mse_a, mae_b = _expected_losses()
    np.testing.assert_allclose(float(logs["loss"]), mse_a + mae_b, rtol=1e-5)


def test_compile_refuses_metrics_that_are_not_a_list_as_keras_3_does():
    model = TwoOutputs()
    with pytest.raises(ValueError, match="Expected `metrics` argument to be a list, tuple, or"):
        model.compile(optimizer="sgd", loss="mse", metrics="accuracy")
    with pytest.raises(ValueError, match="Unknown metric function: 'acuracy'"):
        model.compile(optimizer="sgd", loss="mse", metrics=["acuracy"])


def test_a_refused_compile_leaves_the_model_as_it_was():
    model = TwoOutputs()
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    before = (model.optimizer, model.loss, model._compile_loss, model._compile_metrics)
    with pytest.raises(ValueError, match="Unknown metric function: 'acuracy'"):
        model.compile(optimizer="sgd", loss="mae", metrics=["acuracy"])
    assert (model.optimizer, model.loss, model._compile_loss, model._compile_metrics) == before
