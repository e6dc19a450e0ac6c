"""Checkpoints of Keras models and optimizers: layers built after the restore, optimizer slots.

The reference is an uninterrupted run of the same program: training restored from a
checkpoint must take the same next step as training that never stopped.
"""

import numpy as np
import pytest

import runtime as rt

X = np.random.RandomState(0).randn(8, 4).astype("float32")
Y = np.random.RandomState(1).randn(8, 1).astype("float32")


def _model():
    return rt.keras.Sequential(
        [rt.keras.layers.Dense(3, activation="tanh"), rt.keras.layers.Dense(1)]
    )


def _step(model, optimizer):
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(rt.square(model(X) - Y))
    variables = model.trainable_variables
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))


def test_a_dense_layer_built_after_the_restore_takes_its_values(tmp_path):
    layer = rt.keras.layers.Dense(2)
    layer(X)
    path = rt.train.Checkpoint(layer=layer).save(str(tmp_path / "ckpt"))
    fresh = rt.keras.layers.Dense(2)
    status = rt.train.Checkpoint(layer=fresh).restore(path)
    status.assert_existing_objects_matched()  # nothing built yet: nothing unmatched
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).layer"):
        status.assert_consumed()
    fresh(X)  # builds the kernel and bias: restored as they are made
    status.assert_consumed()
    np.testing.assert_array_equal(fresh.kernel.numpy(), layer.kernel.numpy())
    np.testing.assert_array_equal(fresh.bias.numpy(), layer.bias.numpy())
    np.testing.assert_allclose(
        fresh(X).numpy(), X @ layer.kernel.numpy() + layer.bias.numpy(), rtol=1e-6
    )


def test_a_sequential_model_restored_before_its_first_call(tmp_path):
    model = _model()
    expected = model(X).numpy()
    path = rt.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    fresh = _model()
    rt.train.Checkpoint(model=fresh).restore(path)
    np.testing.assert_allclose(fresh(X).numpy(), expected, rtol=1e-6)


def test_a_variable_set_in_a_subclassed_model_after_the_restore(tmp_path):
    class Scaled(rt.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = rt.keras.layers.Dense(1)

        def call(self, x):
            if not hasattr(self, "scale"):
                self.scale = rt.Variable(1.0)
            return self.dense(x) * self.scale

    model = Scaled()
    model(X)
    model.scale.assign(2.5)
    path = rt.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    fresh = Scaled()
    status = rt.train.Checkpoint(model=fresh).restore(path)
    fresh(X)
    status.assert_consumed()
    assert fresh.scale.numpy() == 2.5
    np.testing.assert_allclose(fresh(X).numpy(), model(X).numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda: rt.keras.optimizers.Adam(0.05),
        lambda: rt.keras.optimizers.Adam(0.05, amsgrad=True),
        lambda: rt.keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
        lambda: rt.keras.optimizers.RMSprop(0.05, momentum=0.5, centered=True),
    ],
    ids=["adam", "amsgrad", "sgd-nesterov", "rmsprop-centered"],
)
def test_training_continues_as_if_never_interrupted(tmp_path, make):
    model, optimizer = _model(), make()
    for _ in range(3):
        _step(model, optimizer)
    path = rt.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    _step(model, optimizer)  # the uninterrupted run's next step
    expected = [v.numpy() for v in model.trainable_variables]

    fresh_model, fresh_optimizer = _model(), make()
    status = rt.train.Checkpoint(model=fresh_model, optimizer=fresh_optimizer).restore(path)
    _step(fresh_model, fresh_optimizer)  # builds the model and the slots: all restored
    status.assert_consumed()
    assert int(fresh_optimizer.iterations.numpy()) == 4
    for want, got in zip(expected, fresh_model.trainable_variables):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-7)


def test_slots_restored_into_an_optimizer_that_already_trained(tmp_path):
    model, optimizer = _model(), rt.keras.optimizers.Adam(0.05)
    _step(model, optimizer)
    path = rt.train.Checkpoint(model=model, optimizer=optimizer).write(str(tmp_path / "c"))
    slot = optimizer.get_slot(model.trainable_variables[0], "m").numpy()
    _step(model, optimizer)
    rt.train.Checkpoint(model=model, optimizer=optimizer).read(path).assert_consumed()
    np.testing.assert_array_equal(
        optimizer.get_slot(model.trainable_variables[0], "m").numpy(), slot
    )
    assert int(optimizer.iterations.numpy()) == 1


def test_a_compiled_model_checkpoints_its_optimizer(tmp_path):
    model = _model()
    model.compile(optimizer=rt.keras.optimizers.SGD(0.1, momentum=0.9), loss="mse")
    model.fit(X, Y, epochs=2, batch_size=8, verbose=0)
    path = rt.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    fresh = _model()
    fresh.compile(optimizer=rt.keras.optimizers.SGD(0.1, momentum=0.9), loss="mse")
    status = rt.train.Checkpoint(model=fresh).restore(path)
    fresh.fit(X, Y, epochs=1, batch_size=8, verbose=0)
    model.fit(X, Y, epochs=1, batch_size=8, verbose=0)
    status.assert_consumed()
    for want, got in zip(model.trainable_variables, fresh.trainable_variables):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-7)


def test_the_object_graph_of_a_model_holds_no_cache():
    from runtime.state.trackable import walk

    model = rt.keras.Sequential([rt.keras.layers.Dense(2)])
    model(X)
    assert len(model.trainable_variables) == 2  # fills the layers' caches of what they hold
    assert [path for path, _ in walk(model)] == [
        "",
        "_layers",
        "_layers/0",
        "_layers/0/_own_weights",
        "_layers/0/bias",
        "_layers/0/kernel",
    ]


def test_layers_added_to_a_sequential_model_after_the_restore(tmp_path):
    model = _model()
    expected = model(X).numpy()
    path = rt.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    fresh = rt.keras.Sequential()
    status = rt.train.Checkpoint(model=fresh).restore(path)
    fresh.add(rt.keras.layers.Dense(3, activation="tanh"))
    fresh.add(rt.keras.layers.Dense(1))
    np.testing.assert_allclose(fresh(X).numpy(), expected, rtol=1e-6)
    status.assert_consumed()


def test_weights_a_layer_keeps_only_through_add_weight(tmp_path):
    class TwoScales(rt.keras.layers.Layer):
        def build(self, input_shape):
            self.add_weight(name="a", shape=(input_shape[-1],), initializer="ones")
            self.add_weight(name="b", shape=(), initializer="zeros")

        def call(self, x):
            a, b = self.weights
            return x * a + b

    layer = TwoScales()
    layer(X)
    layer.set_weights([np.arange(4, dtype="float32"), np.float32(0.5)])
    path = rt.train.Checkpoint(layer=layer).save(str(tmp_path / "ckpt"))
    fresh = TwoScales()
    status = rt.train.Checkpoint(layer=fresh).restore(path)
    np.testing.assert_allclose(fresh(X).numpy(), X * np.arange(4) + 0.5, rtol=1e-6)
    status.assert_consumed()
