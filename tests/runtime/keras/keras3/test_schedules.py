"""Keras 3's learning-rate schedule tests
(keras/src/optimizers/schedules/learning_rate_schedule_test.py), ported to ``rt.keras``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import runtime as rt

schedules = rt.keras.optimizers.schedules


def close(actual, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_fit_lr_correctness(run_eagerly):
    rt.keras.backend.clear_session()
    model = rt.keras.Sequential(
        [rt.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones")]
    )
    optimizer = rt.keras.optimizers.Adam(
        learning_rate=schedules.ExponentialDecay(
            initial_learning_rate=0.05, decay_steps=1, decay_rate=0.9
        )
    )
    assert len(optimizer.variables) == 1
    assert optimizer.variables[0].numpy() == 0
    model.compile(optimizer=optimizer, loss="mse", run_eagerly=run_eagerly)
    x = np.arange(32).reshape((16, 2))
    y = np.arange(32).reshape((16, 2))
    history = model.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0)
    assert optimizer.variables[0].numpy() == 4 * 3
    close(
        history.history["loss"], [230.79457092285156, 128.30319213867188, 79.33648681640625], 5e-5
    )


CONFIGS = [
    lambda: schedules.ExponentialDecay(0.05, 10, 0.96, staircase=True, name="my_ed"),
    lambda: schedules.PiecewiseConstantDecay(boundaries=[10, 20], values=[1, 2, 3], name="my_pcd"),
    lambda: schedules.PolynomialDecay(0.1, 100, end_learning_rate=0.005, power=1.0, name="my_ld"),
    lambda: schedules.InverseTimeDecay(0.05, 10, 0.96, staircase=True, name="my_itd"),
    lambda: schedules.CosineDecay(
        0.05, 10, alpha=0.1, warmup_target=0.2, warmup_steps=2, name="my_cd"
    ),
    lambda: schedules.CosineDecayRestarts(0.05, 10, alpha=0.1, t_mul=3.0, m_mul=4.0, name="my_cdr"),
]


@pytest.mark.parametrize("make", CONFIGS)
def test_config(make):
    schedule = make()
    config = schedule.get_config()
    assert type(schedule).from_config(config).get_config() == config
    assert schedules.deserialize(schedules.serialize(schedule)).get_config() == config
    for step in (0, 3, 15):
        close(schedules.deserialize(schedules.serialize(schedule))(step), schedule(step))


def test_exponential_continuous():
    close(schedules.ExponentialDecay(0.05, 10, 0.96)(5), 0.05 * 0.96 ** (5.0 / 10.0))


def test_exponential_staircase_on_a_variable_step():
    step = rt.Variable(1.0)
    decayed_lr = schedules.ExponentialDecay(0.1, 3, 0.96, staircase=True)
    close(decayed_lr(step), 0.1)
    step.assign(2)
    close(decayed_lr(step), 0.1)
    step.assign(100)
    close(decayed_lr(step), 0.1 * 0.96 ** (100 // 3))


def test_piecewise_values():
    x = rt.Variable(-999.0)
    decayed_lr = schedules.PiecewiseConstantDecay([100, 110, 120], [1.0, 0.1, 0.01, 0.001])
    for value, expected in [
        (-999, 1.0),
        (100, 1.0),
        (105, 0.1),
        (110, 0.1),
        (120, 0.01),
        (999, 0.001),
    ]:
        x.assign(value)
        close(decayed_lr(x), expected)


def test_piecewise_boundary_values_on_an_int64_step():
    x_int64 = rt.Variable(0, dtype=rt.int64, trainable=False)
    decayed_lr = schedules.PiecewiseConstantDecay([1, 2, 3], [0.4, 0.5, 0.6, 0.7])
    for value, expected in [(0, 0.4), (1, 0.4), (2, 0.5), (3, 0.6), (4, 0.7)]:
        x_int64.assign(value)
        close(decayed_lr(x_int64), expected)


@pytest.mark.parametrize(
    ("step", "end_lr", "power", "cycle", "expected"),
    [
        (5, 0.0, 1.0, False, 0.05 * 0.5),
        (10, 0.001, 1.0, False, 0.001),
        (5, 0.001, 1.0, False, (0.05 + 0.001) * 0.5),
        (15, 0.001, 1.0, False, 0.001),
        (15, 0.001, 1.0, True, (0.05 - 0.001) * 0.25 + 0.001),
        (5, 0.0, 0.5, False, 0.05 * 0.5**0.5),
        (10, 0.001, 0.5, False, 0.001),
        (5, 0.001, 0.5, False, (0.05 - 0.001) * 0.5**0.5 + 0.001),
        (15, 0.001, 0.5, False, 0.001),
        (15, 0.001, 0.5, True, (0.05 - 0.001) * 0.25**0.5 + 0.001),
    ],
)
def test_polynomial_decay(step, end_lr, power, cycle, expected):
    close(schedules.PolynomialDecay(0.05, 10, end_lr, power=power, cycle=cycle)(step), expected)


def test_polynomial_begin_with_cycle():
    close(schedules.PolynomialDecay(0.001, 10, cycle=True)(0), 0.001)


@pytest.mark.parametrize("staircase", [False, True])
def test_inverse_time_decay(staircase):
    step = rt.Variable(0.0)
    decayed_lr = schedules.InverseTimeDecay(0.1, 10, 0.96, staircase=staircase)
    for i in range(11):
        fraction = (i // 10) if staircase else i / 10
        close(decayed_lr(step), 0.1 / (1 + 0.96 * fraction))
        step.assign(step + 1)


def np_cosine_decay(step, decay_steps, alpha=0.0):
    step = min(step, decay_steps)
    decay = 0.5 * (1.0 + math.cos(math.pi * step / decay_steps))
    return (1.0 - alpha) * decay + alpha


@pytest.mark.parametrize("initial_lr", [1.0, np.float64(1.0)])
@pytest.mark.parametrize("alpha", [0.0, 0.1])
def test_cosine_decay(alpha, initial_lr):
    for step in range(0, 1500, 250):
        close(
            schedules.CosineDecay(initial_lr, 1000, alpha)(step), np_cosine_decay(step, 1000, alpha)
        )


def linear_warmup(step, warmup_steps, initial_lr, target_lr):
    return step / warmup_steps * (target_lr - initial_lr)


def test_cosine_warmup():
    for step in range(0, 1500, 250):
        lr = schedules.CosineDecay(0.0, 10, warmup_target=10.0, warmup_steps=1500)
        close(lr(step), linear_warmup(step, 1500, 0.0, 10.0), rtol=1e-6)


def test_cosine_warmup_decay():
    for step in range(0, 3000, 250):
        lr = schedules.CosineDecay(0.0, 1000, warmup_target=10.0, warmup_steps=2000)
        if step < 2000 + 1:
            expected = linear_warmup(step, 2000, 0.0, 10.0)
        else:
            expected = 10.0 * np_cosine_decay(step - 2000, 1000)
        np.testing.assert_allclose(np.asarray(lr(step)), expected, rtol=1e-6, atol=1e-6)


def np_cosine_decay_restarts(step, decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0):
    fac = 1.0
    while step >= decay_steps:
        step -= decay_steps
        decay_steps *= t_mul
        fac *= m_mul
    decay = fac * 0.5 * (1.0 + math.cos(math.pi * step / decay_steps))
    return (1.0 - alpha) * decay + alpha


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"alpha": 0.1}, {"m_mul": 0.9}, {"t_mul": 1.0}],
    ids=["plain", "alpha", "mmul", "tmul"],
)
@pytest.mark.parametrize("initial_lr", [1.0, np.float64(1.0)])
def test_cosine_decay_restarts(kwargs, initial_lr):
    for step in range(0, 1500, 250):
        decayed_lr = schedules.CosineDecayRestarts(initial_lr, 1000, **kwargs)
        close(decayed_lr(step), np_cosine_decay_restarts(step, 1000, **kwargs), rtol=1e-5)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_a_users_schedule_from_keras_docs(staged):
    # keras.optimizers.schedules.LearningRateSchedule's own example: 0.1 / (step + 1) on the
    # optimizer's step (an int64 variable refused the float).
    import autograph as ag

    class MyLRSchedule(schedules.LearningRateSchedule):
        def __init__(self, initial_learning_rate):
            self.initial_learning_rate = initial_learning_rate

        def __call__(self, step):
            return self.initial_learning_rate / (step + 1)

    optimizer = rt.keras.optimizers.SGD(learning_rate=MyLRSchedule(0.1))
    w = rt.Variable(1.0)

    def step():
        optimizer.apply_gradients([(rt.constant(1.0), w)])

    step = ag.function(step) if staged else step
    for _ in range(3):
        step()
    close(w.numpy(), 1.0 - 0.1 - 0.1 / 2 - 0.1 / 3)
