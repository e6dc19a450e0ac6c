"""A model's own ``train_step``/``test_step``/``predict_step``, as ``fit``, ``evaluate`` and
``predict`` call them in Keras 3: the examples of Keras' guide "Customizing what happens in
fit()" (keras-io guides/custom_train_step_in_tensorflow.py, ``tf`` written ``rt``), and Keras'
trainer_test cases for custom steps. Each custom step is checked against the default one doing
the same work (same weights, same data, no shuffling), or against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
RNG = np.random.default_rng(0)
X = RNG.random((64, 32)).astype(np.float32)
Y = RNG.random((64, 1)).astype(np.float32)
SW = RNG.random((64, 1)).astype(np.float32)
MODES = pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def functional(cls=keras.Model):
    keras.utils.set_random_seed(1)
    inputs = keras.Input(shape=(32,))
    return cls(inputs, keras.layers.Dense(1)(inputs))


def fit_history(model, **kwargs):
    return model.fit(X, Y, batch_size=16, epochs=3, shuffle=False, verbose=0, **kwargs).history


def assert_same_history(got, expected):
    assert list(got) == list(expected)
    for key in expected:
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-5, err_msg=key)


# --- the guide's examples -----------------------------------------------------------------------


class GuideModel(keras.Model):
    """The guide's first example: the compiled loss and metrics, driven by hand."""

    def train_step(self, data):
        x, y = data
        with rt.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


@MODES
def test_guide_first_example_trains_as_the_default_step(run_eagerly):
    model = functional(GuideModel)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    reference = functional()
    reference.compile(optimizer="adam", loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    # The compiled metrics' nested dict is logged flat, as Keras logs it.
    assert_same_history(fit_history(model), fit_history(reference))
    np.testing.assert_allclose(model.get_weights()[0], reference.get_weights()[0], rtol=1e-5)


class LowerLevelModel(keras.Model):
    """The guide's "Going lower-level": compile() gives only the optimizer; the model's own
    trackers, reset each epoch because ``metrics`` lists them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        with rt.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


@MODES
def test_guide_lower_level_example_needs_no_compiled_loss(run_eagerly):
    model = functional(LowerLevelModel)
    model.compile(optimizer="adam", run_eagerly=run_eagerly)
    reference = functional()
    reference.compile(optimizer="adam", loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    assert_same_history(fit_history(model), fit_history(reference))


class WeightedModel(keras.Model):
    """The guide's "Supporting sample_weight & class_weight"."""

    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        with rt.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


@MODES
def test_guide_sample_weight_example(run_eagerly):
    model = functional(WeightedModel)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    reference = functional()
    reference.compile(optimizer="adam", loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    assert_same_history(
        fit_history(model, sample_weight=SW), fit_history(reference, sample_weight=SW)
    )


class EvaluatingModel(keras.Model):
    """The guide's "Providing your own evaluation step"."""

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


@MODES
def test_guide_custom_test_step(run_eagerly):
    model = functional(EvaluatingModel)
    model.compile(loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    y_pred = model.predict(X, verbose=0)
    got = model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True)
    np.testing.assert_allclose(got["loss"], np.mean((y_pred - Y) ** 2), rtol=1e-5)
    np.testing.assert_allclose(got["mae"], np.mean(np.abs(y_pred - Y)), rtol=1e-5)


class GAN(keras.Model):
    """The guide's GAN, on 8x8 images (no Conv2DTranspose here: the generator is dense)."""

    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
        self.seed_generator = keras.random.SeedGenerator(1337)
        self.batches = []

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn, run_eagerly=False):
        super().compile(run_eagerly=run_eagerly)
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real_images):
        self.batches.append(type(real_images))
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        batch_size = rt.shape(real_images)[0]
        random_latent_vectors = keras.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )
        generated_images = self.generator(random_latent_vectors)
        combined_images = rt.concat([generated_images, real_images], axis=0)
        labels = rt.concat([rt.ones((batch_size, 1)), rt.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * keras.random.uniform(rt.shape(labels), seed=self.seed_generator)
        with rt.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
        random_latent_vectors = keras.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )
        misleading_labels = rt.zeros((batch_size, 1))
        with rt.GradientTape() as tape:
            predictions = self.discriminator(self.generator(random_latent_vectors))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply(grads, self.generator.trainable_weights)
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


@MODES
def test_guide_gan_trains_both_networks(run_eagerly):
    layers = keras.layers
    discriminator = keras.Sequential(
        [
            keras.Input(shape=(8, 8, 1)),
            layers.Conv2D(4, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )
    latent_dim = 4
    generator = keras.Sequential(
        [
            keras.Input(shape=(latent_dim,)),
            layers.Dense(8 * 8, activation="sigmoid"),
            layers.Reshape((8, 8, 1)),
        ],
        name="generator",
    )
    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
        run_eagerly=run_eagerly,
    )
    before = [w.copy() for w in discriminator.get_weights() + generator.get_weights()]
    images = RNG.random((12, 8, 8, 1)).astype(np.float32)
    history = gan.fit(images, batch_size=4, epochs=2, verbose=0).history
    assert list(history) == ["d_loss", "g_loss"] and len(history["d_loss"]) == 2
    assert np.isfinite(history["d_loss"] + history["g_loss"]).all()
    after = discriminator.get_weights() + generator.get_weights()
    assert all(not np.allclose(a, b) for a, b in zip(before, after))
    # fit(x) gives the step the bare batch, as Keras packs it (no tuple around x alone)
    assert gan.batches and not any(issubclass(kind, tuple) for kind in gan.batches)


# --- Keras' trainer_test ------------------------------------------------------------------------


class ExampleModel(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense = keras.layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)


class CustomTrainTestStepModel(ExampleModel):
    def train_step(self, data):
        logs = super().train_step(data)
        logs["my_custom_metric"] = 10.0
        return logs

    def test_step(self, data):
        logs = super().test_step(data)
        logs["my_custom_metric"] = 5.0
        return logs


def compiled_custom_model(run_eagerly=False):
    model = CustomTrainTestStepModel(units=3)
    model.compile(
        optimizer=keras.optimizers.SGD(),
        loss=keras.losses.MeanSquaredError(),
        metrics=[keras.metrics.MeanSquaredError()],
        run_eagerly=run_eagerly,
    )
    return model


@MODES
def test_fit_with_custom_train_step(run_eagerly):
    model = compiled_custom_model(run_eagerly)
    history = model.fit(np.ones((100, 4)), np.zeros((100, 3)), batch_size=16, verbose=0).history
    assert "loss" in history and "mean_squared_error" in history
    np.testing.assert_allclose(history["my_custom_metric"], 10.0)


@MODES
@pytest.mark.parametrize("return_dict", [False, True], ids=["flat", "dict"])
def test_evaluate_with_custom_test_step(run_eagerly, return_dict):
    model = compiled_custom_model(run_eagerly)
    output = model.evaluate(np.ones((100, 4)), np.zeros((100, 3)), batch_size=16, verbose=0,
                            return_dict=return_dict)  # fmt: skip
    assert len(output) == 3
    if return_dict:
        np.testing.assert_allclose(output["my_custom_metric"], 5.0)
        np.testing.assert_allclose(output["loss"], 16.0)  # kernel of ones: every output is 4
    else:
        np.testing.assert_allclose(output[-1], 5.0)  # custom metrics go last


def test_retracing():
    x, y = np.ones((100, 4)), np.ones((100, 1))
    inputs = keras.Input(shape=[4])
    outputs = keras.layers.Dense(1, activation="relu")(inputs)
    tracing_count = [0]

    class TracingCounterModel(keras.Model):
        def train_step(self, *args):
            tracing_count[0] = tracing_count[0] + 1
            return super().train_step(*args)

    model = TracingCounterModel(inputs=inputs, outputs=outputs)
    model.compile(loss="mse", optimizer="adam", steps_per_execution=20)
    model.fit(x=x, y=y, batch_size=1, epochs=1, verbose=0)
    assert 1 <= tracing_count[0] <= 2


def test_retracing_predict():
    x = np.ones((100, 4))
    inputs = keras.Input(shape=[4])
    outputs = keras.layers.Dense(1, activation="relu")(inputs)
    tracing_count = [0]

    class TracingCounterModel(keras.Model):
        def predict_step(self, *args):
            tracing_count[0] = tracing_count[0] + 1
            return super().predict_step(*args)

    model = TracingCounterModel(inputs=inputs, outputs=outputs)
    model.compile(loss="mse", optimizer="adam", steps_per_execution=20)
    model.predict(x=x, batch_size=1, verbose=0)
    assert 1 <= tracing_count[0] <= 2


# --- the steps' data, overrides eagerly, predict_step -------------------------------------------


def test_custom_predict_step_gives_predict_its_outputs():
    class Scaled(ExampleModel):
        def predict_step(self, data):
            x, _, _ = keras.utils.unpack_x_y_sample_weight(data)
            return 2 * self(x, training=False)

    model = Scaled(units=2)
    np.testing.assert_allclose(model.predict(np.ones((5, 3)), batch_size=2, verbose=0),
                               np.full((5, 2), 6.0))  # fmt: skip
    np.testing.assert_allclose(model.predict_on_batch(np.ones((1, 3))), [[6.0, 6.0]])


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({}, "x"),
        ({"y": Y}, "(x, y)"),
        ({"y": Y, "sample_weight": SW}, "(x, y, sample_weight)"),
    ],
)
def test_train_step_data_is_packed_as_keras_packs_it(arguments, expected):
    seen = []

    class Recording(ExampleModel):
        def train_step(self, data):
            seen.append(data)
            return {}

    model = Recording(units=1)
    model.compile("sgd", run_eagerly=True)
    model.fit(X, batch_size=64, shuffle=False, verbose=0, **arguments)
    (data,) = seen
    shape = {"x": "x", 2: "(x, y)", 3: "(x, y, sample_weight)"}
    assert shape[len(data) if isinstance(data, tuple) else "x"] == expected
    first = data[0] if isinstance(data, tuple) else data
    np.testing.assert_array_equal(first.numpy(), X)


def test_unpack_and_pack_are_keras_utils():
    pack, unpack = keras.utils.pack_x_y_sample_weight, keras.utils.unpack_x_y_sample_weight
    assert unpack(pack("x")) == ("x", None, None)
    assert unpack(pack("x", "y")) == ("x", "y", None)
    assert unpack(pack("x", "y", "w")) == ("x", "y", "w")
    assert unpack(pack(["a", "b"])) == (["a", "b"], None, None)
