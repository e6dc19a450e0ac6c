"""Ported from Keras 3's keras/src/callbacks/model_checkpoint_test.py: the same cases, with
rt.keras's names."""

import os
import warnings

import numpy as np
import pytest

import runtime as rt
from tests.extras import import_extra

import_extra("h5py")
callbacks, layers = rt.keras.callbacks, rt.keras.layers

TRAIN_SAMPLES, TEST_SAMPLES, NUM_CLASSES, INPUT_DIM, NUM_HIDDEN, BATCH_SIZE = 30, 30, 3, 3, 5, 5


def get_test_data():
    rng = np.random.default_rng(42)
    x = rng.normal(size=(TRAIN_SAMPLES + TEST_SAMPLES, INPUT_DIM)).astype("float32")
    y = np.eye(NUM_CLASSES, dtype="float32")[rng.integers(0, NUM_CLASSES, len(x))]
    return (x[:TRAIN_SAMPLES], y[:TRAIN_SAMPLES]), (x[TRAIN_SAMPLES:], y[TRAIN_SAMPLES:])


def get_model():
    model = rt.keras.Sequential(
        [
            layers.Dense(NUM_HIDDEN, activation="relu"),
            layers.Dense(NUM_CLASSES, activation="softmax"),
        ]
    )
    model.compile(
        loss="categorical_crossentropy", optimizer="sgd", metrics=[rt.keras.metrics.Accuracy("acc")]
    )
    return model


@pytest.fixture
def fit(tmp_path):
    model = get_model()
    (x_train, y_train), (x_test, y_test) = get_test_data()

    def run(callback, epochs=1, batch_size=BATCH_SIZE, verbose=0):
        model.fit(x_train, y_train, batch_size=batch_size, validation_data=(x_test, y_test),
                  callbacks=[callback], epochs=epochs, verbose=verbose)  # fmt: skip

    run.model = model
    return run


@pytest.mark.parametrize(
    ("monitor", "mode", "save_best_only"),
    [
        ("val_loss", "auto", False),
        ("val_loss", "min", False),
        ("val_acc", "max", False),
        ("val_acc", "max", True),
    ],  # fmt: skip
    ids=["case1", "case2", "case3", "case4"],
)
def test_model_checkpoint_options_save(tmp_path, fit, monitor, mode, save_best_only):
    filepath = os.path.join(tmp_path, "subdir", "checkpoint.keras")  # the directory is made
    fit(callbacks.ModelCheckpoint(filepath, monitor=monitor, save_best_only=save_best_only,
                                  mode=mode))  # fmt: skip
    assert os.path.exists(filepath)


def test_case5_metric_not_available(tmp_path, fit):
    filepath = os.path.join(tmp_path, "checkpoint.keras")
    with pytest.warns(UserWarning):
        fit(callbacks.ModelCheckpoint(filepath, monitor="unknown", save_best_only=True, mode="min"))
    assert os.path.exists(filepath)


def test_case6_unknown_mode_warns(tmp_path):
    with warnings.catch_warnings(record=True) as warning_logs:
        warnings.simplefilter("always")
        callbacks.ModelCheckpoint(os.path.join(tmp_path, "c.keras"), mode="unknown")
    assert "ModelCheckpoint mode 'unknown' is unknown" in str(warning_logs[-1].message)


@pytest.mark.parametrize("suffix", [".keras", ".weights.h5"], ids=["case8a", "case8b"])
def test_case8_integer_save_freq(tmp_path, fit, suffix):
    filepath = os.path.join(tmp_path, "checkpoint.epoch{epoch:02d}" + suffix)
    fit(callbacks.ModelCheckpoint(filepath, monitor="val_acc", save_freq=15,
                                  save_weights_only=suffix != ".keras"),
        epochs=10, batch_size=6)  # 5 batches an epoch: a save every 3 epochs  # fmt: skip
    saved = [epoch for epoch in range(1, 11) if os.path.exists(filepath.format(epoch=epoch))]
    assert saved == [3, 6, 9]


def test_case9_save_freq_values(tmp_path):
    filepath = os.path.join(tmp_path, "c.weights.h5")
    with pytest.raises(ValueError, match="Unrecognized save_freq"):
        callbacks.ModelCheckpoint(filepath, save_weights_only=True, save_freq="invalid_save_freq")
    callbacks.ModelCheckpoint(filepath, save_weights_only=True, save_freq="epoch")
    callbacks.ModelCheckpoint(filepath, save_weights_only=True, save_freq=3)


@pytest.mark.parametrize("suffix", [".keras", ".weights.h5"], ids=["case10a", "case10b"])
def test_case10_batch_in_filename(tmp_path, fit, suffix):
    filepath = os.path.join(tmp_path, "checkpoint.epoch{epoch:02d}batch{batch:02d}" + suffix)
    fit(callbacks.ModelCheckpoint(filepath, monitor="val_loss", save_freq=1,
                                  save_weights_only=suffix != ".keras"),
        epochs=5, batch_size=15, verbose=1)  # fmt: skip
    for epoch in range(1, 6):
        for batch in (1, 2):
            assert os.path.exists(filepath.format(epoch=epoch, batch=batch))


@pytest.mark.parametrize(
    ("monitor", "mode", "threshold", "saved"),
    [
        ("val_acc", "max", -0.01, True),
        ("val_loss", "auto", None, True),
        ("val_loss", "min", 0, False),
        ("val_loss", "auto", 0, False),
    ],  # fmt: skip
    ids=["case11", "case12", "case13", "case14"],
)
def test_initial_value_threshold(tmp_path, fit, monitor, mode, threshold, saved):
    filepath = os.path.join(tmp_path, "checkpoint.keras")
    fit(callbacks.ModelCheckpoint(filepath, monitor=monitor, save_best_only=True,
                                  initial_value_threshold=threshold, mode=mode))  # fmt: skip
    assert os.path.exists(filepath) is saved


def test_case15_auc_max_earlier_in_auto_mode(tmp_path, fit):
    filepath = os.path.join(tmp_path, "checkpoint.keras")
    fit.model.compile(loss="categorical_crossentropy", optimizer="sgd",
                      metrics=[rt.keras.metrics.AUC()])  # fmt: skip
    fit(callbacks.ModelCheckpoint(filepath, monitor="val_auc", save_best_only=True,
                                  initial_value_threshold=1, mode="auto"))  # fmt: skip
    assert not os.path.exists(filepath)


def get_functional_model():
    inputs = layers.Input(shape=(INPUT_DIM,), batch_size=5)
    x = layers.Dense(NUM_HIDDEN, activation="relu")(inputs)
    outputs = layers.Dense(NUM_CLASSES, activation="softmax")(x)
    model = rt.keras.Model(inputs, outputs)
    model.compile(
        loss="categorical_crossentropy", optimizer="sgd", metrics=[rt.keras.metrics.Accuracy("acc")]
    )
    return model


@pytest.mark.parametrize("weights_only", [False, True])
def test_model_checkpoint_loading(tmp_path, weights_only):
    (x_train, y_train), (x_test, y_test) = get_test_data()
    model = get_functional_model()
    name = "checkpoint.weights.h5" if weights_only else "checkpoint.model.keras"
    filepath = os.path.join(tmp_path, name)
    checkpoint = callbacks.ModelCheckpoint(filepath, monitor="val_loss", save_best_only=True,
                                           save_weights_only=weights_only, mode="auto")  # fmt: skip
    model.fit(x_train, y_train, batch_size=BATCH_SIZE, validation_data=(x_test, y_test),
              callbacks=[checkpoint], epochs=1, verbose=0)  # fmt: skip
    if weights_only:
        new_model = get_functional_model()
        new_model.load_weights(filepath)
    else:
        new_model = rt.keras.saving.load_model(filepath)
    ref_weights, new_weights = model.get_weights(), new_model.get_weights()
    assert len(ref_weights) == len(new_weights)
    for ref_w, w in zip(ref_weights, new_weights):
        np.testing.assert_allclose(w, ref_w)


def test_model_checkpoint_loading_sequential(tmp_path):
    """The loading case above, with the Sequential model of the other cases."""
    (x_train, y_train), (x_test, y_test) = get_test_data()
    model = get_model()
    filepath = os.path.join(tmp_path, "checkpoint.model.keras")
    checkpoint = callbacks.ModelCheckpoint(filepath, monitor="val_loss", save_best_only=True)
    model.fit(x_train, y_train, batch_size=BATCH_SIZE, validation_data=(x_test, y_test),
              callbacks=[checkpoint], epochs=1, verbose=0)  # fmt: skip
    new_weights = rt.keras.saving.load_model(filepath).get_weights()
    for ref_w, w in zip(model.get_weights(), new_weights):
        np.testing.assert_allclose(w, ref_w)


def test_filepath_extension_checks(tmp_path):
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        callbacks.ModelCheckpoint(os.path.join(tmp_path, "c.keras"), save_weights_only=True)
    with pytest.raises(ValueError, match=r"must end in `\.keras`"):
        callbacks.ModelCheckpoint(os.path.join(tmp_path, "c.weights.h5"))


def test_filename_formatting_with_logs(tmp_path, fit):
    filepath = os.path.join(tmp_path, "{epoch:02d}-{val_loss:.2f}.keras")
    fit(callbacks.ModelCheckpoint(filepath), epochs=2)
    names = sorted(os.listdir(tmp_path))
    assert [n[:3] for n in names] == ["01-", "02-"]
    history = fit.model.history.history["val_loss"]
    assert names[1] == f"02-{history[-1]:.2f}.keras"
    with pytest.raises(KeyError, match="Failed to format this callback filepath"):
        fit(callbacks.ModelCheckpoint(os.path.join(tmp_path, "{nothing}.keras")))
