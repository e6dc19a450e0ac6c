"""Keras 3's callback tests (keras/src/callbacks/*_test.py), ported: the same programs and
expected values, public API only. Keras' ``assertLogs`` checks of messages become ``capsys``
(the messages are printed here, as Keras prints them with interactive logging);
``optimizer.learning_rate.value`` is read with ``.numpy()``."""

from __future__ import annotations

import csv
import os
import re

import numpy as np
import pytest

import runtime as rt
from tests.extras import import_extra

keras = rt.keras
callbacks = keras.callbacks
layers = keras.layers
Sequential = keras.Sequential


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def learning_rate(model):
    return float(model.optimizer.learning_rate.numpy())


def to_categorical(labels, num_classes=2):
    return np.eye(num_classes)[labels]


def get_test_data(train_samples, test_samples, input_shape, num_classes, seed=1337):
    """Keras' testing helper: points around one centre per class."""
    rng = np.random.default_rng(seed)
    samples = train_samples + test_samples
    labels = rng.integers(0, num_classes, size=samples)
    centres = rng.random((num_classes, *input_shape))
    x = centres[labels] + rng.normal(size=(samples, *input_shape)) * 0.1
    return (x[:train_samples], labels[:train_samples]), (x[train_samples:], labels[train_samples:])


# --- callback_test.py ----------------------------------------------------------------------------


def test_model_state_is_current_on_epoch_end():
    class TestModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.iterations = rt.Variable(0.0, trainable=False)

        def call(self, inputs):
            self.iterations.assign(self.iterations + 1)
            return inputs

    class CBK(callbacks.Callback):
        def on_batch_end(self, batch, logs):
            assert np.int32(self.model.iterations.numpy()) == batch + 1

    model = TestModel()
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.random((8, 1))
    y = np.random.random((8, 1))
    model.fit(x, y, callbacks=[CBK()], batch_size=2, verbose=0)


# --- early_stopping_test.py ----------------------------------------------------------------------


def two_dense():
    return Sequential([layers.Dense(1, activation="relu"), layers.Dense(1, activation="relu")])


def test_early_stopping():
    x_train, y_train = np.random.random((10, 5)), np.random.random((10, 1))
    x_test, y_test = np.random.random((10, 5)), np.random.random((10, 1))
    model = two_dense()
    model.compile(loss="mae", optimizer="adam", metrics=["mse", "acc", "accuracy"])
    for mode, monitor in [("max", "val_mse"), ("min", "val_loss"), ("auto", "val_mse"),
                          ("auto", "loss"), ("auto", "acc"), ("auto", "val_accuracy")]:  # fmt: skip
        cbks = [callbacks.EarlyStopping(patience=0, monitor=monitor, mode=mode)]
        model.fit(x_train, y_train, batch_size=5, validation_data=(x_test, y_test),
                  callbacks=cbks, epochs=2, verbose=0)  # fmt: skip
    with pytest.raises(ValueError):
        cbks = [callbacks.EarlyStopping(patience=0, monitor="unknown")]
        model.fit(x_train, y_train, batch_size=5, validation_data=(x_test, y_test),
                  callbacks=cbks, epochs=2, verbose=0)  # fmt: skip


@pytest.mark.parametrize("patience", [0, 1, 2, 3])
def test_early_stopping_patience(patience):
    losses = [10.0, 9.0, 8.0, 9.0, 8.9, 8.8, 8.7, 8.6, 8.5]
    stopper = callbacks.EarlyStopping(monitor="loss", patience=patience)
    stopper.set_model(Sequential())
    stopper.model.compile(loss="mse", optimizer="sgd")
    stopper.on_train_begin()
    for epoch, loss in enumerate(losses):
        stopper.on_epoch_end(epoch=epoch, logs={"loss": loss})
        if stopper.model.stop_training:
            break
    assert stopper.stopped_epoch == max(patience, 1) + 2


def test_early_stopping_reuse():
    patience = 3
    data = np.random.random((100, 1))
    labels = np.where(data > 0.5, 1, 0)
    model = two_dense()
    model.compile(optimizer="sgd", loss="mae", metrics=["mse"])
    stopper = callbacks.EarlyStopping(monitor="mse", patience=patience)
    history1 = model.fit(data, labels, callbacks=[stopper], verbose=0, epochs=20)
    assert len(history1.epoch) >= patience
    history2 = model.fit(data, labels, callbacks=[stopper], verbose=0, epochs=20)
    assert len(history2.epoch) >= patience


def test_state_reset_across_fit_calls():
    stopper = callbacks.EarlyStopping(monitor="loss", patience=3)
    stopper.set_model(Sequential())
    stopper.on_train_begin()
    stopper.best, stopper.wait, stopper.stopped_epoch = 0.1, 3, 5
    stopper.best_epoch, stopper.best_weights = 5, object()
    stopper.on_train_begin()
    assert stopper.best is None and stopper.wait == 0 and stopper.stopped_epoch == 0
    assert stopper.best_epoch == 0 and stopper.best_weights is None


def test_early_stopping_with_baseline():
    x_train, y_train = np.random.random((10, 5)), np.random.random((10, 1))
    model = two_dense()
    model.compile(optimizer="sgd", loss="mae", metrics=["mse"])
    stopper = callbacks.EarlyStopping(monitor="mse", patience=3, baseline=0.6)
    hist = model.fit(x_train, y_train, callbacks=[stopper], verbose=0, epochs=20)
    assert len(hist.epoch) >= 3


class DummyModel:
    def __init__(self):
        self.stop_training = False
        self.weights = -1

    def get_weights(self):
        return self.weights

    def set_weights(self, weights):
        self.weights = weights

    def set_weight_to_epoch(self, epoch):
        self.weights = epoch


def run_stopper(early_stop, losses, stop_at=None):
    early_stop.set_model(DummyModel())
    epochs_trained = 0
    early_stop.on_train_begin()
    for epoch, loss in enumerate(losses):
        epochs_trained += 1
        early_stop.model.set_weight_to_epoch(epoch=epoch)
        early_stop.on_epoch_end(epoch, logs={"val_loss": loss})
        if epoch == stop_at:
            early_stop.model.stop_training = True
        if early_stop.model.stop_training:
            break
    early_stop.on_train_end()
    return epochs_trained


def test_early_stopping_final_weights_when_restoring_model_weights():
    early_stop = callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
    run_stopper(early_stop, [0.2, 0.15, 0.1, 0.11, 0.12])
    assert early_stop.model.get_weights() == 2

    early_stop = callbacks.EarlyStopping(
        monitor="val_loss", patience=5, baseline=0.5, restore_best_weights=True
    )
    assert run_stopper(early_stop, [0.9, 0.8, 0.7, 0.71, 0.72, 0.73]) == 5
    assert early_stop.model.get_weights() == 2

    early_stop = callbacks.EarlyStopping(
        monitor="val_loss", patience=5, baseline=0.5, restore_best_weights=True
    )
    assert run_stopper(early_stop, [0.9, 0.8, 0.7, 0.71, 0.72, 0.73], stop_at=3) == 4
    assert early_stop.model.get_weights() == 2


def test_early_stopping_with_start_from_epoch():
    x_train, y_train = np.random.random((10, 5)), np.random.random((10, 1))
    model = two_dense()
    model.compile(optimizer="sgd", loss="mae", metrics=["mse"])
    for start_from_epoch, patience in ((2, 3), (2, 0)):
        stopper = callbacks.EarlyStopping(
            monitor="mse", patience=patience, start_from_epoch=start_from_epoch
        )
        history = model.fit(x_train, y_train, callbacks=[stopper], verbose=0, epochs=20)
        assert len(history.epoch) >= patience + start_from_epoch


# --- learning_rate_scheduler_test.py -------------------------------------------------------------


@pytest.fixture
def scheduler_setup():
    (x_train, y_train), _ = get_test_data(10, 10, (3,), 2)
    model = Sequential([layers.Dense(5), layers.Dense(2)])
    model.compile(loss="mse", optimizer="sgd")
    return model, x_train, to_categorical(y_train)


def test_updates_learning_rate(scheduler_setup, capsys):
    model, x_train, y_train = scheduler_setup
    lr_scheduler = callbacks.LearningRateScheduler(lambda step: 1.0 / (2.0 + step), verbose=1)
    model.fit(x_train, y_train, callbacks=[lr_scheduler], epochs=1)
    assert learning_rate(model) == 0.5


def test_verbose_logging(scheduler_setup, capsys):
    model, x_train, y_train = scheduler_setup
    lr_scheduler = callbacks.LearningRateScheduler(lambda step: 1.0 / (1.0 + step), verbose=1)
    model.fit(x_train, y_train, callbacks=[lr_scheduler], epochs=1)
    assert "LearningRateScheduler setting learning rate to 1.0" in capsys.readouterr().out


def test_schedule_dependent_on_previous_learning_rate(scheduler_setup, capsys):
    model, x_train, y_train = scheduler_setup
    lr_scheduler = callbacks.LearningRateScheduler(lambda step, lr: lr / 2)
    initial_lr = 0.03
    model.compile(loss="mse", optimizer=keras.optimizers.Adam(initial_lr))
    model.fit(x_train, y_train, callbacks=[lr_scheduler], epochs=2)
    np.testing.assert_allclose(learning_rate(model), initial_lr / 4.0, rtol=1e-6)


def test_scheduler_throws_when_optimizer_has_schedule(scheduler_setup):
    model, x_train, y_train = scheduler_setup
    lr_scheduler = callbacks.LearningRateScheduler(lambda step, lr: lr / 2)
    schedule = keras.optimizers.schedules.PolynomialDecay(initial_learning_rate=0.1, decay_steps=10)
    model.compile(loss="mse", optimizer=keras.optimizers.Adam(schedule))
    with pytest.raises(TypeError, match="This optimizer was created with a `LearningRateSchedule`"):
        model.fit(x_train, y_train, callbacks=[lr_scheduler], epochs=2)


def test_learning_rate_in_history(scheduler_setup, capsys):
    model, x_train, y_train = scheduler_setup
    lr_scheduler = callbacks.LearningRateScheduler(lambda step, lr: 0.5)
    history = model.fit(x_train, y_train, callbacks=[lr_scheduler], epochs=1)
    assert "learning_rate" in history.history
    assert type(history.history["learning_rate"][0]) is float
    assert history.history["learning_rate"][0] == 0.5


# --- reduce_lr_on_plateau_test.py ----------------------------------------------------------------


@pytest.fixture
def plateau_setup():
    (x_train, y_train), (x_test, y_test) = get_test_data(10, 10, (3,), 2)
    model = Sequential([layers.Dense(5), layers.Dense(2)])
    model.compile(loss="mse", optimizer=keras.optimizers.Adam(0.1))
    return model, x_train, to_categorical(y_train), x_test, to_categorical(y_test)


def fit_with(setup, callback, epochs):
    model, x_train, y_train, x_test, y_test = setup
    model.fit(
        x_train, y_train, validation_data=(x_test, y_test), callbacks=[callback], epochs=epochs
    )
    return model


def test_reduces_lr_with_model_fit(plateau_setup, capsys):
    reduce_lr = callbacks.ReduceLROnPlateau(
        patience=1, factor=0.1, monitor="val_loss", min_delta=100
    )
    np.testing.assert_allclose(
        learning_rate(fit_with(plateau_setup, reduce_lr, 2)), 0.01, rtol=1e-6
    )


def test_plateau_throws_when_optimizer_has_schedule(plateau_setup):
    model = plateau_setup[0]
    schedule = keras.optimizers.schedules.PolynomialDecay(initial_learning_rate=0.1, decay_steps=10)
    model.compile(loss="mse", optimizer=keras.optimizers.Adam(schedule))
    reduce_lr = callbacks.ReduceLROnPlateau(
        patience=1, factor=0.1, monitor="val_loss", min_delta=100
    )
    with pytest.raises(TypeError, match="This optimizer was created with a `LearningRateSchedule`"):
        fit_with(plateau_setup, reduce_lr, 2)


def test_plateau_verbose_logging(plateau_setup, capsys):
    reduce_lr = callbacks.ReduceLROnPlateau(
        patience=1, factor=0.1, monitor="val_loss", min_delta=100, verbose=1
    )
    fit_with(plateau_setup, reduce_lr, 2)
    # Keras prints the Python float: 0.1 * 0.1 is 0.010000000000000002 there too
    assert re.search(r"ReduceLROnPlateau reducing learning rate to 0\.01", capsys.readouterr().out)


def test_honors_min_lr(plateau_setup, capsys):
    reduce_lr = callbacks.ReduceLROnPlateau(
        patience=1, factor=0.1, monitor="val_loss", min_delta=10, min_lr=0.005
    )
    np.testing.assert_allclose(
        learning_rate(fit_with(plateau_setup, reduce_lr, 4)), 0.005, rtol=1e-6
    )


def test_cooldown(plateau_setup, capsys):
    reduce_lr = callbacks.ReduceLROnPlateau(
        patience=1, factor=0.1, monitor="val_loss", min_delta=100, cooldown=2
    )
    np.testing.assert_allclose(
        learning_rate(fit_with(plateau_setup, reduce_lr, 4)), 0.001, rtol=1e-5
    )


def test_plateau_state_reset_across_fit_calls(plateau_setup):
    reduce_lr = callbacks.ReduceLROnPlateau(
        patience=1, factor=0.1, monitor="loss", min_delta=0, cooldown=2
    )
    reduce_lr.set_model(plateau_setup[0])
    reduce_lr.on_train_begin()
    reduce_lr.best, reduce_lr.wait, reduce_lr.cooldown_counter = 0.5, 3, 2
    reduce_lr.on_train_begin()
    assert reduce_lr.best is None and reduce_lr.wait == 0 and reduce_lr.cooldown_counter == 0


# --- csv_logger_test.py --------------------------------------------------------------------------


def test_CSVLogger(tmp_path):
    np.random.seed(1337)
    filepath = os.path.join(tmp_path, "log.tsv")
    sep = "\t"
    x_train, y_train = np.random.random((10, 3)), np.random.random((10, 1))
    x_test, y_test = np.random.random((10, 3)), np.random.random((10, 1))

    def make_model():
        model = Sequential([layers.Dense(2, activation="relu"), layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd", metrics=["mse"])
        return model

    def fit(model, cbks, epochs=1, **kwargs):
        return model.fit(x_train, y_train, batch_size=4, validation_data=(x_test, y_test),
                         callbacks=cbks, epochs=epochs, verbose=0, **kwargs)  # fmt: skip

    fit(make_model(), [callbacks.CSVLogger(filepath, separator=sep)])
    assert os.path.exists(filepath)
    with open(filepath) as csvfile:
        assert csv.Sniffer().sniff(csvfile.read()).delimiter == sep

    model = make_model()
    cbks = [callbacks.CSVLogger(filepath, separator=sep, append=True)]
    fit(model, cbks)
    fit(model, cbks, epochs=2)  # the same CSVLogger again
    with open(filepath) as csvfile:
        list_lines = csvfile.readlines()
    for line in list_lines:
        assert line.count(sep) == 4
    assert len(list_lines) == 5
    assert len(re.findall("epoch", " ".join(list_lines))) == 1
    os.remove(filepath)

    hist = fit(make_model(), [callbacks.CSVLogger(filepath, separator=sep)], epochs=5,
               validation_freq=3)  # fmt: skip
    with open(filepath) as csvfile:
        for idx, row in enumerate(csv.DictReader(csvfile, delimiter=sep), 1):
            assert "val_loss" in row
            expected = str(hist.history["val_loss"][0]) if idx == 3 else "NA"
            assert row["val_loss"] == expected


def exploding_model():
    model = Sequential()
    for _ in range(5):
        model.add(
            layers.Dense(
                2, activation="relu", kernel_initializer=keras.initializers.Constant(value=1e5)
            )
        )
    model.add(layers.Dense(2))
    model.compile(loss="mean_squared_error", optimizer="sgd")
    return model


def nan_data():
    np.random.seed(1337)
    x_train = np.random.random((10, 3))
    y_train = to_categorical(np.random.choice(np.arange(2), size=10))
    x_test = np.random.random((10, 3))
    y_test = to_categorical(np.random.choice(np.arange(2), size=10))
    return x_train, y_train, x_test, y_test


def test_stop_training_csv(tmp_path, capsys):
    csv_logfile = os.path.join(tmp_path, "csv_logger.csv")
    x_train, y_train, x_test, y_test = nan_data()
    history = exploding_model().fit(
        x_train, y_train, batch_size=4, validation_data=(x_test, y_test),
        callbacks=[callbacks.TerminateOnNaN(), callbacks.CSVLogger(csv_logfile)], epochs=20,
    )  # fmt: skip
    loss = history.history["loss"]
    assert len(loss) == 1 and (np.isnan(loss[0]) or np.isinf(loss[0]))
    with open(csv_logfile) as f:
        values = [x for x in csv.reader(f) if x]
    assert "nan" in values[-1], "NaN not logged in CSV Logger."


# --- terminate_on_nan_test.py --------------------------------------------------------------------


def test_TerminateOnNaN(capsys):
    x_train, y_train, x_test, y_test = nan_data()
    history = exploding_model().fit(
        x_train, y_train, batch_size=4, validation_data=(x_test, y_test),
        callbacks=[callbacks.TerminateOnNaN()], epochs=20,
    )  # fmt: skip
    loss = history.history["loss"]
    assert len(loss) == 1 and (np.isnan(loss[0]) or np.isinf(loss[0]))


def one_dense():
    model = Sequential([layers.Dense(1, input_shape=(1,))])
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_terminate_on_nan_graceful_stop(capsys):
    x, y = np.array([[1.0], [2.0]]), np.array([[np.inf], [np.inf]])
    history = one_dense().fit(
        x, y, epochs=2, batch_size=1, callbacks=[callbacks.TerminateOnNaN()], verbose=0
    )
    assert len(history.history["loss"]) < 4


def test_terminate_on_nan_raise_error_raises_error():
    x, y = np.array([[1.0], [2.0]]), np.array([[np.inf], [np.inf]])
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered"):
        one_dense().fit(x, y, epochs=1, batch_size=1, verbose=0,
                        callbacks=[callbacks.TerminateOnNaN(raise_error=True)])  # fmt: skip


def test_raise_error_terminate_does_not_trigger_on_train_end():
    class TrackingCallback(callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.train_end_called = False

        def on_train_end(self, logs=None):
            self.train_end_called = True

    tracking = TrackingCallback()
    with pytest.raises(RuntimeError):
        one_dense().fit(np.array([[1.0]]), np.array([[np.inf]]), epochs=1, verbose=0,
                        callbacks=[tracking, callbacks.TerminateOnNaN(raise_error=True)])  # fmt: skip
    assert not tracking.train_end_called


@pytest.mark.parametrize("raise_error", [False, True])
def test_normal_training_does_not_raise(raise_error):
    x, y = np.array([[1.0], [2.0]]), np.array([[1.0], [2.0]])
    history = one_dense().fit(
        x, y, epochs=2, callbacks=[callbacks.TerminateOnNaN(raise_error=raise_error)], verbose=0
    )
    assert len(history.history["loss"]) == 2


def test_raise_error_terminate_stops_on_later_batch():
    x, y = np.array([[1.0], [2.0]]), np.array([[1.0], [np.inf]])
    with pytest.raises(RuntimeError) as exc:
        one_dense().fit(x, y, epochs=1, batch_size=1, verbose=0,
                        callbacks=[callbacks.TerminateOnNaN(raise_error=True)])  # fmt: skip
    assert any(f"batch {i}" in str(exc.value) for i in [0, 1])


# --- lambda_callback_test.py ---------------------------------------------------------------------


def lambda_model():
    model = Sequential([layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer=keras.optimizers.SGD(), loss=keras.losses.MeanSquaredError())
    return model, np.random.randn(16, 2), np.random.randn(16, 1)


def test_lambda_callback():
    model, x, y = lambda_model()
    logged = []
    cbk = callbacks.LambdaCallback(
        on_train_begin=lambda logs: logged.append("on_train_begin"),
        on_epoch_begin=lambda epoch, logs: logged.append("on_epoch_begin"),
        on_epoch_end=lambda epoch, logs: logged.append("on_epoch_end"),
        on_train_end=lambda logs: logged.append("on_train_end"),
    )
    model.fit(x, y, batch_size=4, validation_split=0.2, callbacks=[cbk], epochs=5, verbose=0)
    assert {"on_train_begin", "on_epoch_begin", "on_epoch_end", "on_train_end"} <= set(logged)


def test_lambda_callback_with_batches():
    model, x, y = lambda_model()
    logged = []
    cbk = callbacks.LambdaCallback(
        on_train_batch_begin=lambda batch, logs: logged.append("on_train_batch_begin"),
        on_train_batch_end=lambda batch, logs: logged.append("on_train_batch_end"),
    )
    model.fit(x, y, batch_size=4, validation_split=0.2, callbacks=[cbk], epochs=5, verbose=0)
    assert {"on_train_batch_begin", "on_train_batch_end"} <= set(logged)


def test_lambda_callback_with_kwargs():
    model, x, y = lambda_model()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    logged = []
    cbk = callbacks.LambdaCallback(on_test_begin=lambda logs: logged.append("executed"))
    model.evaluate(x, y, batch_size=4, callbacks=[cbk], verbose=0)
    assert logged == ["executed"]


def test_lambda_callback_no_args():
    assert isinstance(callbacks.LambdaCallback(), callbacks.LambdaCallback)


def test_lambda_callback_with_additional_kwargs():
    assert hasattr(callbacks.LambdaCallback(custom_method=lambda logs: None), "custom_method")


def test_lambda_callback_during_prediction():
    model, x, _ = lambda_model()
    logged = []
    cbk = callbacks.LambdaCallback(on_predict_begin=lambda logs: logged.append("executed"))
    model.predict(x, batch_size=4, callbacks=[cbk], verbose=0)
    assert logged == ["executed"]


# --- tensorboard_test.py -------------------------------------------------------------------------


def list_scalars(logdir):
    """``{(run directory, tag)}`` of the scalars written under ``logdir``, read back with
    TensorBoard's own EventAccumulator."""
    accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator"
    ).EventAccumulator
    found = set()
    for dirpath, _, filenames in os.walk(logdir):
        if any(name.startswith("events.out.") for name in filenames):
            events = accumulator(dirpath)
            events.Reload()
            found |= {(dirpath, tag) for tag in events.Tags()["tensors"]}
    return found


def tensorboard_model():
    model = Sequential([layers.Dense(4, activation="relu"), layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd")
    return model


def tensorboard_dirs(tmp_path):
    logdir = str(tmp_path / "tb")
    return logdir, os.path.join(logdir, "train"), os.path.join(logdir, "validation")


@pytest.mark.parametrize("runs", [1, 2], ids=["basic", "across_invocations"])
def test_TensorBoard_basic(tmp_path, runs, capsys):
    import_extra("tensorboard")
    x, y = np.ones((10, 100)), np.ones((10, 1))
    logdir, train_dir, validation_dir = tensorboard_dirs(tmp_path)
    tb_cbk = callbacks.TensorBoard(logdir)
    model = tensorboard_model()
    for _ in range(runs):
        model.fit(x, y, batch_size=2, epochs=2, validation_data=(x, y), callbacks=[tb_cbk])
    assert list_scalars(logdir) == {
        (train_dir, "epoch_loss"),
        (validation_dir, "epoch_loss"),
        (train_dir, "epoch_learning_rate"),
        (validation_dir, "evaluation_loss_vs_iterations"),
    }


def test_TensorBoard_no_spurious_event_files(tmp_path):
    import_extra("tensorboard")
    x, y = np.ones((10, 100)), np.ones((10, 1))
    logdir, train_dir, _ = tensorboard_dirs(tmp_path)
    tensorboard_model().fit(
        x, y, batch_size=2, epochs=2, callbacks=[callbacks.TensorBoard(logdir)], verbose=0
    )
    runs = {
        os.path.basename(dirpath)
        for dirpath, _, filenames in os.walk(logdir)
        if any(fn.startswith("events.out.") for fn in filenames)
    }
    assert runs == {"train"}


def test_TensorBoard_batch_metrics(tmp_path):
    import_extra("tensorboard")
    x, y = np.ones((10, 100)), np.ones((10, 1))
    logdir, train_dir, validation_dir = tensorboard_dirs(tmp_path)
    tb_cbk = callbacks.TensorBoard(logdir, update_freq=1)
    tensorboard_model().fit(x, y, batch_size=2, epochs=2, validation_data=(x, y),
                            callbacks=[tb_cbk], verbose=0)  # fmt: skip
    assert list_scalars(logdir) == {
        (train_dir, "batch_loss"),
        (train_dir, "epoch_loss"),
        (validation_dir, "epoch_loss"),
        (train_dir, "epoch_learning_rate"),
        (validation_dir, "evaluation_loss_vs_iterations"),
    }


def test_TensorBoard_weight_histograms(tmp_path):
    import_extra("tensorboard")
    accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator"
    ).EventAccumulator
    x, y = np.ones((10, 100)), np.ones((10, 1))
    logdir, train_dir, validation_dir = tensorboard_dirs(tmp_path)
    model = tensorboard_model()
    model.fit(x, y, batch_size=2, epochs=2, validation_data=(x, y), verbose=0,
              callbacks=[callbacks.TensorBoard(logdir, histogram_freq=1)])  # fmt: skip
    assert (train_dir, "epoch_loss") in list_scalars(logdir)
    events = accumulator(train_dir)
    events.Reload()
    histograms = {tag for tag in events.Tags()["tensors"] if tag.endswith("/histogram")}
    assert len(histograms) == len(model.weights)  # kernel and bias of both layers
