"""Keras 3's optimizer tests (keras/src/optimizers/*_test.py), ported to ``rt.keras``.

Same programs and expected values (Keras' hand-computed single steps and golden
trajectories); each golden trajectory runs eagerly and inside an ``ag.function``.
Private helpers of Keras' tests (``_clip_gradients``, ``_iterations``...) are
replaced by what a user sees: the variable after one step of SGD at rate 1.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

optimizers = rt.keras.optimizers
ALL = ["adam", "sgd", "adamw", "adagrad", "rmsprop", "adadelta", "adamax", "lion", "nadam", "ftrl"]


def single_step(optimizer):
    grads = rt.constant([1.0, 6.0, 7.0, 2.0])
    var = rt.Variable([1.0, 2.0, 3.0, 4.0])
    optimizer.apply_gradients(zip([grads], [var]))
    return var.numpy()


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: optimizers.SGD(learning_rate=0.5), [0.5, -1.0, -0.5, 3.0]),
        (lambda: optimizers.Adam(learning_rate=0.5), [0.5, 1.5, 2.5, 3.5]),
        (lambda: optimizers.AdamW(learning_rate=0.5), [0.4980, 1.4960, 2.494, 3.492]),
        (lambda: optimizers.RMSprop(learning_rate=0.5), [-0.5811, 0.4189, 1.4189, 2.4189]),
        (lambda: optimizers.Adagrad(learning_rate=0.5), [0.5233, 1.5007, 2.5005, 3.5061]),
        (lambda: optimizers.Adadelta(learning_rate=0.5), [0.9993, 1.9993, 2.9993, 3.9993]),
        (lambda: optimizers.Adamax(learning_rate=0.5), [0.5, 1.5, 2.5, 3.5]),
        (lambda: optimizers.Nadam(learning_rate=0.5), [0.4686, 1.4686, 2.4686, 3.4686]),
        (lambda: optimizers.Lion(learning_rate=0.5), [0.5, 1.5, 2.5, 3.5]),
    ],
    ids=["sgd", "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "lion"],
)
def test_single_step(make, expected):
    np.testing.assert_allclose(single_step(make()), expected, rtol=1e-4, atol=1e-4)


def test_sgd_variables_after_a_step():
    optimizer = optimizers.SGD(learning_rate=0.5)
    assert len(optimizer.variables) == 2
    var = rt.Variable([1.0, 2.0, 3.0, 4.0])
    optimizer.build([var])
    optimizer.apply_gradients(zip([rt.constant([1.0, 6.0, 7.0, 2.0])], [var]))
    assert len(optimizer.variables) == 2
    assert optimizer.variables[0].numpy() == 1
    assert optimizer.variables[1].numpy() == 0.5


@pytest.mark.parametrize("name", [name for name in ALL if name != "ftrl"])  # Keras' files
def test_weight_decay(name):
    cls = type(optimizers.get(name))
    grads = rt.zeros(())
    var1, var2, var3 = rt.Variable(2.0), rt.Variable(2.0, name="exclude"), rt.Variable(2.0)
    optimizer_1 = cls(learning_rate=1.0, weight_decay=0.004)
    optimizer_1.apply_gradients(zip([grads], [var1]))
    optimizer_2 = cls(learning_rate=1.0, weight_decay=0.004)
    optimizer_2.exclude_from_weight_decay(var_names=["exclude"])
    optimizer_2.apply_gradients(zip([grads, grads], [var1, var2]))
    optimizer_3 = cls(learning_rate=1.0, weight_decay=0.004)
    optimizer_3.exclude_from_weight_decay(var_list=[var3])
    optimizer_3.apply_gradients(zip([grads, grads], [var1, var3]))
    assert var1.numpy() == pytest.approx(1.9760959, abs=1e-6)
    assert var2.numpy() == pytest.approx(2.0, abs=1e-6)
    assert var3.numpy() == pytest.approx(2.0, abs=1e-6)


def tile(column):
    return np.tile(np.array(column)[:, None], (1, 10))


GOLDEN = {
    "sgd": (
        lambda: optimizers.SGD(nesterov=True),
        np.array(
            [
                [0.9999] * 10,
                np.arange(0.9989, 0.98985, -0.001),
                np.arange(0.9979, 0.97985, -0.002),
                np.arange(0.9969, 0.96985, -0.003),
                np.arange(0.9959, 0.95985, -0.004),
            ]
        ),
    ),
    "adam amsgrad": (
        lambda: optimizers.Adam(amsgrad=True),
        tile([0.999, 0.9982, 0.9974, 0.9965, 0.9955]),
    ),
    "adamw": (
        lambda: optimizers.AdamW(learning_rate=1.0, weight_decay=0.5, epsilon=2),
        np.array(
            [
                [0.4998] * 10,
                [0.2486, 0.2475, 0.2463, 0.2451, 0.244, 0.2428, 0.2417, 0.2405, 0.2394, 0.2382],
                [0.1223, 0.1198, 0.1174, 0.1149, 0.1124, 0.11, 0.1075, 0.1051, 0.1027, 0.1003],
                [0.0586, 0.0549, 0.0512, 0.0475, 0.0439, 0.0402, 0.0366, 0.033, 0.0294, 0.0258],
                [0.0263, 0.0215, 0.0167, 0.012, 0.0073, 0.0026, -0.0021, -0.0067, -0.0113, -0.0159],
            ]
        ),
    ),
    "rmsprop centered": (
        lambda: optimizers.RMSprop(centered=True),
        tile([0.9967, 0.9933, 0.9908, 0.9885, 0.9864]),
    ),
    "adagrad": (
        lambda: optimizers.Adagrad(learning_rate=0.2, initial_accumulator_value=0.3, epsilon=1e-6),
        np.array(
            [
                [0.9963] * 10,
                [0.9604, 0.9278, 0.9003, 0.8784, 0.8615, 0.8487, 0.8388, 0.8313, 0.8255, 0.8209],
                [0.9251, 0.8629, 0.8137, 0.7768, 0.7497, 0.7298, 0.7151, 0.704, 0.6956, 0.6891],
                [0.8903, 0.8012, 0.7342, 0.6862, 0.6521, 0.6277, 0.6099, 0.5967, 0.5867, 0.579],
                [0.856, 0.7422, 0.6604, 0.6037, 0.5644, 0.5367, 0.5168, 0.5021, 0.491, 0.4825],
            ]
        ),
    ),
    "adadelta": (
        lambda: optimizers.Adadelta(learning_rate=1.0, rho=0.8, epsilon=1e-6),
        tile([0.9978, 0.9947, 0.9915, 0.9882, 0.9849]),
    ),
    "adamax": (
        lambda: optimizers.Adamax(learning_rate=0.2, beta_1=0.85, beta_2=0.95, epsilon=1e-6),
        np.array(
            [
                [0.8] * 10,
                [0.6827, 0.6873, 0.6888, 0.6896, 0.6901, 0.6904, 0.6906, 0.6908, 0.6909, 0.691],
                [0.5333, 0.5407, 0.5431, 0.5444, 0.5451, 0.5456, 0.546, 0.5462, 0.5464, 0.5466],
                [0.368, 0.3773, 0.3804, 0.382, 0.3829, 0.3835, 0.384, 0.3843, 0.3846, 0.3848],
                [0.1933, 0.204, 0.2076, 0.2094, 0.2105, 0.2112, 0.2117, 0.2121, 0.2124, 0.2126],
            ]
        ),
    ),
    "nadam": (
        lambda: optimizers.Nadam(learning_rate=0.5, beta_1=0.5, beta_2=0.67, epsilon=1e-5),
        np.array(
            [
                [0.4281] * 10,
                [
                    -0.1738,
                    -0.1731,
                    -0.1726,
                    -0.1723,
                    -0.1721,
                    -0.172,
                    -0.1719,
                    -0.1718,
                    -0.1718,
                    -0.1717,
                ],
                [
                    -0.7115,
                    -0.7103,
                    -0.7096,
                    -0.7092,
                    -0.709,
                    -0.7088,
                    -0.7086,
                    -0.7085,
                    -0.7085,
                    -0.7084,
                ],
                [
                    -1.2335,
                    -1.2322,
                    -1.2313,
                    -1.2309,
                    -1.2306,
                    -1.2304,
                    -1.2302,
                    -1.2301,
                    -1.23,
                    -1.2299,
                ],
                [
                    -1.7492,
                    -1.7478,
                    -1.7469,
                    -1.7464,
                    -1.7461,
                    -1.7459,
                    -1.7457,
                    -1.7456,
                    -1.7455,
                    -1.7454,
                ],
            ]
        ),
    ),
    "lion": (lambda: optimizers.Lion(), tile([0.999, 0.998, 0.997, 0.996, 0.995])),
}


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
@pytest.mark.parametrize("name", list(GOLDEN))
def test_correctness_with_golden(name, staged):
    make, golden = GOLDEN[name]
    optimizer = make()
    x = rt.Variable(np.ones([10], np.float32))
    grads = rt.constant(np.arange(0.1, 1.1, 0.1).astype(np.float32))
    first_grads = rt.fill([10], 0.01)

    def step(g):
        optimizer.apply_gradients(zip([g], [x]))

    step = ag.function(step) if staged else step
    step(first_grads)
    for i in range(5):
        np.testing.assert_allclose(x.numpy(), golden[i], rtol=5e-4, atol=5e-4)
        step(grads)


def sgd_step_of(**clipping):
    """The step SGD at rate 1 takes on gradient [100, 100] (the clipped gradient, negated)."""
    var = rt.Variable([0.0, 0.0])
    optimizers.SGD(learning_rate=1.0, **clipping).apply_gradients([(np.array([100.0, 100.0]), var)])
    return -var.numpy()


@pytest.mark.parametrize("name", ALL)
def test_clip_norm_and_value(name):
    cls = type(optimizers.get(name))
    assert cls(clipnorm=1).clipnorm == 1 and cls(clipvalue=1).clipvalue == 1
    np.testing.assert_allclose(sgd_step_of(clipnorm=1), [2**0.5 / 2, 2**0.5 / 2], rtol=1e-6)
    np.testing.assert_allclose(sgd_step_of(clipvalue=1), [1.0, 1.0])


def test_global_clip_norm():
    var = rt.Variable([0.0, 0.0])
    grad = np.array([50.0, 100.0], dtype="float32")
    optimizers.SGD(learning_rate=1.0, global_clipnorm=1).apply_gradients([(grad, var)])
    np.testing.assert_allclose(-var.numpy(), grad / np.linalg.norm(grad), rtol=1e-6)


def test_invalid_momentum():
    for momentum in (-1.0, 2.0):
        with pytest.raises(ValueError, match="`momentum` must be a float between \\[0, 1\\]."):
            optimizers.SGD(momentum=momentum)


def test_adamw_weight_decay_is_none():
    with pytest.raises(
        ValueError, match="Argument `weight_decay` must be a float. Received: weight_decay=None"
    ):
        optimizers.AdamW(learning_rate=1.0, weight_decay=None)


@pytest.mark.parametrize("beta_1", [-0.1, 0.0, 1.1])
def test_lion_invalid_beta_1(beta_1):
    message = (
        "Argument `beta_1` must be in the \\[0, 1\\] range. Otherwise, the optimizer "
        f"degenerates to SignSGD. Received: beta_1={beta_1}."
    )
    with pytest.raises(ValueError, match=message):
        optimizers.Lion(beta_1=beta_1)


CONFIGS = [
    lambda: optimizers.SGD(learning_rate=0.5, momentum=0.06, nesterov=True, weight_decay=0.004),
    lambda: optimizers.Adam(learning_rate=0.5, beta_1=0.5, beta_2=0.67, epsilon=1e-5, amsgrad=True),
    lambda: optimizers.AdamW(
        learning_rate=0.5, weight_decay=0.008, beta_1=0.5, beta_2=0.67, epsilon=1e-5, amsgrad=True
    ),
    lambda: optimizers.RMSprop(
        learning_rate=0.5, rho=0.8, momentum=0.05, epsilon=1e-6, centered=True
    ),
    lambda: optimizers.Adagrad(learning_rate=0.5, initial_accumulator_value=0.2, epsilon=1e-5),
    lambda: optimizers.Adadelta(learning_rate=0.5, rho=0.9, epsilon=1e-5),
    lambda: optimizers.Adamax(learning_rate=0.5, beta_1=0.8, beta_2=0.95, epsilon=1e-5),
    lambda: optimizers.Nadam(learning_rate=0.5, beta_1=0.5, beta_2=0.67, epsilon=1e-5),
    lambda: optimizers.Lion(learning_rate=0.5, beta_1=0.5, beta_2=0.67),
]


@pytest.mark.parametrize("make", CONFIGS)
def test_config(make):
    # Keras' run_class_serialization_test: from_config(get_config()) and serialize/deserialize
    # give an equal config.
    optimizer = make()
    config = optimizer.get_config()
    assert type(optimizer).from_config(config).get_config() == config
    assert optimizers.deserialize(optimizers.serialize(optimizer)).get_config() == config
    assert config["learning_rate"] == 0.5


# --- optimizer_test.py ----------------------------------------------------------------------


def test_iterations_counter():
    v = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = rt.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.Adam(learning_rate=1.0)
    assert optimizer.iterations.numpy() == 0
    optimizer.apply_gradients([(grads, v)])
    assert optimizer.iterations.numpy() == 1
    optimizer.apply_gradients([(grads, v)])
    assert optimizer.iterations.numpy() == 2


def test_empty_gradients():
    v = rt.Variable([[3.0, 4.0], [5.0, 6.0]])
    optimizer = optimizers.SGD(learning_rate=1.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        optimizer.apply_gradients([(None, v)])
    v2 = rt.Variable([[3.0, 4.0], [5.0, 6.0]])
    grads2 = rt.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.SGD(learning_rate=1.0)
    with pytest.warns(Warning):
        optimizer.apply_gradients([(None, v), (grads2, v2)])
    np.testing.assert_allclose(v.numpy(), [[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_allclose(v2.numpy(), [[2.0, 3.0], [4.0, 5.0]])


def test_clip_args():
    assert optimizers.SGD(learning_rate=1.0, clipnorm=0.1).clipnorm == 0.1
    assert optimizers.SGD(learning_rate=1.0, clipvalue=0.1).clipvalue == 0.1
    assert optimizers.SGD(learning_rate=1.0, global_clipnorm=0.1).global_clipnorm == 0.1
    for pair in ({"clipnorm": 0.1, "clipvalue": 0.1}, {"clipnorm": 0.1, "global_clipnorm": 0.1}):
        with pytest.raises(
            ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can"
        ):
            optimizers.SGD(learning_rate=1.0, **pair)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_ema(staged):
    v = rt.Variable([[3.0, 4.0], [5.0, 6.0]])
    grads = rt.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.SGD(
        learning_rate=1.0, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3
    )

    def step():
        return optimizer.apply_gradients([(grads, v)])

    step = ag.function(step) if staged else step
    step()
    np.testing.assert_allclose(v.numpy(), [[2.0, 3.0], [4.0, 5.0]])
    np.testing.assert_allclose(optimizer.get_slot(v, "average").numpy(), [[2.0, 3.0], [4.0, 5.0]])
    step()
    np.testing.assert_allclose(v.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(optimizer.get_slot(v, "average").numpy(), [[1.9, 2.9], [3.9, 4.9]])
    step()
    np.testing.assert_allclose(v.numpy(), [[1.71, 2.71], [3.71, 4.71]], rtol=1e-6)
    np.testing.assert_allclose(
        optimizer.get_slot(v, "average").numpy(), [[1.71, 2.71], [3.71, 4.71]], rtol=1e-6
    )


def test_adam_ema_then_finalize():
    optimizer = optimizers.Adam(learning_rate=1.0, use_ema=True, ema_momentum=0.9)
    var = rt.Variable([1.0, 2.0])
    grads = rt.constant([0.1, 0.2])
    optimizer.apply_gradients([(grads, var)])
    v1 = var.numpy()
    np.testing.assert_allclose(optimizer.get_slot(var, "average").numpy(), v1)
    optimizer.apply_gradients([(grads, var)])
    v2 = var.numpy()
    expected_ema = 0.9 * v1 + 0.1 * v2
    np.testing.assert_allclose(optimizer.get_slot(var, "average").numpy(), expected_ema, rtol=1e-6)
    optimizer.finalize_variable_values([var])
    np.testing.assert_allclose(var.numpy(), expected_ema, rtol=1e-6)


def test_ema_overwrite_frequency():
    optimizer = optimizers.Adam(
        learning_rate=1.0, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=2
    )
    optimizer_no_ema = optimizers.Adam(learning_rate=1.0)
    var, var_no_ema = rt.Variable([1.0, 2.0]), rt.Variable([1.0, 2.0])
    grads = rt.constant([0.1, 0.2])
    optimizer.apply_gradients([(grads, var)])
    optimizer_no_ema.apply_gradients([(grads, var_no_ema)])
    v1 = var_no_ema.numpy()
    np.testing.assert_allclose(var.numpy(), v1)
    optimizer.apply_gradients([(grads, var)])
    optimizer_no_ema.apply_gradients([(grads, var_no_ema)])
    expected_ema = 0.9 * v1 + 0.1 * var_no_ema.numpy()
    np.testing.assert_allclose(var.numpy(), expected_ema, rtol=1e-6)


def test_get_method():
    assert isinstance(optimizers.get("sgd"), optimizers.SGD)
    assert isinstance(optimizers.get("adamw"), optimizers.AdamW)
    assert optimizers.get(None) is None
    with pytest.raises(ValueError):
        optimizers.get("typo")


def test_static_loss_scaling():
    v = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = rt.constant([[1.0, 2.0], [3.0, 4.0]]) * 1024.0
    optimizer = optimizers.SGD(learning_rate=1.0, loss_scale_factor=1024.0)
    optimizer.apply_gradients([(grads, v)])
    assert optimizer.scale_loss(1.0) == 1024.0
    np.testing.assert_allclose(v.numpy(), [[0.0, 0.0], [0.0, 0.0]])


def test_set_weights():
    x = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer_1 = optimizers.Adam()
    optimizer_1.apply_gradients(zip([rt.constant([[1.0, 2.0], [3.0, 4.0]])], [x]))
    optimizer_2 = optimizers.Adam()
    with pytest.raises(ValueError, match="You are calling*"):
        optimizer_2.set_weights(optimizer_1.variables)
    optimizer_2.build([x])
    optimizer_2.set_weights(optimizer_1.variables)
    assert len(optimizer_1.variables) == len(optimizer_2.variables) == 4
    for a, b in zip(optimizer_1.variables, optimizer_2.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy())


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_gradient_accumulation(staged):
    v = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = rt.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.SGD(learning_rate=1.0, gradient_accumulation_steps=3)
    assert optimizer.gradient_accumulation_steps == 3

    def step():
        return optimizer.apply_gradients([(grads, v)])

    step = ag.function(step) if staged else step
    expected = [
        ([[1.0, 2.0], [3.0, 4.0]], 1.0, 0),
        ([[1.0, 2.0], [3.0, 4.0]], 2.0, 0),
        ([[0.0, 1.0], [2.0, 3.0]], 0.0, 1),
        ([[0.0, 1.0], [2.0, 3.0]], 1.0, 1),
    ]
    for value, accumulated, iterations in expected:
        step()
        np.testing.assert_allclose(v.numpy(), value)
        np.testing.assert_allclose(
            optimizer.get_slot(v, "gradient_accumulator").numpy(), accumulated
        )
        assert int(optimizer.iterations.numpy()) == iterations


@pytest.mark.parametrize("name", ALL)
def test_gradient_accumulation_with_weight_decay(name):
    optimizer1 = optimizers.get({"class_name": name, "config": {"weight_decay": 0.05}})
    optimizer3 = optimizers.get(
        {"class_name": name, "config": {"weight_decay": 0.05, "gradient_accumulation_steps": 3}}
    )
    variable1 = rt.Variable([[0.9], [0.5]])
    variable3 = rt.Variable([[0.9], [0.5]])
    rng = np.random.default_rng(0)
    for _ in range(8):
        grads3 = rng.random([3, 2, 1]).astype("float32")
        optimizer1.apply_gradients([(rt.constant(grads3.mean(axis=0)), variable1)])
        for batch in range(3):
            optimizer3.apply_gradients([(rt.constant(grads3[batch]), variable3)])
    np.testing.assert_allclose(variable1.numpy(), variable3.numpy(), rtol=1e-5, atol=1e-6)


def test_callable_learning_rate():
    v = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = rt.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.SGD(learning_rate=lambda: 0.1)
    assert optimizer.iterations.numpy() == 0
    optimizer.apply_gradients([(grads, v)])
    np.testing.assert_allclose(v.numpy(), [[0.9, 1.9], [2.9, 3.9]], rtol=1e-6)
    assert optimizer.iterations.numpy() == 1


def test_setting_lr_to_callable_untracks_lr_var():
    adam = optimizers.Adam(learning_rate=0.001)
    assert len(adam.variables) == 2
    adam.learning_rate = optimizers.schedules.PolynomialDecay(adam.learning_rate, 4)
    assert len(adam.variables) == 1


@pytest.mark.parametrize("name", ALL)
def test_pickleable_optimizers(name):
    import pickle

    optimizer = optimizers.get(name)
    assert pickle.loads(pickle.dumps(optimizer)).get_config() == optimizer.get_config()


@pytest.mark.xfail(
    strict=True, reason="default names stay the class name (Adam), as Keras 3.0-3.12"
)
def test_optimizer_auto_naming():
    assert (optimizers.Adam().name, optimizers.Adam().name) == ("adam", "adam_1")


def test_explicit_name_survives_serialization():
    custom_adam = optimizers.Adam(name="my_adam")
    assert custom_adam.name == "my_adam"
    assert optimizers.deserialize(optimizers.serialize(custom_adam)).name == "my_adam"


def test_nadam_build_with_empty_var_list():
    optimizer = optimizers.Nadam()
    optimizer.build([])
    assert optimizer.variables[-1].dtype == rt.float32  # the running product of u_t


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_ema_with_model_fit(run_eagerly):
    x_train = np.ones((1, 1)).astype("float32")
    y_train = np.zeros((1, 1)).astype("float32")
    optimizer = optimizers.SGD(learning_rate=0.1, use_ema=True, ema_momentum=0.9)
    model = rt.keras.Sequential(
        [rt.keras.layers.Dense(2, kernel_initializer="ones", use_bias=False)]
    )
    model.compile(loss="mse", optimizer=optimizer, run_eagerly=run_eagerly)
    model.fit(x_train, y_train, batch_size=1, epochs=2, verbose=0)
    kernel = model.trainable_variables[0]
    np.testing.assert_allclose(
        optimizer.get_slot(kernel, "average").numpy(), [[0.891, 0.891]], atol=1e-5
    )
    np.testing.assert_allclose(kernel.numpy(), [[0.891, 0.891]], atol=1e-5)


def test_adam_ema_fit_finalizes_the_weights():
    model = rt.keras.Sequential(
        [rt.keras.layers.Dense(10, kernel_initializer="ones", use_bias=False)]
    )
    model.compile(optimizer=optimizers.Adam(use_ema=True, ema_momentum=0.9), loss="mse")
    model.fit(np.ones((1, 5)), np.zeros((1, 10)), verbose=0)
    kernel = model.trainable_variables[0]
    np.testing.assert_allclose(kernel.numpy(), model.optimizer.get_slot(kernel, "average").numpy())


def test_lion_ema_fit():
    model = rt.keras.Sequential([rt.keras.layers.Dense(10)])
    model.compile(optimizer=optimizers.Lion(use_ema=True), loss="mse")
    model.fit(np.zeros((1, 5)), np.zeros((1, 10)), verbose=0)


# --- ftrl_test.py ---------------------------------------------------------------------------

FTRL_OPTIONS = {
    "learning_rate": 0.05,
    "learning_rate_power": -0.2,
    "initial_accumulator_value": 0.4,
    "l1_regularization_strength": 0.05,
    "l2_regularization_strength": 0.15,
    "l2_shrinkage_regularization_strength": 0.01,
    "beta": 0.3,
}


def test_ftrl_config():
    optimizer = optimizers.Ftrl(**FTRL_OPTIONS)
    config = optimizer.get_config()
    assert optimizers.Ftrl.from_config(config).get_config() == config
    # The learning rate is a float32 variable, as in Keras: its config is that float32's value.
    assert config.pop("learning_rate") == pytest.approx(0.05, rel=1e-7)
    assert {k: config[k] for k in FTRL_OPTIONS if k != "learning_rate"} == {
        k: v for k, v in FTRL_OPTIONS.items() if k != "learning_rate"
    }


def test_ftrl_single_step():
    np.testing.assert_allclose(
        single_step(optimizers.Ftrl(learning_rate=0.5)),
        [0.2218, 1.3954, 2.3651, 2.8814],
        rtol=1e-4,
        atol=1e-4,
    )


FTRL_GOLDEN = np.array(
    [
        [0.0] * 10,
        [-0.0034, -0.0077, -0.0118, -0.0157, -0.0194, -0.023, -0.0263, -0.0294, -0.0325, -0.0354],
        [-0.0078, -0.0162, -0.0242, -0.0317, -0.0387, -0.0454, -0.0516, -0.0575, -0.0631, -0.0685],
        [-0.0121, -0.0246, -0.0363, -0.0472, -0.0573, -0.0668, -0.0757, -0.0842, -0.0922, -0.0999],
        [-0.0164, -0.0328, -0.0481, -0.0623, -0.0753, -0.0875, -0.099, -0.1098, -0.1201, -0.1299],
    ]
)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_ftrl_correctness_with_golden(staged):
    GOLDEN["ftrl"] = (lambda: optimizers.Ftrl(**FTRL_OPTIONS), FTRL_GOLDEN)
    try:
        test_correctness_with_golden("ftrl", staged)
    finally:
        del GOLDEN["ftrl"]


@pytest.mark.parametrize(
    "argument",
    [
        "initial_accumulator_value",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "l2_shrinkage_regularization_strength",
    ],
)
def test_ftrl_invalid_strength(argument):
    message = f"^`{argument}` needs to be positive or zero. Received: {argument}=-0.1.$"
    with pytest.raises(ValueError, match=message):
        optimizers.Ftrl(**{argument: -0.1})


def test_ftrl_invalid_learning_rate_power():
    message = (
        "^`learning_rate_power` needs to be negative or zero. Received: learning_rate_power=0.1.$"
    )
    with pytest.raises(ValueError, match=message):
        optimizers.Ftrl(learning_rate_power=0.1)


def test_variables_in_keras_order():
    # Keras 3 (base_optimizer.build, then each optimizer's build): iterations, learning rate,
    # every EMA average, every gradient accumulator, then per variable momentum and velocity,
    # then (amsgrad) every velocity_hat.
    a, b = rt.Variable([1.0], name="a"), rt.Variable([2.0], name="b")
    adam = optimizers.Adam(amsgrad=True, use_ema=True, gradient_accumulation_steps=2)
    adam.build([a, b])
    names = [v.name.removeprefix("Adam/").removesuffix(":0") for v in adam.variables]
    assert names == [
        "iter",
        "learning_rate",
        "a/average",
        "b/average",
        "a/gradient_accumulator",
        "b/gradient_accumulator",
        "a/m",
        "a/v",
        "b/m",
        "b/v",
        "a/vhat",
        "b/vhat",
    ]


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_constraints_are_applied(staged):
    # Keras' case, with NonNeg written as the function it is: max(w, 0).
    v = rt.Variable(np.random.random((2, 2)).astype(np.float32) - 1.0)
    v.constraint = lambda w: rt.maximum(w, 0.0)
    optimizer = optimizers.SGD(learning_rate=0.0001)

    def step():
        optimizer.apply_gradients([(rt.zeros((2, 2)), v)])

    (ag.function(step) if staged else step)()
    assert np.min(v.numpy()) == 0.0


class KerasDocSGD(optimizers.Optimizer):
    """The custom optimizer of Keras 3's ``Optimizer`` docstring (SGD with momentum 0.9)."""

    def __init__(self, learning_rate=0.1, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = 0.9

    def build(self, variables):
        super().build(variables)
        self.momentums = [
            self.add_variable_from_reference(reference_variable=v, name="momentum")
            for v in variables
        ]

    def update_step(self, gradient, variable, learning_rate):
        learning_rate = rt.keras.ops.cast(learning_rate, variable.dtype)
        m = self.momentums[self._get_variable_index(variable)]
        self.assign(m, m * self.momentum - gradient * learning_rate)
        self.assign_add(variable, m)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_a_custom_optimizer_written_as_keras_documents(staged):
    a, b = rt.Variable([1.0, 2.0], name="a"), rt.Variable(3.0, name="b")
    optimizer = KerasDocSGD(clipvalue=1.0)

    def step():
        optimizer.apply_gradients([(rt.constant([0.5, 4.0]), a), (rt.constant(-2.0), b)])

    step = ag.function(step) if staged else step
    for _ in range(3):
        step()
    reference = {}
    for name, w, g in (("a", np.array([1.0, 2.0]), np.array([0.5, 1.0])), ("b", 3.0, -1.0)):
        m = 0.0
        for _ in range(3):
            m = 0.9 * m - 0.1 * g
            w = w + m
        reference[name] = w
    np.testing.assert_allclose(a.numpy(), reference["a"], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), reference["b"], rtol=1e-6)
    names = [v.name for v in optimizer.variables]
    assert names[2:] == ["KerasDocSGD/a/momentum:0", "KerasDocSGD/b/momentum:0"]
    assert int(optimizer.iterations.numpy()) == 3
