"""Keras 3's data adapter tests (keras/src/trainers/data_adapters/*_test.py), ported through
the public API: Keras calls its adapters' classes (``ArrayDataAdapter``,
``class_weight_to_sample_weights``...) directly, which are not public; here the same inputs
go through ``fit``/``train_on_batch``, and what the adapter would yield is read from what the
step sees. The cases on tf.data, torch, JAX arrays, sparse tensors and sharding are not ported.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

keras = rt.keras


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def weights_seen(y, class_weight):
    """Each example's sample weight as train_on_batch computes it from ``class_weight``: the
    loss is 1 for every example, so the batch of one example's loss is its weight."""
    model = keras.Sequential([keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss=lambda t, p: p[:, 0] * 0.0 + 1.0)
    x = np.zeros((len(y), 2))
    return [
        model.train_on_batch(x[i : i + 1], y[i : i + 1], class_weight=class_weight)
        for i in range(len(y))
    ]


# --- data_adapter_utils_test.py: TestClassWeightToSampleWeights ----------------------------------


@pytest.mark.parametrize(
    ("y", "class_weight", "expected"),
    [
        (np.array([0, 1, 0, 2]), {0: 1.0, 1: 2.0, 2: 3.0}, [1.0, 2.0, 1.0, 3.0]),
        (np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]]), {0: 1.0, 1: 2.0, 2: 3.0}, [1.0, 2.0, 1.0, 3.0]),
        (np.array([0, 3, 0, 2]), {0: 1.0, 1: 2.0, 2: 3.0}, [1.0, 1.0, 1.0, 3.0]),
        (np.array([[0], [1], [0], [2]]), {0: 1.0, 1: 2.0, 2: 3.0}, [1.0, 2.0, 1.0, 3.0]),
        (np.array([0, 1, 0, 2]), {}, [1.0, 1.0, 1.0, 1.0]),
        (np.array([0, 1, 0, 2]), {"0": 1.0, "1": 2.0, "2": 3.0}, [1.0, 2.0, 1.0, 3.0]),
        (np.array([0, 1, 0, 2]), {0.0: 1.0, 1.0: 2.0, 2.0: 3.0}, [1.0, 2.0, 1.0, 3.0]),
    ],
    ids=["simple_class_labels", "one_hot_encoded_labels", "unmapped_class",
         "multi_dimensional_input", "all_unmapped", "string_number_keys", "float_number_keys"],
)  # fmt: skip
def test_class_weight_to_sample_weights(y, class_weight, expected):
    np.testing.assert_allclose(weights_seen(y, class_weight), expected)


@pytest.mark.parametrize(
    ("class_weight", "message"),
    [
        ({"invalid": 0.5}, "integer keys"),
        ("not_a_dict", "dict-like mapping"),
        ({None: 0.5}, "integer keys"),
    ],
    ids=["invalid_key", "non_dict", "none_key"],
)
def test_class_weight_to_sample_weights_errors(class_weight, message):
    with pytest.raises(ValueError, match=message):
        weights_seen(np.array([0, 1, 0, 2]), class_weight)


def test_generator_with_y_error():
    def generator():
        yield np.ones((10, 2))

    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="providing `x` as a generator"):
        model.fit(generator(), y=np.ones((10, 1)), verbose=0)


# --- array_data_adapter_test.py ------------------------------------------------------------------


class Recorder(keras.Model):
    """Records the shapes of each batch's inputs, as the step sees them."""

    def __init__(self):
        super().__init__()
        self.dense_1 = keras.layers.Dense(3)
        self.dense_2 = keras.layers.Dense(3)
        self.seen = []

    def call(self, x):
        self.seen.append({k: tuple(v.shape) for k, v in x.items()})
        return [self.dense_1(x["x1"]), self.dense_2(x["x2"])]


def test_multi_inputs_and_outputs():
    x1, x2 = np.random.random((34, 1)), np.random.random((34, 2))
    y1, y2 = np.random.random((34, 3)), np.random.random((34, 3))
    sw = np.random.random((34,))
    model = Recorder()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    history = model.fit({"x1": x1, "x2": x2}, [y1, y2],
                        sample_weight=[sw, sw], batch_size=16, shuffle=False, verbose=0)  # fmt: skip
    assert model.seen == [{"x1": (n, 1), "x2": (n, 2)} for n in (16, 16, 2)]
    assert len(history.history["loss"]) == 1


@pytest.mark.parametrize("target_encoding", ["int", "categorical"])
def test_class_weights(target_encoding):
    y = np.array([[0], [1], [2], [3]], dtype="int32")
    if target_encoding == "categorical":
        y = np.eye(4, dtype="float32")
    weights = weights_seen(y, {0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4})
    np.testing.assert_allclose(weights, [0.1, 0.2, 0.3, 0.4], rtol=1e-6)


def test_errors():
    x, y, sw = np.random.random((34, 1)), np.random.random((34, 3)), np.random.random((34,))
    cw = {0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4}
    model = keras.Sequential([keras.layers.Dense(3)])
    model.compile(optimizer="sgd", loss="mse")

    def fit(**kwargs):
        model.fit(verbose=0, **kwargs)

    for kwargs in (
        {"x": "Invalid"},
        {"x": x, "y": "Invalid"},
        {"x": x, "y": y, "sample_weight": "Invalid"},
    ):
        with pytest.raises(ValueError, match="Expected all elements of `.*` to be array-like"):
            fit(**kwargs)
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight`"):
        fit(x=x, y=y, sample_weight=sw, class_weight=cw)
    nested_y = ({"x": x, "y": y},)
    with pytest.raises(ValueError, match="You should provide one `sample_weight` array per"):
        fit(x=x, y=nested_y, sample_weight=[])
    with pytest.raises(ValueError, match="For a model with multiple outputs, when providing"):
        fit(x=x, y=nested_y, sample_weight=rt.ones((34, 2), dtype=rt.int32))
    with pytest.raises(
        ValueError, match="`class_weight` is only supported for Models with a single"
    ):
        fit(x=x, y=nested_y, class_weight=cw)
