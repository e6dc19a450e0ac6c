"""The compile and metrics cases of Keras 3's keras/src/trainers/trainer_test.py, ported to
rt.keras (Apache 2.0, the Keras authors): the same programs and expected values, with the
backend's ``Trainer`` mixed into a layer replaced by a subclassed ``rt.keras.Model`` (public API
only). Cases rt.keras does not pass are marked xfail (strict) with the reason."""

from __future__ import annotations

import numpy as np

import runtime as rt

keras = rt.keras
layers, losses, metrics, optimizers = keras.layers, keras.losses, keras.metrics, keras.optimizers


class ExampleModel(keras.Model):
    """Keras' ``ExampleModel``: a Dense without bias whose kernel is ones."""

    def __init__(self, units):
        super().__init__()
        self.dense = layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)


class StructModel(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense_1 = layers.Dense(units, use_bias=False, kernel_initializer="ones")
        self.dense_2 = layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return {"y_one": self.dense_1(x["x_one"]), "y_two": self.dense_2(x["x_two"])}


class ListOutputModel(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense_1 = layers.Dense(units, use_bias=False, kernel_initializer="ones")
        self.dense_2 = layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return [self.dense_1(x), self.dense_2(x)]


def test_metric_tracking():
    class ModelWithMetric(ExampleModel):
        def __init__(self, units):
            super().__init__(units)
            self.my_metric = metrics.MeanSquaredError(name="my_metric")

    model = ModelWithMetric(units=3)
    model.compile(
        optimizer=optimizers.SGD(),
        loss=losses.MeanSquaredError(),
        metrics=[metrics.MeanSquaredError()],
    )
    x, y = np.ones((2, 4)), np.zeros((2, 3))
    model.fit(x, y, batch_size=2, epochs=1, verbose=0)
    assert len(model.metrics) == 3
    assert model.metrics[0] is model._loss_tracker
    assert model.metrics[1] is model._compile_metrics
    assert model.metrics[2] is model.my_metric
    assert len(model._loss_tracker.variables) == 2
    assert len(model._compile_metrics.variables) == 2
    assert len(model.my_metric.variables) == 2
    assert len(model.metrics_variables) == 6
    assert len(model.non_trainable_variables) == 0

    model_weighted = ModelWithMetric(units=3)
    model_weighted.compile(
        optimizer=optimizers.SGD(),
        loss=losses.MeanSquaredError(),
        weighted_metrics=[metrics.MeanSquaredError()],
    )
    model_weighted.fit(x, y, batch_size=2, epochs=1, verbose=0)  # sample_weight: the trainer's
    assert len(model_weighted.metrics) == 3


def test_nested_trainer_metrics_before_functional_use():
    model = ExampleModel(units=3)
    model.compile(
        optimizer=optimizers.SGD(),
        loss=losses.MeanSquaredError(),
        metrics=[metrics.MeanSquaredError()],
    )
    assert len(model.metrics) == 2
    assert model.metrics[0] is model._loss_tracker
    assert model.metrics[1] is model._compile_metrics


def test_nested_trainer_metrics_without_compile():
    assert len(ExampleModel(units=3).metrics) == 0


def test_recompile():
    model = ExampleModel(units=3)
    model.compile(optimizer="sgd", loss="mse", metrics=["mean_squared_error"])
    history_1 = model.fit(np.ones((3, 2)), np.ones((3, 3)), verbose=0).history
    eval_out_1 = model.evaluate(np.ones((3, 2)), np.ones((3, 3)), return_dict=True, verbose=0)
    model.compile(optimizer="sgd", loss="mse", metrics=["mean_absolute_error"])
    history_2 = model.fit(np.ones((3, 2)), np.ones((3, 3)), verbose=0).history
    eval_out_2 = model.evaluate(np.ones((3, 2)), np.ones((3, 3)), return_dict=True, verbose=0)
    assert sorted(history_1) == ["loss", "mean_squared_error"]
    assert sorted(eval_out_1) == ["loss", "mean_squared_error"]
    assert sorted(history_2) == ["loss", "mean_absolute_error"]
    assert sorted(eval_out_2) == ["loss", "mean_absolute_error"]


def test_evaluate_return_list_respect_metrics_order():
    def metrics_zero(y_true, y_pred):
        return 0.0

    def metrics_one(y_true, y_pred):
        return 1.0

    model = ExampleModel(units=3)
    model.compile(optimizer="sgd", loss="mse", metrics=[metrics_zero, metrics_one])
    eval_out = model.evaluate(np.ones((3, 2)), np.ones((3, 3)), verbose=0)
    assert len(eval_out) == 3 and eval_out[1] == 0.0 and eval_out[2] == 1.0
    model.compile(optimizer="sgd", loss="mse", metrics=[metrics_one, metrics_zero])
    eval_out = model.evaluate(np.ones((3, 2)), np.ones((3, 3)), verbose=0)
    assert len(eval_out) == 3 and eval_out[1] == 1.0 and eval_out[2] == 0.0


def _custom_loss_model(expect_training, with_training_arg=True, regularized=False):
    class MyModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.custom_metric = metrics.Mean(name="custom")
            extra = {"activity_regularizer": "l2"} if regularized else {}
            self.dense = layers.Dense(2, **extra)

        def call(self, x):
            return self.dense(x)

    if with_training_arg:

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
            assert training is expect_training
            loss = keras.Model.compute_loss(self, x, y, y_pred, sample_weight, training)
            self.custom_metric.update_state(loss * 4)
            return loss

    else:

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
            loss = keras.Model.compute_loss(self, x, y, y_pred, sample_weight)
            self.custom_metric.update_state(loss * 4)
            return loss

    MyModel.compute_loss = compute_loss
    return MyModel()


def test_metric_update_in_compute_loss():
    model = _custom_loss_model(expect_training=True)
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(np.ones((32, 4)), np.ones((32, 2)) * 2, verbose=0)
    np.testing.assert_allclose(
        history.history["custom"][0], history.history["loss"][0] * 4, rtol=1e-6
    )


def test_evaluate_with_custom_compute_loss():
    model = _custom_loss_model(expect_training=False)
    model.compile(optimizer="sgd", loss="mse")
    logs = model.evaluate(np.ones((32, 4)), np.ones((32, 2)) * 2, return_dict=True, verbose=0)
    np.testing.assert_allclose(logs["custom"], logs["loss"] * 4, rtol=1e-6)


def test_compute_loss_no_training_backwards_compatibility():
    model = _custom_loss_model(expect_training=None, with_training_arg=False, regularized=True)
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((32, 4)), np.ones((32, 2)) * 2
    logs = model.evaluate(x, y, return_dict=True, verbose=0)
    np.testing.assert_allclose(logs["custom"], logs["loss"] * 4, rtol=1e-6)
    history = model.fit(x, y, verbose=0)
    np.testing.assert_allclose(
        history.history["custom"][0], history.history["loss"][0] * 4, rtol=1e-6
    )


EPOCHS, BATCH_SIZE, DATASET_SIZE = 3, 20, 40


def test_loss_weights_single_output():
    model = ExampleModel(units=3)
    model.compile(
        optimizer=optimizers.SGD(),
        loss=losses.MeanSquaredError(),
        metrics=[metrics.MeanSquaredError()],
        loss_weights=0.2,
    )
    x, y = np.ones((DATASET_SIZE, 4)), np.zeros((DATASET_SIZE, 3))
    history = model.fit(x, y, batch_size=BATCH_SIZE, epochs=EPOCHS, verbose=0).history
    assert "loss" in history
    np.testing.assert_allclose(history["loss"], [3.182979, 3.115617, 3.049681], atol=1e-3)


def test_loss_weights_dict_output():
    model = StructModel(units=3)
    model.compile(
        optimizer=optimizers.SGD(),
        loss={"y_one": losses.MeanSquaredError(), "y_two": losses.MeanSquaredError()},
        metrics={"y_one": metrics.MeanSquaredError(), "y_two": metrics.MeanSquaredError()},
        loss_weights={"y_one": 0.1, "y_two": 0.2},
    )
    x1, x2 = np.ones((DATASET_SIZE, 4)), np.ones((DATASET_SIZE, 4))
    y1, y2 = np.zeros((DATASET_SIZE, 3)), np.zeros((DATASET_SIZE, 3))
    history = model.fit(
        {"x_one": x1, "x_two": x2},
        {"y_one": y1, "y_two": y2},
        batch_size=BATCH_SIZE,
        epochs=EPOCHS,
        verbose=0,
    ).history
    np.testing.assert_allclose(history["loss"], [4.778718, 4.694403, 4.611693], atol=1e-3)


def test_loss_weights_list_output():
    model = ListOutputModel(units=3)
    model.compile(
        optimizer=optimizers.SGD(),
        loss=[losses.MeanSquaredError(), losses.MeanSquaredError()],
        metrics=[metrics.MeanSquaredError(), metrics.MeanSquaredError()],
        loss_weights=[0.1, 0.2],
    )
    x = np.ones((DATASET_SIZE, 4))
    y1, y2 = np.zeros((DATASET_SIZE, 3)), np.zeros((DATASET_SIZE, 3))
    history = model.fit(x, [y1, y2], batch_size=BATCH_SIZE, epochs=EPOCHS, verbose=0).history
    np.testing.assert_allclose(history["loss"], [4.778718, 4.694403, 4.611693], atol=1e-3)


def test_partial_loss_partial_label():
    inputs = keras.Input((2,))
    x = keras.layers.Dense(3, kernel_initializer="ones")(inputs)
    partial_model = keras.Model(inputs, [x, x, x])
    partial_model.compile(loss=["mse", None, None])
    full_model = keras.Model(inputs, [x, x, x])
    full_model.compile(loss=["mse", "mse", "mse"])
    eval_x, eval_y = np.ones((32, 2)), np.ones((32, 3))
    partial_logs = partial_model.evaluate(eval_x, eval_y, return_dict=True, verbose=0)
    logs = full_model.evaluate(eval_x, [eval_y] * 3, return_dict=True, verbose=0)
    np.testing.assert_allclose(partial_logs["loss"] * 3, logs["loss"], rtol=1e-6)


def test_symbolic_build_counts_before_data():
    """The first half of Keras' ``test_symbolic_build``: before any batch the compiled metrics
    and losses are not built, and ``metrics`` is the loss tracker and the compiled metrics."""
    model = ListOutputModel(units=3)
    model.compile(
        optimizer=optimizers.SGD(),
        loss=[losses.MeanSquaredError(), losses.MeanSquaredError()],
        metrics=[metrics.MeanSquaredError(), metrics.MeanSquaredError()],
    )
    model(np.ones((4, 4), np.float32))
    assert not model._compile_metrics.built and not model._compile_loss.built
    assert len(model._compile_loss.metrics) == 0 and len(model.metrics) == 2
    y = np.zeros((4, 3), np.float32)
    y_pred = model(np.ones((4, 4), np.float32))
    model.compute_loss(None, [y, y], y_pred)
    model.compute_metrics(None, [y, y], y_pred)
    assert len(model._compile_metrics.metrics) == 2
    assert len(model._compile_loss.metrics) == 2
    assert len(model.metrics) == 4
