"""Optimizers against Keras' documented update rules, written in numpy, eagerly and in a graph."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import autograph as ag
import runtime as rt

keras = rt.keras
START = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
GRADS = [np.array([[0.1, -0.2], [0.3, 0.0]]), np.array([[-0.5, 1.0], [0.2, 0.4]])] * 3


def sgd_reference(lr, momentum=0.0, nesterov=False, start=START, grads=GRADS):
    """The weight after ``grads``, and the slots (a float64 numpy run of Keras' rule)."""
    w, velocity = start.astype(np.float64), np.zeros_like(start, np.float64)
    for g in grads:
        if not momentum:
            w = w - lr * g
            continue
        velocity = momentum * velocity - lr * g
        w = w + (momentum * velocity - lr * g if nesterov else velocity)
    return w, ({"momentum": velocity} if momentum else {})


def adam_reference(
    lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, start=START, grads=GRADS
):
    w = start.astype(np.float64)
    m = v = vhat = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        lr_t = lr * np.sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m = beta_1 * m + (1 - beta_1) * g
        v = beta_2 * v + (1 - beta_2) * g * g
        vhat = np.maximum(vhat, v)
        w = w - lr_t * m / (np.sqrt(vhat if amsgrad else v) + epsilon)
    return w, ({"m": m, "v": v, "vhat": vhat} if amsgrad else {"m": m, "v": v})


def rmsprop_reference(
    lr=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, start=START, grads=GRADS
):
    """Keras 3's rule: epsilon under the square root, centered or not."""
    w = start.astype(np.float64)
    ms = mg = mom = np.zeros_like(w)
    for g in grads:
        ms = rho * ms + (1 - rho) * g * g
        mg = rho * mg + (1 - rho) * g
        denominator = np.sqrt((ms - mg * mg if centered else ms) + epsilon)
        if momentum:
            mom = momentum * mom + lr * g / denominator
            w = w - mom
        else:
            w = w - lr * g / denominator
    slots = {"rms": ms}
    if momentum:
        slots["momentum"] = mom
    if centered:
        slots["mg"] = mg
    return w, slots


RMSPROP_EPSILONS = (1e-7, 0.01)  # a large epsilon tells under the root from beside it
CASES = [
    ("sgd", lambda: keras.optimizers.SGD(0.1), partial(sgd_reference, 0.1)),
    (
        "sgd momentum",
        lambda: keras.optimizers.SGD(0.1, momentum=0.9),
        partial(sgd_reference, 0.1, 0.9),
    ),
    (
        "sgd nesterov",
        lambda: keras.optimizers.SGD(0.1, momentum=0.5, nesterov=True),
        partial(sgd_reference, 0.1, 0.5, True),
    ),
    ("adam", lambda: keras.optimizers.Adam(0.01), partial(adam_reference, 0.01)),
    (
        "adam betas",
        lambda: keras.optimizers.Adam(0.05, beta_1=0.5, beta_2=0.9, epsilon=1e-3),
        partial(adam_reference, 0.05, 0.5, 0.9, 1e-3),
    ),
    (
        "adam amsgrad",
        lambda: keras.optimizers.Adam(0.05, amsgrad=True),
        partial(adam_reference, 0.05, amsgrad=True),
    ),
] + [
    (
        f"rmsprop momentum={momentum} centered={centered} epsilon={epsilon}",
        partial(
            keras.optimizers.RMSprop,
            0.01,
            rho=0.8,
            momentum=momentum,
            epsilon=epsilon,
            centered=centered,
        ),
        partial(
            rmsprop_reference, 0.01, 0.8, momentum=momentum, epsilon=epsilon, centered=centered
        ),
    )
    for momentum in (0.0, 0.8)
    for centered in (False, True)
    for epsilon in RMSPROP_EPSILONS
]


def assert_state(optimizer, w, reference):
    expected, slots = reference
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5, atol=1e-6)
    for name, value in slots.items():
        np.testing.assert_allclose(optimizer.get_slot(w, name).numpy(), value, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("name", "make", "reference"), CASES, ids=[c[0] for c in CASES])
def test_eager_updates_follow_the_documented_rule(name, make, reference):
    w = rt.Variable(START)
    optimizer = make()
    for g in GRADS:
        optimizer.apply_gradients([(rt.constant(g.astype(np.float32)), w)])
    assert_state(optimizer, w, reference())
    assert int(optimizer.iterations.numpy()) == len(GRADS)


@pytest.mark.parametrize(("name", "make", "reference"), CASES, ids=[c[0] for c in CASES])
def test_updates_inside_a_traced_step_are_the_same(name, make, reference):
    w = rt.Variable(START)
    optimizer = make()
    step = ag.function(lambda g: optimizer.apply_gradients([(g, w)]))
    for g in GRADS:
        step(rt.constant(g.astype(np.float32)))
    assert_state(optimizer, w, reference())
    # A first trace that makes slots is traced again without making them; SGD without
    # momentum makes none (its iterations and learning rate exist from __init__, as in Keras 3).
    assert step.tracing_count == (2 if optimizer.slot_names else 1)


NON_FINITE = np.array([np.inf, np.nan, -np.inf, 1.5], np.float32)
NON_FINITE_GRADS = [np.array([0.5, -0.25, 1.0, 2.0])] * 2


@pytest.mark.parametrize(("name", "make", "reference"), CASES, ids=[c[0] for c in CASES])
def test_slots_start_at_zero_whatever_the_weight_holds(name, make, reference):
    # Keras' slots are zeros of the weight's shape and dtype: an inf or NaN weight stays as
    # the rule makes it (inf - finite = inf), and its slots stay finite.
    w = rt.Variable(NON_FINITE)
    optimizer = make()
    for g in NON_FINITE_GRADS:
        optimizer.apply_gradients([(rt.constant(g.astype(np.float32)), w)])
    expected, slots = reference(start=NON_FINITE, grads=NON_FINITE_GRADS)
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5)  # NaN where NaN, inf where inf
    for name, value in slots.items():
        slot = optimizer.get_slot(w, name)
        assert slot.dtype is w.dtype and np.isfinite(value).all()
        np.testing.assert_allclose(slot.numpy(), value, rtol=1e-5)


def test_state_lives_in_named_variables_made_once():
    w = rt.Variable(START, name="w")
    adam = keras.optimizers.Adam()
    adam.apply_gradients([(rt.ones([2, 2]), w)])
    adam.apply_gradients([(rt.ones([2, 2]), w)])
    names = [v.name for v in adam.variables]
    assert names == ["Adam/iter:0", "Adam/learning_rate:0", "Adam/w/m:0", "Adam/w/v:0"]
    np.testing.assert_allclose(adam.get_slot(w, "m").numpy(), 0.19, rtol=1e-6)  # 0.1 + 0.9 * 0.1


def test_the_learning_rate_can_change_between_steps_without_retracing():
    w = rt.Variable(1.0)
    sgd = keras.optimizers.SGD(0.1)
    step = ag.function(lambda: sgd.apply_gradients([(rt.constant(1.0), w)]))
    step()
    sgd.learning_rate = 0.5
    step()
    assert float(w.numpy()) == pytest.approx(1.0 - 0.1 - 0.5)
    assert step.tracing_count == 1  # the learning rate is a variable, made with the optimizer


def test_variables_without_a_gradient_are_skipped_and_none_at_all_is_an_error():
    a, b = rt.Variable(1.0, name="a"), rt.Variable(2.0, name="b")
    with pytest.warns(
        UserWarning, match="Gradients do not exist for variables \\['b:0'\\]"
    ) as seen:
        keras.optimizers.SGD(1.0).apply_gradients([(rt.constant(0.5), a), (None, b)])
    assert seen[0].filename == __file__  # the warning points at the user's call
    assert (float(a.numpy()), float(b.numpy())) == (0.5, 2.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable: \\['a:0'\\]"):
        keras.optimizers.SGD().apply_gradients([(None, a)])


def test_minimize_computes_and_applies_the_gradients():
    w = rt.Variable(3.0)
    sgd = keras.optimizers.SGD(0.25)
    for _ in range(20):
        sgd.minimize(lambda: (w - 1.0) ** 2, [w])
    assert float(w.numpy()) == pytest.approx(1.0, abs=1e-5)


def test_optimizers_by_name():
    assert type(keras.optimizers.get("sgd")) is keras.optimizers.SGD
    assert type(keras.optimizers.get("Adam")) is keras.optimizers.Adam
    assert type(keras.optimizers.get("rmsprop")) is keras.optimizers.RMSprop
    assert float(keras.optimizers.get("rmsprop").learning_rate.numpy()) == pytest.approx(0.001)
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier: .adagrd."):
        keras.optimizers.get("adagrd")


def test_adam_steps_a_variable_passed_to_a_traced_function_as_it_steps_it_eagerly():
    # The guide's "multiple Keras optimizers" step: the variable is an argument, which the traced
    # body sees as a stand-in; its slots must be the variable's own on every trace and call.

    def step(w, optimizer):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.square(w * rt.constant([-1.0]) - rt.constant([2.0])))
        optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

    traced_w, eager_w = rt.Variable(2.0), rt.Variable(2.0)
    traced_opt = rt.keras.optimizers.Adam(learning_rate=0.1)
    eager_opt = rt.keras.optimizers.Adam(learning_rate=0.1)
    traced_step = ag.function(step)
    for _ in range(3):
        traced_step(traced_w, traced_opt)
        step(eager_w, eager_opt)
    np.testing.assert_allclose(traced_w.numpy(), eager_w.numpy(), rtol=1e-6)
    np.testing.assert_allclose(
        traced_opt.get_slot(traced_w, "m").numpy(), eager_opt.get_slot(eager_w, "m").numpy()
    )


def test_one_traced_step_never_updates_a_second_variable_with_the_first_ones_slots():
    # A graph serves any variable of its spec; the optimizer's slots are per variable. So once
    # an optimizer asks which variable an argument is, the step is traced per variable; a later
    # variable would make its slots on a later trace, which ag.function refuses (as TensorFlow's
    # Keras refuses a variable it was not built with) rather than reuse the first one's.
    opt = rt.keras.optimizers.Adam(0.1)

    @ag.function
    def step(var):
        with rt.GradientTape() as tape:
            loss = (var - 3.0) ** 2
        opt.apply_gradients(zip(tape.gradient(loss, [var]), [var]))

    a, b, eager_a = rt.Variable(0.0), rt.Variable(10.0), rt.Variable(0.0)
    eager_opt = rt.keras.optimizers.Adam(0.1)
    for _ in range(2):
        step(a)
        with rt.GradientTape() as tape:
            loss = (eager_a - 3.0) ** 2
        eager_opt.apply_gradients(zip(tape.gradient(loss, [eager_a]), [eager_a]))
    np.testing.assert_allclose(a.numpy(), eager_a.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="singleton"):
        step(b)
    assert b.numpy() == 10.0
